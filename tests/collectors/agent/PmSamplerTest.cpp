// PmSampler's session against a stand-in for the GPU (FakePmSampling): what CUPTI needs kept
// alive, how decodes are drained, and where samples land. The configuration is built for real,
// offline, for GH100.

#include <gtest/gtest.h>

#include "collectors/agent/PmSampler.h"
#include "tests/collectors/agent/FakePmSampling.h"

namespace chokepoint::collectors {
namespace {

using testing::FakePmSample;
using testing::FakePmSampling;

constexpr std::uint64_t kMsNs = 1'000'000;

PmSampler::Options twoMetrics() {
    PmSampler::Options options;
    options.metrics = {{"dram__bytes_read.sum", "DRAM read", "bytes"},
                       {"dram__bytes_write.sum", "DRAM written", "bytes"}};
    options.maxSamplesPerDecode = 4;
    return options;
}

// 1 ms samples from `firstNs`, the value of each its index.
void record(FakePmSampling& gpu, std::uint64_t firstNs, int count) {
    for (int i = 0; i < count; ++i) {
        const std::uint64_t start = firstNs + static_cast<std::uint64_t>(i) * kMsNs;
        gpu.hardware.push_back({start, start + kMsNs, static_cast<double>(i)});
    }
}

const core::CounterTrack* track(const core::TraceModel& model, const std::string& name) {
    for (const core::CounterTrack& t : model.counters) {
        if (t.name == name) {
            return &t;
        }
    }
    return nullptr;
}

std::string joinedNotes(const PmSampler& sampler) {
    std::string all;
    for (const std::string& note : sampler.notes()) {
        all += note + "\n";
    }
    return all;
}

constexpr core::TimestampNs kAlways = 0;
constexpr core::TimestampNs kNever = std::numeric_limits<core::TimestampNs>::max();

TEST(PmSamplerTest, TheConfigurationImageStaysWhereCuptiWasToldUntilTheDisable) {
    // CUPTI keeps SetConfig's pointer and reads the image while sampling. It used to be freed when
    // start() returned; the fake re-reads it at every later call.
    FakePmSampling gpu;
    PmSampler sampler(gpu);
    ASSERT_TRUE(sampler.start(twoMetrics()).ok());
    std::vector<std::vector<std::uint8_t>> churn;  // reuse freed memory, as a job's allocations would
    for (int i = 0; i < 64; ++i) {
        churn.emplace_back(1024u << (i % 8), static_cast<std::uint8_t>(0xA5));
    }
    core::TraceModel batch;
    ClockMap clock;
    for (int pass = 0; pass < 3; ++pass) {
        record(gpu, gpu.cuptiNowNs + static_cast<std::uint64_t>(pass) * 3 * kMsNs, 3);
        sampler.decodeInto(batch, clock, kAlways, kNever);
    }
    sampler.stop(batch, clock, kAlways, kNever);
    EXPECT_TRUE(gpu.disabled);
    EXPECT_GE(gpu.configChecks, 5);  // start, three decodes, stop, the decode after it, disable
    EXPECT_EQ(gpu.configBroken, 0);
}

TEST(PmSamplerTest, SamplesInTheWindowBecomeOneTrackPerMetric) {
    FakePmSampling gpu;
    PmSampler sampler(gpu);
    ASSERT_TRUE(sampler.start(twoMetrics()).ok());
    const std::uint64_t t0 = gpu.cuptiNowNs;
    record(gpu, t0, 10);                 // midpoints t0 + 0.5 ms .. t0 + 9.5 ms
    gpu.hardware.push_back({0, 0, 99});  // a sample that covers no time
    core::TraceModel batch;
    ClockMap clock;  // no anchors: CUPTI time is the trace time
    const auto windowStart = static_cast<core::TimestampNs>(t0 + 2 * kMsNs);
    const auto windowEnd = static_cast<core::TimestampNs>(t0 + 8 * kMsNs);
    sampler.decodeInto(batch, clock, windowStart, windowEnd);
    sampler.stop(batch, clock, windowStart, windowEnd);

    const core::CounterTrack* read = track(batch, "DRAM read");
    const core::CounterTrack* written = track(batch, "DRAM written");
    ASSERT_NE(read, nullptr);
    ASSERT_NE(written, nullptr);
    // Samples 2..7 lie in the window (sample 0, the first, is left out as CUPTI advises).
    ASSERT_EQ(read->timesNs.size(), 6u);
    EXPECT_EQ(read->timesNs.front(), windowStart + static_cast<core::TimestampNs>(kMsNs / 2));
    EXPECT_EQ(read->values.front(), 2.0);
    EXPECT_EQ(written->values.front(), 3.0);  // value + metric index
    EXPECT_EQ(read->values.back(), 7.0);
    EXPECT_EQ(sampler.samples(), 6u);
    const std::string notes = joinedNotes(sampler);
    EXPECT_NE(notes.find("decoded 11 samples: 6 kept, 3 outside the window, 1 without a time span"),
              std::string::npos)
        << notes;
}

TEST(PmSamplerTest, DecodingGoesOnAfterAnOtherStopReasonThatBroughtSamples) {
    // Kineto's runs saw CUPTI_PM_SAMPLING_DECODE_STOP_REASON_OTHER with completed samples and more
    // still waiting (pytorch/kineto#1532). The decode after stop used to end there.
    FakePmSampling gpu;
    PmSampler sampler(gpu);
    ASSERT_TRUE(sampler.start(twoMetrics()).ok());  // 4 samples per decode
    record(gpu, gpu.cuptiNowNs, 11);
    gpu.forcedStopReasons.push_back(CUPTI_PM_SAMPLING_DECODE_STOP_REASON_OTHER);
    core::TraceModel batch;
    ClockMap clock;
    sampler.stop(batch, clock, kAlways, kNever);
    EXPECT_TRUE(gpu.hardware.empty());
    EXPECT_EQ(sampler.samples(), 10u);  // all but the first
}

TEST(PmSamplerTest, AnOtherStopReasonWithoutSamplesEndsTheDecode) {
    FakePmSampling gpu;
    PmSampler sampler(gpu);
    ASSERT_TRUE(sampler.start(twoMetrics()).ok());
    for (int i = 0; i < 100; ++i) {
        gpu.forcedStopReasons.push_back(CUPTI_PM_SAMPLING_DECODE_STOP_REASON_OTHER);
    }
    core::TraceModel batch;
    ClockMap clock;
    sampler.decodeInto(batch, clock, kAlways, kNever);
    EXPECT_EQ(gpu.decodes, 1);
}

TEST(PmSamplerTest, AHardwareBufferOverflowEndsGpuMetricsAndSaysAfterHowManySamples) {
    FakePmSampling gpu;
    PmSampler sampler(gpu);
    ASSERT_TRUE(sampler.start(twoMetrics()).ok());
    record(gpu, gpu.cuptiNowNs, 4);
    core::TraceModel batch;
    ClockMap clock;
    sampler.decodeInto(batch, clock, kAlways, kNever);
    gpu.overflowed = true;
    record(gpu, gpu.cuptiNowNs + 4 * kMsNs, 4);
    sampler.decodeInto(batch, clock, kAlways, kNever);
    const int decodesAtOverflow = gpu.decodes;
    sampler.decodeInto(batch, clock, kAlways, kNever);
    sampler.stop(batch, clock, kAlways, kNever);
    EXPECT_EQ(gpu.decodes, decodesAtOverflow);  // no more asking once it is known to be permanent
    const core::TraceStat* overflow = batch.stats.find("agent.gpu_metrics_overflow");
    ASSERT_NE(overflow, nullptr);
    EXPECT_NE(overflow->detail.find("after 3 samples"), std::string::npos) << overflow->detail;
}

TEST(PmSamplerTest, SamplesOffCuptisClockArePlacedByTheFirstOne) {
    FakePmSampling gpu;
    PmSampler sampler(gpu);
    ASSERT_TRUE(sampler.start(twoMetrics()).ok());
    const std::uint64_t gpuTimerNs = 1'790'000'000'000'000'000ull;  // far from CUPTI's 5 s
    record(gpu, gpuTimerNs, 3);
    core::TraceModel batch;
    ClockMap clock;
    sampler.stop(batch, clock, kAlways, kNever);
    const core::CounterTrack* read = track(batch, "DRAM read");
    ASSERT_NE(read, nullptr);
    ASSERT_EQ(read->timesNs.size(), 2u);
    // The first sample's midpoint is taken to be CUPTI's time at start; the next is 1 ms later.
    EXPECT_EQ(read->timesNs[0], static_cast<core::TimestampNs>(gpu.cuptiNowNs + kMsNs));
    EXPECT_NE(joinedNotes(sampler).find("not on CUPTI's clock"), std::string::npos);
}

TEST(PmSamplerTest, APausedSessionStaysEnabledAndResumesWithItsOwnCounts) {
    // In a process that launches CUDA graphs the session is never disabled (the disable may
    // finalize CUPTI); the next capture resumes it.
    FakePmSampling gpu;
    PmSampler sampler(gpu);
    ASSERT_TRUE(sampler.start(twoMetrics()).ok());
    record(gpu, gpu.cuptiNowNs, 5);
    core::TraceModel first;
    ClockMap clock;
    sampler.pause(first, clock, kAlways, kNever);
    EXPECT_TRUE(sampler.paused());
    EXPECT_EQ(gpu.stops, 1);
    EXPECT_EQ(gpu.disables, 0);
    EXPECT_EQ(sampler.samples(), 4u);

    ASSERT_TRUE(sampler.resume().ok());
    EXPECT_FALSE(sampler.paused());
    EXPECT_EQ(gpu.enables, 1);
    EXPECT_EQ(gpu.starts, 2);
    EXPECT_EQ(joinedNotes(sampler), "");
    record(gpu, gpu.cuptiNowNs + 20 * kMsNs, 3);
    core::TraceModel second;
    sampler.stop(second, clock, kAlways, kNever);
    EXPECT_EQ(sampler.samples(), 2u);  // its own first sample left out again
    EXPECT_EQ(gpu.disables, 1);
    EXPECT_EQ(gpu.configBroken, 0);
    EXPECT_FALSE(sampler.resume().ok());  // nothing left to resume
}

}  // namespace
}  // namespace chokepoint::collectors
