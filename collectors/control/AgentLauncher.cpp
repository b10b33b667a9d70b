#include "collectors/control/AgentLauncher.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

extern char** environ;

// 1 when this build also built the agent (CUPTI found at configure time). The agent is looked up
// beside the executable only: no build-tree path is baked in (installs and .deb stay relocatable).
#ifndef CHOKEPOINT_AGENT_BUILT
#define CHOKEPOINT_AGENT_BUILT 0
#endif

namespace chokepoint::collectors {

namespace {

bool isFile(const std::string& path) {
    std::error_code ec;
    return !path.empty() && std::filesystem::is_regular_file(path, ec);
}

std::string envValue(const std::vector<std::string>& env, const std::string& name) {
    std::string prefix = name + "=";
    for (const auto& e : env) {
        if (e.compare(0, prefix.size(), prefix) == 0) {
            return e.substr(prefix.size());
        }
    }
    return {};
}

void setEnv(std::vector<std::string>& env, const std::string& name, const std::string& value) {
    std::string prefix = name + "=";
    for (auto& e : env) {
        if (e.compare(0, prefix.size(), prefix) == 0) {
            e = prefix + value;
            return;
        }
    }
    env.push_back(prefix + value);
}

}  // namespace

std::string selfExecutablePath() {
    std::error_code ec;
    auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : p.string();
}

core::Result<std::string> findAgentLibrary(const std::string& executablePath) {
    constexpr const char* kName = "libchokepoint_agent.so";
    if (const char* env = std::getenv("CHOKEPOINT_AGENT_PATH"); env != nullptr && *env != '\0') {
        if (isFile(env)) {
            return std::string(env);
        }
        return core::makeError(std::string("CHOKEPOINT_AGENT_PATH=") + env + ": no such file");
    }
    std::vector<std::string> tried;
    if (!executablePath.empty()) {
        std::filesystem::path dir = std::filesystem::path(executablePath).parent_path();
        for (const auto& candidate : {dir / kName, dir / ".." / "lib" / kName, dir / ".." / "bin" / kName,
                                      dir / ".." / "lib" / "chokepoint" / kName}) {
            std::string path = candidate.lexically_normal().string();
            if (isFile(path)) {
                return path;
            }
            tried.push_back(path);
        }
    }
    if (!CHOKEPOINT_AGENT_BUILT) {
        return core::makeError(
            "the Chokepoint CUDA agent (libchokepoint_agent.so) is not part of this build: it was configured "
            "without the CUDA toolkit/CUPTI (CHOKEPOINT_HAVE_CUPTI is OFF). Rebuild on a machine with the "
            "CUDA "
            "toolkit, or point CHOKEPOINT_AGENT_PATH at an agent built elsewhere.");
    }
    std::string list;
    for (const auto& t : tried) {
        list += "\n  " + t;
    }
    return core::makeError("libchokepoint_agent.so not found; looked in:" + list +
                           "\nSet CHOKEPOINT_AGENT_PATH to its location.");
}

core::Result<std::string> findPythonSiteFolder(const std::string& executablePath) {
    std::vector<std::filesystem::path> candidates;
    if (const char* env = std::getenv("CHOKEPOINT_PYTHON_DIR"); env != nullptr && *env != '\0') {
        candidates.push_back(std::filesystem::path(env) / "site");
    }
    if (!executablePath.empty()) {
        std::filesystem::path dir = std::filesystem::path(executablePath).parent_path();
        candidates.push_back(dir / ".." / "share" / "chokepoint" / "python" / "site");
        candidates.push_back(dir / ".." / "python" / "site");
    }
    std::string tried;
    for (const auto& c : candidates) {
        std::string path = c.lexically_normal().string();
        if (isFile(path + "/sitecustomize.py")) {
            return path;
        }
        tried += "\n  " + path;
    }
    return core::makeError(
        "Chokepoint's Python start-up hook (sitecustomize.py) was not found; looked in:" + tried +
        "\nSet CHOKEPOINT_PYTHON_DIR to the folder holding chokepoint_stacks.py and site/.");
}

std::vector<std::pair<std::string, std::string>> pythonStacksEnvironment(const std::vector<std::string>& base,
                                                                         const std::string& siteFolder,
                                                                         const std::string& outputFolder,
                                                                         int hz, bool fromStart) {
    std::string pythonPath = envValue(base, "PYTHONPATH");
    std::vector<std::pair<std::string, std::string>> out = {
        {"PYTHONPATH", pythonPath.empty() ? siteFolder : siteFolder + ":" + pythonPath},
        {"CHOKEPOINT_PYSTACKS_DIR", outputFolder},
        {"CHOKEPOINT_PYSTACKS_HZ", std::to_string(hz)},
    };
    if (fromStart) {
        out.emplace_back("CHOKEPOINT_PYSTACKS_ALWAYS", "1");
    }
    return out;
}

std::vector<std::string> currentEnvironment() {
    std::vector<std::string> env;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
        env.emplace_back(*e);
    }
    return env;
}

core::Result<std::vector<std::string>> injectionEnvironment(
    const std::vector<std::string>& base, const std::string& agentPath,
    const std::vector<std::pair<std::string, std::string>>& extra) {
    std::vector<std::string> env = base;
    std::string existing = envValue(env, "CUDA_INJECTION64_PATH");
    if (!existing.empty() && existing != agentPath && existing != "none") {
        return core::makeError(
            "CUDA_INJECTION64_PATH is already set to '" + existing +
            "' (Nsight Systems or Nsight Compute?). Only one CUDA injection library can be "
            "loaded; run the job without that tool, or unset the variable.");
    }
    setEnv(env, "CUDA_INJECTION64_PATH", agentPath);
    setEnv(env, "NVTX_INJECTION64_PATH", agentPath);
    for (const auto& [name, value] : extra) {
        setEnv(env, name, value);
    }
    return env;
}

core::Result<pid_t> spawnProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
    if (argv.empty()) {
        return core::makeError("no command to run");
    }
    std::vector<char*> args;
    std::vector<std::string> argCopy = argv;
    for (auto& a : argCopy) {
        args.push_back(a.data());
    }
    args.push_back(nullptr);
    std::vector<std::string> envCopy = env;
    std::vector<char*> envp;
    for (auto& e : envCopy) {
        envp.push_back(e.data());
    }
    envp.push_back(nullptr);
    // The caller may ignore SIGINT/SIGQUIT while it waits (so Ctrl-C reaches only the job), and an
    // ignored signal stays ignored across exec: give the job the default actions and an empty
    // signal mask, as a shell would, or Ctrl-C could never stop it.
    posix_spawnattr_t attributes;
    ::posix_spawnattr_init(&attributes);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int signal : {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE}) {
        sigaddset(&defaults, signal);
    }
    sigset_t noMask;
    sigemptyset(&noMask);
    ::posix_spawnattr_setsigdefault(&attributes, &defaults);
    ::posix_spawnattr_setsigmask(&attributes, &noMask);
    ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    // PATH lookup must use the child's PATH, which posix_spawnp takes from our environment.
    pid_t pid = 0;
    int rc = ::posix_spawnp(&pid, argCopy[0].c_str(), nullptr, &attributes, args.data(), envp.data());
    ::posix_spawnattr_destroy(&attributes);
    if (rc != 0) {
        return core::makeError("cannot start '" + argv[0] + "': " + std::strerror(rc));
    }
    return pid;
}

int waitForExit(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            return 127;
        }
    }
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    if (WIFSIGNALED(status)) {
        return 128 + WTERMSIG(status);
    }
    return 1;
}

}  // namespace chokepoint::collectors
