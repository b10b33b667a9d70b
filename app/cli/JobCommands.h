#pragma once
// The job side of `analyze`, `info` and `diff` (several ranks given as files, folders, globs or
// .cpsum summaries), and `summarize` (one rank's .cpsum, run where the trace lives).

#include "app/cli/AnalysisArgs.h"
#include "app/cli/Commands.h"

namespace chokepoint::cli {

// True when these positional arguments name a job rather than one trace.
bool isJobInvocation(const std::vector<std::string>& files);

// Removes the job-only options (--network-gbps G, --workers N) from `args` into the options.
// Returns false with `error` set when a value is missing or invalid.
struct JobArgs {
    double networkBytesPerSecond = 0;
    unsigned workers = 0;
};
bool extractJobArgs(Args& args, JobArgs& out, std::string& error);

int runAnalyzeJob(const AnalysisArgs& parsed, const JobArgs& jobArgs);
int runInfoJob(const std::vector<std::string>& inputs, bool json);
int runDiffJobs(const AnalysisArgs& parsed, const JobArgs& jobArgs);

}  // namespace chokepoint::cli
