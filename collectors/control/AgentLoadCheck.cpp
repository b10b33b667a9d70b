#include "collectors/control/AgentLoadCheck.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

namespace chokepoint::collectors {

namespace {

std::string findLoader() {
    for (const char* candidate : {"/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"}) {
        if (::access(candidate, X_OK) == 0) {
            return candidate;
        }
    }
    return {};
}

}  // namespace

bool loaderOutputSaysLoadable(const std::string& output, int exitStatus, std::string* complaints) {
    std::istringstream lines(output);
    std::string line;
    std::string found;
    while (std::getline(lines, line)) {
        if (line.find("not found") != std::string::npos || line.find("error") != std::string::npos ||
            line.find("cannot") != std::string::npos) {
            std::size_t first = line.find_first_not_of(" \t");
            found += "\n  " + (first == std::string::npos ? line : line.substr(first));
        }
    }
    if (exitStatus != 0 && found.empty()) {
        found = "\n  the dynamic loader exited with status " + std::to_string(exitStatus);
    }
    if (complaints != nullptr) {
        *complaints = found;
    }
    return found.empty();
}

AgentLoadReport checkAgentLoads(const std::string& agentPath, const std::vector<std::string>& env) {
    AgentLoadReport report;
    report.loader = findLoader();
    if (report.loader.empty()) {
        return report;
    }
    int fds[2] = {-1, -1};
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        return report;
    }
    std::vector<std::string> envCopy = env;
    envCopy.emplace_back("LD_BIND_NOW=1");
    std::vector<char*> envp;
    for (auto& e : envCopy) {
        envp.push_back(e.data());
    }
    envp.push_back(nullptr);
    std::string loader = report.loader, list = "--list", agent = agentPath;
    char* argv[] = {loader.data(), list.data(), agent.data(), nullptr};
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    ::posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    pid_t pid = 0;
    int rc = ::posix_spawn(&pid, loader.c_str(), &actions, nullptr, argv, envp.data());
    ::posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        return report;
    }
    std::string output;
    char buffer[4096];
    for (;;) {
        ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0 || output.size() > (1u << 20)) {
            break;
        }
        output.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const int exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    report.checked = true;
    report.loads = loaderOutputSaysLoadable(output, exitStatus, &report.details);
    return report;
}

}  // namespace chokepoint::collectors
