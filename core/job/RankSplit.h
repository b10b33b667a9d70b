#pragma once
// One file, several ranks: a fused trace whose processes are named like "RANK 3 - GPU", or an
// Nsight Systems export of `torchrun` with one process per GPU. splitRanks cuts such a model into
// one model per GPU (device index), each with the host threads that launch work on it, so each
// rank (and each GPU of a process) gets its own accounting and verdict.
//
// A model with GPU work on one device only is not split (empty result). Rows are copied with their
// names re-interned; links (launch calls, op nesting) are rebuilt by TraceModel::finalize from
// correlation ids, as an importer's would be. Pure; linear in the model's rows.

#include <vector>

#include "core/job/SummarizeRank.h"
#include "core/model/TraceModel.h"

namespace chokepoint::job {

struct RankPart {
    core::TraceModel model;  // finalized
    RankIdentity identity;
    std::int16_t deviceIndex = 0;
};

// Whether splitRanks would cut `model` into several ranks: GPU work on two or more devices, launched
// by two or more processes that use different devices. Cheap: no rows are copied.
bool holdsSeveralRanks(const core::TraceModel& model);

// `orderBase`: rank given to the first part when nothing else identifies the ranks (the part's
// position is added).
std::vector<RankPart> splitRanks(const core::TraceModel& model, std::int32_t orderBase);

}  // namespace chokepoint::job
