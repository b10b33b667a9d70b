#pragma once
// Writes a synthetic job (SyntheticJob.h) as one .cptrace file per rank.

#include <string>
#include <vector>

#include "core/base/Result.h"
#include "core/model/TraceModel.h"

namespace chokepoint::samples {

// Writes each model as `<folder>/rank-<N>.cptrace` (N = its distributed rank), creating the folder.
// Errors name the file.
core::Status writeSyntheticJob(const std::vector<core::TraceModel>& ranks, const std::string& folder);

}  // namespace chokepoint::samples
