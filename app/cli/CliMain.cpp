// chokepoint-cli: the analyzer and collector front end for terminals and headless training nodes.

#include <cstdio>
#include <cstring>
#include <string>

#include "app/cli/Commands.h"
#include "app/cli/ExitCodes.h"
#include "chokepoint/BuildId.h"
#include "chokepoint/Version.h"

namespace chokepoint::cli {

// Each command's entry point lives in its own file.
int runInfo(const Args& args);
int runConvert(const Args& args);
int runAnalyze(const Args& args);
int runDiff(const Args& args);
int runRun(const Args& args);
int runLaunch(const Args& args);
int runList(const Args& args);
int runAttach(const Args& args);
int runCalibrate(const Args& args);
int runSummarize(const Args& args);
int runDoctor(const Args& args);

const std::vector<Command>& commands() {
    static const std::vector<Command> kCommands = {
        {"info", "what is in a trace: devices, ranks, time span, steps, event counts, warnings", runInfo},
        {"convert", "convert any supported trace to .cptrace or Chrome-trace JSON", runConvert},
        {"analyze", "why the training job is slow: D-A-M verdict, MFU, fixes; several ranks: stragglers",
         runAnalyze},
        {"diff", "compare two traces (before/after, two ranks) or two jobs: deltas, verdicts, kernels",
         runDiff},
        {"summarize", "one rank's trace to a small .cpsum summary for job analysis on a cluster",
         runSummarize},
        {"run", "run a training command with the agent and record it (--steps N | --duration S)", runRun},
        {"launch", "run a training command with a dormant agent, to attach to later", runLaunch},
        {"list", "live agents: pid, state, GPU, command", runList},
        {"attach", "record a window from a launched process into a .cptrace", runAttach},
        {"calibrate", "measure this machine's GEMM and copy ceilings into a device entry", runCalibrate},
        {"doctor", "check a training node before a capture: driver, CUPTI, agent, permissions", runDoctor},
    };
    return kCommands;
}

}  // namespace chokepoint::cli

namespace {

void printUsage(std::FILE* out) {
    std::fprintf(out,
                 "Usage: chokepoint-cli COMMAND [ARGS...]\n"
                 "       chokepoint-cli COMMAND --help\n\n"
                 "Chokepoint tells you why a GPU training job is slow and what to change.\n\nCommands:\n");
    for (const auto& command : chokepoint::cli::commands()) {
        std::fprintf(out, "  %-10s %s\n", command.name, command.summary);
    }
    std::fprintf(out,
                 "\nExit codes: 0 success, 1 unreadable or invalid input (the message names the file and\n"
                 "place), 2 wrong arguments, 3 other failure, 4 no such agent or process, 130 cancelled.\n");
}

}  // namespace

int main(int argc, char** argv) {
    using namespace chokepoint::cli;
    if (argc < 2) {
        printUsage(stderr);
        return kExitUsage;
    }
    std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        printUsage(stdout);
        return kExitOk;
    }
    if (name == "--version") {
        std::printf("chokepoint-cli %s (build %s)\n", chokepoint::kVersion, chokepoint::buildId());
        return kExitOk;
    }
    Args args(argv + 2, argv + argc);
    for (const auto& command : commands()) {
        if (name == command.name) {
            return command.run(args);
        }
    }
    std::fprintf(stderr, "chokepoint-cli: unknown command '%s'\n\n", name.c_str());
    printUsage(stderr);
    return kExitUsage;
}
