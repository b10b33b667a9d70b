// Sampled stacks for the accounting: the time each sample stands for, each stack's role, and the
// profile of the GPU's idle by thread, stack and frame (shares never above the idle).

#include <gtest/gtest.h>

#include "core/analysis/metrics/GpuTimeAccounting.h"
#include "core/analysis/metrics/KernelClassifier.h"
#include "core/analysis/metrics/SampledStacks.h"
#include "core/analysis/metrics/StackIdleProfile.h"
#include "core/analysis/metrics/StepDetection.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;
constexpr core::TimestampNs kMs = 1'000'000;

TEST(SampledStacks, ASampleStandsForTheTimeToTheNextCappedAtTwiceTheMedian) {
    TraceBuilder b;
    for (core::TimestampNs t : {0, 1, 2, 3, 10}) {  // ms; then a pause in sampling
        b.sample(t * kMs, "train.py:main", 1);
    }
    b.sample(5 * kMs, "train.py:main", 2);  // a thread with one sample: no interval known
    const core::TraceModel model = b.build();
    const SampledStacks stacks(model);
    ASSERT_EQ(stacks.size(), 6u);
    std::vector<core::DurationNs> lengths;
    for (std::size_t i = 0; i < model.stackSamples.size(); ++i) {
        if (model.stackSamples.thread[i] == 0) {
            lengths.push_back(stacks.span(i).durationNs());
        }
    }
    // Median interval 1 ms: 1, 1, 1, then 7 ms capped at 2, and the last one the median.
    EXPECT_EQ(lengths, (std::vector<core::DurationNs>{kMs, kMs, kMs, 2 * kMs, kMs}));
    for (std::size_t i = 0; i < model.stackSamples.size(); ++i) {
        if (model.stackSamples.thread[i] == 1) {
            EXPECT_EQ(stacks.span(i).durationNs(), 0);
        }
    }
}

TEST(SampledStacks, RolesAndPaths) {
    TraceBuilder b;
    const core::StackIndex data =
        b.sample(0,
                 "train.py:main;torch/utils/data/dataloader.py:_BaseDataLoaderIter.__next__;"
                 "torch/utils/data/_utils/fetch.py:_MapDatasetFetcher.fetch;my_data.py:Shards.__getitem__;"
                 "torchvision/transforms/transforms.py:Compose.__call__;"
                 "torch/nn/modules/module.py:Module._call_impl;"
                 "torchvision/transforms/transforms.py:RandomResizedCrop.forward",
                 1);
    const core::StackIndex plain = b.sample(1, "train.py:main;model.py:Net.forward", 1);
    const core::TraceModel model = b.build();
    const SampledStacks stacks(model);
    EXPECT_EQ(stacks.role(data).role, names::HostRole::DataPreparation);
    EXPECT_EQ(stacks.role(plain).role, names::HostRole::None);
    EXPECT_EQ(stacks.pathText(data),
              "_BaseDataLoaderIter.__next__ → _MapDatasetFetcher.fetch → Compose.__call__ → "
              "RandomResizedCrop.forward");  // the frames with a role, and the leaf
    EXPECT_EQ(stacks.pathText(data, 3),
              "_BaseDataLoaderIter.__next__ → … → Compose.__call__ → RandomResizedCrop.forward");
    EXPECT_EQ(stacks.pathText(plain), "main → Net.forward");
    EXPECT_EQ(model.text(stacks.leafFunction(data)), "RandomResizedCrop.forward");
    EXPECT_EQ(stacks.role(999).role, names::HostRole::None);
}

// Two 10 ms iterations: a kernel [0, 4) ms then a gap to 10 ms. Thread 1 launches and is sampled
// every ms; thread 2 is sampled every 0.5 ms and launches nothing.
core::TraceModel twoThreads() {
    TraceBuilder b;
    for (int s = 0; s < 2; ++s) {
        const core::TimestampNs base = s * 10 * kMs;
        b.range("ProfilerStep#" + std::to_string(s + 1), base, base + 10 * kMs);
        b.apiCall("cudaLaunchKernel", base, base + 1000, 10 + s, 1);
        b.kernel("ampere_sgemm_128x64_tn", base + 2000, base + 4 * kMs, 0, 7, 10 + s);
    }
    for (core::TimestampNs t = 0; t < 20 * kMs; t += kMs) {
        b.sample(t,
                 (t % (10 * kMs)) < 4 * kMs ? "train.py:main;model.py:Net.forward"
                                            : "train.py:main;train.py:log_metrics;train.py:format_row",
                 1);
    }
    for (core::TimestampNs t = 0; t < 20 * kMs; t += kMs / 2) {
        b.sample(t, "worker.py:loop;folder.py:pil_loader", 2);
    }
    return b.build();
}

TEST(StackIdleProfile, SharesPerThreadNeverExceedTheIdle) {
    const core::TraceModel model = twoThreads();
    const StepsResult steps = detectSteps(model);
    const KernelStatsResult kernels = computeKernelStats(model);
    const SampledStacks stacks(model);
    const GpuTimeAccountingResult accounting =
        computeGpuTimeAccounting(model, steps, kernels, {}, {}, &stacks);
    const StackIdleProfile profile = computeStackIdleProfile(stacks, accounting);
    ASSERT_EQ(profile.devices.size(), 1u);
    const DeviceStackIdle& d = profile.devices.front();
    EXPECT_GT(d.idleNs, 10 * kMs);
    ASSERT_EQ(d.threads.size(), 2u);
    for (const SampledThreadIdle& t : d.threads) {
        EXPECT_LE(t.sampledNs, d.idleNs);
        core::DurationNs stacksNs = 0;
        for (const SampledStackTime& st : t.stacks) {
            stacksNs += st.ns;
        }
        EXPECT_EQ(stacksNs, t.sampledNs);  // fewer than 10 stacks: all listed
        for (const SampledFrameTime& f : t.frames) {
            EXPECT_LE(f.exclusiveNs, f.inclusiveNs);
            EXPECT_LE(f.inclusiveNs, t.sampledNs);
        }
    }
    // The launching thread's gaps are named: its samples there are in log_metrics → format_row.
    const SampledThreadIdle* main = nullptr;
    for (const SampledThreadIdle& t : d.threads) {
        if (model.threads[t.thread].tid == 1) {
            main = &t;
        }
    }
    ASSERT_NE(main, nullptr);
    ASSERT_FALSE(main->stacks.empty());
    EXPECT_NE(main->stacks.front().path.find("format_row"), std::string::npos) << main->stacks.front().path;
    EXPECT_EQ(main->frames.front().name, "main (train.py)");
    // The gaps are host work named by the sampled leaf function.
    ASSERT_FALSE(accounting.hostWorkFrames.empty());
    EXPECT_EQ(model.text(accounting.hostWorkFrames.front().name), "format_row");
    for (const IdleInterval& idle : accounting.idleIntervals) {
        if (idle.streamId < 0 && idle.range.durationNs() > kMs) {
            EXPECT_EQ(idle.cause, IdleCause::HostWork);
            EXPECT_EQ(idle.evidence.kind, IdleEvidence::Kind::StackSample);
        }
    }
}

}  // namespace
}  // namespace chokepoint::analysis
