// The job commands: `analyze`, `info` and `diff` over several ranks, and `summarize`.

#include "app/cli/JobCommands.h"

#include <cstdio>
#include <filesystem>
#include <string>

#include "app/cli/ExitCodes.h"
#include "core/base/Format.h"
#include "core/job/JobAnalysis.h"
#include "core/job/JobInputs.h"
#include "core/job/JobLoader.h"
#include "core/job/JobReportWriters.h"
#include "core/job/SummaryFile.h"

namespace chokepoint::cli {
namespace {

constexpr const char* kSummarizeUsage =
    "Usage: chokepoint-cli summarize TRACE [-o FILE.cpsum] [analysis options]\n\n"
    "Writes what the job analysis needs from one rank's trace into a small .cpsum file. Run it where\n"
    "the traces are (one per rank, e.g. a Slurm job array: scripts/cluster/), then analyse the folder\n"
    "of summaries with `chokepoint-cli analyze DIR`. Default output: TRACE's name with .cpsum.\n"
    "Analysis options are those of `analyze` (--device, --model-flops, ...).\n\n"
    "Exit codes: 0 success, 1 unreadable or invalid TRACE, 2 wrong arguments, 3 other failure.\n";

struct LoadedAnalysis {
    job::JobReport report;
    bool ok = false;
    int exitCode = kExitOk;
};

LoadedAnalysis loadAndAnalyze(const std::vector<std::string>& inputs,
                              const analysis::AnalysisOptions& options, const JobArgs& jobArgs,
                              const char* command) {
    LoadedAnalysis out;
    auto paths = job::expandJobInputs(inputs);
    if (!paths.ok()) {
        std::fprintf(stderr, "chokepoint-cli %s: %s\n", command, paths.error().message.c_str());
        out.exitCode = kExitBadInput;
        return out;
    }
    job::JobLoadOptions loadOptions;
    loadOptions.analysis = options;
    loadOptions.workers = jobArgs.workers;
    job::LoadedJob loaded = job::loadJob(paths.value(), loadOptions);
    for (const job::RankProblem& problem : loaded.problems) {
        std::fprintf(stderr, "chokepoint-cli %s: warning: %s (this rank is left out)\n", command,
                     problem.message.c_str());
    }
    if (loaded.ranks.empty()) {
        std::fprintf(stderr, "chokepoint-cli %s: no rank of the job could be read\n", command);
        out.exitCode = kExitBadInput;
        return out;
    }
    job::JobOptions jobOptions;
    jobOptions.networkBytesPerSecond = jobArgs.networkBytesPerSecond;
    out.report = job::analyzeJob(std::move(loaded.ranks), std::move(loaded.problems), jobOptions);
    out.ok = true;
    return out;
}

std::string perRankText(const job::JobReport& report) {
    std::string out = "PER RANK\n";
    std::size_t shown = 0;
    for (const job::JobRank& rank : report.ranks) {
        if (shown++ == 32) {
            out += "  ... " + std::to_string(report.ranks.size() - 32) +
                   " more ranks (--format json lists all; analyze a rank's file for its full report)\n";
            break;
        }
        out += "  rank " + std::to_string(rank.summary->rank) + " (" + rank.summary->sourcePath +
               "): " + rank.summary->headline + "\n";
    }
    return out;
}

}  // namespace

bool isJobInvocation(const std::vector<std::string>& files) {
    return job::looksLikeJob(files);
}

bool extractJobArgs(Args& args, JobArgs& out, std::string& error) {
    Args kept;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--network-gbps" || a == "--workers") {
            if (i + 1 >= args.size()) {
                error = a + " needs a value";
                return false;
            }
            const std::string value = args[++i];
            char* end = nullptr;
            const double number = std::strtod(value.c_str(), &end);
            if (end == value.c_str() || *end != '\0' || !(number > 0)) {
                error = a + ": expected a positive number, got '" + value + "'";
                return false;
            }
            if (a == "--network-gbps") {
                out.networkBytesPerSecond = number * 1e9 / 8;  // Gbit/s per direction -> bytes/s
            } else {
                out.workers = static_cast<unsigned>(number);
            }
            continue;
        }
        kept.push_back(a);
    }
    args.swap(kept);
    return true;
}

int runAnalyzeJob(const AnalysisArgs& parsed, const JobArgs& jobArgs) {
    AnalysisSetup setup;
    if (const int code = prepareAnalysis(parsed, setup); code != kExitOk) {
        return code;
    }
    LoadedAnalysis loaded = loadAndAnalyze(parsed.files, setup.options, jobArgs, "analyze");
    if (!loaded.ok) {
        return loaded.exitCode;
    }
    std::string text;
    if (parsed.format == "json") {
        text = "{\"schemaVersion\":1,\"kind\":\"job\",\"job\":" + job::writeJobJson(loaded.report) + "}\n";
    } else {
        text = job::writeJobText(loaded.report) + perRankText(loaded.report);
    }
    return writeOutput(parsed.output, text, "analyze");
}

int runInfoJob(const std::vector<std::string>& inputs, bool json) {
    analysis::AnalysisOptions options;
    LoadedAnalysis loaded = loadAndAnalyze(inputs, options, JobArgs{}, "info");
    if (!loaded.ok) {
        return loaded.exitCode;
    }
    const job::JobReport& r = loaded.report;
    std::string out;
    if (json) {
        out = "{\"kind\":\"job\",\"job\":" + job::writeJobJson(r) + "}\n";
    } else {
        out = "Job: " + std::to_string(r.ranks.size()) + " rank(s) of world size " +
              std::to_string(r.worldSize) + "; " + r.rankIdentityNote + "\n";
        if (!r.notOneJob.empty()) {
            out += "NOT ONE JOB? " + r.notOneJob + "\n";
        }
        for (const job::JobRank& rank : r.ranks) {
            const job::RankSummary& s = *rank.summary;
            // A trace may record its GPU work without the device's name (older Kineto traces).
            const std::string device = !s.deviceName.empty() ? s.deviceName
                                       : s.busyFraction > 0  ? std::string("GPU name not recorded")
                                                             : std::string("no GPU work");
            out += "  rank " + std::to_string(s.rank) + ": " + s.sourcePath + ", host " +
                   (s.hostName.empty() ? "not recorded" : s.hostName) + ", " + device + ", " +
                   std::to_string(s.steps.size()) + " step(s), median " +
                   core::formatDuration(rank.medianStepNs) + ", " + std::to_string(s.collectives.size()) +
                   " collective kernel(s)\n";
        }
        out += "Collectives matched across ranks: " + std::to_string(r.collectives.size()) + "\n";
        out += "Clock: " + r.clock.note + "\n";
        for (const std::string& w : r.warnings) {
            out += "warning: " + w + "\n";
        }
        for (const job::RankProblem& p : r.problems) {
            out += "not loaded: " + p.message + "\n";
        }
    }
    std::fputs(out.c_str(), stdout);
    return kExitOk;
}

int runDiffJobs(const AnalysisArgs& parsed, const JobArgs& jobArgs) {
    AnalysisSetup setup;
    if (const int code = prepareAnalysis(parsed, setup); code != kExitOk) {
        return code;
    }
    LoadedAnalysis before = loadAndAnalyze({parsed.files[0]}, setup.options, jobArgs, "diff");
    if (!before.ok) {
        return before.exitCode;
    }
    LoadedAnalysis after = loadAndAnalyze({parsed.files[1]}, setup.options, jobArgs, "diff");
    if (!after.ok) {
        return after.exitCode;
    }
    return writeOutput(parsed.output, job::writeJobDiffText(before.report, after.report), "diff");
}

int runSummarize(const Args& rawArgs) {
    Args args;
    std::string output;
    for (std::size_t i = 0; i < rawArgs.size(); ++i) {
        if ((rawArgs[i] == "-o" || rawArgs[i] == "--output") && i + 1 < rawArgs.size()) {
            output = rawArgs[++i];
        } else {
            args.push_back(rawArgs[i]);
        }
    }
    AnalysisArgs parsed;
    std::string error;
    if (!parseAnalysisArgs(args, 1, parsed, error)) {
        std::fprintf(stderr, "chokepoint-cli summarize: %s\n\n%s", error.c_str(), kSummarizeUsage);
        return kExitUsage;
    }
    if (parsed.help) {
        std::fputs(kSummarizeUsage, stdout);
        return kExitOk;
    }
    AnalysisSetup setup;
    if (const int code = prepareAnalysis(parsed, setup); code != kExitOk) {
        return code;
    }
    const std::string& trace = parsed.files[0];
    if (output.empty()) {
        output = std::filesystem::path(trace).filename().string() + ".cpsum";
    }
    job::JobLoadOptions options;
    options.analysis = setup.options;
    options.workers = 1;
    job::LoadedJob loaded = job::loadJob({trace}, options);
    if (!loaded.problems.empty()) {
        std::fprintf(stderr, "chokepoint-cli summarize: %s\n", loaded.problems.front().message.c_str());
        return kExitBadInput;
    }
    if (loaded.ranks.size() != 1) {
        std::fprintf(stderr, "chokepoint-cli summarize: %s holds %zu ranks; give one rank's trace\n",
                     trace.c_str(), loaded.ranks.size());
        return kExitBadInput;
    }
    const core::Status written = job::writeSummaryFile(*loaded.ranks.front(), output);
    if (!written.ok()) {
        std::fprintf(stderr, "chokepoint-cli summarize: %s\n", written.error().message.c_str());
        return kExitFailure;
    }
    const job::RankSummary& s = *loaded.ranks.front();
    std::fprintf(stderr, "chokepoint-cli summarize: rank %d (%s) -> %s: %zu step(s), %zu collective(s)\n",
                 s.rank, std::string(job::toString(s.rankSource)).c_str(), output.c_str(), s.steps.size(),
                 s.collectives.size());
    return kExitOk;
}

}  // namespace chokepoint::cli
