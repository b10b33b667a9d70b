#pragma once
// The inputs of a job: files, folders (every trace or .cpsum inside, not recursive) and glob
// patterns, expanded to a sorted list of paths. Also: whether a path is a `.cpsum` summary.

#include <string>
#include <vector>

#include "core/base/Result.h"

namespace chokepoint::job {

// Expands each argument. A pattern that matches nothing, a missing path or an empty folder is an
// Error naming it. Duplicates are removed; order: as given, each folder or glob sorted naturally
// ("rank2" before "rank10"). A folder gives every file that is a trace or summary by its first
// bytes and every file named like one (looksLikeTraceName) whatever its bytes: an empty or
// unreadable rank file is then loaded, fails, and is reported with its reason (a RankProblem)
// rather than silently left out.
core::Result<std::vector<std::string>> expandJobInputs(const std::vector<std::string>& arguments);

// True for the names of trace-like files: *.json, *.json.gz, *.cptrace, *.sqlite, *.cpsum.
bool looksLikeTraceName(const std::string& path);

// True when the file starts with the .cpsum magic.
bool isSummaryFile(const std::string& path);

// True when several inputs, a folder or a glob were given: the command works on a job.
bool looksLikeJob(const std::vector<std::string>& arguments);

}  // namespace chokepoint::job
