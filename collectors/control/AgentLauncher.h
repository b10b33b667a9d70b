#pragma once
// Starting a program with the Chokepoint agent injected (chokepoint-cli run/launch, the GUI's
// "Record"): locating libchokepoint_agent.so, building the child's environment and spawning it.
//
// The agent is found, first match wins: $CHOKEPOINT_AGENT_PATH; next to the executable (its own
// folder, ../lib, ../bin); the build tree this program was built in. It is injected through
// CUDA_INJECTION64_PATH (the CUDA driver loads it in every process that initialises CUDA) and
// NVTX_INJECTION64_PATH (NVTX hands it every module's NVTX calls), both set to the same file.

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "core/base/Result.h"

namespace chokepoint::collectors {

// Path of the running executable ("" when /proc/self/exe is unreadable).
std::string selfExecutablePath();

// The agent library, or an error that says why it is missing (not built without CUDA, or where it
// was looked for).
core::Result<std::string> findAgentLibrary(const std::string& executablePath);

// The folder holding Chokepoint's sitecustomize.py (the Python stack sampler's start-up hook):
// $CHOKEPOINT_PYTHON_DIR/site, else next to the executable (../share/chokepoint/python/site in an
// install or a build tree, ../python/site in a node bundle).
core::Result<std::string> findPythonSiteFolder(const std::string& executablePath);

// The environment entries that make every Python process of a job sample its stacks into
// `outputFolder` (collectors/python/chokepoint_stacks.py): PYTHONPATH with `siteFolder` first
// (the job's own entries kept after it), CHOKEPOINT_PYSTACKS_DIR, _HZ and, when `fromStart`,
// _ALWAYS=1 (else only while the agent records).
std::vector<std::pair<std::string, std::string>> pythonStacksEnvironment(const std::vector<std::string>& base,
                                                                         const std::string& siteFolder,
                                                                         const std::string& outputFolder,
                                                                         int hz, bool fromStart);

// "NAME=value" strings of this process.
std::vector<std::string> currentEnvironment();

// Copies `base`, sets the two injection variables to `agentPath` and adds/replaces `extra`.
// Refuses when CUDA_INJECTION64_PATH already names another library (Nsight Systems or Compute
// running the job): only one injection library can be loaded.
core::Result<std::vector<std::string>> injectionEnvironment(
    const std::vector<std::string>& base, const std::string& agentPath,
    const std::vector<std::pair<std::string, std::string>>& extra);

// Starts argv[0] (searched in PATH) with `env`. The error names the program.
core::Result<pid_t> spawnProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env);

// Waits for `pid`; returns its exit code, or 128 + signal number when a signal ended it.
int waitForExit(pid_t pid);

}  // namespace chokepoint::collectors
