#include "core/analysis/metrics/Roofline.h"

#include <gtest/gtest.h>

#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;

// Seed spec §4 / T14: A100 BF16 dense 312 TFLOP/s over 2.0 TB/s. The figures here are the seed's
// textbook values, used only to check the arithmetic.
DeviceSpec a100() {
    DeviceSpec d;
    d.id = "test-a100";
    d.peaks = {
        {Precision::FP32, 19.5e12, false}, {Precision::TF32, 156e12, true}, {Precision::BF16, 312e12, true}};
    d.memoryBandwidthBytesPerSecond = 2.0e12;
    return d;
}

TEST(Roofline, RidgeAndAttainable) {
    // T14: ridge 156 FLOP/byte; T12: materialized attention at AI = d_head/2 = 32 is memory-bound,
    // attainable 32 x 2 TB/s = 64 TFLOP/s.
    EXPECT_DOUBLE_EQ(312e12 / 2.0e12, 156.0);
    EXPECT_DOUBLE_EQ(attainableFlopsPerSecond(32, 312e12, 2.0e12), 64e12);
    EXPECT_DOUBLE_EQ(attainableFlopsPerSecond(1000, 312e12, 2.0e12), 312e12);
    // T15: FP32 worst case (4 bytes per FLOP): AI 0.25 -> 0.5 TFLOP/s of 19.5.
    EXPECT_DOUBLE_EQ(attainableFlopsPerSecond(0.25, 19.5e12, 2.0e12), 0.5e12);
}

// One big BF16 GEMM (compute-bound) and one FP32 elementwise add (memory-bound), launched by ops
// with recorded shapes, inside one ProfilerStep of 1 ms.
core::TraceModel twoOpTrace() {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 1'000'000);
    b.cpuOp("aten::mm", 0, 100, 1, "[[4096, 4096], [4096, 4096]]", R"(["c10::BFloat16", "c10::BFloat16"])");
    b.apiCall("cudaLaunchKernel", 10, 20, 1);
    b.kernel("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 1'000, 501'000, 0, 7, 1);  // 500 us
    b.cpuOp("aten::add", 200, 300, 1, "[[8192, 8192], [8192, 8192]]", R"(["float", "float"])");
    b.apiCall("cudaLaunchKernel", 210, 220, 2);
    b.kernel("void at::native::vectorized_elementwise_kernel<4, add>", 501'000, 901'000, 0, 7, 2);  // 400 us
    return b.build();
}

TEST(Roofline, PointsPerClassKernelAndOpAgainstPrecisionRoofs) {
    core::TraceModel model = twoOpTrace();
    KernelStatsResult kernels = computeKernelStats(model);
    OpCostResult costs = attributeOpCosts(model);
    StepsResult steps = detectSteps(model);
    DeviceSpec device = a100();
    RooflineResult r = computeRoofline(model, kernels, costs, steps, {}, &device);
    ASSERT_TRUE(r.hasDevice);
    ASSERT_EQ(r.ceilings.size(), 3u);
    EXPECT_EQ(r.ceilings.back().precision, Precision::BF16);
    EXPECT_DOUBLE_EQ(r.ceilings.back().ridgeFlopsPerByte, 156.0);

    const RooflinePoint* gemm = nullptr;
    const RooflinePoint* add = nullptr;
    int classes = 0, kernelPoints = 0, opPoints = 0;
    for (const RooflinePoint& p : r.points) {
        classes += p.kind == RooflinePoint::Kind::KernelClass;
        kernelPoints += p.kind == RooflinePoint::Kind::Kernel;
        opPoints += p.kind == RooflinePoint::Kind::Op;
        if (p.kind == RooflinePoint::Kind::KernelClass && p.kernelClass == KernelClass::Gemm) {
            gemm = &p;
        }
        if (p.kind == RooflinePoint::Kind::KernelClass && p.kernelClass == KernelClass::Elementwise) {
            add = &p;
        }
    }
    EXPECT_EQ(classes, 2);
    EXPECT_EQ(kernelPoints, 2);
    EXPECT_EQ(opPoints, 2);
    ASSERT_NE(gemm, nullptr);
    ASSERT_NE(add, nullptr);
    // GEMM: 2·4096³ FLOPs over 3·4096²·2 bytes -> AI = 4096/3 = 1365.3 > 156: compute-bound.
    const double gemmFlops = 2.0 * 4096 * 4096 * 4096;
    EXPECT_DOUBLE_EQ(gemm->flops, gemmFlops);
    EXPECT_NEAR(gemm->arithmeticIntensity, 4096.0 / 3.0, 1e-9);
    EXPECT_NEAR(gemm->achievedFlopsPerSecond, gemmFlops / 500e-6, 1.0);
    EXPECT_EQ(gemm->precision, Precision::BF16);
    EXPECT_FALSE(gemm->memoryBound);
    EXPECT_DOUBLE_EQ(gemm->attainableFlopsPerSecond, 312e12);
    EXPECT_NEAR(gemm->fractionOfAttainable, gemmFlops / 500e-6 / 312e12, 1e-9);
    EXPECT_NEAR(gemm->timeShare, 500.0 / 900.0, 1e-12);
    ASSERT_EQ(gemm->kernels.size(), 1u);
    EXPECT_EQ(gemm->kernels[0], (core::KernelId{0}));
    // add: 1 FLOP per 12 bytes, FP32 roof: memory-bound at 2 TB/s / 12.
    EXPECT_NEAR(add->arithmeticIntensity, 1.0 / 12.0, 1e-12);
    EXPECT_TRUE(add->memoryBound);
    EXPECT_EQ(add->precision, Precision::FP32);
    EXPECT_NEAR(add->attainableFlopsPerSecond, 2.0e12 / 12.0, 1e-3);
    EXPECT_NEAR(add->achievedBytesPerSecond, 3.0 * 8192 * 8192 * 4 / 400e-6, 1.0);

    // Step bandwidth from shape estimates: bytes of both ops over the 1 ms step.
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_EQ(r.steps[0].source, BandwidthSource::ShapeEstimate);
    const double bytes = 3.0 * 4096 * 4096 * 2 + 3.0 * 8192 * 8192 * 4;
    EXPECT_NEAR(r.steps[0].bytes, bytes, 1.0);
    EXPECT_NEAR(r.steps[0].fractionOfPeak, bytes / 1e-3 / 2.0e12, 1e-9);
    EXPECT_EQ(r.bandwidthSource, BandwidthSource::ShapeEstimate);
}

// cuDNN's non-fused Winograd runs its batched products as sgemm kernels: a GEMM-class kernel of a
// convolution op that beats the FP32 roof is explained by the convolution's algorithm, not by a
// split of the op's FLOPs (rn50-nw0's volta_sgemm_64x64_nt under cudnn_convolution_backward_input).
TEST(Roofline, AGemmKernelOfAConvolutionAboveItsRoofIsWinograd) {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 1'000'000);
    // 2·32·256·14·14·256·9 = 7.4 GFLOP in 100 us: 74 TFLOP/s against the 19.5 FP32 roof.
    b.cpuOp("aten::cudnn_convolution", 0, 100, 1, "[[32, 256, 14, 14], [256, 256, 3, 3], [], [], []]",
            R"(["float", "float"])");
    b.apiCall("cudaLaunchKernel", 10, 20, 1);
    b.kernel("volta_sgemm_64x64_nt", 1'000, 101'000, 0, 7, 1);
    core::TraceModel model = b.build();
    const KernelStatsResult kernels = computeKernelStats(model);
    ASSERT_EQ(kernels.kernelClass[0], KernelClass::Gemm);
    const DeviceSpec device = a100();
    const RooflineResult r = computeRoofline(model, kernels, attributeOpCosts(model, &kernels.kernelClass),
                                             detectSteps(model), {}, &device);
    int above = 0;
    for (const RooflinePoint& p : r.points) {
        if (p.aboveRoof) {
            ++above;
            EXPECT_NE(p.aboveRoofReason.find("Winograd"), std::string::npos)
                << p.label << ": " << p.aboveRoofReason;
        }
    }
    EXPECT_EQ(above, 3);  // the class, the kernel and the op
}

// Under the memory roof, bytes decide: an elementwise point above it has bytes counted that never
// reached memory (in place, fused, or cached), not FLOPs over-counted.
TEST(Roofline, AMemoryBoundPointAboveItsRoofBlamesTheBytes) {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 1'000'000);
    // 3 x 8192² x 4 B = 805 MB in 100 us: 8 TB/s against a 2 TB/s roof.
    b.cpuOp("aten::add", 0, 100, 1, "[[8192, 8192], [8192, 8192]]", R"(["float", "float"])");
    b.apiCall("cudaLaunchKernel", 10, 20, 1);
    b.kernel("void at::native::vectorized_elementwise_kernel<4, add>", 1'000, 101'000, 0, 7, 1);
    core::TraceModel model = b.build();
    const KernelStatsResult kernels = computeKernelStats(model);
    const DeviceSpec device = a100();
    const RooflineResult r = computeRoofline(model, kernels, attributeOpCosts(model, &kernels.kernelClass),
                                             detectSteps(model), {}, &device);
    ASSERT_FALSE(r.points.empty());
    for (const RooflinePoint& p : r.points) {
        EXPECT_TRUE(p.aboveRoof) << p.label;
        EXPECT_TRUE(p.memoryBound) << p.label;
        EXPECT_NE(p.aboveRoofReason.find("the memory one: the bytes"), std::string::npos)
            << p.aboveRoofReason;
    }
}

TEST(Roofline, WithoutDeviceNoCeilings) {
    core::TraceModel model = twoOpTrace();
    KernelStatsResult kernels = computeKernelStats(model);
    RooflineResult r =
        computeRoofline(model, kernels, attributeOpCosts(model), detectSteps(model), {}, nullptr);
    EXPECT_FALSE(r.hasDevice);
    EXPECT_TRUE(r.ceilings.empty());
    ASSERT_FALSE(r.points.empty());
    EXPECT_EQ(r.points[0].attainableFlopsPerSecond, 0.0);
    EXPECT_FALSE(r.points[0].memoryBound);
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_EQ(r.steps[0].fractionOfPeak, -1.0);
}

TEST(Roofline, StepBandwidthFromDramCounters) {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 1000);
    b.kernel("k", 0, 1000);
    core::CounterTrack dram;
    dram.name = "DRAM throughput";
    dram.unit = "%";
    dram.deviceIndex = 0;
    dram.timesNs = {0, 500};
    dram.values = {20, 60};
    // Tracks as the chokepoint agent's PM sampler names them: a directional % and a byte count
    // come first, the total % must still be the one used.
    core::CounterTrack read = dram;
    read.name = "DRAM read throughput";
    read.values = {90, 90};
    core::CounterTrack bytes = dram;
    bytes.name = "DRAM bytes read";
    bytes.unit = "bytes";
    bytes.values = {1e9, 1e9};
    b.model().counters.push_back(read);
    b.model().counters.push_back(bytes);
    b.model().counters.push_back(dram);
    core::CounterTrack hmma = dram;
    hmma.name = "HMMA pipe active";
    b.model().counters.push_back(hmma);
    core::TraceModel model = b.build();
    StepsResult steps = detectSteps(model);
    std::vector<CounterAverage> counters = summarizeCounters(model, steps);
    const CounterAverage* total = nullptr;
    for (const CounterAverage& c : counters) {
        if (c.name == "DRAM throughput" && c.stepIndex == 0) {
            total = &c;
        }
        if (c.name == "HMMA pipe active") {
            EXPECT_EQ(c.kind, CounterKind::TensorActivity);
        }
    }
    ASSERT_NE(total, nullptr);
    EXPECT_EQ(total->kind, CounterKind::DramThroughput);
    EXPECT_EQ(total->samples, 2);
    EXPECT_DOUBLE_EQ(total->mean, 40.0);  // half the step at 20 %, half at 60 %
    DeviceSpec device = a100();
    RooflineResult r =
        computeRoofline(model, computeKernelStats(model), attributeOpCosts(model), steps, counters, &device);
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_EQ(r.steps[0].source, BandwidthSource::Counters);
    EXPECT_DOUBLE_EQ(r.steps[0].fractionOfPeak, 0.4);
    EXPECT_DOUBLE_EQ(r.steps[0].achievedBytesPerSecond, 0.8e12);
}

}  // namespace
}  // namespace chokepoint::analysis
