#include "collectors/host/HostSampler.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>

#include "core/model/CounterSemantics.h"

namespace chokepoint::collectors {

namespace {

bool readSmallFile(const std::string& path, std::string* out) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    char buf[512];
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) {
        return false;
    }
    out->assign(buf, static_cast<std::size_t>(n));
    return true;
}

std::vector<pid_t> numericEntries(const std::string& dir) {
    std::vector<pid_t> out;
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
        return out;
    }
    while (dirent* e = ::readdir(d)) {
        char* end = nullptr;
        long v = std::strtol(e->d_name, &end, 10);
        if (end != e->d_name && *end == '\0' && v > 0) {
            out.push_back(static_cast<pid_t>(v));
        }
    }
    ::closedir(d);
    return out;
}

// Parses "pid (comm) state ppid ..." where comm may contain spaces and parentheses.
bool parseStat(const std::string& stat, std::string* comm, pid_t* ppid, std::int64_t* ticks) {
    std::size_t open = stat.find('(');
    std::size_t close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) {
        return false;
    }
    if (comm) {
        *comm = stat.substr(open + 1, close - open - 1);
    }
    // Fields after ")": 3 state, 4 ppid, ..., 14 utime, 15 stime.
    const char* p = stat.c_str() + close + 1;
    long fields[13] = {};
    int field = 3;
    while (*p != '\0' && field <= 15) {
        while (*p == ' ') {
            ++p;
        }
        if (field == 3) {
            while (*p != '\0' && *p != ' ') {
                ++p;
            }
        } else {
            char* end = nullptr;
            long v = std::strtol(p, &end, 10);
            if (end == p) {
                return false;
            }
            fields[field - 3] = v;
            p = end;
        }
        ++field;
    }
    if (field <= 15) {
        return false;
    }
    if (ppid) {
        *ppid = static_cast<pid_t>(fields[4 - 3]);
    }
    if (ticks) {
        *ticks = fields[14 - 3] + fields[15 - 3];
    }
    return true;
}

}  // namespace

HostSampler::HostSampler(Options options) : m_options(std::move(options)) {
    if (m_options.rootPid == 0) {
        m_options.rootPid = ::getpid();
    }
    m_options.hz = std::clamp(m_options.hz, 1, 1000);
}

HostSampler::~HostSampler() {
    stop();
    for (auto& [key, t] : m_threads) {
        if (t.fd >= 0) {
            ::close(t.fd);
        }
    }
}

core::TimestampNs HostSampler::monotonicNowNs() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<core::TimestampNs>(ts.tv_sec) * core::kNsPerSecond + ts.tv_nsec;
}

void HostSampler::start() {
    if (m_thread.joinable()) {
        return;
    }
    {
        std::lock_guard lock(m_wakeMutex);
        m_stop = false;
    }
    sampleOnce(monotonicNowNs());  // baseline, so the first interval yields values
    m_thread = std::thread([this] { loop(); });
}

void HostSampler::stop() {
    if (!m_thread.joinable()) {
        return;
    }
    {
        std::lock_guard lock(m_wakeMutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
    sampleOnce(monotonicNowNs());
}

void HostSampler::loop() {
    auto period = std::chrono::nanoseconds(core::kNsPerSecond / m_options.hz);
    auto next = std::chrono::steady_clock::now() + period;
    std::unique_lock lock(m_wakeMutex);
    while (!m_stop) {
        if (m_wake.wait_until(lock, next, [this] { return m_stop; })) {
            break;
        }
        lock.unlock();
        sampleOnce(monotonicNowNs());
        lock.lock();
        next += period;
        auto now = std::chrono::steady_clock::now();
        if (next < now) {
            next = now + period;  // fell behind (machine overloaded): skip, don't burst
        }
    }
}

std::vector<pid_t> HostSampler::descendants(pid_t root) const {
    // Cheap path: each task's "children" file (CONFIG_PROC_CHILDREN) lists the processes it forked.
    std::vector<pid_t> out{root};
    bool childrenFiles = true;
    for (std::size_t i = 0; i < out.size() && out.size() < 4096; ++i) {
        std::string taskDir = m_options.procRoot + "/" + std::to_string(out[i]) + "/task";
        for (pid_t tid : numericEntries(taskDir)) {
            int fd =
                ::open((taskDir + "/" + std::to_string(tid) + "/children").c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                childrenFiles = childrenFiles && errno != ENOENT;
                continue;
            }
            char buf[4096];
            ssize_t n = ::read(fd, buf, sizeof buf - 1);
            ::close(fd);
            if (n <= 0) {
                continue;
            }
            buf[n] = '\0';
            char* p = buf;
            while (*p != '\0') {
                char* end = nullptr;
                long v = std::strtol(p, &end, 10);
                if (end == p) {
                    break;
                }
                if (v > 0) {
                    out.push_back(static_cast<pid_t>(v));
                }
                p = end;
            }
        }
        if (!childrenFiles) {
            break;
        }
    }
    if (childrenFiles) {
        return out;
    }
    // Fallback: one pass over /proc/*/stat for parent links.
    std::map<pid_t, std::vector<pid_t>> children;
    for (pid_t pid : numericEntries(m_options.procRoot)) {
        std::string stat;
        pid_t ppid = 0;
        if (readSmallFile(m_options.procRoot + "/" + std::to_string(pid) + "/stat", &stat) &&
            parseStat(stat, nullptr, &ppid, nullptr)) {
            children[ppid].push_back(pid);
        }
    }
    out.assign(1, root);
    for (std::size_t i = 0; i < out.size() && out.size() < 4096; ++i) {
        auto it = children.find(out[i]);
        if (it != children.end()) {
            out.insert(out.end(), it->second.begin(), it->second.end());
        }
    }
    return out;
}

void HostSampler::scanProcess(pid_t pid) {
    std::string taskDir = m_options.procRoot + "/" + std::to_string(pid) + "/task";
    for (pid_t tid : numericEntries(taskDir)) {
        auto key = std::make_pair(pid, tid);
        auto it = m_threads.find(key);
        std::string base = taskDir + "/" + std::to_string(tid);
        std::string comm;
        if (readSmallFile(base + "/comm", &comm)) {
            while (!comm.empty() && (comm.back() == '\n' || comm.back() == '\r')) {
                comm.pop_back();
            }
        }
        if (it == m_threads.end()) {
            ThreadState t;
            t.pid = pid;
            t.tid = tid;
            t.fd = ::open((base + "/schedstat").c_str(), O_RDONLY | O_CLOEXEC);
            if (t.fd < 0) {
                t.schedstat = false;
                t.fd = ::open((base + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
            }
            if (t.fd < 0) {
                continue;  // exited meanwhile
            }
            t.name = comm;
            it = m_threads.emplace(key, std::move(t)).first;
            m_names[key] = it->second.name;
        } else if (!comm.empty() && comm != it->second.name) {
            it->second.name = comm;  // renamed (pthread_setname_np, Python 3.14 thread names)
            m_names[key] = comm;
        }
        it->second.seen = true;
    }
}

void HostSampler::rescan() {
    for (auto& [key, t] : m_threads) {
        t.seen = false;
    }
    m_processes =
        m_options.includeChildren ? descendants(m_options.rootPid) : std::vector<pid_t>{m_options.rootPid};
    for (pid_t pid : m_processes) {
        scanProcess(pid);
    }
    for (auto it = m_threads.begin(); it != m_threads.end();) {
        if (!it->second.seen) {
            if (it->second.fd >= 0) {
                ::close(it->second.fd);
            }
            it = m_threads.erase(it);
        } else {
            ++it;
        }
    }
}

bool HostSampler::readCpuNs(ThreadState& t, std::int64_t* cpuNs) const {
    char buf[512];
    ssize_t n = ::pread(t.fd, buf, sizeof buf - 1, 0);
    if (n <= 0) {
        return false;  // thread exited: ESRCH
    }
    buf[n] = '\0';
    if (t.schedstat) {
        char* end = nullptr;
        long long v = std::strtoll(buf, &end, 10);
        if (end == buf) {
            return false;
        }
        *cpuNs = v;
        return true;
    }
    std::int64_t ticks = 0;
    if (!parseStat(std::string(buf, static_cast<std::size_t>(n)), nullptr, nullptr, &ticks)) {
        return false;
    }
    static const long kTicksPerSecond = ::sysconf(_SC_CLK_TCK) > 0 ? ::sysconf(_SC_CLK_TCK) : 100;
    *cpuNs = ticks * (core::kNsPerSecond / kTicksPerSecond);
    return true;
}

void HostSampler::sampleOnce(core::TimestampNs nowNs) {
    std::lock_guard lock(m_mutex);
    if (m_threads.empty() || nowNs - m_lastRescanNs >= m_options.rescanIntervalMs * core::kNsPerMs) {
        rescan();
        m_lastRescanNs = nowNs;
    }
    for (auto& [key, t] : m_threads) {
        std::int64_t cpuNs = 0;
        if (!readCpuNs(t, &cpuNs)) {
            continue;
        }
        if (t.lastCpuNs >= 0 && nowNs > t.lastNs) {
            double percent =
                100.0 * static_cast<double>(cpuNs - t.lastCpuNs) / static_cast<double>(nowNs - t.lastNs);
            if (m_pending.size() < m_options.maxPendingSamples) {
                m_pending.push_back({t.pid, t.tid, nowNs, std::max(0.0, percent)});
            } else {
                m_dropped.fetch_add(1);
            }
        }
        t.lastCpuNs = cpuNs;
        t.lastNs = nowNs;
    }
}

void HostSampler::drainInto(core::TraceModel& batch, core::TimestampNs minTimeNs) {
    std::vector<Pending> pending;
    std::map<std::pair<pid_t, pid_t>, std::string> names;
    std::map<std::pair<pid_t, pid_t>, std::string> knownNames;
    {
        std::lock_guard lock(m_mutex);
        pending.swap(m_pending);
        names.swap(m_names);
        for (const auto& [key, t] : m_threads) {
            knownNames[key] = t.name;
        }
    }
    std::map<std::pair<pid_t, pid_t>, std::size_t> trackOf;
    for (const Pending& p : pending) {
        if (p.timeNs < minTimeNs) {
            continue;
        }
        auto key = std::make_pair(p.pid, p.tid);
        auto it = trackOf.find(key);
        if (it == trackOf.end()) {
            core::CounterTrack track;
            track.name = std::string(core::kThreadCpuTrack);
            track.unit = std::string(core::kThreadCpuUnit);
            track.pid = p.pid;
            track.tid = p.tid;
            batch.counters.push_back(std::move(track));
            it = trackOf.emplace(key, batch.counters.size() - 1).first;
            auto name = knownNames.find(key);
            batch.threadIndex(p.pid, p.tid, name != knownNames.end() ? name->second : std::string_view{});
        }
        core::CounterTrack& track = batch.counters[it->second];
        track.timesNs.push_back(p.timeNs);
        track.values.push_back(p.cpuPercent);
    }
    for (const auto& [key, name] : names) {
        core::ThreadIndex index = batch.threadIndex(key.first, key.second, name);
        batch.threads[index].name = name;
    }
}

std::size_t HostSampler::trackedThreads() const {
    std::lock_guard lock(m_mutex);
    return m_threads.size();
}

std::size_t HostSampler::trackedProcesses() const {
    std::lock_guard lock(m_mutex);
    return m_processes.size();
}

}  // namespace chokepoint::collectors
