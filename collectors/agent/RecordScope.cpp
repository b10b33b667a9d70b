#include "collectors/agent/RecordScope.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

namespace chokepoint::collectors {

namespace {

std::optional<std::string> rankFromEnviron(const std::string& environ) {
    std::optional<std::string> local;
    std::size_t pos = 0;
    while (pos < environ.size()) {
        std::size_t end = environ.find('\0', pos);
        if (end == std::string::npos) {
            end = environ.size();
        }
        std::string_view entry(environ.data() + pos, end - pos);
        if (entry.substr(0, 5) == "RANK=") {
            return std::string(entry.substr(5));
        }
        if (entry.substr(0, 11) == "LOCAL_RANK=") {
            local = std::string(entry.substr(11));
        }
        pos = end + 1;
    }
    return local;
}

pid_t parentOf(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses; parse after the last ')'.
    std::size_t close = stat.rfind(')');
    if (close == std::string::npos) {
        return 0;
    }
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    long ppid = 0;
    rest >> state >> ppid;
    return static_cast<pid_t>(ppid);
}

}  // namespace

RecordDecision decideRecording(const std::optional<std::string>& ownRankValue,
                               const std::vector<AncestorProcess>& ancestors, bool recordAll) {
    if (recordAll) {
        return {};
    }
    for (const AncestorProcess& a : ancestors) {
        if (!a.runsAgent) {
            continue;
        }
        // The nearest ancestor with the agent decides: a new rank of its own records.
        if (ownRankValue.has_value() && ownRankValue != a.rank) {
            return {};
        }
        return {false, "a subprocess of pid " + std::to_string(a.pid) +
                           ", which runs the agent for the same rank (an autotuning or helper process); "
                           "set CHOKEPOINT_RECORD_ALL=1 to record it too"};
    }
    return {};
}

std::vector<AncestorProcess> readAncestors(const std::string& agentPath) {
    std::vector<AncestorProcess> out;
    pid_t pid = ::getppid();
    while (pid > 1 && out.size() < 64) {
        AncestorProcess a;
        a.pid = pid;
        std::string base = "/proc/" + std::to_string(pid);
        if (!agentPath.empty()) {
            std::ifstream maps(base + "/maps");
            std::string line;
            while (std::getline(maps, line)) {
                if (line.size() >= agentPath.size() &&
                    line.compare(line.size() - agentPath.size(), agentPath.size(), agentPath) == 0) {
                    a.runsAgent = true;
                    break;
                }
            }
        }
        std::ifstream env(base + "/environ", std::ios::binary);
        std::string environ((std::istreambuf_iterator<char>(env)), std::istreambuf_iterator<char>());
        a.rank = rankFromEnviron(environ);
        out.push_back(a);
        pid = parentOf(pid);
    }
    return out;
}

std::optional<std::string> ownRank() {
    if (const char* r = std::getenv("RANK")) {
        return std::string(r);
    }
    if (const char* r = std::getenv("LOCAL_RANK")) {
        return std::string(r);
    }
    return std::nullopt;
}

}  // namespace chokepoint::collectors
