// Synthetic CUDA 13 activity buffers walked by the real cuptiActivityGetNextRecord (no GPU or
// driver needed): field mapping, names, correlation joins, external correlation, timestamps,
// windows, overhead records; plus the clock mapping and the buffer pool.

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <ctime>

#include "collectors/agent/ActivityBufferPool.h"
#include "collectors/agent/ActivityDecoder.h"
#include "collectors/agent/ClockSync.h"
#include "tests/collectors/agent/SyntheticCupti.h"

namespace chokepoint::collectors {
namespace {

using testutils::SyntheticCupti;

// A mangled kernel name and what it demangles to.
constexpr const char* kMangled = "_Z9vectorAddPKfS0_Pfi";

TEST(ActivityDecoderTest, DecodesEveryEnabledKindThroughRealCupti) {
    SyntheticCupti s;
    s.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1000, 1500, 11);
    auto& ext = s.add<CUpti_ActivityExternalCorrelation>(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
    ext.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
    ext.externalId = 424242;
    ext.correlationId = 11;
    s.kernel(kMangled, 2000, 5000, 11);
    auto& copy = s.add<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
    copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    copy.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    copy.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    copy.bytes = 1 << 20;
    copy.start = 6000;
    copy.end = 9000;
    copy.correlationId = 12;
    copy.streamId = 7;
    auto& set = s.add<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
    set.bytes = 4096;
    set.start = 9500;
    set.end = 9600;
    set.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    set.correlationId = 13;
    auto& sync = s.add<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
    sync.start = 9700;
    sync.end = 12000;
    sync.contextId = 1;
    sync.streamId = 7;
    sync.correlationId = 14;
    s.api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 12100, 12200, 15);
    auto& overhead = s.add<CUpti_ActivityOverhead3>(CUPTI_ACTIVITY_KIND_OVERHEAD);
    overhead.start = 100;
    overhead.end = 400;
    overhead.overheadData = std::malloc(16);  // the decoder must free it (ASan builds catch a leak)
    auto& device = s.add<CUpti_ActivityDevice5>(CUPTI_ACTIVITY_KIND_DEVICE);
    device.id = 0;
    device.name = strdup("NVIDIA H100 80GB HBM3");  // CUPTI allocates it; the decoder frees it
    device.isCudaVisible = 1;
    device.numMultiprocessors = 132;
    device.globalMemorySize = 85899345920ull;
    device.computeCapabilityMajor = 9;
    device.numThreadsPerWarp = 32;
    device.maxWarpsPerMultiprocessor = 64;
    // The synchronization record above is kept because its API call is a *Synchronize.
    s.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 9650, 12050, 14);

    ClockMap clock;
    ActivityDecoder decoder(clock);
    core::TraceModel batch;
    decoder.decode(s.data(), s.size(), batch);

    const DecoderCounts& c = decoder.counts();
    EXPECT_EQ(c.records, s.records());
    EXPECT_EQ(c.bufferErrors, 0u);
    EXPECT_EQ(c.unknownKind, 0u);
    ASSERT_EQ(batch.kernels.size(), 1u);
    core::KernelRow k = batch.kernels.row(core::KernelId(0));
    EXPECT_EQ(batch.text(k.name), "vectorAdd(float const*, float const*, float*, int)");
    EXPECT_EQ(k.startNs, 2000);
    EXPECT_EQ(k.endNs, 5000);
    EXPECT_EQ(k.streamId, 7);
    EXPECT_EQ(k.gridX, 64);
    EXPECT_EQ(k.blockX, 256);
    EXPECT_EQ(k.registersPerThread, 32);
    EXPECT_EQ(k.staticSharedBytes, 1024);
    EXPECT_EQ(k.dynamicSharedBytes, 2048);
    EXPECT_EQ(k.correlationId, 11);
    ASSERT_EQ(batch.memcpys.size(), 1u);
    core::MemcpyRow m = batch.memcpys.row(core::MemcpyId(0));
    EXPECT_EQ(m.kind, core::MemcpyKind::HostToDevice);
    EXPECT_EQ(m.srcKind, core::MemoryKind::Pageable);
    EXPECT_EQ(m.dstKind, core::MemoryKind::Device);
    EXPECT_EQ(m.sizeBytes, 1 << 20);
    ASSERT_EQ(batch.memsets.size(), 1u);
    EXPECT_EQ(batch.memsets.row(core::MemsetId(0)).sizeBytes, 4096);
    ASSERT_EQ(batch.syncs.size(), 1u);
    EXPECT_EQ(batch.syncs.row(core::SyncId(0)).kind, core::SyncKind::StreamSynchronize);
    EXPECT_EQ(batch.syncs.row(core::SyncId(0)).streamId, 7);
    ASSERT_EQ(batch.apiCalls.size(), 3u);
    core::ApiCallRow runtime = batch.apiCalls.row(core::ApiCallId(0));
    EXPECT_EQ(batch.text(runtime.name), "cudaLaunchKernel");  // "_v7000" stripped
    EXPECT_EQ(runtime.domain, core::ApiDomain::Runtime);
    EXPECT_EQ(batch.threads[runtime.thread].pid, 100);
    EXPECT_EQ(batch.threads[runtime.thread].tid, 101);
    EXPECT_EQ(batch.text(batch.apiCalls.row(core::ApiCallId(1)).name), "cuLaunchKernel");
    EXPECT_EQ(batch.apiCalls.row(core::ApiCallId(1)).domain, core::ApiDomain::Driver);
    ASSERT_EQ(batch.devices.size(), 1u);
    EXPECT_EQ(batch.devices[0].name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(batch.devices[0].smCount, 132);
    EXPECT_EQ(batch.devices[0].maxThreadsPerSm, 2048);
    EXPECT_EQ(c.overhead, 1u);
    EXPECT_EQ(c.overheadNs, 300);
    ASSERT_NE(decoder.externalFor(11), nullptr);
    EXPECT_EQ(decoder.externalFor(11)->externalId, 424242u);
    EXPECT_EQ(decoder.externalFor(11)->kind,
              static_cast<std::uint32_t>(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0));
    EXPECT_EQ(decoder.externalFor(99), nullptr);
}

TEST(ActivityDecoderTest, CorrelationJoinsKernelsAndCopiesToTheirLaunches) {
    SyntheticCupti s;
    // Two threads launch interleaved; buffers deliver GPU records before API records.
    s.kernel("k_a", 5000, 6000, 21);
    s.kernel("k_b", 6100, 7000, 22);
    s.kernel("k_a", 7100, 8000, 23);
    s.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1000, 1200, 21, 100,
          101);
    s.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1100, 1300, 22, 100,
          102);
    s.api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 1400, 1500, 23, 100, 101);
    ClockMap clock;
    ActivityDecoder decoder(clock);
    core::TraceModel model;
    decoder.decode(s.data(), s.size(), model);
    model.finalize();
    ASSERT_EQ(model.kernels.size(), 3u);
    for (std::size_t i = 0; i < model.kernels.size(); ++i) {
        core::KernelRow k = model.kernels.row(core::KernelId(static_cast<std::uint32_t>(i)));
        ASSERT_TRUE(k.launchCall.valid()) << "kernel " << i;
        core::ApiCallRow launch = model.apiCalls.row(k.launchCall);
        EXPECT_EQ(launch.correlationId, k.correlationId);
        EXPECT_LT(launch.startNs, k.startNs);
    }
    // The second kernel was launched from thread 102.
    core::KernelRow second = model.kernels.row(core::KernelId(1));
    EXPECT_EQ(model.threads[model.apiCalls.row(second.launchCall).thread].tid, 102);
}

TEST(ActivityDecoderTest, BadTimestampsAndUnknownKindsAreCountedNotKept) {
    SyntheticCupti s;
    s.kernel("zero", 0, 0, 1);
    s.kernel("inverted", 5000, 4000, 2);
    s.kernel("good", 100, 200, 3);
    auto& marker = s.add<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);  // not decoded by us
    marker.timestamp = 50;
    ClockMap clock;
    ActivityDecoder decoder(clock);
    core::TraceModel batch;
    decoder.decode(s.data(), s.size(), batch);
    EXPECT_EQ(batch.kernels.size(), 1u);
    EXPECT_EQ(decoder.counts().noTimestamp, 1u);
    EXPECT_EQ(decoder.counts().inverted, 1u);
    EXPECT_EQ(decoder.counts().unknownKind, 1u);
    core::TraceStats stats;
    decoder.reportStats(stats);
    EXPECT_EQ(stats.count("agent.no_timestamp"), 1);
    EXPECT_EQ(stats.find("agent.no_timestamp")->severity, core::Severity::DataLoss);
    EXPECT_EQ(stats.count("agent.inverted_timestamps"), 1);
}

TEST(ActivityDecoderTest, WindowAndClockMappingApplyToEveryRow) {
    ClockMap clock;
    // CUPTI clock runs 1,000,000 ns ahead of monotonic.
    clock.addAnchor({1'000'000, 0, 0});
    clock.addAnchor({2'000'000, 1'000'000, 0});
    SyntheticCupti s;
    s.kernel("before", 1'100'000, 1'200'000, 1);  // mono 100,000: before the window
    s.kernel("inside", 1'600'000, 1'700'000, 2);  // mono 600,000
    s.kernel("after", 1'950'000, 1'990'000, 3);   // mono 950,000: at/after the end
    s.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1'550'000, 1'560'000,
          2);
    ActivityDecoder decoder(clock);
    decoder.setWindow(500'000, 900'000);
    core::TraceModel batch;
    decoder.decode(s.data(), s.size(), batch);
    ASSERT_EQ(batch.kernels.size(), 1u);
    EXPECT_EQ(batch.text(batch.kernels.row(core::KernelId(0)).name), "inside");
    EXPECT_EQ(batch.kernels.row(core::KernelId(0)).startNs, 600'000);
    EXPECT_EQ(batch.kernels.row(core::KernelId(0)).endNs, 700'000);
    ASSERT_EQ(batch.apiCalls.size(), 1u);
    EXPECT_EQ(batch.apiCalls.row(core::ApiCallId(0)).startNs, 550'000);
    EXPECT_EQ(decoder.counts().outsideWindow, 2u);
}

TEST(ActivityDecoderTest, EmptyAndNullBuffersAreHarmless) {
    ClockMap clock;
    ActivityDecoder decoder(clock);
    core::TraceModel batch;
    decoder.decode(nullptr, 0, batch);
    std::uint8_t zeros[64] = {};
    decoder.decode(zeros, 0, batch);
    EXPECT_EQ(decoder.counts().records, 0u);
    EXPECT_EQ(batch.kernels.size(), 0u);
}

TEST(ClockMapTest, PiecewiseLinearWithSlewAndExtrapolation) {
    ClockMap clock;
    EXPECT_EQ(clock.toMonotonic(12345), 12345);  // identity without anchors
    // Out of order on purpose; the CUPTI clock runs 0.1 % fast between the last two anchors.
    clock.addAnchor({3'000'000'000, 2'000'000'000, 0});
    clock.addAnchor({1'000'000'000, 0, 5'000});
    clock.addAnchor({2'000'000'000, 1'000'000'000, 0});
    clock.addAnchor({4'001'000'000, 3'000'000'000, 7'000'000'000});
    EXPECT_EQ(clock.toMonotonic(1'500'000'000), 500'000'000);
    EXPECT_EQ(clock.toMonotonic(3'500'500'000), 2'500'000'000);  // midpoint of the slewed segment
    EXPECT_EQ(clock.toMonotonic(500'000'000), -500'000'000);     // before the first: first offset
    EXPECT_EQ(clock.toMonotonic(5'001'000'000), 4'000'000'000);  // after the last: last offset
    EXPECT_EQ(clock.realtimeOfMonotonicZero(), 4'000'000'000);
    EXPECT_EQ(clock.anchors().size(), 4u);
}

TEST(ClockMapTest, RealCuptiTimestampMatchesRealtimeWithoutADriver) {
    // cuptiGetTimestamp works without a driver and defaults to CLOCK_REALTIME (guide §0).
    ClockAnchor a = takeAnchor([] {
        std::uint64_t t = 0;
        return cuptiGetTimestamp(&t) == CUPTI_SUCCESS ? t : 0;
    });
    ASSERT_GT(a.cuptiNs, 0);
    EXPECT_LT(std::llabs(a.cuptiNs - a.realNs), 50'000'000LL);  // same clock, reads a few µs apart
    ClockMap clock;
    clock.addAnchor(a);
    EXPECT_NEAR(static_cast<double>(clock.toMonotonic(static_cast<std::uint64_t>(a.cuptiNs))),
                static_cast<double>(a.monoNs), 1.0);
}

TEST(ActivityBufferPoolTest, BoundedAlignedZeroedAndReused) {
    ActivityBufferPool pool(8192, 2);
    EXPECT_EQ(pool.topUp(8), 2u);  // the worker prepares blocks; acquire() only hands them out
    std::uint8_t* a = pool.acquire();
    std::uint8_t* b = pool.acquire();
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 8, 0u);
    EXPECT_EQ(pool.acquire(), nullptr);
    EXPECT_EQ(pool.exhaustedCount(), 1u);
    a[0] = 0xAB;
    pool.release(a);
    std::uint8_t* again = pool.acquire();
    EXPECT_EQ(again, a);
    EXPECT_EQ(again[0], 0);  // zeroed for CUPTI
    pool.release(again);
    pool.release(b);
    int foreign = 0;
    pool.release(reinterpret_cast<std::uint8_t*>(&foreign));  // ignored
    EXPECT_EQ(pool.blocksOut(), 0u);
    pool.trim();
    EXPECT_EQ(pool.blocksAllocated(), 0u);
}

}  // namespace
}  // namespace chokepoint::collectors
