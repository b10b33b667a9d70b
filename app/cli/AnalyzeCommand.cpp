// `chokepoint-cli analyze FILE`: loads a trace, runs the whole analysis (steps, accounting, MFU,
// D·A·M verdicts, recommended fixes) and prints the report as text, JSON or Markdown.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "app/cli/AnalysisArgs.h"
#include "app/cli/Commands.h"
#include "app/cli/ExitCodes.h"
#include "app/cli/JobCommands.h"
#include "core/analysis/diagnosis/Analyzer.h"
#include "core/analysis/diagnosis/CsvTables.h"
#include "core/analysis/diagnosis/ReportWriters.h"
#include "core/import/TraceLoader.h"
#include "core/job/RankSplit.h"

namespace chokepoint::cli {

namespace {

constexpr const char* kAnalyzeUsage =
    "Usage: chokepoint-cli analyze FILE [options]\n"
    "       chokepoint-cli analyze FILE FILE... | FOLDER | 'GLOB' [options]   (a job of several ranks)\n\n"
    "Says which resource holds the training job back (D-A-M verdict with evidence), MFU, and the\n"
    "recommended fixes with the gain expected from this trace.\n"
    "FILE: PyTorch profiler / Kineto JSON (.json, .json.gz), Nsight Systems SQLite or .cptrace.\n\n"
    "Options:\n"
    "  --model-flops F          useful model FLOPs per training step (forward + backward)\n"
    "  --params N               parameters (with --tokens-per-step: O_model = 6 N T per step)\n"
    "  --tokens-per-step T      tokens per step over all micro-batches of one rank\n"
    "  --device NAME            datasheet to use (id or name, e.g. h100-sxm); default: matched\n"
    "  --device-index N         analyse GPU N alone (its work and the threads that launch on it);\n"
    "                           default: the whole trace, verdicts for the busiest GPU, and one\n"
    "                           line per GPU when several did work\n"
    "  --precision P            peak precision for MFU: fp64, fp32, tf32, bf16, fp16, fp8\n"
    "  --peak-memory BYTES      peak device memory the job needs (torch.cuda.max_memory_allocated())\n"
    "  --oom                    the run hit an out-of-memory error (memory-capacity check)\n"
    "  --config FILE            thresholds (JSON object or key = value lines)\n"
    "  --print-config           print the default thresholds as a config file and exit\n"
    "  --format text|json|markdown|csv-kernels|csv-ops   output format (default text); the CSV\n"
    "                           formats list every kernel / launching op in base units (ns, counts);\n"
    "                           --json is --format json; a job's report is text or json\n"
    "  --output FILE            write the report to FILE instead of stdout\n"
    "  --explain                text: say why each rule was or was not shown\n"
    "  --all-steps              text: list every step\n"
    "  --no-snippets            text: omit the PyTorch code of each fix\n"
    "Job options (several ranks: trace files and/or .cpsum summaries, a folder, a glob):\n"
    "  --network-gbps G         per-direction network bandwidth between hosts, for bus bandwidth\n"
    "  --workers N              ranks read in parallel (default: one per core)\n\n"
    "Numbers accept suffixes k, M, G or B (billion), T: --params 7B --tokens-per-step 1024.\n\n"
    "Exit codes: 0 success, 1 unreadable or invalid FILE or config (or a FILE cut short before\n"
    "any GPU work: the report is written, nothing is diagnosed), 2 wrong arguments,\n"
    "3 other failure, 130 cancelled.\n";

}  // namespace

int runAnalyze(const Args& rawArgs) {
    AnalysisArgs parsed;
    std::string error;
    Args args = rawArgs;
    JobArgs jobArgs;
    if (!extractJobArgs(args, jobArgs, error) || !parseAnalysisArgs(args, 0, parsed, error)) {
        std::fprintf(stderr, "chokepoint-cli analyze: %s\n\n%s", error.c_str(), kAnalyzeUsage);
        return kExitUsage;
    }
    if (!parsed.help && !parsed.printConfig && isJobInvocation(parsed.files)) {
        if (parsed.format != "text" && parsed.format != "json") {
            // csv-kernels and csv-ops were once ignored here, printing the text report.
            std::fprintf(stderr,
                         "chokepoint-cli analyze: a job's report is text or json (--format %s is for one "
                         "trace: analyze a rank's file for it)\n",
                         parsed.format.c_str());
            return kExitUsage;
        }
        if (parsed.deviceIndex) {
            std::fprintf(stderr,
                         "chokepoint-cli analyze: --device-index applies to one trace; in a job each rank "
                         "whose process drives several GPUs lists every GPU's own figures\n");
            return kExitUsage;
        }
        return runAnalyzeJob(parsed, jobArgs);
    }
    if (parsed.help) {
        std::fputs(kAnalyzeUsage, stdout);
        return kExitOk;
    }
    if (parsed.printConfig) {
        std::fputs(analysis::describeDiagnosisConfig(analysis::DiagnosisConfig{}).c_str(), stdout);
        return kExitOk;
    }
    AnalysisSetup setup;
    if (const int code = prepareAnalysis(parsed, setup); code != kExitOk) {
        return code;
    }
    core::Result<core::TraceModel> model = core::loadTrace(parsed.files[0]);
    if (!model) {
        std::fprintf(stderr, "chokepoint-cli analyze: %s\n", model.error().message.c_str());
        return model.error().message == core::kCancelledMessage ? kExitCancelled : kExitBadInput;
    }
    if (const int code = checkDeviceIndex(model.value(), setup, parsed.files[0], "analyze");
        code != kExitOk) {
        return code;
    }
    const bool jobFormat = parsed.format == "text" || parsed.format == "json";
    if (!parsed.deviceIndex && jobFormat && job::holdsSeveralRanks(model.value())) {
        // One file with several ranks (an Nsight Systems export of torchrun, a fused trace): the
        // job analysis, which reads the file again and splits it into its ranks.
        std::fprintf(stderr,
                     "chokepoint-cli analyze: %s holds several ranks: analysed as a job (--device-index N "
                     "analyses one GPU alone)\n",
                     parsed.files[0].c_str());
        return runAnalyzeJob(parsed, jobArgs);
    }
    auto shared = std::make_shared<const core::TraceModel>(std::move(model.value()));
    setup.options.sourcePath = parsed.files[0];
    core::Result<std::shared_ptr<const analysis::AnalysisReport>> report =
        analysis::analyzeTrace(shared, setup.options);
    if (!report) {
        std::fprintf(stderr, "chokepoint-cli analyze: %s: %s\n", parsed.files[0].c_str(),
                     report.error().message.c_str());
        return report.error().message == core::kCancelledMessage ? kExitCancelled : kExitFailure;
    }
    std::string text;
    if (parsed.format == "json") {
        text = analysis::writeJsonReport(*report.value());
    } else if (parsed.format == "markdown") {
        text = analysis::writeMarkdownReport(*report.value());
    } else if (parsed.format == "csv-kernels") {
        text = analysis::writeKernelsCsv(*report.value(), *shared);
    } else if (parsed.format == "csv-ops") {
        text = analysis::writeOpsCsv(*report.value(), *shared);
    } else {
        analysis::TextReportOptions textOptions;
        textOptions.explainRules = parsed.explain;
        textOptions.showAllSteps = parsed.allSteps;
        textOptions.showSnippets = !parsed.noSnippets;
        text = analysis::writeTextReport(*report.value(), textOptions);
    }
    const int written = writeOutput(parsed.output, text, "analyze");
    if (written == kExitOk && report.value()->overall.bottleneck == analysis::Bottleneck::NoGpuActivity) {
        // A file cut short before its first GPU event: the report says what was read, but nothing
        // was diagnosed, so a script must not take it for a CPU-only job.
        if (const core::TraceStat* cut = shared->stats.truncation()) {
            std::fprintf(stderr, "chokepoint-cli analyze: %s: cut short before any GPU work (%s)\n",
                         parsed.files[0].c_str(), cut->detail.c_str());
            return kExitBadInput;
        }
    }
    return written;
}

}  // namespace chokepoint::cli
