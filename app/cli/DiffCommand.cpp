// `chokepoint-cli diff A B`: analyses two traces (before/after a change, or two ranks) and prints
// per-metric deltas, verdict changes, kernels that got slower or faster, and whether the first
// trace's top fix delivered its predicted gain.

#include <cstdio>
#include <string>

#include "app/cli/AnalysisArgs.h"
#include "app/cli/Commands.h"
#include "app/cli/ExitCodes.h"
#include "app/cli/JobCommands.h"
#include "core/analysis/diagnosis/Compare.h"
#include "core/import/TraceLoader.h"

namespace chokepoint::cli {

namespace {

constexpr const char* kDiffUsage =
    "Usage: chokepoint-cli diff A B [options]\n"
    "       chokepoint-cli diff JOB_A JOB_B   (each a folder or a quoted glob of rank traces/.cpsum)\n\n"
    "Compares two traces (A = before / rank i, B = after / rank j): step time, GPU busy, MFU, idle\n"
    "by cause and time shares; verdict changes overall and per phase; kernels (matched by name)\n"
    "that got slower or faster; and whether A's top recommended fix delivered its predicted gain.\n\n"
    "Options (applied to both traces):\n"
    "  --model-flops F | --params N --tokens-per-step T   model FLOPs per step (for MFU)\n"
    "  --device NAME     datasheet to use        --precision P   peak precision for MFU\n"
    "  --config FILE     thresholds              --format text|json|markdown (default text)\n"
    "  --json            the same as --format json\n"
    "  --output FILE     write to FILE instead of stdout\n"
    "  --device-index N  compare GPU N of each trace alone\n\n"
    "Exit codes: 0 success, 1 unreadable or invalid trace or config, 2 wrong arguments,\n"
    "3 other failure, 130 cancelled.\n";

int analyzeOne(const std::string& path, const AnalysisSetup& setup,
               std::shared_ptr<const analysis::AnalysisReport>& out) {
    core::Result<core::TraceModel> model = core::loadTrace(path);
    if (!model) {
        std::fprintf(stderr, "chokepoint-cli diff: %s\n", model.error().message.c_str());
        return model.error().message == core::kCancelledMessage ? kExitCancelled : kExitBadInput;
    }
    if (const int code = checkDeviceIndex(model.value(), setup, path, "diff"); code != kExitOk) {
        return code;
    }
    auto shared = std::make_shared<const core::TraceModel>(std::move(model.value()));
    analysis::AnalysisOptions options = setup.options;
    options.sourcePath = path;
    core::Result<std::shared_ptr<const analysis::AnalysisReport>> report =
        analysis::analyzeTrace(shared, options);
    if (!report) {
        std::fprintf(stderr, "chokepoint-cli diff: %s: %s\n", path.c_str(), report.error().message.c_str());
        return report.error().message == core::kCancelledMessage ? kExitCancelled : kExitFailure;
    }
    out = report.value();
    return kExitOk;
}

}  // namespace

int runDiff(const Args& rawArgs) {
    Args args = rawArgs;
    JobArgs jobArgs;
    std::string jobError;
    if (!extractJobArgs(args, jobArgs, jobError)) {
        std::fprintf(stderr, "chokepoint-cli diff: %s\n", jobError.c_str());
        return kExitUsage;
    }
    AnalysisArgs parsed;
    std::string error;
    if (!parseAnalysisArgs(args, 2, parsed, error)) {
        std::fprintf(stderr, "chokepoint-cli diff: %s\n\n%s", error.c_str(), kDiffUsage);
        return kExitUsage;
    }
    if (parsed.help) {
        std::fputs(kDiffUsage, stdout);
        return kExitOk;
    }
    if (parsed.format.rfind("csv", 0) == 0) {
        std::fprintf(stderr, "chokepoint-cli diff: --format must be text, json or markdown\n\n%s",
                     kDiffUsage);
        return kExitUsage;
    }
    if (parsed.printConfig) {
        std::fputs(analysis::describeDiagnosisConfig(analysis::DiagnosisConfig{}).c_str(), stdout);
        return kExitOk;
    }
    // A and B are jobs when either is a folder, a glob or a .cpsum summary.
    if (isJobInvocation({parsed.files[0]}) || isJobInvocation({parsed.files[1]})) {
        if (parsed.deviceIndex) {
            std::fprintf(stderr, "chokepoint-cli diff: --device-index applies to two traces, not to jobs\n");
            return kExitUsage;
        }
        return runDiffJobs(parsed, jobArgs);
    }
    AnalysisSetup setup;
    if (const int code = prepareAnalysis(parsed, setup); code != kExitOk) {
        return code;
    }
    std::shared_ptr<const analysis::AnalysisReport> before, after;
    if (const int code = analyzeOne(parsed.files[0], setup, before); code != kExitOk) {
        return code;
    }
    if (const int code = analyzeOne(parsed.files[1], setup, after); code != kExitOk) {
        return code;
    }
    const analysis::ComparisonReport comparison = analysis::compareReports(*before, *after);
    std::string text;
    if (parsed.format == "json") {
        text = analysis::writeJsonComparison(comparison);
    } else if (parsed.format == "markdown") {
        text = analysis::writeMarkdownComparison(comparison);
    } else {
        text = analysis::writeTextComparison(comparison);
    }
    return writeOutput(parsed.output, text, "diff");
}

}  // namespace chokepoint::cli
