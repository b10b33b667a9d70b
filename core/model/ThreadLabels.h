#pragma once
// What each host thread of a trace is, in words a user recognises: "main thread", "DataLoader
// worker 2", "pin-memory thread", "autograd thread", else "thread 553 (python3)". Works from the
// trace alone (pid, tid, the thread table's names, the API calls), so it names the threads of
// captures that recorded nothing else about them.
//
// Rules (the name knowledge is core/names/NameRules.h's threadRoleOf):
//   main process   the process whose threads issued the most runtime API calls (it drives the
//                  GPU), else the first process of the process table, else the first thread's
//   main thread    tid == pid of the main process, or a thread named like PyTorch's main thread
//                  ("pt_main_thread")
//   DataLoader worker N  a thread named like a DataLoader worker ("pt_data_worker"), or any thread
//                  of a process whose main thread is; N numbers the worker processes by pid
//                  (PyTorch starts worker i before worker i + 1)
//   pin-memory thread    named like PyTorch's pin-memory thread ("pt_data_pin")
//   autograd thread      named like an autograd device thread ("pt_autograd_0")
// Linear in threads and API calls; the result is plain data.

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "core/model/TraceModel.h"
#include "core/names/NameRules.h"

namespace chokepoint::core {

struct ThreadLabel {
    names::ThreadRole role = names::ThreadRole::Other;
    std::int32_t workerOrdinal = -1;  // DataLoader worker N, else -1
    std::string label;                // "main thread (python3, pid 523)"
    bool inputPipeline() const {
        return role == names::ThreadRole::DataWorker || role == names::ThreadRole::PinMemory;
    }
};

class ThreadLabels {
public:
    explicit ThreadLabels(const TraceModel& model);

    // The label of (pid, tid); threads absent from the thread table are labelled from pid/tid alone.
    ThreadLabel of(std::int64_t pid, std::int64_t tid) const;
    ThreadLabel of(ThreadIndex thread) const;
    std::int64_t mainPid() const { return m_mainPid; }

private:
    const TraceModel& m_model;
    std::int64_t m_mainPid = 0;
    std::map<std::int64_t, std::int32_t> m_workerOrdinal;  // worker process pid -> N
    std::map<std::pair<std::int64_t, std::int64_t>, std::string> m_names;
};

}  // namespace chokepoint::core
