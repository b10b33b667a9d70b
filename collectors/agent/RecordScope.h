#pragma once
// Which processes of a `chokepoint-cli run` job record (review #21). The run command's environment
// reaches every descendant, and every descendant that initialises CUDA loads the agent: Inductor's
// autotuning subprocesses, compile workers, spawned helpers. Recording those skews their
// benchmarks and leaves stray traces. The rule: a process records unless an ancestor already runs
// the agent with the same rank, i.e. the outermost CUDA process of each rank records. torchrun
// ranks (whose parent, the elastic agent, never initialises CUDA) and ranks started with
// mp.spawn (each with its own RANK) record; an autotuning subprocess of a rank (same RANK, or
// none) does not. CHOKEPOINT_RECORD_ALL=1 records every process. Forked children never record
// (they go dormant in the fork handler).

#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace chokepoint::collectors {

struct AncestorProcess {
    pid_t pid = 0;
    bool runsAgent = false;           // the agent library is mapped in it
    std::optional<std::string> rank;  // its RANK (or LOCAL_RANK) at exec time
};

struct RecordDecision {
    bool record = true;
    std::string reason;  // why not, naming the ancestor
};

// Pure: `ancestors` from the parent upwards.
RecordDecision decideRecording(const std::optional<std::string>& ownRank,
                               const std::vector<AncestorProcess>& ancestors, bool recordAll);

// The ancestors of this process read from /proc (parent first, up to pid 1, at most 64), with
// `agentPath` (this library's file) looked for in each one's /proc/<pid>/maps.
std::vector<AncestorProcess> readAncestors(const std::string& agentPath);

// RANK, else LOCAL_RANK, of this process.
std::optional<std::string> ownRank();

}  // namespace chokepoint::collectors
