// core/model/ThreadLabels: host threads named after what they are, from pid, tid, the thread
// table's names and the API calls alone (what an agent capture records).

#include "core/model/ThreadLabels.h"

#include <gtest/gtest.h>

namespace chokepoint::core {
namespace {

// The threads of a training process with two DataLoader workers, as the agent records them: the
// OS names ("comm") of PyTorch's threads, and "python3" for the main thread and intra-op threads.
TraceModel trainingProcess() {
    TraceModel m;
    m.processes.push_back({523, "python3 train.py"});
    const ThreadIndex main = m.threadIndex(523, 523, "python3");
    m.threadIndex(523, 553, "python3");
    m.threadIndex(523, 568, "pt_autograd_0");
    m.threadIndex(523, 600, "pt_data_pin");
    m.threadIndex(881, 881, "pt_data_worker");
    m.threadIndex(880, 880, "pt_data_worker");
    m.threadIndex(880, 890, "python3");  // a thread of worker 0's process
    m.threadIndex(900, 900, "python3");  // another child (a compile worker)
    ApiCallRow call;
    call.startNs = 0;
    call.endNs = 10;
    call.thread = main;
    call.name = m.intern("cudaLaunchKernel");
    m.apiCalls.add(call);
    return m;
}

TEST(ThreadLabels, NamesTheThreadsOfATrainingProcess) {
    const TraceModel m = trainingProcess();
    const ThreadLabels labels(m);
    EXPECT_EQ(labels.mainPid(), 523);
    EXPECT_EQ(labels.of(523, 523).role, names::ThreadRole::Main);
    EXPECT_EQ(labels.of(523, 523).label, "main thread (python3, pid 523)");
    EXPECT_EQ(labels.of(523, 568).role, names::ThreadRole::Autograd);
    EXPECT_EQ(labels.of(523, 600).role, names::ThreadRole::PinMemory);
    EXPECT_TRUE(labels.of(523, 600).inputPipeline());
    EXPECT_NE(labels.of(523, 600).label.find("pin-memory thread"), std::string::npos);
    // Workers are numbered by pid, and every thread of a worker's process is that worker's.
    EXPECT_EQ(labels.of(880, 880).label, "DataLoader worker 0 (pid 880)");
    EXPECT_EQ(labels.of(881, 881).label, "DataLoader worker 1 (pid 881)");
    EXPECT_EQ(labels.of(880, 890).workerOrdinal, 0);
    EXPECT_TRUE(labels.of(880, 890).inputPipeline());
    // Threads that say nothing keep their tid and name.
    EXPECT_EQ(labels.of(523, 553).role, names::ThreadRole::Other);
    EXPECT_EQ(labels.of(523, 553).label, "thread 553 (python3)");
    EXPECT_EQ(labels.of(900, 900).label, "process 900 thread 900 (python3)");
    EXPECT_FALSE(labels.of(900, 900).inputPipeline());
    // A thread missing from the table still gets a label.
    EXPECT_EQ(labels.of(523, 777).label, "thread 777");
}

TEST(ThreadLabels, WithoutApiCallsTheFirstProcessIsTheMainOne) {
    TraceModel m;
    m.processes.push_back({40, "python3"});
    m.threadIndex(41, 41, "python3");
    m.threadIndex(40, 40, "python3");
    const ThreadLabels labels(m);
    EXPECT_EQ(labels.mainPid(), 40);
    EXPECT_EQ(labels.of(40, 40).role, names::ThreadRole::Main);
    EXPECT_EQ(labels.of(41, 41).role, names::ThreadRole::Other);
}

}  // namespace
}  // namespace chokepoint::core
