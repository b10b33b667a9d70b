#pragma once
// Starting a training job with the agent injected, for run and launch: the job's environment
// (CUDA_INJECTION64_PATH and the CHOKEPOINT_* settings), a check that the agent loads in it, and
// the spawn. Ctrl-C reaches the job (same process group) while this process ignores SIGINT and
// SIGQUIT, so it can wait for the job to finish writing; waitForJob restores them.

#include <signal.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace chokepoint::cli {

struct StartedJob {
    pid_t pid = -1;
    struct sigaction oldInt {};
    struct sigaction oldQuit {};
};

// `commandName` prefixes the messages ("run", "launch"). Prints why and returns nothing when the
// environment cannot be built, the agent would not load in it, or the job cannot be started.
std::optional<StartedJob> startJobWithAgent(const char* commandName, const std::string& agentPath,
                                            const std::vector<std::pair<std::string, std::string>>& extraEnv,
                                            const std::vector<std::string>& command);

// Waits for the job to exit, restores the signal handlers and returns its exit status.
int waitForJob(const StartedJob& job);

}  // namespace chokepoint::cli
