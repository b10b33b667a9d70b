// "Busy is not compute-bound": when the GPU is busy, what fills the busy time decides the verdict.
// Traces built in code for the memory-bound, copy-bound, unclassifiable and measured-counter cases,
// the under-occupancy finding, the desired end state only with an MFU, and the real pipit export
// (copy-bound transfers and a 2-block kernel on 108 SMs; skipped when ../shared/traces is absent).

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <string>

#include "core/analysis/diagnosis/Analyzer.h"
#include "core/analysis/diagnosis/ReportWriters.h"
#include "core/import/TraceLoader.h"
#include "tests/core/analysis/diagnosis/SyntheticTraces.h"
#include "tests/testutils/SharedTraces.h"

using namespace chokepoint;
using namespace chokepoint::analysis;
using chokepoint::testutils::SyntheticJob;

namespace {

const DeviceDatabase* devices() {
    static const DeviceDatabase* kDevices = [] {
        auto db = DeviceDatabase::loadBuiltin();
        return db ? new DeviceDatabase(std::move(db.value())) : nullptr;
    }();
    return kDevices;
}

std::shared_ptr<const AnalysisReport> analyze(const core::TraceModel& model, AnalysisOptions options = {}) {
    options.devices = devices();
    core::Result<std::shared_ptr<const AnalysisReport>> r = analyzeTrace(model, options);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? r.value() : nullptr;
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

bool anyContains(const std::vector<std::string>& lines, const std::string& part) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return contains(l, part); });
}

// A kernel name no rule knows: no class by name, no launching op, no shapes.
constexpr const char* kUnknownKernel = "lbm_collide_kernel";

// Back-to-back kernels of one name filling 96 % of each 10 ms step, all launched at the step start
// (the host is not the limiter).
core::TraceModel busyJob(const char* kernel, int grid = 1, int steps = 4) {
    SyntheticJob job;
    for (int s = 0; s < steps; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.step(s);
        for (int k = 0; k < 8; ++k) {
            const core::TimestampNs start = t + 200'000 + k * 1'200'000;
            job.launched(kernel, start, start + 1'200'000, 7, start - t);
        }
    }
    core::TraceModel model = job.build();
    for (std::size_t i = 0; i < model.kernels.size(); ++i) {
        model.kernels.gridX[i] = grid;
    }
    return model;
}

// A percent counter track on device 0 with one sample per millisecond over `steps` steps.
void addCounter(core::TraceModel& model, const std::string& name, double percent, int steps = 4) {
    core::CounterTrack t;
    t.name = name;
    t.unit = "%";
    t.deviceIndex = 0;
    for (core::TimestampNs ns = 0; ns < steps * testutils::kStepNs; ns += 1'000'000) {
        t.timesNs.push_back(ns);
        t.values.push_back(percent);
    }
    model.counters.push_back(std::move(t));
}

}  // namespace

TEST(BusyComposition, ElementwiseFilledBusyGpuIsMemoryBoundNotComputeBound) {
    // 96 % busy with FP32 elementwise kernels: Table 7 alone would say compute-bound, the desired end
    // state; the kernels sit below the ridge.
    auto r = analyze(busyJob(testutils::kElementwise, 4096));
    ASSERT_TRUE(r);
    EXPECT_GT(r->overallSignals.busyFraction, 0.9);
    EXPECT_TRUE(r->overallSignals.compositionKnown);
    EXPECT_NEAR(r->overallSignals.memoryBoundKernelShare, 1.0, 1e-9);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::MemoryBandwidth) << r->headline;
    EXPECT_FALSE(r->overall.desiredEndState);
    EXPECT_FALSE(contains(r->headline, "desired end state")) << r->headline;
    // One elementwise kernel repeated: nothing to fuse it with, so fusion (R6) is not listed and
    // says why; a faster peak (R13) does not help either.
    EXPECT_EQ(r->fixes.find("R6"), nullptr);
    EXPECT_NE(explain(r->fixes).find("one kernel repeated"), std::string::npos) << explain(r->fixes);
    EXPECT_EQ(r->fixes.find("R13"), nullptr);
    for (const StepDiagnosis& s : r->steps) {
        EXPECT_EQ(s.verdict.bottleneck, Bottleneck::MemoryBandwidth) << s.name;
    }
}

// A busy GPU whose kernel time is half tensor-core GEMMs, half elementwise: mixed, and the headline
// stays one line (the classes on each side are the rationale's; it once ran to 300 characters).
TEST(BusyComposition, HalfGemmHalfElementwiseIsMixedInAOneLineHeadline) {
    SyntheticJob job;
    for (int s = 0; s < 4; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.step(s);
        for (int k = 0; k < 8; ++k) {
            const core::TimestampNs start = t + 200'000 + k * 1'200'000;
            job.launched(k % 2 == 0 ? testutils::kTensorCoreGemm : testutils::kElementwise, start,
                         start + 1'200'000, 7, start - t);
        }
    }
    auto r = analyze(job.build());
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::ComputeMemoryMixed) << r->headline;
    EXPECT_TRUE(contains(r->headline, "above the ridge")) << r->headline;
    EXPECT_TRUE(contains(r->headline, "below it")) << r->headline;
    EXPECT_LT(r->headline.size(), 180u) << r->headline;
}

TEST(BusyComposition, GemmFilledBusyGpuIsComputeBoundButNotTheEndStateWithoutMfu) {
    const core::TraceModel model = testutils::computeBoundJob();
    auto r = analyze(model);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::Compute) << r->headline;
    EXPECT_NEAR(r->overallSignals.computeBoundKernelShare, 1.0, 1e-9);
    EXPECT_FALSE(r->overall.desiredEndState);
    EXPECT_TRUE(anyContains(r->overall.missingSignals, "MFU"));
    EXPECT_TRUE(contains(r->headline, "MFU unknown")) << r->headline;
}

TEST(BusyComposition, Fp32GemmAtLowMfuIsNotTheEndStateAndKeepsMixedPrecision) {
    // FP32 CUDA-core GEMMs (volta_sgemm) on a V100 at about 4 % MFU: compute-bound, with TF32/BF16
    // (here FP16 on Volta) still ahead.
    const core::TraceModel model = testutils::computeBoundJob();
    AnalysisOptions o;
    o.modelFlopsPerStep = 0.04 * 15.7e12 * 0.010;  // 4 % of the V100's FP32 peak over a 10 ms step
    o.precision = Precision::FP32;
    auto r = analyze(model, o);
    ASSERT_TRUE(r);
    ASSERT_TRUE(r->mfu.mfu);
    EXPECT_LT(*r->mfu.mfu, 0.1);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::Compute) << r->headline;
    EXPECT_FALSE(r->overall.desiredEndState);
    EXPECT_TRUE(contains(r->headline, "not the end state")) << r->headline;
    EXPECT_TRUE(contains(r->headline, "FP32 GEMM")) << r->headline;
    ASSERT_FALSE(r->fixes.recommendations.empty());
    EXPECT_EQ(r->fixes.recommendations.front().ruleId, "R4");

    // The same job at 45 % MFU is in the typical production band: not the end state, and the
    // headline says why.
    o.modelFlopsPerStep = 0.45 * 15.7e12 * 0.010;
    auto typical = analyze(model, o);
    ASSERT_TRUE(typical);
    EXPECT_EQ(typical->overall.bottleneck, Bottleneck::Compute);
    EXPECT_FALSE(typical->overall.desiredEndState);
    EXPECT_FALSE(contains(typical->headline, "desired end state")) << typical->headline;
    EXPECT_TRUE(contains(typical->headline, "typical production band")) << typical->headline;

    // At 58 % MFU (the practical ceiling) it is the desired end state.
    o.modelFlopsPerStep = 0.58 * 15.7e12 * 0.010;
    auto done = analyze(model, o);
    ASSERT_TRUE(done);
    EXPECT_EQ(done->overall.bottleneck, Bottleneck::Compute);
    EXPECT_TRUE(done->overall.desiredEndState);
    EXPECT_TRUE(contains(done->headline, "desired end state")) << done->headline;
}

// The constraint shares split the step: each moment is counted once. Host copies are copy-bound
// time, not memory-bound too (a saxpy trace read undetermined 81.5 % + memory 18.4 % + copy 14.1 %),
// and kernels no class or shape places are named (undetermined), not dropped (FBGEMM jobs lost 22 %).
// The batch upload at the start of each step (2 ms of H2D copies before any kernel) is the
// data-loading phase's GPU work; that phase is copy-bound, not compute-bound as it read while
// copies counted as compute.
TEST(BusyComposition, TheDataLoadingPhasesBatchUploadIsCopyTimeNotCompute) {
    testutils::SyntheticJob job;
    for (int s = 0; s < 4; ++s) {
        const core::TimestampNs t = testutils::SyntheticJob::stepStart(s);
        job.step(s);
        job.builder().apiCall("cudaMemcpyAsync", t + 20'000, t + 30'000, 9000 + s);
        job.builder().memcpy(core::MemcpyKind::HostToDevice, 64 << 20, t + 50'000, t + 2'050'000, 0, 7,
                             9000 + s);
        for (int k = 0; k < 6; ++k) {
            const core::TimestampNs start = t + 2'100'000 + k * 1'250'000;
            job.launched(testutils::kFp32Gemm, start, start + 1'240'000, 7, 2'000'000);
        }
    }
    auto r = analyze(job.build());
    ASSERT_TRUE(r);
    const PhaseDiagnosis* data = nullptr;
    for (const PhaseDiagnosis& p : r->phases) {
        data = p.kind == PhaseKind::DataLoading ? &p : data;
    }
    ASSERT_NE(data, nullptr) << writeTextReport(*r);
    EXPECT_GT(data->signals.exposedHostCopyFraction, 0.9);
    EXPECT_LT(data->signals.computeFraction, 0.05);
    EXPECT_EQ(data->verdict.bottleneck, Bottleneck::CopyBound) << data->verdict.rationale;
    // The forward phase keeps its GEMMs as compute.
    for (const PhaseDiagnosis& p : r->phases) {
        if (p.kind == PhaseKind::Forward) {
            EXPECT_EQ(p.signals.exposedCopyFraction, 0.0);
        }
    }
}

TEST(BusyComposition, ConstraintSharesAddUpToTheStep) {
    SyntheticJob job;
    std::int64_t correlation = 1000;
    for (int s = 0; s < 4; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.step(s);
        job.builder().apiCall("cudaMemcpyAsync", t + 80'000, t + 3'100'000, ++correlation);
        job.builder().memcpy(core::MemcpyKind::HostToDevice, 12 << 20, t + 100'000, t + 3'100'000, 0, 7,
                             correlation, core::MemoryKind::Pageable);
        job.launched(testutils::kElementwise, t + 3'200'000, t + 5'200'000);
        job.launched("split_embedding_codegen_forward_unweighted_kernel", t + 5'300'000, t + 7'300'000);
        job.launched(testutils::kTensorCoreGemm, t + 7'400'000, t + 9'400'000);
    }
    auto r = analyze(job.build());
    ASSERT_TRUE(r);
    double sum = 0;
    std::string listed;
    for (const ConstraintShare& share : r->overall.shares) {
        sum += share.shareOfWindow;
        listed += std::string(toString(share.bottleneck)) + " " + std::to_string(share.shareOfWindow) + "; ";
    }
    EXPECT_NEAR(sum, 1.0, 0.03) << listed;
    EXPECT_NEAR(r->overall.shareOf(Bottleneck::CopyBound), 0.3, 0.02) << listed;
    EXPECT_NEAR(r->overall.shareOf(Bottleneck::MemoryBandwidth), 0.2, 0.02) << listed;
    EXPECT_GE(r->overall.shareOf(Bottleneck::Undetermined), 0.2) << listed;
}

TEST(BusyComposition, PageableCopiesThatNoKernelOverlapsAreCopyBound) {
    // Each 10 ms step: 7 ms of pageable H2D input copies, then a 1.5 ms GEMM. Busy is 85 %, so the
    // busy bands would say compute-bound; the transfers fill the step.
    SyntheticJob job;
    std::int64_t correlation = 1000;
    for (int s = 0; s < 4; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.step(s);
        for (int c = 0; c < 7; ++c) {
            const core::TimestampNs start = t + 100'000 + c * 1'000'000;
            job.builder().apiCall("cudaMemcpyAsync", start - 20'000, start + 1'000'000, ++correlation);
            job.builder().memcpy(core::MemcpyKind::HostToDevice, 12 << 20, start, start + 1'000'000, 0, 7,
                                 correlation, core::MemoryKind::Pageable);
        }
        job.launched(testutils::kTensorCoreGemm, t + 7'200'000, t + 8'700'000, 7, 50'000);
    }
    auto r = analyze(job.build());
    ASSERT_TRUE(r);
    EXPECT_NEAR(r->overallSignals.exposedHostCopyFraction, 0.7, 0.03);
    EXPECT_NEAR(r->overallSignals.pageableHostCopyShare, 1.0, 1e-9);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::CopyBound) << r->headline;
    EXPECT_EQ(r->overall.axis, DamAxis::Data);
    EXPECT_FALSE(r->overall.desiredEndState);
    EXPECT_TRUE(contains(r->headline, "host-device copies")) << r->headline;
    ASSERT_FALSE(r->fixes.recommendations.empty());
    const Recommendation& first = r->fixes.recommendations.front();
    EXPECT_EQ(first.ruleId, "R17");
    EXPECT_EQ(first.target, Bottleneck::CopyBound);
    EXPECT_TRUE(contains(first.pytorchChange, "pin_memory=True"));
    EXPECT_TRUE(contains(first.pytorchChange, "non_blocking=True"));
    EXPECT_TRUE(contains(first.evidence, "pageable"));
    EXPECT_TRUE(first.gain.upperBound);
    EXPECT_NEAR(first.gain.stepTimeAfterNs / first.gain.stepTimeBeforeNs, 0.3, 0.05);

    // The class reaches every output: text, JSON (with the signals), Markdown.
    const std::string text = writeTextReport(*r);
    EXPECT_TRUE(contains(text, "VERDICT: Copy-bound")) << text;
    const std::string json = writeJsonReport(*r);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS);
    EXPECT_EQ(std::string_view(doc["verdict"]["class"]), "copy-bound");
    double exposed = 0;
    ASSERT_EQ(doc["signals"]["exposedHostCopy"].get(exposed), simdjson::SUCCESS);
    EXPECT_NEAR(exposed, 0.7, 0.03);
    EXPECT_TRUE(contains(writeMarkdownReport(*r), "Copy-bound"));
}

TEST(BusyComposition, KernelFixGainsCountKernelTimeNotCopyTime) {
    // The copy-bound job with an FP32 sgemm: mixed precision can at most halve the 1.5 ms GEMM per
    // 10 ms step; the 7 ms of copies in the busy time are not kernel time.
    SyntheticJob job;
    std::int64_t correlation = 1000;
    for (int s = 0; s < 4; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.step(s);
        for (int c = 0; c < 7; ++c) {
            const core::TimestampNs start = t + 100'000 + c * 1'000'000;
            job.builder().apiCall("cudaMemcpyAsync", start - 20'000, start + 1'000'000, ++correlation);
            job.builder().memcpy(core::MemcpyKind::HostToDevice, 12 << 20, start, start + 1'000'000, 0, 7,
                                 correlation, core::MemoryKind::Pageable);
        }
        job.launched(testutils::kFp32Gemm, t + 7'200'000, t + 8'700'000, 7, 50'000);
    }
    auto r = analyze(job.build());
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::CopyBound) << r->headline;
    const Recommendation* amp = r->fixes.find("R4");
    ASSERT_NE(amp, nullptr) << explain(r->fixes);
    const double savedNs = amp->gain.stepTimeBeforeNs - amp->gain.stepTimeAfterNs;
    EXPECT_NEAR(savedNs, 0.75e6, 0.05e6);
}

TEST(BusyComposition, PinnedCopiesOverlappedByKernelsAreNotCopyBound) {
    // Counter-example: the same copies on a second stream, each under a GEMM, from pinned memory.
    SyntheticJob job;
    std::int64_t correlation = 1000;
    for (int s = 0; s < 4; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.step(s);
        for (int c = 0; c < 7; ++c) {
            const core::TimestampNs start = t + 100'000 + c * 1'200'000;
            job.builder().apiCall("cudaMemcpyAsync", start - 20'000, start - 15'000, ++correlation);
            job.builder().memcpy(core::MemcpyKind::HostToDevice, 12 << 20, start, start + 1'000'000, 0, 9,
                                 correlation, core::MemoryKind::Pinned);
            job.launched(testutils::kTensorCoreGemm, start, start + 1'200'000, 7, start - t);
        }
    }
    auto r = analyze(job.build());
    ASSERT_TRUE(r);
    EXPECT_LT(r->overallSignals.exposedHostCopyFraction, 0.01);
    EXPECT_NE(r->overall.bottleneck, Bottleneck::CopyBound) << r->headline;
    EXPECT_EQ(r->fixes.find("R17"), nullptr);
}

TEST(BusyComposition, UnclassifiableKernelsLeaveComputeVersusMemoryOpenAndSayWhatIsMissing) {
    auto r = analyze(busyJob(kUnknownKernel, 4096));
    ASSERT_TRUE(r);
    EXPECT_GT(r->overallSignals.busyFraction, 0.9);
    EXPECT_NEAR(r->overallSignals.unclassifiedKernelShare, 1.0, 1e-9);
    EXPECT_EQ(r->overallSignals.topUnclassifiedKernel, kUnknownKernel);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::Undetermined) << r->headline;
    EXPECT_NE(r->overall.bottleneck, Bottleneck::Compute);
    EXPECT_NE(r->overall.bottleneck, Bottleneck::MemoryBandwidth);
    EXPECT_TRUE(anyContains(r->overall.missingSignals, "record_shapes=True"));
    EXPECT_TRUE(anyContains(r->overall.missingSignals, "gpu-metrics"));
    EXPECT_TRUE(contains(r->headline, "busy")) << r->headline;
    EXPECT_TRUE(contains(r->overall.rationale, "neither compute-bound nor memory-bound"))
        << r->overall.rationale;
    // The scorecard does not count the unplaceable time as compute either.
    EXPECT_LT(r->overall.shareOf(Bottleneck::Compute), 0.05);
    EXPECT_EQ(r->fixes.find("R13"), nullptr);
}

TEST(BusyComposition, MeasuredDramThroughputDecidesMemoryBound) {
    // The unclassifiable job with Nsight Systems GPU metrics: DRAM read 55 % + write 25 % of peak.
    core::TraceModel model = busyJob(kUnknownKernel, 4096);
    addCounter(model, "DRAM Read Bandwidth", 55);
    addCounter(model, "DRAM Write Bandwidth", 25);
    addCounter(model, "SMs Active", 97);
    addCounter(model, "Tensor Active", 0);
    auto r = analyze(model);
    ASSERT_TRUE(r);
    ASSERT_TRUE(r->overallSignals.dramActiveFraction);
    EXPECT_NEAR(*r->overallSignals.dramActiveFraction, 0.80, 0.01);
    ASSERT_TRUE(r->overallSignals.smActiveFraction);
    EXPECT_NEAR(*r->overallSignals.smActiveFraction, 0.97, 0.01);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::MemoryBandwidth) << r->headline;
    EXPECT_TRUE(std::any_of(r->overall.evidence.begin(), r->overall.evidence.end(), [](const Evidence& e) {
        return e.signal == "dramActiveFraction" && !e.estimated && e.passed;
    }));
    // The roofline's step bandwidth is the measured read + write, not one direction.
    ASSERT_FALSE(r->metrics.roofline.steps.empty());
    EXPECT_EQ(r->metrics.roofline.steps.front().source, BandwidthSource::Counters);
    EXPECT_NEAR(r->metrics.roofline.steps.front().fractionOfPeak, 0.80, 0.01);
}

TEST(BusyComposition, CountersAndKernelClassesDisagreeingIsSaid) {
    // Elementwise kernels (below the ridge by class) with DRAM measured at 10 %: the counters decide
    // (compute-bound), and the verdict says the classes pointed the other way.
    core::TraceModel model = busyJob(testutils::kElementwise, 4096);
    addCounter(model, "DRAM Read Bandwidth", 6);
    addCounter(model, "DRAM Write Bandwidth", 4);
    addCounter(model, "SMs Active", 98);
    auto r = analyze(model);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::Compute) << r->headline;
    EXPECT_TRUE(std::any_of(r->overall.evidence.begin(), r->overall.evidence.end(), [](const Evidence& e) {
        return contains(e.note, "the measured counters decide");
    }));
}

TEST(BusyComposition, OurPmSamplingTracksDecideTheSameWay) {
    // The agent's CUPTI PM-sampling track names (collectors/agent/PmSampler.cpp) and a bytes track
    // that is not a rate.
    core::TraceModel model = busyJob(kUnknownKernel, 4096);
    addCounter(model, "SM active", 95);
    addCounter(model, "Tensor pipe active", 1);
    addCounter(model, "DRAM read throughput", 48);
    addCounter(model, "DRAM write throughput", 30);
    core::CounterTrack bytes;
    bytes.name = "DRAM bytes read";
    bytes.unit = "bytes";
    bytes.deviceIndex = 0;
    bytes.timesNs = {0, 1'000'000};
    bytes.values = {1e9, 1e9};
    model.counters.push_back(bytes);
    auto r = analyze(model);
    ASSERT_TRUE(r);
    ASSERT_TRUE(r->overallSignals.dramActiveFraction);
    EXPECT_NEAR(*r->overallSignals.dramActiveFraction, 0.78, 0.01);
    ASSERT_TRUE(r->overallSignals.tensorActiveFraction);
    EXPECT_NEAR(*r->overallSignals.tensorActiveFraction, 0.01, 0.001);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::MemoryBandwidth) << r->headline;
}

TEST(BusyComposition, MeasuredLowDramWithActiveSmsDecidesComputeBound) {
    // Counter-example: the same kernels with DRAM at 12 % and the SMs busy: compute-bound, measured.
    core::TraceModel model = busyJob(kUnknownKernel, 4096);
    addCounter(model, "DRAM Read Bandwidth", 8);
    addCounter(model, "DRAM Write Bandwidth", 4);
    addCounter(model, "SMs Active", 96);
    auto r = analyze(model);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::Compute) << r->headline;
    EXPECT_TRUE(std::any_of(r->overall.evidence.begin(), r->overall.evidence.end(), [](const Evidence& e) {
        return e.signal == "smActiveFraction" && !e.estimated;
    }));
}

TEST(BusyComposition, GridSmallerThanTheSmCountGetsAnUnderOccupancyFinding) {
    // Two blocks on the A100's 108 SMs, like the pipit saxpy kernel.
    auto r = analyze(busyJob(testutils::kElementwise, 2));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overallSignals.smCount, 108);
    EXPECT_NEAR(r->overallSignals.underOccupiedKernelShare, 1.0, 1e-9);
    EXPECT_NEAR(r->overallSignals.underOccupiedIdleSmShare, 1.0 - 2.0 / 108, 1e-9);
    EXPECT_EQ(r->overallSignals.underOccupiedBlocks, 2);
    const Recommendation* fix = r->fixes.find("R16");
    ASSERT_NE(fix, nullptr) << explain(r->fixes);
    EXPECT_TRUE(contains(fix->evidence, "2 blocks")) << fix->evidence;
    EXPECT_TRUE(contains(fix->evidence, "108 SMs")) << fix->evidence;
    EXPECT_TRUE(fix->gain.upperBound);

    // Counter-example: a full grid gets no finding.
    auto full = analyze(busyJob(testutils::kElementwise, 4096));
    ASSERT_TRUE(full);
    EXPECT_EQ(full->overallSignals.underOccupiedKernelShare, 0);
    EXPECT_EQ(full->overallSignals.underOccupiedIdleSmShare, 0);
    EXPECT_EQ(full->fixes.find("R16"), nullptr);
}

TEST(BusyComposition, PipitSaxpyTransfersAreTheLargestConstraintSeenAndTheKernelIsUnderOccupied) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "pipit-nsys__saxpy-mpi-cuda_nsys_perlmutter0.sqlite");
    core::Result<core::TraceModel> model = core::loadTrace(path);
    ASSERT_TRUE(model.ok()) << model.error().message;
    auto r = analyze(model.value());
    ASSERT_TRUE(r);
    // README: 15 memcpys (284.7 ms, 3.9 GB) against 5 saxpy kernels (88.6 ms), a grid of 2 blocks on
    // an A100's 108 SMs. Most of the window is GPU idle: about 200 ms between the job's five
    // copy-kernel-copy rounds, with no CUDA call and no NVTX range (MPI and the host code are not
    // traced). The export's thread scheduling (SCHED_EVENTS) shows the main thread on a CPU there:
    // host-bound, at medium confidence, because what it ran is not recorded (an MPI wait spins too).
    // Without the scheduling the verdict was undetermined, the copies the largest constraint seen.
    const DiagnosisSignals& s = r->overallSignals;
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::HostBound) << r->headline;
    EXPECT_EQ(r->overall.confidenceLabel(), "medium") << r->overall.confidence;
    EXPECT_GT(s.idleHostWorkFraction, 0.7);
    ASSERT_FALSE(s.hostWorkFrames.empty());
    EXPECT_TRUE(s.hostWorkFrames.front().cpuUseOnly);
    EXPECT_TRUE(contains(s.hostWorkFrames.front().name, "MPI Rank 0")) << s.hostWorkFrames.front().name;
    EXPECT_NE(std::find(r->overall.secondary.begin(), r->overall.secondary.end(), Bottleneck::CopyBound),
              r->overall.secondary.end());
    EXPECT_GT(s.exposedHostCopyFraction, 0.5 * s.busyFraction);  // copies fill most of the busy time
    ASSERT_FALSE(r->fixes.recommendations.empty());
    EXPECT_EQ(r->fixes.recommendations.front().ruleId, "R15") << explain(r->fixes);
    EXPECT_NE(r->fixes.find("R17"), nullptr) << explain(r->fixes);  // the pageable copies
    EXPECT_EQ(s.smCount, 108);
    EXPECT_EQ(s.underOccupiedBlocks, 2);
    EXPECT_GT(s.underOccupiedIdleSmShare, 0.95);  // 1 - 2/108 over all kernel time
    const Recommendation* occupancy = r->fixes.find("R16");
    ASSERT_NE(occupancy, nullptr) << explain(r->fixes);
    EXPECT_TRUE(contains(occupancy->evidence, "saxpy")) << occupancy->evidence;
    EXPECT_TRUE(contains(occupancy->evidence, "2 blocks")) << occupancy->evidence;
    // The memory-bound share is of kernel time: "100 % of GPU busy time in memory-bound kernels"
    // contradicted the copies filling three quarters of the busy time.
    for (const Evidence& e : r->overall.evidence) {
        EXPECT_FALSE(contains(e.note, "busy time in memory-bound")) << e.note;
    }
}
