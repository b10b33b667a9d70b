// chokepoint-cli list: the live agents of this user (pid, state, GPU, command).

#include <cstdio>
#include <string>

#include "app/cli/Commands.h"
#include "app/cli/ExitCodes.h"
#include "collectors/control/AgentDirectory.h"
#include "collectors/control/RuntimeDir.h"

namespace chokepoint::cli {

namespace {

const char* stateName(control::AgentState state) {
    switch (state) {
        case control::AGENT_STATE_DORMANT:
            return "dormant";
        case control::AGENT_STATE_ARMED:
            return "armed";
        case control::AGENT_STATE_CAPTURING:
            return "capturing";
        case control::AGENT_STATE_DRAINING:
            return "draining";
        default:
            return "unknown";
    }
}

}  // namespace

int runList(const Args& args) {
    std::string dir = collectors::defaultRuntimeDir();
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--help" || args[i] == "-h") {
            std::printf(
                "Usage: chokepoint-cli list [--socket-dir DIR]\n\n"
                "Lists processes running with a Chokepoint agent (started by `chokepoint-cli launch` or\n"
                "`run`) and removes sockets left behind by processes that are gone.\n");
            return kExitOk;
        }
        if (args[i] == "--socket-dir" && i + 1 < args.size()) {
            dir = args[++i];
            continue;
        }
        std::fprintf(stderr, "chokepoint-cli list: unexpected argument '%s'\n", args[i].c_str());
        return kExitUsage;
    }
    collectors::AgentListing listing = collectors::listAgents(dir, true);
    if (!listing.error.empty()) {
        std::fprintf(stderr, "chokepoint-cli list: %s\n", listing.error.c_str());
        return kExitFailure;
    }
    for (const auto& removed : listing.removedStale) {
        std::fprintf(stderr, "removed stale socket %s\n", removed.c_str());
    }
    if (listing.agents.empty()) {
        std::printf(
            "No live Chokepoint agents in %s.\n"
            "Start a job with `chokepoint-cli launch -- COMMAND` to be able to attach to it.\n",
            dir.c_str());
        return kExitOk;
    }
    std::printf("%-8s %-10s %-28s %s\n", "PID", "STATE", "GPU", "COMMAND");
    for (const auto& agent : listing.agents) {
        if (!agent.responded) {
            std::printf("%-8ld %-10s %-28s (%s)\n", agent.pid, "no answer", "-", agent.error.c_str());
            continue;
        }
        const auto& s = agent.status;
        std::string gpu = s.gpu_names_size() == 0 ? "-" : s.gpu_names(0);
        if (s.gpu_names_size() > 1) {
            gpu += " (+" + std::to_string(s.gpu_names_size() - 1) + ")";
        }
        std::string command;
        for (const auto& arg : s.command_line()) {
            command += (command.empty() ? "" : " ") + arg;
        }
        if (command.size() > 100) {
            command = command.substr(0, 97) + "...";
        }
        std::string state = stateName(s.state());
        if (!s.cupti_available()) {
            state += "*";
        }
        std::printf("%-8ld %-10s %-28s %s\n", agent.pid, state.c_str(), gpu.c_str(), command.c_str());
    }
    return kExitOk;
}

}  // namespace chokepoint::cli
