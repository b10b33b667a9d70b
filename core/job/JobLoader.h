#pragma once
// Loads a job: every input (trace or .cpsum) is read, analysed and summarised on a pool of worker
// threads (one per core by default). Each worker holds one rank's full model at a time and drops it
// once summarised, so peak memory is about workers x the largest rank's analysis plus the
// summaries. A fused file holding several ranks gives one summary per rank. An input that fails
// costs that rank only: it becomes a RankProblem.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/diagnosis/Analyzer.h"
#include "core/job/JobAnalysis.h"
#include "core/job/RankSummary.h"

namespace chokepoint::job {

struct JobLoadOptions {
    analysis::AnalysisOptions analysis;  // per-rank analysis (its progress callback is not used)
    unsigned workers = 0;                // 0: one per core
    // Called from worker threads after each input with (done, total); return false to cancel.
    std::function<bool(std::size_t, std::size_t)> progress;
};

struct LoadedJob {
    std::vector<std::shared_ptr<const RankSummary>> ranks;
    std::vector<RankProblem> problems;
    std::string identityNote;  // how ranks were identified
    bool cancelled = false;
};

// `paths` as expanded by expandJobInputs.
LoadedJob loadJob(const std::vector<std::string>& paths, const JobLoadOptions& options);

// Summaries of one finalized model: one per rank it holds (usually one). `path` and `orderIndex`
// identify the rank when the model does not.
std::vector<RankSummary> summarizeModel(std::shared_ptr<const core::TraceModel> model,
                                        const std::string& path, int orderIndex,
                                        const analysis::AnalysisOptions& options, std::string* error);

}  // namespace chokepoint::job
