#pragma once
// `.cpsum`: one RankSummary as a file (protobuf; layout in core/format/CPSUM.md). Written by
// `chokepoint-cli summarize` on the node where the trace lives, read by `analyze` and the GUI.

#include <string>

#include "core/base/Result.h"
#include "core/job/RankSummary.h"

namespace chokepoint::job {

inline constexpr char kSummaryMagic[8] = {'C', 'P', 'S', 'U', 'M', '0', '0', '1'};

core::Status writeSummaryFile(const RankSummary& summary, const std::string& path);
core::Result<RankSummary> readSummaryFile(const std::string& path);

// The same in memory (tests, fuzzers).
std::string encodeSummary(const RankSummary& summary);
core::Result<RankSummary> decodeSummary(std::string_view bytes, const std::string& nameForErrors);

}  // namespace chokepoint::job
