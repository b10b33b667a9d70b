#pragma once
// Discovery of live agents: lists "<pid>.sock" files in the socket directory, asks each agent for
// its Status and removes sockets whose process is gone (or whose process no longer listens).

#include <string>
#include <vector>

#include "collectors/control/proto/control.pb.h"

namespace chokepoint::collectors {

struct AgentEntry {
    long pid = 0;
    std::string socketPath;
    bool responded = false;  // Status below is valid
    control::Status status;
    std::string error;  // why it did not respond
};

struct AgentListing {
    std::vector<AgentEntry> agents;  // sorted by pid
    std::vector<std::string> removedStale;
    std::string error;  // the directory itself is unusable (missing is not an error: no agents)
};

// Lists agents in `dir`. With `removeStale`, sockets of dead processes are unlinked.
AgentListing listAgents(const std::string& dir, bool removeStale, int timeoutMs = 2000);

}  // namespace chokepoint::collectors
