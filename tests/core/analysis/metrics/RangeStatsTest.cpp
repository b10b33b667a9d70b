// Range statistics on hand-built traces with known numbers: busy union, idle by cause from the
// analyzer's intervals, clipping of events and gaps, empty ranges, ranges outside the trace,
// several devices, CPU op groups, the text table and the comparison of two ranges.

#include "core/analysis/metrics/RangeStats.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/analysis/metrics/RangeStatsText.h"
#include "core/analysis/metrics/TraceMetrics.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using core::MemcpyKind;
using core::TimeRange;

// Device 0: kernels [100,300) and [200,400) (two streams, one short name), an H2D copy [500,600)
// of 1000 bytes, a memset [700,750) of 64 bytes, a collective [800,900). Device 1: one kernel
// [0,50). Host: aten::mm [0,100) and [200,300), aten::add [220,260) inside the second, a Python
// frame [0,1000).
core::TraceModel sampleTrace() {
    testutils::TraceBuilder b;
    b.kernel("void gemm_kernel<float>(int)", 100, 300, 0, 7);
    b.kernel("gemm_kernel<float>", 200, 400, 0, 8);
    b.memcpy(MemcpyKind::HostToDevice, 1000, 500, 600, 0, 7);
    b.memset(64, 700, 750, 0, 7);
    b.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 800, 900, 0,
             9);
    b.kernel("elementwise_kernel", 0, 50, 1, 7);
    b.cpuOp("aten::mm", 0, 100);
    b.cpuOp("aten::mm", 200, 300);
    b.cpuOp("aten::add", 220, 260);
    const core::CpuOpId frame = b.cpuOp("train.py(12): step", 0, 1000, 2);
    b.model().cpuOps.category[frame.index] = core::CpuOpCategory::PythonFunction;
    return b.build();
}

const RangeDeviceStats* device(const RangeStats& stats, int index) {
    for (const RangeDeviceStats& d : stats.devices) {
        if (d.deviceIndex == index) {
            return &d;
        }
    }
    return nullptr;
}

const RangeKernelGroup* kernel(const RangeDeviceStats& d, const std::string& shortName) {
    for (const RangeKernelGroup& k : d.kernels) {
        if (k.shortName == shortName) {
            return &k;
        }
    }
    return nullptr;
}

TEST(RangeStats, WholeRangeFigures) {
    const core::TraceModel model = sampleTrace();
    const RangeStats s = computeRangeStats(model, {0, 1000});
    EXPECT_EQ(s.durationNs, 1000);
    ASSERT_EQ(s.devices.size(), 2u);
    const RangeDeviceStats& d = *device(s, 0);
    // [100,400) + [500,600) + [700,750) + [800,900)
    EXPECT_EQ(d.busyNs, 550);
    EXPECT_DOUBLE_EQ(d.busyShare, 0.55);
    EXPECT_EQ(d.idleNs, 450);
    EXPECT_EQ(d.idleUnclassifiedNs, 450);  // no analyzer intervals given
    EXPECT_EQ(d.kernelCount, 3);
    EXPECT_EQ(d.kernelTimeNs, 500);
    // Both gemm kernels share one short name.
    const RangeKernelGroup* gemm = kernel(d, "gemm_kernel<float>");
    ASSERT_NE(gemm, nullptr);
    EXPECT_EQ(gemm->count, 2);
    EXPECT_EQ(gemm->totalNs, 400);
    EXPECT_EQ(gemm->meanNs, 200);
    EXPECT_NEAR(gemm->shareOfBusy, 400.0 / 550.0, 1e-12);
    EXPECT_EQ(d.kernels.front().shortName, "gemm_kernel<float>");  // largest first
    EXPECT_EQ(d.collectiveCount, 1);
    EXPECT_EQ(d.collectiveNs, 100);
    ASSERT_EQ(d.copies.size(), 2u);
    EXPECT_EQ(copyGroupName(d.copies[0]), "Memcpy HtoD");
    EXPECT_EQ(d.copies[0].count, 1);
    EXPECT_EQ(d.copies[0].sizeBytes, 1000);
    EXPECT_EQ(d.copies[0].totalNs, 100);
    EXPECT_EQ(copyGroupName(d.copies[1]), "Memset");
    EXPECT_EQ(d.copies[1].sizeBytes, 64);
    EXPECT_EQ(d.copies[1].totalNs, 50);
    EXPECT_EQ(device(s, 1)->busyNs, 50);
    // CPU ops without the Python frame, by total time.
    ASSERT_EQ(s.cpuOps.size(), 2u);
    EXPECT_EQ(model.text(s.cpuOps[0].name), "aten::mm");
    EXPECT_EQ(s.cpuOps[0].count, 2);
    EXPECT_EQ(s.cpuOps[0].totalNs, 200);
    EXPECT_EQ(s.cpuOps[0].meanNs, 100);
    EXPECT_EQ(model.text(s.cpuOps[1].name), "aten::add");
    EXPECT_EQ(s.cpuOpCount, 3);
}

TEST(RangeStats, PythonFramesOnRequest) {
    const core::TraceModel model = sampleTrace();
    RangeStatsOptions options;
    options.includePythonFrames = true;
    const RangeStats s = computeRangeStats(model, {0, 1000}, {}, options);
    ASSERT_EQ(s.cpuOps.size(), 3u);
    EXPECT_EQ(model.text(s.cpuOps[0].name), "train.py(12): step");
    EXPECT_EQ(s.cpuOps[0].totalNs, 1000);
}

TEST(RangeStats, EventsPartlyInsideAreClipped) {
    const core::TraceModel model = sampleTrace();
    const RangeStats s = computeRangeStats(model, {150, 350});
    const RangeDeviceStats& d = *device(s, 0);
    EXPECT_EQ(d.busyNs, 200);
    EXPECT_DOUBLE_EQ(d.busyShare, 1.0);
    EXPECT_EQ(d.idleNs, 0);
    const RangeKernelGroup* gemm = kernel(d, "gemm_kernel<float>");
    ASSERT_NE(gemm, nullptr);
    EXPECT_EQ(gemm->count, 2);
    EXPECT_EQ(gemm->totalNs, 150 + 150);
    EXPECT_EQ(gemm->meanNs, 150);
    EXPECT_TRUE(d.copies.empty());
    EXPECT_EQ(d.collectiveCount, 0);
    // Device 1's kernel ends before the range.
    EXPECT_EQ(device(s, 1)->kernelCount, 0);
    EXPECT_EQ(device(s, 1)->idleNs, 200);
    // aten::mm [200,300) fully inside, [0,100) outside; aten::add inside.
    ASSERT_EQ(s.cpuOps.size(), 2u);
    EXPECT_EQ(s.cpuOps[0].count, 1);
    EXPECT_EQ(s.cpuOps[0].totalNs, 100);
    // A copy partly inside: time clipped, bytes whole.
    const RangeStats copy = computeRangeStats(model, {550, 725});
    const RangeDeviceStats& c = *device(copy, 0);
    ASSERT_EQ(c.copies.size(), 2u);
    EXPECT_EQ(c.copies[0].totalNs, 50);
    EXPECT_EQ(c.copies[0].sizeBytes, 1000);
    EXPECT_EQ(c.copies[1].totalNs, 25);
    EXPECT_EQ(c.busyNs, 75);
}

TEST(RangeStats, EmptyRange) {
    const core::TraceModel model = sampleTrace();
    const RangeStats s = computeRangeStats(model, {500, 500});
    EXPECT_EQ(s.durationNs, 0);
    ASSERT_EQ(s.devices.size(), 2u);
    for (const RangeDeviceStats& d : s.devices) {
        EXPECT_EQ(d.busyNs, 0);
        EXPECT_EQ(d.idleNs, 0);
        EXPECT_EQ(d.busyShare, 0.0);
        EXPECT_TRUE(d.kernels.empty());
    }
    EXPECT_TRUE(s.cpuOps.empty());
    // An inverted range is empty too.
    EXPECT_EQ(computeRangeStats(model, {600, 400}).devices[0].kernelCount, 0);
}

TEST(RangeStats, RangeOutsideTheTrace) {
    const core::TraceModel model = sampleTrace();
    for (const TimeRange range : {TimeRange{5000, 9000}, TimeRange{-9000, -5000}}) {
        const RangeStats s = computeRangeStats(model, range);
        ASSERT_EQ(s.devices.size(), 2u);
        const RangeDeviceStats& d = s.devices[0];
        EXPECT_EQ(d.busyNs, 0);
        EXPECT_EQ(d.idleNs, 4000);
        EXPECT_EQ(d.idleUnclassifiedNs, 4000);
        EXPECT_EQ(d.kernelCount, 0);
        EXPECT_TRUE(d.copies.empty());
        EXPECT_TRUE(s.cpuOps.empty());
    }
}

TEST(RangeStats, OneDeviceOfSeveral) {
    const core::TraceModel model = sampleTrace();
    RangeStatsOptions options;
    options.deviceIndex = 1;
    const RangeStats s = computeRangeStats(model, {0, 100}, {}, options);
    ASSERT_EQ(s.devices.size(), 1u);
    EXPECT_EQ(s.devices[0].deviceIndex, 1);
    EXPECT_EQ(s.devices[0].busyNs, 50);
    EXPECT_EQ(s.devices[0].kernels.at(0).shortName, "elementwise_kernel");
    options.deviceIndex = 3;  // no such device
    EXPECT_TRUE(computeRangeStats(model, {0, 100}, {}, options).devices.empty());
}

TEST(RangeStats, IdleByCauseClipsTheAnalyzersIntervals) {
    const core::TraceModel model = sampleTrace();
    GpuTimeAccountingResult accounting;
    auto gap = [&](int deviceIndex, int stream, TimeRange range, IdleCause cause) {
        IdleInterval i;
        i.deviceIndex = static_cast<std::int16_t>(deviceIndex);
        i.streamId = stream;
        i.range = range;
        i.cause = cause;
        accounting.idleIntervals.push_back(i);
    };
    gap(0, -1, {400, 500}, IdleCause::DataWait);
    gap(0, -1, {600, 700}, IdleCause::LaunchOverhead);
    gap(0, 7, {100, 300}, IdleCause::OtherStream);  // stream-level: not device idle
    gap(1, -1, {50, 1000}, IdleCause::Synchronization);
    RangeStatsInputs inputs;
    inputs.accounting = &accounting;

    const RangeStats whole = computeRangeStats(model, {0, 1000}, inputs);
    const RangeDeviceStats& d = *device(whole, 0);
    EXPECT_EQ(d.idleByCauseNs[static_cast<int>(IdleCause::DataWait)], 100);
    EXPECT_EQ(d.idleByCauseNs[static_cast<int>(IdleCause::LaunchOverhead)], 100);
    EXPECT_EQ(d.idleByCauseNs[static_cast<int>(IdleCause::OtherStream)], 0);
    EXPECT_EQ(d.idleUnclassifiedNs, 450 - 200);  // [0,100), [750,800), [900,1000)
    EXPECT_EQ(device(whole, 1)->idleByCauseNs[static_cast<int>(IdleCause::Synchronization)], 950);
    EXPECT_EQ(device(whole, 1)->idleUnclassifiedNs, 0);

    const RangeStats part = computeRangeStats(model, {450, 650}, inputs);
    const RangeDeviceStats& p = *device(part, 0);
    EXPECT_EQ(p.idleNs, 100);
    EXPECT_EQ(p.idleByCauseNs[static_cast<int>(IdleCause::DataWait)], 50);
    EXPECT_EQ(p.idleByCauseNs[static_cast<int>(IdleCause::LaunchOverhead)], 50);
    EXPECT_EQ(p.idleUnclassifiedNs, 0);
}

// On a trace with steps, a step's range gives the analyzer's per-step busy and idle by cause.
TEST(RangeStats, StepRangeAgreesWithTheAnalyzer) {
    testutils::TraceBuilder b;
    for (int step = 0; step < 3; ++step) {
        const core::TimestampNs t0 = step * 10'000'000;
        b.range("ProfilerStep#" + std::to_string(step + 1), t0, t0 + 10'000'000);
        b.cpuOp("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0, t0 + 3'000'000);
        for (int k = 0; k < 5; ++k) {
            const core::TimestampNs start = t0 + 3'000'000 + k * 1'200'000;
            const std::int64_t correlation = step * 10 + k + 1;
            b.cpuOp("aten::mm", start - 200'000, start + 20'000);
            b.apiCall("cudaLaunchKernel", start - 100'000, start - 80'000, correlation);
            b.kernel("ampere_sgemm_128x64_tn", start, start + 1'000'000, 0, 7, correlation);
        }
    }
    const core::TraceModel model = b.build();
    core::Result<TraceMetrics> metrics = computeTraceMetrics(model, {}, nullptr);
    ASSERT_TRUE(metrics.ok());
    const GpuTimeAccountingResult& accounting = metrics->accounting;
    ASSERT_EQ(metrics->steps.steps.size(), 3u);
    RangeStatsInputs inputs{&accounting, &metrics->kernels};
    for (const GpuTimeBreakdown& row : accounting.perStep) {
        const Step& step = metrics->steps.steps[static_cast<std::size_t>(row.stepIndex)];
        const RangeStats s = computeRangeStats(model, step.range, inputs);
        const RangeDeviceStats& d = *device(s, row.deviceIndex);
        EXPECT_EQ(d.busyNs, row.busyNs) << step.name;
        EXPECT_EQ(d.idleNs, row.idleNs) << step.name;
        for (std::size_t c = 0; c < kIdleCauseCount; ++c) {
            EXPECT_EQ(d.idleByCauseNs[c], row.idleByCauseNs[c]) << step.name << " " << toString(IdleCause(c));
        }
        EXPECT_EQ(d.idleUnclassifiedNs, 0) << step.name;
        EXPECT_GT(d.idleByCauseNs[static_cast<int>(IdleCause::DataWait)], 0) << step.name;
    }
}

TEST(RangeStatsText, TableNamesEveryFigure) {
    const core::TraceModel model = sampleTrace();
    const RangeStats s = computeRangeStats(model, {0, 1000});
    const std::string text = formatRangeStatsText(s, model, 0);
    EXPECT_NE(text.find("Range 0.000 ms to 0.001 ms (1.00 µs)"), std::string::npos) << text;
    EXPECT_NE(text.find("GPU 0"), std::string::npos);
    EXPECT_NE(text.find("GPU 1"), std::string::npos);
    EXPECT_NE(text.find("55.0 %"), std::string::npos) << text;
    EXPECT_NE(text.find("gemm_kernel<float>"), std::string::npos);
    EXPECT_NE(text.find("Memcpy HtoD"), std::string::npos);
    EXPECT_NE(text.find("1000 B"), std::string::npos) << text;
    EXPECT_NE(text.find("aten::mm"), std::string::npos);
    EXPECT_EQ(text.find("train.py"), std::string::npos);
    // Limited rows say how many were left out.
    EXPECT_NE(formatRangeStatsText(s, model, 0, 1).find("... 1 more names"), std::string::npos);
}

TEST(RangeStatsText, ComparisonMatchesNamesAcrossRanges) {
    const core::TraceModel model = sampleTrace();
    const RangeStats a = computeRangeStats(model, {0, 450});
    const RangeStats b = computeRangeStats(model, {450, 1000});
    const std::vector<RangeComparisonRow> rows = compareRangeStats(a, b, model);
    auto find = [&](const std::string& section, const std::string& name) {
        auto it = std::find_if(rows.begin(), rows.end(), [&](const RangeComparisonRow& r) {
            return r.section == section && r.name == name;
        });
        return it == rows.end() ? nullptr : &*it;
    };
    const RangeComparisonRow* duration = find("Range", "duration");
    ASSERT_NE(duration, nullptr);
    EXPECT_EQ(duration->a, 450);
    EXPECT_EQ(duration->b, 550);
    EXPECT_EQ(duration->delta(), 100);
    const RangeComparisonRow* busy = find("GPU 0", "busy");
    ASSERT_NE(busy, nullptr);
    EXPECT_EQ(busy->a, 300);
    EXPECT_EQ(busy->b, 250);
    const RangeComparisonRow* gemm = find("GPU 0 kernels", "gemm_kernel<float>");
    ASSERT_NE(gemm, nullptr);
    EXPECT_EQ(gemm->a, 400);
    EXPECT_EQ(gemm->b, 0);  // only in A
    const RangeComparisonRow* copy = find("GPU 0 copies", "Memcpy HtoD");
    ASSERT_NE(copy, nullptr);
    EXPECT_EQ(copy->a, 0);  // only in B
    EXPECT_EQ(copy->b, 100);
    const std::string text = formatRangeComparisonText(rows, a, b, 0);
    EXPECT_NE(text.find("B - A"), std::string::npos);
    EXPECT_NE(text.find("-50 ns"), std::string::npos) << text;
    EXPECT_NE(text.find("+100 ns"), std::string::npos) << text;
    EXPECT_EQ(formatRangeValue(RangeValueUnit::Fraction, -0.125, true), "-12.5 pp");
}

}  // namespace
}  // namespace chokepoint::analysis
