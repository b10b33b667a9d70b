// torch.profiler's memory events (profile_memory=True): "[memory]" instants become the GPU's memory
// tracks. Current traces carry the caching allocator's totals ("Total Allocated", "Total Reserved");
// the 2021 ones (the bundled ResNet-50 sample) carry only each allocation's "Bytes", which give the
// change since the trace began, never the job's peak. Host events are counted, not imported.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/import/KinetoJsonImporter.h"
#include "core/import/TraceLoader.h"
#include "core/model/CounterSemantics.h"
#include "tests/testutils/SharedTraces.h"

using namespace chokepoint::core;

namespace {

TraceModel importOk(const std::string& json) {
    auto result = importKinetoJsonFromMemory(json, "memory.json");
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
    return result.ok() ? std::move(result).value() : TraceModel{};
}

const CounterTrack* track(const TraceModel& m, std::string_view name, std::int16_t device = 0) {
    for (const CounterTrack& t : m.counters) {
        if (t.name == name && t.deviceIndex == device) {
            return &t;
        }
    }
    return nullptr;
}

// The events as PyTorch 2.x writes them (TraceLens' H100 BERT trace has the same fields), one out of
// time order, one on the CPU and one without a device.
constexpr const char* kWithTotals = R"JSON({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 100, "dur": 50, "args": {"device": 0}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 19, "tid": 19, "ts": 100,
   "args": {"Total Reserved": 2097152, "Total Allocated": 1024, "Bytes": 1024, "Addr": 1, "Device Id": 0,
            "Device Type": 1}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 19, "tid": 19, "ts": 130,
   "args": {"Total Reserved": 2097152, "Total Allocated": 0, "Bytes": -1024, "Device Id": 0, "Device Type": 1}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 19, "tid": 19, "ts": 120,
   "args": {"Total Reserved": 4194304, "Total Allocated": 3072, "Bytes": 2048, "Device Id": 0, "Device Type": 1}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 19, "tid": 19, "ts": 125,
   "args": {"Bytes": 64, "Device Id": -1, "Device Type": 0}},
  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 19, "tid": 19, "ts": 126,
   "args": {"Bytes": 64, "Device Type": 1}}
]})JSON";

TEST(KinetoMemoryEvents, TotalsBecomeAllocatedAndReservedTracks) {
    const TraceModel m = importOk(kWithTotals);
    const CounterTrack* allocated = track(m, kMemoryAllocatedTrack);
    const CounterTrack* reserved = track(m, kMemoryReservedTrack);
    ASSERT_NE(allocated, nullptr);
    ASSERT_NE(reserved, nullptr);
    EXPECT_EQ(allocated->unit, "bytes");
    EXPECT_EQ(allocated->timesNs, (std::vector<TimestampNs>{100'000, 120'000, 130'000}));  // sorted
    EXPECT_EQ(allocated->values, (std::vector<double>{1024, 3072, 0}));
    EXPECT_EQ(reserved->values, (std::vector<double>{2097152, 4194304, 2097152}));
    EXPECT_TRUE(isDeviceMemoryLevelTrack(*allocated));
    EXPECT_TRUE(isDeviceMemoryLevelTrack(*reserved));
    EXPECT_FALSE(sampleCoversPreviousInterval(*reserved));  // a level after the event, held until the next
    EXPECT_EQ(track(m, kMemoryAllocatedChangeTrack), nullptr);
    EXPECT_EQ(m.stats.count("import.memory_events"), 3);
    EXPECT_EQ(m.stats.count("import.host_memory_events"), 1);
    EXPECT_EQ(m.stats.count("import.unusable_memory_event"), 1);
    EXPECT_EQ(m.stats.count("import.instant_events"), 0);  // memory events are not stray markers
}

TEST(KinetoMemoryEvents, ChangesOnlyGiveTheRiseNeverAPeak) {
    const TraceModel m = importOk(R"JSON({"traceEvents": [
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 5, "tid": 5, "ts": 10,
   "args": {"Device Type": 1, "Device Id": 0, "Bytes": 19267584}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 5, "tid": 5, "ts": 11,
   "args": {"Device Type": 1, "Device Id": 0, "Bytes": 512}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 5, "tid": 5, "ts": 12,
   "args": {"Device Type": 1, "Device Id": 0, "Bytes": -19267584}}
]})JSON");
    const CounterTrack* change = track(m, kMemoryAllocatedChangeTrack);
    ASSERT_NE(change, nullptr);
    EXPECT_EQ(change->values, (std::vector<double>{19267584, 19268096, 512}));
    EXPECT_FALSE(isDeviceMemoryLevelTrack(*change));  // held before the trace began is not in it
    EXPECT_EQ(track(m, kMemoryAllocatedTrack), nullptr);
    const TraceStat* note = m.stats.find("import.memory_events_without_totals");
    ASSERT_NE(note, nullptr);
    EXPECT_NE(note->detail.find("at most +18.4 MiB"), std::string::npos) << note->detail;
}

TEST(KinetoMemoryEvents, RealTracesOfBothForms) {
    {
        CHOKEPOINT_REQUIRE_SHARED_TRACE(path,
                                        "tracelens-h100__gaunernst_bert-small-uncased__1016001.json.gz");
        auto bert = loadTrace(path);
        ASSERT_TRUE(bert.ok()) << bert.error().message;
        // 218 CUDA events; the caching allocator reserved 121,634,816 bytes at most (counted from the
        // file with Python's json module).
        const CounterTrack* reserved = track(bert.value(), kMemoryReservedTrack);
        ASSERT_NE(reserved, nullptr);
        EXPECT_EQ(reserved->values.size(), 218u);
        EXPECT_EQ(*std::max_element(reserved->values.begin(), reserved->values.end()), 121634816.0);
        const CounterTrack* allocated = track(bert.value(), kMemoryAllocatedTrack);
        ASSERT_NE(allocated, nullptr);
        EXPECT_EQ(*std::max_element(allocated->values.begin(), allocated->values.end()), 101305344.0);
    }
    {
        CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "kineto-rn50-nw0__worker0.1623143089861.pt.trace.json.gz");
        auto rn50 = loadTrace(path);
        ASSERT_TRUE(rn50.ok()) << rn50.error().message;
        // 8,220 CUDA and 4,618 CPU memory events, no totals (PyTorch 1.9, 2021).
        const CounterTrack* change = track(rn50.value(), kMemoryAllocatedChangeTrack);
        ASSERT_NE(change, nullptr);
        EXPECT_EQ(change->values.size(), 8220u);
        // The running sum of Bytes in time order peaks at 2,791,636,480 (Python, from the file).
        EXPECT_EQ(*std::max_element(change->values.begin(), change->values.end()), 2791636480.0);
        EXPECT_EQ(rn50.value().stats.count("import.host_memory_events"), 4618);
        EXPECT_EQ(track(rn50.value(), kMemoryReservedTrack), nullptr);
    }
}

}  // namespace
