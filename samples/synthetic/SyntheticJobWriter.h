#pragma once
// Writes a synthetic job (SyntheticJob.h) as one trace file per rank: .cptrace, or PyTorch
// profiler (Kineto) JSON like `torch.profiler` writes on each rank, with `distributedInfo` and
// the NCCL kernels' collective args ("Collective name", "Process Group Name", ...).

#include <string>
#include <vector>

#include "core/base/Result.h"
#include "core/model/TraceModel.h"

namespace chokepoint::samples {

enum class SyntheticJobFormat {
    Cptrace,     // rank-<N>.cptrace
    KinetoJson,  // rank-<N>.pt.trace.json
};

// Writes each model as `<folder>/rank-<N>.<ext>` (N = its distributed rank), creating the folder.
// Errors name the file.
core::Status writeSyntheticJob(const std::vector<core::TraceModel>& ranks, const std::string& folder,
                               SyntheticJobFormat format = SyntheticJobFormat::Cptrace);

// One rank as Kineto JSON. Kineto has no host name field: the host is in the file's metadata only.
std::string syntheticRankKinetoJson(const core::TraceModel& model);

}  // namespace chokepoint::samples
