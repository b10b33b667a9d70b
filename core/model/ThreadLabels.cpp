#include "core/model/ThreadLabels.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "core/base/Format.h"

namespace chokepoint::core {

ThreadLabels::ThreadLabels(const TraceModel& model) : m_model(model) {
    for (const ThreadInfo& t : model.threads) {
        m_names[{t.pid, t.tid}] = t.name;
    }
    // The process that drives the GPU: the most runtime API calls.
    std::unordered_map<std::int64_t, std::int64_t> callsByPid;
    for (std::size_t i = 0; i < model.apiCalls.size(); ++i) {
        const ThreadIndex t = model.apiCalls.thread[i];
        if (t < model.threads.size()) {
            ++callsByPid[model.threads[t].pid];
        }
    }
    std::int64_t best = -1;
    for (const auto& [pid, calls] : callsByPid) {
        if (calls > best || (calls == best && pid < m_mainPid)) {
            best = calls;
            m_mainPid = pid;
        }
    }
    if (best < 0) {
        m_mainPid = !model.processes.empty() ? model.processes.front().pid
                    : !model.threads.empty() ? model.threads.front().pid
                                             : 0;
    }
    // Worker processes: a thread named like a DataLoader worker marks its process.
    std::set<std::int64_t> workerPids;
    for (const ThreadInfo& t : model.threads) {
        if (names::threadRoleOf(t.name) == names::ThreadRole::DataWorker && t.pid != m_mainPid) {
            workerPids.insert(t.pid);
        }
    }
    std::int32_t n = 0;
    for (std::int64_t pid : workerPids) {
        m_workerOrdinal[pid] = n++;
    }
}

ThreadLabel ThreadLabels::of(ThreadIndex thread) const {
    if (thread >= m_model.threads.size()) {
        return {};
    }
    return of(m_model.threads[thread].pid, m_model.threads[thread].tid);
}

ThreadLabel ThreadLabels::of(std::int64_t pid, std::int64_t tid) const {
    ThreadLabel out;
    const auto name = m_names.find({pid, tid});
    const std::string comm = name != m_names.end() ? name->second : std::string();
    const names::ThreadRole named = names::threadRoleOf(comm);
    const auto worker = m_workerOrdinal.find(pid);
    const std::string commText = comm.empty() ? std::string() : comm + ", ";
    if (worker != m_workerOrdinal.end()) {
        out.role = names::ThreadRole::DataWorker;
        out.workerOrdinal = worker->second;
        out.label = "DataLoader worker " + std::to_string(worker->second) + " (" +
                    (tid == pid ? "pid " + std::to_string(pid)
                                : "pid " + std::to_string(pid) + " tid " + std::to_string(tid)) +
                    ")";
        return out;
    }
    if (named == names::ThreadRole::DataWorker) {  // a worker thread inside the main process
        out.role = names::ThreadRole::DataWorker;
        out.label = "DataLoader worker (" + commText + "tid " + std::to_string(tid) + ")";
        return out;
    }
    if (named == names::ThreadRole::PinMemory) {
        out.role = named;
        out.label = "pin-memory thread (" + commText + "tid " + std::to_string(tid) + ")";
        return out;
    }
    if (named == names::ThreadRole::Autograd) {
        out.role = named;
        out.label = "autograd thread (" + commText + "tid " + std::to_string(tid) + ")";
        return out;
    }
    if ((pid == m_mainPid && tid == pid) || named == names::ThreadRole::Main) {
        out.role = names::ThreadRole::Main;
        out.label = "main thread (" + commText + "pid " + std::to_string(pid) + ")";
        return out;
    }
    out.label = (pid == m_mainPid ? std::string() : "process " + std::to_string(pid) + " ") + "thread " +
                formatThreadId(tid) + (comm.empty() ? std::string() : " (" + comm + ")");
    return out;
}

}  // namespace chokepoint::core
