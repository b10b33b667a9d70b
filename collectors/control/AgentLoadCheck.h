#pragma once
// Whether libchokepoint_agent.so will load in a job's environment, checked before the job starts
// (chokepoint-cli run/launch, doctor). The dynamic loader itself resolves the agent in a child
// process with exactly the job's environment (LD_LIBRARY_PATH and all): `ld.so --list AGENT` with
// LD_BIND_NOW=1, which reports libraries that are not found and symbol versions the system lacks.
// This is the same resolution the CUDA driver's dlopen performs, minus what the job's own process
// has already loaded (which can only add libraries, not remove them).

#include <string>
#include <vector>

#include "core/base/Result.h"

namespace chokepoint::collectors {

struct AgentLoadReport {
    bool checked = false;  // false: no dynamic loader found to ask (not an x86-64/aarch64 glibc system)
    bool loads = false;
    std::string loader;   // the ld.so used
    std::string details;  // the loader's complaints when it does not load
};

AgentLoadReport checkAgentLoads(const std::string& agentPath, const std::vector<std::string>& env);

// Decides from `ld.so --list` output and exit status (pure, for tests).
bool loaderOutputSaysLoadable(const std::string& output, int exitStatus, std::string* complaints);

}  // namespace chokepoint::collectors
