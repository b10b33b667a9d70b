#include "collectors/control/AgentDirectory.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "collectors/control/ControlClient.h"
#include "collectors/control/RuntimeDir.h"

namespace chokepoint::collectors {

AgentListing listAgents(const std::string& dir, bool removeStale, int timeoutMs) {
    AgentListing listing;
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) {
        if (errno != ENOENT) {
            listing.error = dir + ": " + std::strerror(errno);
        }
        return listing;
    }
    if (core::Status ok = checkRuntimeDirStat(st, ::geteuid(), dir); !ok.ok()) {
        listing.error = ok.error().message;
        return listing;
    }
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
        listing.error = dir + ": " + std::strerror(errno);
        return listing;
    }
    std::vector<std::pair<long, std::string>> sockets;
    while (dirent* e = ::readdir(d)) {
        long pid = pidFromSocketName(e->d_name);
        if (pid > 0) {
            sockets.emplace_back(pid, dir + "/" + e->d_name);
        }
    }
    ::closedir(d);
    std::sort(sockets.begin(), sockets.end());

    for (auto& [pid, path] : sockets) {
        bool processGone = ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
        AgentEntry entry;
        entry.pid = pid;
        entry.socketPath = path;
        if (!processGone) {
            core::Result<ControlClient> client = ControlClient::connect(path);
            if (client.ok()) {
                core::Result<control::Status> status = client->hello("chokepoint-cli list", timeoutMs);
                if (status.ok()) {
                    entry.responded = true;
                    entry.status = std::move(status.value());
                } else {
                    entry.error = status.error().message;
                }
                listing.agents.push_back(std::move(entry));
                continue;
            }
            // The pid exists but nobody listens: the pid was reused or the agent crashed.
            std::string why = client.error().message;
            if (why.find("nobody is listening") == std::string::npos) {
                entry.error = why;
                listing.agents.push_back(std::move(entry));
                continue;
            }
        }
        if (removeStale && ::unlink(path.c_str()) == 0) {
            listing.removedStale.push_back(path);
        }
    }
    return listing;
}

}  // namespace chokepoint::collectors
