// Predicted gains follow the step's critical path (FixEngine.h): after a fix the step is the longer
// of the GPU's path (busy time plus the idle the fix leaves) and the host's (the busiest launching
// thread's work outside data loading and waits). Traces built in code for both bounds, and every
// computed gain states its basis, its uncertainty and a range that holds the prediction.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/analysis/diagnosis/Analyzer.h"
#include "core/analysis/diagnosis/DamClassifier.h"
#include "core/analysis/diagnosis/FixEngine.h"
#include "core/analysis/diagnosis/ReportWriters.h"
#include "core/base/Format.h"
#include "tests/core/analysis/diagnosis/SyntheticTraces.h"

namespace chokepoint::analysis {
namespace {

using testutils::kDataLoaderNext;
using testutils::kElementwise;
using testutils::kFp32Gemm;
using testutils::kStepNs;
using testutils::SyntheticJob;

std::shared_ptr<const AnalysisReport> analyze(core::TraceModel model) {
    AnalysisOptions options;
    auto r = analyzeTrace(std::make_shared<const core::TraceModel>(std::move(model)), options);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? r.value() : nullptr;
}

void expectStatedRange(const Recommendation& r) {
    if (!r.gain.computed) {
        return;
    }
    EXPECT_FALSE(r.gain.basis.empty()) << r.ruleId;
    EXPECT_FALSE(r.gain.uncertainty.empty()) << r.ruleId;
    EXPECT_LE(r.gain.stepTimeLowNs, r.gain.stepTimeAfterNs) << r.ruleId;
    EXPECT_GE(r.gain.stepTimeHighNs, r.gain.stepTimeAfterNs) << r.ruleId;
    // "At most" is the best case: its range reaches no lower, and the summary says it exactly then.
    if (r.gain.upperBound) {
        EXPECT_GE(r.gain.stepTimeLowNs, r.gain.stepTimeAfterNs - 1.0) << r.ruleId << ": " << r.gain.summary;
    }
    EXPECT_EQ(r.gain.summary.rfind("at most: ", 0) == 0, r.gain.upperBound)
        << r.ruleId << ": " << r.gain.summary;
    // A shown fix can shorten the step, at least at its best (capacity fixes cost time on purpose).
    if (r.target != Bottleneck::MemoryCapacity) {
        EXPECT_LT(r.gain.stepTimeLowNs, 0.995 * r.gain.stepTimeBeforeNs)
            << r.ruleId << ": " << r.gain.summary;
    }
}

// Counter-example to a host-bound prediction: the training thread does nothing but load data and
// launch (6 launch calls of 5 us per step), so removing the data wait leaves the GPU's path.
TEST(Prediction, DataFixIsTheGpuBoundWhenTheHostPathIsShort) {
    const auto r = analyze(testutils::dataBoundJob(6));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->overall.bottleneck, Bottleneck::Data) << r->headline;
    const Recommendation* r1 = r->fixes.find("R1");
    ASSERT_NE(r1, nullptr);
    const DiagnosisSignals& s = r->overallSignals;
    ASSERT_TRUE(s.hostWorkFraction.has_value());
    EXPECT_LT(*s.hostWorkFraction, 0.01);
    const double gpuPath = s.stepTimeNs * (1.0 - s.idleDataWaitFraction);
    EXPECT_NEAR(r1->gain.stepTimeAfterNs, gpuPath, 1.0);
    EXPECT_NE(r1->gain.basis.find("the GPU's path binds"), std::string::npos) << r1->gain.basis;
    // The range: down to GPU busy, up to the idle the host still causes doubling.
    EXPECT_NEAR(r1->gain.stepTimeLowNs, s.stepTimeNs * s.busyFraction, 1.0);
    expectStatedRange(*r1);
    // Only the host idle there is is named: no "synchronization 0 ns" (rn50-nw0 printed it).
    EXPECT_LT(s.idleSyncFraction * s.stepTimeNs, 1e3);
    EXPECT_EQ(r1->gain.uncertainty.find("synchronization 0"), std::string::npos) << r1->gain.uncertainty;
    EXPECT_EQ(r1->gain.uncertainty.find(" 0 ns"), std::string::npos) << r1->gain.uncertainty;
}

// A second launching thread works 9.5 ms of every 10 ms step outside data loading (host-side
// framework work that overlaps the first thread's loading): taking the loading away cannot make the
// step shorter than that thread's serial work, however short the GPU's path gets.
TEST(Prediction, DataFixIsTheHostBoundWhenTheHostPathIsLong) {
    SyntheticJob job;
    std::int64_t correlation = 1'000'000;
    for (int s = 0; s < 6; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.step(s);
        job.builder().range(kDataLoaderNext, t + 50'000, t + 4'000'000);
        for (int k = 0; k < 3; ++k) {
            const core::TimestampNs start = t + 4'100'000 + k * 970'000;
            job.launched(kFp32Gemm, start, start + 960'000, 7, 60'000);
        }
        // Thread 2: 9.5 ms of framework work, ending in one launch.
        job.builder().cpuOp("aten::add_", t + 100'000, t + 9'600'000, /*tid=*/2);
        job.builder().apiCall("cudaLaunchKernel", t + 9'500'000, t + 9'505'000, ++correlation, /*tid=*/2);
        job.builder().kernel(kElementwise, t + 9'550'000, t + 9'600'000, 0, 7, correlation);
    }
    const auto r = analyze(job.build());
    ASSERT_TRUE(r);
    ASSERT_EQ(r->overall.bottleneck, Bottleneck::Data) << r->headline;
    const Recommendation* r1 = r->fixes.find("R1");
    ASSERT_NE(r1, nullptr);
    const DiagnosisSignals& s = r->overallSignals;
    ASSERT_TRUE(s.hostWorkFraction.has_value());
    const double hostPath = *s.hostWorkFraction * s.stepTimeNs;
    EXPECT_NEAR(hostPath, 9.5e6, 0.05e6);
    EXPECT_LT(s.stepTimeNs * (1.0 - s.idleDataWaitFraction), hostPath);  // the GPU's path is shorter
    EXPECT_NEAR(r1->gain.stepTimeAfterNs, hostPath, 1.0);
    EXPECT_NE(r1->gain.basis.find("the host's path binds"), std::string::npos) << r1->gain.basis;
    expectStatedRange(*r1);
}

DiagnosisSignals computeSignals(std::optional<double> hostWork) {
    DiagnosisSignals s;
    s.scope = "test";
    s.windowNs = s.stepTimeNs = 100e6;
    s.stepCount = 1;
    s.hasGpuActivity = true;
    s.busyFraction = s.computeFraction = 0.95;
    s.idleFraction = 0.05;
    s.idleCausesKnown = true;
    s.idleLaunchOverheadFraction = 0.05;
    s.kernelCount = 1000;
    s.gemmShare = s.fp32MatmulShare = 0.8;
    s.hbmBandwidthFraction = 0.2;
    s.hbmMeasured = true;
    s.hostWorkFraction = hostWork;
    return s;
}

// A GPU-side fix (mixed precision) stops at the host's launch path: with the launching thread busy
// 90 % of the step, faster kernels cannot take the step below 90 ms; with a short host path the
// gain is the kernels' own.
TEST(Prediction, FasterKernelsStopAtTheHostPath) {
    const DiagnosisSignals shortHost = computeSignals(0.10);
    const FixPlan free = recommendFixes(classifyWindow(shortHost), shortHost);
    const Recommendation* fast = free.find("R4");
    ASSERT_NE(fast, nullptr);
    const double kernelSaving = 0.8 * 0.95 * 100e6 * (1.0 - 1.0 / DiagnosisConfig{}.mixedPrecisionSpeedup);
    EXPECT_NEAR(fast->gain.stepTimeAfterNs, 100e6 - kernelSaving, 1.0);
    EXPECT_EQ(fast->gain.basis.find("host's launch path binds"), std::string::npos) << fast->gain.basis;
    expectStatedRange(*fast);

    const DiagnosisSignals longHost = computeSignals(0.90);
    const FixPlan bound = recommendFixes(classifyWindow(longHost), longHost);
    const Recommendation* slow = bound.find("R4");
    ASSERT_NE(slow, nullptr);
    EXPECT_NEAR(slow->gain.stepTimeAfterNs, 90e6, 1.0);
    EXPECT_NE(slow->gain.basis.find("host's launch path binds"), std::string::npos) << slow->gain.basis;
    expectStatedRange(*slow);

    // Without recorded host activity there is no host bound to apply.
    const DiagnosisSignals unknown = computeSignals(std::nullopt);
    const FixPlan unbounded = recommendFixes(classifyWindow(unknown), unknown);
    const Recommendation* plain = unbounded.find("R4");
    ASSERT_NE(plain, nullptr);
    EXPECT_NEAR(plain->gain.stepTimeAfterNs, 100e6 - kernelSaving, 1.0);
}

// Every shown fix with a computed gain states its basis and its uncertainty, and its range holds the
// prediction, whatever the verdict.
TEST(Prediction, EveryComputedGainHasABasisAnUncertaintyAndARange) {
    std::vector<DiagnosisSignals> cases;
    cases.push_back(computeSignals(0.5));
    DiagnosisSignals data = computeSignals(0.3);
    data.busyFraction = data.computeFraction = 0.5;
    data.idleFraction = 0.5;
    data.idleDataWaitFraction = 0.4;
    data.idleLaunchOverheadFraction = 0.1;
    data.dataLoadingHostFraction = 0.4;
    cases.push_back(data);
    DiagnosisSignals launch = computeSignals(0.6);
    launch.busyFraction = launch.computeFraction = 0.4;
    launch.idleFraction = 0.6;
    launch.idleLaunchOverheadFraction = 0.55;
    launch.idleSyncFraction = 0.05;
    launch.shortKernelCount = 900;
    cases.push_back(launch);
    DiagnosisSignals comm = computeSignals(0.2);
    comm.busyFraction = 0.9;
    comm.computeFraction = 0.5;
    comm.communicationFraction = 0.6;
    comm.exposedCommunicationFraction = 0.4;
    comm.collectivesSeen = true;
    comm.worldSize = 8;
    cases.push_back(comm);
    DiagnosisSignals capacity = computeSignals(0.2);
    capacity.outOfMemoryObserved = true;
    capacity.peakMemoryBytes = 80e9;
    capacity.capacityBytes = 80e9;
    cases.push_back(capacity);
    int computed = 0;
    for (const DiagnosisSignals& s : cases) {
        const FixPlan plan = recommendFixes(classifyWindow(s), s);
        for (const Recommendation& r : plan.recommendations) {
            expectStatedRange(r);
            computed += r.gain.computed ? 1 : 0;
        }
    }
    EXPECT_GE(computed, 6);
}

// MFU after a fix is the same model FLOPs over the shorter step, on the peak of the part it runs on:
// R13 moves the job to a part with hardwareUpgradePeakRatio times the peak, so its MFU falls when
// the step shortens by less than that (it read "MFU 32.7 % -> 42.1 %" for a 1.29x faster step on a
// 2x part; 21.0 % is right).
TEST(Prediction, MfuAfterFasterHardwareIsOverTheNewPeak) {
    DiagnosisSignals s = computeSignals(0.3);
    s.mfu = 0.3;
    const DiagnosisConfig config;
    const FixPlan plan = recommendFixes(classifyWindow(s), s);
    int checked = 0;
    for (const Recommendation& r : plan.recommendations) {
        if (!r.gain.mfuAfter || !r.gain.mfuBefore) {
            continue;
        }
        const double peakRatio = r.ruleId == "R13" ? config.hardwareUpgradePeakRatio : 1.0;
        EXPECT_NEAR(*r.gain.mfuAfter, *r.gain.mfuBefore * r.gain.speedup / peakRatio, 1e-9) << r.ruleId;
        if (r.ruleId == "R13") {
            EXPECT_LT(r.gain.speedup, config.hardwareUpgradePeakRatio);
            EXPECT_LT(*r.gain.mfuAfter, *r.gain.mfuBefore) << r.gain.summary;
            ++checked;
        }
    }
    EXPECT_EQ(checked, 1) << "R13 is among the compute-bound job's fixes";
}

// R7 and R12 state the communication they target with the same two figures as the verdict: the
// exposed communication and the waits on collectives (R7 once gave their sum as "exposed").
TEST(Prediction, CommunicationFixesQuoteTheSameExposedCommunication) {
    DiagnosisSignals comm = computeSignals(0.2);
    comm.busyFraction = 0.85;
    comm.computeFraction = 0.5;
    comm.communicationFraction = 0.5;
    comm.exposedCommunicationFraction = 0.3;
    comm.idleFraction = 0.15;
    comm.idleCollectiveFraction = 0.1;
    comm.collectivesSeen = true;
    comm.worldSize = 8;
    const FixPlan plan = recommendFixes(classifyWindow(comm), comm);
    for (const char* id : {"R7", "R12"}) {
        const Recommendation* fix = plan.find(id);
        ASSERT_NE(fix, nullptr) << id;
        EXPECT_NE(fix->evidence.find("exposed communication 30.0 % + waiting on collectives 10.0 %"),
                  std::string::npos)
            << id << ": " << fix->evidence;
    }
}

// Frames are named for a cause that takes some of the step: a data wait of 0.5 % lists no "top
// frames", where "data wait 0.0 %" followed by "100.0 % of the data wait" read as a finding.
TEST(Prediction, ACauseUnderOnePercentNamesNoFrames) {
    auto job = [](core::DurationNs waitNs) {
        SyntheticJob j;
        for (int s = 0; s < 4; ++s) {
            const core::TimestampNs t = SyntheticJob::stepStart(s);
            j.step(s);
            j.builder().range(kDataLoaderNext, t + 10'000, t + 10'000 + waitNs);
            j.launched(kFp32Gemm, t + 20'000 + waitNs, t + kStepNs - 100'000, 7, 10'000);
        }
        return analyze(j.build());
    };
    const auto small = job(50'000);
    ASSERT_TRUE(small);
    EXPECT_LT(small->overallSignals.idleDataWaitFraction, 0.01);
    EXPECT_TRUE(small->overallSignals.dataWaitFrames.empty());
    EXPECT_EQ(writeTextReport(*small).find("data wait top frames"), std::string::npos);
    const auto large = job(3'000'000);
    ASSERT_TRUE(large);
    EXPECT_GT(large->overallSignals.idleDataWaitFraction, 0.2);
    EXPECT_FALSE(large->overallSignals.dataWaitFrames.empty());
}

// Prefetching, faster decoding and faster storage each end the same data wait: their predictions
// are the same step, and the later ones say so instead of reading like three gains to add up.
TEST(Prediction, FixesThatRemoveTheSameTimeSayTheirGainsDoNotAddUp) {
    DiagnosisSignals s;
    s.scope = "test";
    s.windowNs = 100e6;
    s.stepTimeNs = 100e6;
    s.stepCount = 1;
    s.hasGpuActivity = true;
    s.busyFraction = 0.3;
    s.computeFraction = 0.3;
    s.idleFraction = 0.7;
    s.idleCausesKnown = true;
    s.kernelCount = 1000;
    s.idleDataWaitFraction = 0.65;
    s.cpuBusyDuringIdleFraction = 0.9;
    s.dataLoadingHostFraction = 0.65;
    const Verdict v = classifyWindow(s);
    ASSERT_EQ(v.bottleneck, Bottleneck::Data);
    const FixPlan plan = recommendFixes(v, s);
    const Recommendation* r1 = plan.find("R1");
    const Recommendation* r2 = plan.find("R2");
    ASSERT_NE(r1, nullptr);
    ASSERT_NE(r2, nullptr) << explain(plan);
    EXPECT_EQ(r1->sameGainAs, "");
    EXPECT_NEAR(r2->gain.stepTimeAfterNs, r1->gain.stepTimeAfterNs, 0.005 * r1->gain.stepTimeAfterNs);
    EXPECT_EQ(r2->sameGainAs, "R1");
    // A fix for another constraint is never "the same time", whatever its prediction.
    for (const Recommendation& r : plan.recommendations) {
        if (r.target != Bottleneck::Data) {
            EXPECT_EQ(r.sameGainAs, "") << r.ruleId;
        }
    }
}

// The next bottleneck comes from the trace's own shares once the first fix is applied: the
// ResNet-style data-bound job's memory-bound kernels, with their share of the predicted step.
TEST(Prediction, TheNextBottleneckIsTheLargestShareTheFirstFixLeaves) {
    const auto r = analyze(testutils::dataBoundJob(6));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->overall.bottleneck, Bottleneck::Data) << r->headline;
    const Verdict& v = r->overall;
    const ConstraintShare* largestOther = nullptr;
    for (const ConstraintShare& share : v.shares) {
        if (share.bottleneck != Bottleneck::Data && share.bottleneck != Bottleneck::Undetermined &&
            (largestOther == nullptr || share.shareOfWindow > largestOther->shareOfWindow)) {
            largestOther = &share;
        }
    }
    ASSERT_NE(largestOther, nullptr);
    ASSERT_GE(largestOther->shareOfWindow, 0.01);
    const std::string& next = r->fixes.nextStep;
    EXPECT_NE(next.find(core::formatPercent(largestOther->shareOfWindow) + " of the step now"),
              std::string::npos)
        << next;
    EXPECT_NE(next.find("step R1 predicts"), std::string::npos) << next;
}

}  // namespace
}  // namespace chokepoint::analysis
