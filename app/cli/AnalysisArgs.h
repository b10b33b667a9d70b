#pragma once
// Command-line options shared by `analyze` and `diff`: model FLOPs, device, precision, thresholds
// config and output format, parsed into analysis::AnalysisOptions.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/Commands.h"
#include "core/analysis/devices/DeviceDatabase.h"
#include "core/analysis/diagnosis/Analyzer.h"

namespace chokepoint::cli {

struct AnalysisArgs {
    std::vector<std::string> files;
    std::optional<double> modelFlops;
    std::optional<double> params;
    std::optional<double> tokensPerStep;
    std::optional<double> peakMemory;
    bool outOfMemory = false;
    std::string device;
    std::optional<std::int16_t> deviceIndex;  // --device-index: analyse that GPU alone
    std::string precision;
    std::string configPath;
    std::string format = "text";
    std::string output;
    bool help = false;
    bool printConfig = false;
    bool explain = false;
    bool allSteps = false;
    bool noSnippets = false;
};

// Parses `args`; `fileCount` positional files are required (unless --help / --print-config); 0:
// one or more (a job).
// On failure returns false with `error` set.
bool parseAnalysisArgs(const Args& args, std::size_t fileCount, AnalysisArgs& out, std::string& error);

// A number with an optional suffix k, M, G or B (1e9), T: "7B", "1.2e15", "4k". nullopt if invalid.
std::optional<double> parseScaledNumber(const std::string& text);

// Everything analyzeTrace needs; owns the device database the options point into.
struct AnalysisSetup {
    std::unique_ptr<analysis::DeviceDatabase> devices;
    analysis::AnalysisOptions options;
};

// Loads the config file and the device database and fills `setup`. Prints the error and returns
// the exit code on failure, kExitOk on success.
int prepareAnalysis(const AnalysisArgs& args, AnalysisSetup& setup);

// --device-index N names a GPU that did work in `model`; otherwise prints which GPUs did and
// returns kExitUsage (a wrong argument, not a failed analysis). kExitOk when no index is given.
int checkDeviceIndex(const core::TraceModel& model, const AnalysisSetup& setup, const std::string& path,
                     const char* command);

// Writes `text` to `path` (stdout when empty). Returns the exit code.
int writeOutput(const std::string& path, const std::string& text, const char* command);

}  // namespace chokepoint::cli
