#pragma once
// The inputs of a job: files, folders (every trace or .cpsum inside, not recursive) and glob
// patterns, expanded to a sorted list of paths. Also: whether a path is a `.cpsum` summary.

#include <string>
#include <vector>

#include "core/base/Result.h"

namespace chokepoint::job {

// Expands each argument. A pattern that matches nothing, a missing path or an empty folder is an
// Error naming it. Duplicates are removed; order: as given, each folder or glob sorted naturally
// ("rank2" before "rank10").
core::Result<std::vector<std::string>> expandJobInputs(const std::vector<std::string>& arguments);

// True when the file starts with the .cpsum magic.
bool isSummaryFile(const std::string& path);

// True when several inputs, a folder or a glob were given: the command works on a job.
bool looksLikeJob(const std::vector<std::string>& arguments);

}  // namespace chokepoint::job
