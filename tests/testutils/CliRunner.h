#pragma once
// Runs the built chokepoint-cli with arguments (through the shell, so quoting and globs work as a
// user's would) and returns its exit code and its stdout and stderr together.

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

namespace chokepoint::testutils {

struct CliResult {
    int exitCode = -1;
    std::string out;  // stdout and stderr together
};

inline std::string cliPath() {
    return std::string(CHOKEPOINT_BINARY_DIR) + "/bin/chokepoint-cli";
}

inline bool cliBuilt() {
    return std::filesystem::exists(cliPath());
}

inline CliResult runCli(const std::string& arguments) {
    CliResult result;
    FILE* pipe = popen((cliPath() + " " + arguments + " 2>&1").c_str(), "r");
    if (pipe == nullptr) {
        return result;
    }
    std::array<char, 4096> buffer{};
    while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) {
        result.out.append(buffer.data(), n);
    }
    const int status = pclose(pipe);
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

}  // namespace chokepoint::testutils
