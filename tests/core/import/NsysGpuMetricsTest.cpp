// Nsight Systems GPU metrics (nsys profile --gpu-metrics-devices): GPU_METRICS samples named by
// TARGET_INFO_GPU_METRICS become counter tracks on the right device. None of the shared real
// exports has these tables, so the database is built here with the columns NVIDIA's exporter writes
// (GPU_METRICS: timestamp, typeId, metricId, value; TARGET_INFO_GPU_METRICS: typeId, sourceId,
// typeName, metricId, metricName).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/analysis/metrics/CounterSummary.h"
#include "core/import/NsysSqliteImporter.h"
#include "tests/core/import/NsysTestDb.h"

namespace chokepoint {
namespace {

using core::TraceModel;
using testutils::createDb;
using testutils::TempPath;

const core::CounterTrack* track(const TraceModel& m, const std::string& name) {
    for (const core::CounterTrack& t : m.counters) {
        if (t.name == name) {
            return &t;
        }
    }
    return nullptr;
}

// GPU id 1 in TARGET_INFO_GPU is CUDA device 0; the metrics' typeId carries the GPU id in its low byte.
constexpr const char* kGpuMetricsSql = R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (1, 'lbm_collide_kernel');
CREATE TABLE TARGET_INFO_GPU (id INTEGER NOT NULL, name TEXT NOT NULL, smCount INTEGER, totalMemory INTEGER,
  computeMajor INTEGER, computeMinor INTEGER, cuDevice INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (1, 'NVIDIA H100 80GB HBM3', 132, 85520809984, 9, 0, 0);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  streamId INTEGER NOT NULL, correlationId INTEGER, shortName INTEGER NOT NULL, gridX INTEGER, gridY INTEGER,
  gridZ INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 900000, 0, 7, 1, 1, 4096, 1, 1);
CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER NOT NULL, sourceId INTEGER NOT NULL, typeName TEXT NOT NULL,
  metricId INTEGER NOT NULL, metricName TEXT NOT NULL);
INSERT INTO TARGET_INFO_GPU_METRICS VALUES
  (65793, 1, 'GH100', 0, 'SMs Active [Throughput %]'),
  (65793, 1, 'GH100', 1, 'Tensor Active [Throughput %]'),
  (65793, 1, 'GH100', 2, 'DRAM Read Bandwidth [Throughput %]'),
  (65793, 1, 'GH100', 3, 'DRAM Write Bandwidth [Throughput %]'),
  (65793, 1, 'GH100', 4, 'PCIe RX Throughput [Throughput %]'),
  (65793, 1, 'GH100', 5, 'SM Frequency [MHz]');
CREATE TABLE GPU_METRICS (timestamp INTEGER, typeId INTEGER NOT NULL, metricId INTEGER NOT NULL,
  value INTEGER NOT NULL);
INSERT INTO GPU_METRICS VALUES
  (0, 65793, 0, 90), (0, 65793, 1, 10), (0, 65793, 2, 40), (0, 65793, 3, 20), (0, 65793, 4, 5),
  (0, 65793, 5, 1755),
  (200000, 65793, 0, 94), (200000, 65793, 1, 12), (200000, 65793, 2, 44), (200000, 65793, 3, 22),
  (200000, 65793, 4, 7), (200000, 65793, 5, 1755),
  (100000, 65793, 0, 92), (100000, 65793, 2, 42), (100000, 65793, 3, 21),
  (300000, 65793, 0, 'x');
)sql";

TEST(NsysGpuMetrics, SamplesBecomeCounterTracksOnTheCudaDevice) {
    TempPath file(".sqlite");
    createDb(file.path(), kGpuMetricsSql);
    auto result = core::importNsysSqlite(file.path());
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    ASSERT_EQ(m.devices.size(), 1u);
    EXPECT_EQ(m.devices[0].deviceIndex, 0);
    ASSERT_EQ(m.counters.size(), 6u);

    const core::CounterTrack* sm = track(m, "SMs Active");
    ASSERT_NE(sm, nullptr);
    EXPECT_EQ(sm->unit, "%");
    EXPECT_EQ(sm->deviceIndex, 0);  // GPU id 1 is CUDA device 0
    // The out-of-order sample (100 us) is sorted in; the row with a text value is dropped.
    ASSERT_EQ(sm->timesNs.size(), 3u);
    EXPECT_EQ(sm->timesNs[0], 0);
    EXPECT_EQ(sm->timesNs[1], 100000);
    EXPECT_EQ(sm->timesNs[2], 200000);
    EXPECT_DOUBLE_EQ(sm->values[1], 92);
    EXPECT_DOUBLE_EQ(sm->values[2], 94);
    EXPECT_EQ(m.stats.count("import.nsys_bad_row"), 1);
    EXPECT_EQ(m.stats.count("import.nsys_gpu_metrics"), 15);

    const core::CounterTrack* clock = track(m, "SM Frequency");
    ASSERT_NE(clock, nullptr);
    EXPECT_EQ(clock->unit, "MHz");
    ASSERT_NE(track(m, "DRAM Write Bandwidth"), nullptr);
    ASSERT_NE(track(m, "PCIe RX Throughput"), nullptr);
}

TEST(NsysGpuMetrics, MeasuredActivityReadsTheImportedTracks) {
    TempPath file(".sqlite");
    createDb(file.path(), kGpuMetricsSql);
    auto result = core::importNsysSqlite(file.path());
    ASSERT_TRUE(result.ok()) << result.error().message;
    const analysis::StepsResult noSteps;
    const std::vector<analysis::CounterAverage> averages =
        analysis::summarizeCounters(result.value(), noSteps);
    const analysis::MeasuredActivity a = analysis::measuredActivity(averages, 0, -1);
    // Time-weighted means over [0, 200 us]: SM (90·100 + 92·100) / 200 = 91 %; DRAM read 41 % +
    // write 20.5 %; tensor 10 %; PCIe 5 % (the last sample only holds for the window's last ns).
    ASSERT_TRUE(a.smActive);
    EXPECT_NEAR(*a.smActive, 0.91, 0.001);
    ASSERT_TRUE(a.dramThroughput);
    EXPECT_NEAR(*a.dramThroughput, 0.615, 0.001);
    ASSERT_TRUE(a.tensorActive);
    EXPECT_NEAR(*a.tensorActive, 0.10, 0.001);
    ASSERT_TRUE(a.pcieThroughput);
    EXPECT_NEAR(*a.pcieThroughput, 0.05, 0.001);
    // The MHz track is not an activity.
    EXPECT_EQ(analysis::classifyCounterName("SM Frequency"), analysis::CounterKind::Other);
    EXPECT_EQ(analysis::classifyCounterName("SMs Active"), analysis::CounterKind::SmActivity);
    EXPECT_EQ(analysis::classifyCounterName("PCIe RX Throughput"), analysis::CounterKind::PcieThroughput);
}

TEST(NsysGpuMetrics, ExportWithoutGpuMetricsHasNoCounters) {
    TempPath file(".sqlite");
    createDb(file.path(), R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (1, 'k');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  correlationId INTEGER, shortName INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 0, 7, 1, 1);
)sql");
    auto result = core::importNsysSqlite(file.path());
    ASSERT_TRUE(result.ok()) << result.error().message;
    EXPECT_TRUE(result.value().counters.empty());
    EXPECT_EQ(result.value().stats.count("import.nsys_gpu_metrics"), 0);
}

}  // namespace
}  // namespace chokepoint
