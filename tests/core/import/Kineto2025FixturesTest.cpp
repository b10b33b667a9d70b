// The Chrome-trace JSON that PyTorch's profiler writes since 2025-2026 (pytorch/kineto
// output_json.cpp): collective "Seq"/"Comms Id", Stream Sync rows on a virtual tid, CUPTI PM-sampling
// counters, cudaEvent and cuMem* rows, kernel occupancy, typed metadata and "displayTimeUnit": "ns".
// Fixtures: tests/data/kineto-2025 (synthetic, written to kineto's shapes; README there).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/analysis/metrics/CounterSummary.h"
#include "core/import/KinetoJsonImporter.h"
#include "core/model/PmMetricNames.h"

namespace chokepoint::core {
namespace {

std::string fixture(const char* name) {
    return std::string(CHOKEPOINT_SOURCE_DIR) + "/tests/data/kineto-2025/" + name;
}

TraceModel load(const char* name) {
    auto result = importKinetoJson(fixture(name));
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
    return result.ok() ? std::move(result).value() : TraceModel{};
}

std::string note(const TraceModel& m, const std::string& key) {
    for (const auto& [k, v] : m.metadata.notes) {
        if (k == key) {
            return v;
        }
    }
    return "<absent>";
}

TEST(Kineto2025FixturesTest, CollectivesCarrySeqAndTheUnsignedCommsId) {
    const TraceModel m = load("comms-rank0.pt.trace.json");
    ASSERT_EQ(m.collectiveCalls.size(), 4u);
    for (std::size_t i = 0; i < m.collectiveCalls.size(); ++i) {
        const CollectiveCallRow& call = m.collectiveCalls[i];
        EXPECT_EQ(call.seq, static_cast<std::int64_t>(i));
        EXPECT_TRUE(call.hasCommsId);
        // The fixture's ids use the top bit: read as uint64, not rejected as out of int64 range.
        EXPECT_GE(call.commsId, std::uint64_t{1} << 63);
        EXPECT_EQ(m.text(call.processGroupName), "0");
        EXPECT_EQ(call.groupSize, 2);
    }
    EXPECT_NE(m.collectiveCalls[0].commsId, m.collectiveCalls[1].commsId);
    EXPECT_EQ(m.stats.count("import.value_out_of_range"), 0);
    EXPECT_EQ(m.stats.count("import.wrong_type"), 0);
    // PT_PROFILER_* environment variables and the host name from the trace metadata.
    EXPECT_EQ(note(m, "PT_PROFILER_JOB_NAME"), "llama-pretrain");
    EXPECT_EQ(note(m, "PT_PROFILER_JOB_ATTEMPT_INDEX"), "0");
    EXPECT_EQ(m.metadata.hostName, "node-0");
    EXPECT_EQ(m.kernels.size(), 16u);
}

TEST(Kineto2025FixturesTest, SyncRowsOnTheVirtualTidBelongToTheirStream) {
    const TraceModel m = load("sync-rows.pt.trace.json");
    // No phantom stream 1000007 from the "stream 7 (sync)" row name.
    for (const StreamInfo& s : m.streams) {
        EXPECT_LT(s.streamId, 1'000'000) << s.name;
    }
    ASSERT_EQ(m.syncs.size(), 4u);
    for (std::size_t i = 0; i < m.syncs.size(); ++i) {
        EXPECT_EQ(m.syncs.streamId[i], 7);
        EXPECT_EQ(m.syncs.deviceIndex[i], 0);
        EXPECT_EQ(m.syncs.kind[i], SyncKind::StreamSynchronize);
    }
    EXPECT_EQ(m.stats.count("import.sync_rows_on_virtual_tid"), 4);
    // cudaEvent markers: drawn by Perfetto, not imported: named as a warning.
    const TraceStat* events = m.stats.find("import.cuda_events_not_imported");
    ASSERT_NE(events, nullptr);
    EXPECT_EQ(events->count, 3);
    EXPECT_EQ(events->severity, Severity::Warning);
    EXPECT_EQ(m.stats.count("import.unknown_category"), 0);
    // Kernel occupancy (limiting factors): parsed past, named as a warning; the kernel's own args stay.
    const TraceStat* occupancy = m.stats.find("import.kernel_occupancy_not_imported");
    ASSERT_NE(occupancy, nullptr);
    EXPECT_EQ(occupancy->count, 3);
    EXPECT_EQ(occupancy->severity, Severity::Warning);
    ASSERT_EQ(m.kernels.size(), 3u);
    EXPECT_EQ(m.kernels.registersPerThread[0], 128);
    EXPECT_EQ(m.kernels.gridX[0], 132);
    // cuMem* driver activities are driver API calls on the host thread.
    int cuMem = 0;
    for (std::size_t i = 0; i < m.apiCalls.size(); ++i) {
        if (m.text(m.apiCalls.name[i]).starts_with("cuMem")) {
            ++cuMem;
            EXPECT_EQ(m.apiCalls.domain[i], ApiDomain::Driver);
        }
    }
    EXPECT_EQ(cuMem, 3);
}

TEST(Kineto2025FixturesTest, PmSamplingCountersBecomeTheAgentsDeviceTracks) {
    const TraceModel m = load("pm-sampling.pt.trace.json");
    auto track = [&](const std::string& name) -> const CounterTrack* {
        for (const CounterTrack& t : m.counters) {
            if (t.name == name) {
                return &t;
            }
        }
        return nullptr;
    };
    const CounterTrack* dram = track("DRAM throughput");
    ASSERT_NE(dram, nullptr);
    EXPECT_EQ(dram->unit, "%");
    EXPECT_EQ(dram->deviceIndex, 0);
    EXPECT_EQ(dram->timesNs.size(), 30u);
    const CounterTrack* tensor = track("Tensor pipe active");
    ASSERT_NE(tensor, nullptr);
    EXPECT_EQ(tensor->deviceIndex, 0);
    ASSERT_NE(track("DRAM bytes read"), nullptr);
    EXPECT_EQ(track("DRAM bytes read")->unit, "bytes");
    // A metric outside the agent's set keeps its CUPTI name, its unit read from the name.
    const CounterTrack* l2 = track("lts__t_sectors.avg.pct_of_peak_sustained_elapsed");
    ASSERT_NE(l2, nullptr);
    EXPECT_EQ(l2->unit, "%");
    EXPECT_EQ(m.stats.count("import.kineto_pm_sampling"), 150);

    // The analysis reads them as measured activity of GPU 0, as it reads the agent's.
    analysis::StepsResult noSteps;
    const auto averages = analysis::summarizeCounters(m, noSteps);
    const analysis::MeasuredActivity measured = analysis::measuredActivity(averages, 0, -1);
    ASSERT_TRUE(measured.dramThroughput.has_value());
    EXPECT_NEAR(*measured.dramThroughput, 0.825, 1e-9);
    ASSERT_TRUE(measured.tensorActive.has_value());
    EXPECT_NEAR(*measured.tensorActive, 0.04, 1e-9);
    ASSERT_TRUE(measured.smActive.has_value());
    EXPECT_NEAR(*measured.smActive, 0.91, 1e-9);
}

TEST(Kineto2025FixturesTest, NsDisplayUnitKeepsMicrosecondTimestamps) {
    const TraceModel m = load("ns-units.pt.trace.json");
    ASSERT_EQ(m.kernels.size(), 1u);
    // "ts": 1010.001, "dur": 1.999 (microseconds, whatever displayTimeUnit says).
    EXPECT_EQ(m.kernels.startNs[0], 1'010'001);
    EXPECT_EQ(m.kernels.durationNs(0), 1'999);
    ASSERT_EQ(m.memcpys.size(), 1u);
    EXPECT_EQ(m.memcpys.startNs[0], 1'020'005);
    EXPECT_EQ(m.memcpys.endNs[0] - m.memcpys.startNs[0], 777);
    EXPECT_EQ(m.memcpys.sizeBytes[0], 4096);
    ASSERT_EQ(m.apiCalls.size(), 1u);
    EXPECT_EQ(m.apiCalls.endNs[0] - m.apiCalls.startNs[0], 4'567);
    EXPECT_EQ(note(m, "displayTimeUnit"), "ns");
    EXPECT_EQ(m.metadata.captureStartUnixNs, 1'780'000'000'000'000'000);
    EXPECT_EQ(m.metadata.hostName, "node-ns");
    EXPECT_EQ(m.stats.count("import.wrong_type"), 0);
}

TEST(Kineto2025FixturesTest, PmMetricNamesFollowTheAgentAndReadUnitsFromUnknownNames) {
    EXPECT_EQ(pmTrackForMetric("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed").name,
              "DRAM throughput");
    EXPECT_EQ(pmTrackForMetric("sm__cycles_active.avg.pct_of_peak_sustained_elapsed").name, "SM active");
    EXPECT_EQ(pmTrackForMetric("gpc__cycles_elapsed.avg.per_second").unit, "Hz");
    EXPECT_EQ(pmTrackForMetric("sm__cycles_active.avg").name, "sm__cycles_active.avg");
    EXPECT_EQ(pmTrackForMetric("sm__cycles_active.avg").unit, "");
    EXPECT_EQ(pmTrackForMetric("dram__bytes_write.sum").unit, "bytes");
}

TEST(Kineto2025FixturesTest, MalformedCommsIdIsCountedNotFatal) {
    const std::string json = R"({"traceEvents":[
      {"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce","pid":0,"tid":7,"ts":10,"dur":5,
       "args":{"device":0,"stream":7,"correlation":3,"Collective name":"allreduce","Seq":"4","Comms Id":-12}},
      {"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce","pid":0,"tid":7,"ts":20,"dur":5,
       "args":{"device":0,"stream":7,"correlation":4,"Collective name":"allreduce","Comms Id":[1]}}]})";
    auto result = importKinetoJsonFromMemory(json, "bad-comms.json");
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    ASSERT_EQ(m.collectiveCalls.size(), 2u);
    EXPECT_FALSE(m.collectiveCalls[0].hasCommsId);
    EXPECT_EQ(m.collectiveCalls[0].seq, 4);  // a numeric string, as the quoted legacy path wrote it
    EXPECT_FALSE(m.collectiveCalls[1].hasCommsId);
    EXPECT_EQ(m.stats.count("import.value_out_of_range"), 1);
    EXPECT_EQ(m.stats.count("import.wrong_type"), 1);
}

}  // namespace
}  // namespace chokepoint::core
