#pragma once
// summarizeRank: one rank's RankSummary from its finalized model and its single-rank analysis.
// A model that holds several ranks (a fused trace with processes "RANK n - GPU", or an Nsight
// Systems export of several processes) is first split with splitRanks (RankSplit.h).
// Pure; linear in the model's events.

#include <string>

#include "core/analysis/diagnosis/AnalysisReport.h"
#include "core/job/RankSummary.h"
#include "core/model/TraceModel.h"

namespace chokepoint::job {

struct RankIdentity {
    std::int32_t rank = -1;
    RankSource source = RankSource::Order;
};

// `identity` says which rank this is (see RankIdentity.h); `report` must come from `model`.
RankSummary summarizeRank(const core::TraceModel& model, const analysis::AnalysisReport& report,
                          const RankIdentity& identity);

}  // namespace chokepoint::job
