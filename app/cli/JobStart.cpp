#include "app/cli/JobStart.h"

#include <cstdio>

#include "collectors/control/AgentLauncher.h"
#include "collectors/control/AgentLoadCheck.h"

namespace chokepoint::cli {

std::optional<StartedJob> startJobWithAgent(const char* commandName, const std::string& agentPath,
                                            const std::vector<std::pair<std::string, std::string>>& extraEnv,
                                            const std::vector<std::string>& command) {
    auto env = collectors::injectionEnvironment(collectors::currentEnvironment(), agentPath, extraEnv);
    if (!env.ok()) {
        std::fprintf(stderr, "chokepoint-cli %s: %s\n", commandName, env.error().message.c_str());
        return std::nullopt;
    }
    // The driver's dlopen of the agent fails silently (the job would run unrecorded): ask the
    // dynamic loader first, in a child with exactly the job's environment.
    if (collectors::AgentLoadReport load = collectors::checkAgentLoads(agentPath, env.value());
        load.checked && !load.loads) {
        std::fprintf(stderr,
                     "chokepoint-cli %s: the agent %s would not load in the job's environment:%s\n"
                     "Run 'chokepoint-cli doctor' for what to fix.\n",
                     commandName, agentPath.c_str(), load.details.c_str());
        return std::nullopt;
    }
    StartedJob job;
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGINT, &ignore, &job.oldInt);
    ::sigaction(SIGQUIT, &ignore, &job.oldQuit);
    core::Result<pid_t> child = collectors::spawnProcess(command, env.value());
    if (!child.ok()) {
        ::sigaction(SIGINT, &job.oldInt, nullptr);
        ::sigaction(SIGQUIT, &job.oldQuit, nullptr);
        std::fprintf(stderr, "chokepoint-cli %s: %s\n", commandName, child.error().message.c_str());
        return std::nullopt;
    }
    job.pid = child.value();
    return job;
}

int waitForJob(const StartedJob& job) {
    const int status = collectors::waitForExit(job.pid);
    ::sigaction(SIGINT, &job.oldInt, nullptr);
    ::sigaction(SIGQUIT, &job.oldQuit, nullptr);
    return status;
}

}  // namespace chokepoint::cli
