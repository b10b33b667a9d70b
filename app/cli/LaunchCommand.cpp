// chokepoint-cli launch: start a command with a dormant agent, to attach to later.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "app/cli/CaptureArgs.h"
#include "app/cli/Commands.h"
#include "app/cli/ExitCodes.h"
#include "app/cli/JobStart.h"
#include "collectors/control/AgentLauncher.h"
#include "collectors/control/RuntimeDir.h"

namespace chokepoint::cli {

namespace {

void printLaunchUsage(std::FILE* out) {
    std::fprintf(out,
                 "Usage: chokepoint-cli launch [--socket-dir DIR] [--no-python-stacks] [--python-hz N]\n"
                 "                             -- COMMAND [ARGS...]\n\n"
                 "Runs COMMAND with the Chokepoint agent loaded but dormant: no CUPTI, no tracing, only a\n"
                 "control socket per CUDA process. Record a window at any time from another terminal with\n"
                 "  chokepoint-cli list\n"
                 "  chokepoint-cli attach PID --steps 10 -o trace.cptrace\n"
                 "The window's options (--delay, --after-steps, --steps, --gpu-metrics...) go to attach.\n"
                 "While a window is recorded, every Python process of the job samples its threads' stacks\n"
                 "(100 per second by default; none while dormant). launch returns when COMMAND exits, with\n"
                 "its exit status.\n");
}

}  // namespace

int runLaunch(const Args& args) {
    std::vector<std::string> command;
    std::string socketDir = collectors::defaultRuntimeDir();
    PythonStacksArgs python;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") {
            command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
            break;
        }
        if (a == "--help" || a == "-h") {
            printLaunchUsage(stdout);
            return kExitOk;
        }
        if (a == "--socket-dir" && i + 1 < args.size()) {
            socketDir = args[++i];
            continue;
        }
        if (std::string error; int consumed = parsePythonStacksOption(args, i, python, &error)) {
            if (consumed < 0) {
                std::fprintf(stderr, "chokepoint-cli launch: %s\n", error.c_str());
                return kExitUsage;
            }
            continue;
        }
        // A recording's option (--delay, --after-steps, -o...) is a common first try: say where it goes.
        if (a.rfind("-", 0) == 0) {
            CaptureWindowArgs window;  // parsed only to recognise the option
            std::size_t probe = i;
            std::string ignored;
            const bool output = a == "-o" || a == "--output";
            if (output || parseWindowOption(args, probe, window, &ignored) != 0) {
                const std::string example = output ? a + " trace.cptrace" : a + " ... -o trace.cptrace";
                std::fprintf(
                    stderr,
                    "chokepoint-cli launch: %s is an option of a recording, and launch records nothing "
                    "itself: start the job with launch, then give it to attach, e.g.\n"
                    "  chokepoint-cli attach PID %s\n"
                    "or record from the start with chokepoint-cli run %s -- COMMAND\n",
                    a.c_str(), example.c_str(), example.c_str());
                return kExitUsage;
            }
        }
        std::fprintf(stderr,
                     "chokepoint-cli launch: unexpected argument '%s' (the command goes after --)\n\n",
                     a.c_str());
        printLaunchUsage(stderr);
        return kExitUsage;
    }
    if (command.empty()) {
        std::fprintf(stderr, "chokepoint-cli launch: no command given\n\n");
        printLaunchUsage(stderr);
        return kExitUsage;
    }
    core::Result<std::string> agent = collectors::findAgentLibrary(collectors::selfExecutablePath());
    if (!agent.ok()) {
        std::fprintf(stderr, "chokepoint-cli launch: %s\n", agent.error().message.c_str());
        return kExitFailure;
    }
    if (core::Status dir = collectors::ensureRuntimeDir(socketDir, true); !dir.ok()) {
        std::fprintf(stderr, "chokepoint-cli launch: %s\n", dir.error().message.c_str());
        return kExitFailure;
    }
    std::vector<std::pair<std::string, std::string>> extra = {{"CHOKEPOINT_SOCKET_DIR", socketDir}};
    // Python stacks while an attach records (the agent marks it beside its socket); attach reads
    // them from <socket dir>/pystacks-<launch pid>/, which goes away with the job.
    std::string stacksDir;
    if (python.enabled) {
        core::Result<std::string> site = collectors::findPythonSiteFolder(collectors::selfExecutablePath());
        if (site.ok()) {
            stacksDir = socketDir + "/pystacks-" + std::to_string(::getpid());
            for (auto& entry : collectors::pythonStacksEnvironment(
                     collectors::currentEnvironment(), site.value(), stacksDir, python.hz, false)) {
                extra.push_back(std::move(entry));
            }
        } else {
            std::fprintf(stderr, "chokepoint-cli launch: no Python stacks: %s\n",
                         site.error().message.c_str());
        }
    }
    std::optional<StartedJob> job = startJobWithAgent("launch", agent.value(), extra, command);
    if (!job) {
        return kExitFailure;
    }
    std::fprintf(stderr,
                 "chokepoint-cli launch: started %s (pid %d) with a dormant agent.\n"
                 "  Each process that initialises CUDA opens %s/<pid>.sock.\n"
                 "  From another terminal: chokepoint-cli list; chokepoint-cli attach PID --steps 10 -o "
                 "trace.cptrace\n",
                 command[0].c_str(), static_cast<int>(job->pid), socketDir.c_str());
    int status = waitForJob(*job);
    if (!stacksDir.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(stacksDir, ec);
    }
    return status;
}

}  // namespace chokepoint::cli
