// Where an MFU's peak precision and model FLOPs come from (PrecisionInference.h, HelperFacts.h): the
// helper's facts, the matmul kernels' names, and the order between them; each source is named.

#include <gtest/gtest.h>

#include "core/analysis/diagnosis/Analyzer.h"
#include "core/analysis/diagnosis/HelperFacts.h"
#include "core/analysis/diagnosis/PrecisionInference.h"
#include "tests/core/analysis/diagnosis/SyntheticTraces.h"

namespace chokepoint::analysis {
namespace {

using testutils::SyntheticJob;

TEST(PrecisionInference, HelperFactsAreRead) {
    core::CaptureMetadata m;
    m.notes = {{"model.flops_per_step", "1.5e13"},
               {"model.flops_source", "flop_counter"},
               {"model.parameter_count", "-3"},
               {"model.tokens_per_step", "2048"},
               {"model.precision", "bf16"},
               {"model.precision_source", "op_dtypes"},
               {"model.memory_reserved_peak_bytes", "1000"},
               {"model.memory_reserved_peak_bytes", "8589934592"},  // the last one published
               {"capture.step_markers", "ProfilerStep#"}};
    const HelperFacts f = readHelperFacts(m);
    ASSERT_TRUE(f.flopsPerStep);
    EXPECT_DOUBLE_EQ(*f.flopsPerStep, 1.5e13);
    EXPECT_EQ(f.flopsSource, "flop_counter");
    EXPECT_FALSE(f.parameterCount);  // not a positive number
    EXPECT_EQ(f.tokensPerStep.value_or(0), 2048);
    EXPECT_EQ(f.precision, names::KernelPrecision::BF16);
    EXPECT_EQ(f.precisionSource, "op_dtypes");
    EXPECT_EQ(f.memoryReservedPeakBytes.value_or(0), 8589934592.0);
}

TEST(PrecisionInference, TheOrderOfTheSources) {
    PrecisionInputs in;
    in.kernelNames.dominant = Precision::FP32;  // e.g. ampere_sgemm kernels
    in.kernelNames.shareOfMatmulTime = 0.9;
    in.kernelNames.example = "ampere_sgemm_128x64_tn";
    // Kernel names decide over a helper fact that is only the model's default dtype.
    in.facts.precision = names::KernelPrecision::BF16;
    in.facts.precisionSource = "default";
    PrecisionChoice c = choosePeakPrecision(in);
    EXPECT_EQ(c.precision, Precision::FP32);
    EXPECT_EQ(c.source, "kernel-names");
    EXPECT_NE(c.reason.find("ampere_sgemm"), std::string::npos) << c.reason;
    // What the helper measured (the matrix ops' input dtypes, autocast) decides over names.
    in.facts.precisionSource = "op_dtypes";
    c = choosePeakPrecision(in);
    EXPECT_EQ(c.precision, Precision::BF16);
    EXPECT_EQ(c.source, "helper-op-dtypes");
    EXPECT_NE(c.reason.find("FP32"), std::string::npos) << c.reason;  // the disagreement is said
    in.facts.precisionSource = "autocast";
    EXPECT_EQ(choosePeakPrecision(in).source, "helper-autocast");
    // Recorded dtypes and a request come first.
    in.recordedDtypes = Precision::FP16;
    EXPECT_EQ(choosePeakPrecision(in).source, "recorded-dtypes");
    in.requested = Precision::TF32;
    EXPECT_EQ(choosePeakPrecision(in).precision, Precision::TF32);
    // Names that cover less than half of the matmul time do not decide.
    PrecisionInputs weak;
    weak.kernelNames.dominant = Precision::BF16;
    weak.kernelNames.shareOfMatmulTime = 0.3;
    EXPECT_EQ(choosePeakPrecision(weak).source, "default");
    weak.tensorCoreShare = 0.8;
    EXPECT_EQ(choosePeakPrecision(weak).source, "tensor-core-share");
}

// PyTorch records float32 for a matmul that ran as TF32 (allow_tf32): the kernel names decide
// between the FP32 and the TF32 peak (hta-negative-queue: cutlass_80_tensorop_s1688gemm on an A100).
TEST(PrecisionInference, RecordedFp32ThatRanAsTf32) {
    PrecisionInputs in;
    in.recordedDtypes = Precision::FP32;
    in.kernelNames.dominant = Precision::TF32;
    in.kernelNames.shareOfMatmulTime = 0.98;
    in.kernelNames.example = "cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1";
    PrecisionChoice c = choosePeakPrecision(in);
    EXPECT_EQ(c.precision, Precision::TF32);
    EXPECT_EQ(c.source, "recorded-dtypes+kernel-names");
    EXPECT_NE(c.reason.find("s1688gemm"), std::string::npos) << c.reason;
    // Under half of the matmul time in TF32 kernels: the recorded FP32 stands.
    in.kernelNames.shareOfMatmulTime = 0.4;
    EXPECT_EQ(choosePeakPrecision(in).precision, Precision::FP32);
    // Names never override a recorded half precision.
    in.kernelNames.shareOfMatmulTime = 0.98;
    in.recordedDtypes = Precision::BF16;
    EXPECT_EQ(choosePeakPrecision(in).precision, Precision::BF16);
}

// A job of BF16 cuBLAS GEMMs without dtypes: the kernel names give the BF16 peak; the helper's counted
// FLOPs are preferred to its 6·N·T, and each output says which was used.
core::TraceModel bf16Job(bool counted) {
    SyntheticJob job("NVIDIA H100 80GB HBM3", 132, 85'000'000'000);
    for (int s = 1; s <= 4; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.step(s);
        for (int k = 0; k < 8; ++k) {
            const core::TimestampNs start = t + 200'000 + k * 1'200'000;
            job.launched("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", start, start + 1'200'000, 7,
                         150'000);
        }
    }
    core::TraceModel model = job.build();
    model.metadata.notes.emplace_back("model.parameter_count", "100000000");
    model.metadata.notes.emplace_back("model.tokens_per_step", "4096");
    if (counted) {
        model.metadata.notes.emplace_back("model.flops_per_step", "3000000000000");
        model.metadata.notes.emplace_back("model.flops_source", "flop_counter");
    }
    return model;
}

TEST(PrecisionInference, CountedFlopsArePreferredAndThePrecisionComesFromTheNames) {
    auto db = DeviceDatabase::loadBuiltin();
    ASSERT_TRUE(db);
    AnalysisOptions o;
    o.devices = &db.value();
    const core::TraceModel sixNt = bf16Job(false);
    auto r = analyzeTrace(sixNt, o);
    ASSERT_TRUE(r);
    EXPECT_EQ(r.value()->mfu.source, ModelFlopsSource::RecordedInTrace);
    EXPECT_DOUBLE_EQ(r.value()->mfu.modelFlopsPerStep, 6.0 * 100e6 * 4096);
    EXPECT_EQ(r.value()->mfu.precision, Precision::BF16);
    EXPECT_EQ(r.value()->mfu.precisionSource, "kernel-names");

    const core::TraceModel counted = bf16Job(true);
    auto c = analyzeTrace(counted, o);
    ASSERT_TRUE(c);
    EXPECT_EQ(c.value()->mfu.source, ModelFlopsSource::RecordedFlopCounter);
    EXPECT_DOUBLE_EQ(c.value()->mfu.modelFlopsPerStep, 3e12);
    EXPECT_NE(c.value()->mfu.sourceNote.find("FlopCounterMode"), std::string::npos)
        << c.value()->mfu.sourceNote;
    ASSERT_TRUE(c.value()->mfu.mfu);
    // 3 TFLOP per 10 ms step on the 989 TFLOP/s BF16 peak: about 30 %, not the FP32 peak's 600 %.
    EXPECT_NEAR(*c.value()->mfu.mfu,
                3e12 / (c.value()->mfu.peakFlopsPerSecond * c.value()->mfu.stepTimeNs * 1e-9), 1e-12);
    EXPECT_LT(*c.value()->mfu.mfu, 1.0);

    // The same job measured against the FP32 peak (requested) is over 100 %: no MFU, and the reason.
    o.precision = Precision::FP32;
    auto fp32 = analyzeTrace(counted, o);
    ASSERT_TRUE(fp32);
    EXPECT_FALSE(fp32.value()->mfu.mfu);
    ASSERT_TRUE(fp32.value()->mfu.impossibleMfu);
    EXPECT_GT(*fp32.value()->mfu.impossibleMfu, 1.0);
    EXPECT_NE(fp32.value()->mfu.impossibleReason.find("no job runs faster"), std::string::npos)
        << fp32.value()->mfu.impossibleReason;
}

// With the precision assumed (no dtypes, no names, no facts: FP32), an impossible MFU names the
// precision as what to give.
TEST(PrecisionInference, AnImpossibleMfuOnAnAssumedPeakAsksForThePrecision) {
    SyntheticJob job("NVIDIA H100 80GB HBM3", 132, 85'000'000'000);
    for (int s = 1; s <= 4; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.step(s);
        for (int k = 0; k < 8; ++k) {
            const core::TimestampNs start = t + 200'000 + k * 1'200'000;
            job.launched("my_custom_kernel", start, start + 1'200'000, 7, 150'000);
        }
    }
    const core::TraceModel model = job.build();
    auto db = DeviceDatabase::loadBuiltin();
    ASSERT_TRUE(db);
    AnalysisOptions o;
    o.devices = &db.value();
    o.modelFlopsPerStep = 3e12;  // 300 TFLOP/s: over the FP32 peak, under the BF16 one
    auto r = analyzeTrace(model, o);
    ASSERT_TRUE(r);
    EXPECT_EQ(r.value()->mfu.precisionSource, "default");
    EXPECT_FALSE(r.value()->mfu.mfu);
    EXPECT_NE(r.value()->mfu.impossibleReason.find("--precision"), std::string::npos)
        << r.value()->mfu.impossibleReason;
    EXPECT_NE(r.value()->mfu.impossibleReason.find("fits under the"), std::string::npos)
        << r.value()->mfu.impossibleReason;
}

}  // namespace
}  // namespace chokepoint::analysis

namespace chokepoint::analysis {
namespace {

// The helper's allocator peak (model.memory_reserved_peak_bytes) is the job's peak device memory:
// it feeds the capacity check of an agent capture, which has no memory counter; a peak the user
// gives comes first.
TEST(HelperFacts, TheAllocatorPeakIsTheJobsPeakMemory) {
    auto db = DeviceDatabase::loadBuiltin();
    ASSERT_TRUE(db);
    AnalysisOptions o;
    o.devices = &db.value();
    core::TraceModel fits = bf16Job(false);
    fits.metadata.notes.emplace_back("model.memory_reserved_peak_bytes", "40000000000");
    auto r = analyzeTrace(fits, o);
    ASSERT_TRUE(r);
    EXPECT_EQ(r.value()->overallSignals.peakMemoryBytes.value_or(0), 40e9);
    EXPECT_NE(r.value()->overall.bottleneck, Bottleneck::MemoryCapacity);

    core::TraceModel full = bf16Job(false);
    full.metadata.notes.emplace_back("model.memory_reserved_peak_bytes", "84500000000");  // of 85 GB
    auto f = analyzeTrace(full, o);
    ASSERT_TRUE(f);
    EXPECT_EQ(f.value()->overall.bottleneck, Bottleneck::MemoryCapacity) << f.value()->headline;

    o.peakMemoryBytes = 20e9;  // the user's figure wins
    auto u = analyzeTrace(full, o);
    ASSERT_TRUE(u);
    EXPECT_EQ(u.value()->overallSignals.peakMemoryBytes.value_or(0), 20e9);
    EXPECT_NE(u.value()->overall.bottleneck, Bottleneck::MemoryCapacity);
}

}  // namespace
}  // namespace chokepoint::analysis
