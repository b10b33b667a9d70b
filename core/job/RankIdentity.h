#pragma once
// Which rank a trace belongs to: the trace's recorded rank (distributedInfo), else a process name
// like "RANK 3 - GPU" / "trainer:0:3", else the file name ("rank-3", "rank3", "worker3"), else its
// position among the inputs. Pure functions.

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/job/SummarizeRank.h"
#include "core/model/TraceModel.h"

namespace chokepoint::job {

// The rank number in a file name: "rank-3.json.gz", "rank3.pt.trace.json", "worker3.cptrace",
// "sampled_rank-1.json.gz", "job_rank_12.cpsum". nullopt when there is none.
std::optional<std::int32_t> rankFromFileName(std::string_view path);
// The rank number in a process name: "RANK 3 - GPU", "rank 3", "[rank3]". nullopt when none.
std::optional<std::int32_t> rankFromProcessName(std::string_view name);

// `orderIndex`: the input's position, the last resort.
RankIdentity identifyRank(const core::TraceModel& model, std::string_view path, std::int32_t orderIndex);

}  // namespace chokepoint::job
