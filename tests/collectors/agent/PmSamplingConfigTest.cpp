// The PM sampling metric configuration, built offline with the CUPTI profiler host API for the
// Hopper chip (GH100 = H100 and H200): no GPU needed.

#include <gtest/gtest.h>

#include "collectors/agent/PmSampler.h"
#include "core/model/PmMetricNames.h"

namespace chokepoint::collectors {
namespace {

TEST(PmSamplingConfigTest, DefaultSetIsOnePassOnHopper) {
    auto config = buildPmSamplingConfig("GH100", {}, defaultPmMetrics());
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->passes, 1u);
    EXPECT_GT(config->image.size(), 0u);
    EXPECT_EQ(defaultPmMetrics().size(), 17u);
}

TEST(PmSamplingConfigTest, AMetricTheChipRefusesIsDroppedAndTheRestKept) {
    // On the H100 the whole set was refused (CUPTI_ERROR_UNKNOWN) and no metric was recorded. A
    // refused metric now costs that metric only, and is named.
    std::vector<PmMetric> metrics = {{"dram__bytes_read.sum", "DRAM read", "bytes"},
                                     {"no_such__metric.sum", "nothing", ""},
                                     {"dram__bytes_write.sum", "DRAM written", "bytes"}};
    auto config = buildPmSamplingConfig("GH100", {}, metrics);
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->passes, 1u);
    ASSERT_EQ(config->metrics.size(), 2u);
    EXPECT_STREQ(config->metrics[0].name, "dram__bytes_read.sum");
    EXPECT_STREQ(config->metrics[1].name, "dram__bytes_write.sum");
    ASSERT_EQ(config->dropped.size(), 1u);
    EXPECT_NE(config->dropped[0].find("no_such__metric.sum"), std::string::npos);
}

TEST(PmSamplingConfigTest, TheDefaultSetSurvivesAnUnknownMetricWhole) {
    std::vector<PmMetric> metrics = defaultPmMetrics();
    metrics.push_back({"nvlrx__no_such_counter.sum", "nothing", ""});
    auto config = buildPmSamplingConfig("GH100", {}, metrics);
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->metrics.size(), defaultPmMetrics().size());
    EXPECT_EQ(config->dropped.size(), 1u);
}

TEST(PmSamplingConfigTest, MetricsThatWouldNeedASecondPassAreDropped) {
    // Three more metrics made the guide's set two passes (guide §4.2): they are left out, named.
    std::vector<PmMetric> metrics = defaultPmMetrics();
    metrics.push_back({"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed", "FMA", "%"});
    metrics.push_back({"lts__t_bytes.sum", "L2 bytes", "bytes"});
    metrics.push_back(
        {"sm__pipe_shared_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed", "shared", "%"});
    auto config = buildPmSamplingConfig("GH100", {}, metrics);
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->passes, 1u);
    EXPECT_GE(config->metrics.size(), defaultPmMetrics().size());
    EXPECT_FALSE(config->dropped.empty());
    EXPECT_EQ(config->metrics.size() + config->dropped.size(), metrics.size());
}

TEST(PmSamplingConfigTest, ASingleUnknownMetricIsNamed) {
    std::vector<PmMetric> metrics = {{"no_such__metric.sum", "nothing", ""}};
    auto config = buildPmSamplingConfig("GH100", {}, metrics);
    ASSERT_FALSE(config.ok());
    EXPECT_NE(config.error().message.find("no_such__metric.sum"), std::string::npos)
        << config.error().message;
}

TEST(PmSamplingConfigTest, MultiPassSetsAreRefused) {
    // Plain sm__throughput needs many passes in PM sampling (guide §4.2): not recordable.
    std::vector<PmMetric> metrics = {
        {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM throughput", "%"}};
    auto config = buildPmSamplingConfig("GH100", {}, metrics);
    ASSERT_FALSE(config.ok());
    EXPECT_NE(config.error().message.find("passes"), std::string::npos) << config.error().message;
}

TEST(PmSamplingConfigTest, UnknownChipIsAnError) {
    auto config = buildPmSamplingConfig("NOPE999", {}, defaultPmMetrics());
    ASSERT_FALSE(config.ok());
    EXPECT_NE(config.error().message.find("NOPE999"), std::string::npos);
}

// torch.profiler's own PM-sampling counters (Kineto JSON) are imported under the agent's track
// names and units (core/model/PmMetricNames), so the analysis reads both sources alike.
TEST(PmSamplingConfigTest, KinetoImportNamesTheAgentsMetricsAsTheAgentDoes) {
    for (const PmMetric& metric : defaultPmMetrics()) {
        const core::PmTrackName track = core::pmTrackForMetric(metric.name);
        EXPECT_EQ(track.name, metric.label) << metric.name;
        EXPECT_EQ(track.unit, metric.unit) << metric.name;
    }
}

}  // namespace
}  // namespace chokepoint::collectors

namespace chokepoint::collectors {
namespace {

// Decoded samples that cover no time are not placed on the timeline: both timestamps 0 (decodes
// after the counter data image once filled up) and the zero-length samples decoded after stop.
TEST(PmSampleTimesTest, SamplesThatCoverNoTimeHaveNoMidpoint) {
    EXPECT_EQ(pmSampleMidpointNs(0, 0), -1);
    EXPECT_EQ(pmSampleMidpointNs(1'700'000'000'000'000'000ull, 1'700'000'000'000'000'000ull), -1);
    EXPECT_EQ(pmSampleMidpointNs(2'000, 1'000), -1);
}

TEST(PmSampleTimesTest, ASampleIsPlacedAtItsMidpointWithoutOverflow) {
    EXPECT_EQ(pmSampleMidpointNs(1'000, 2'000), 1'500);
    EXPECT_EQ(pmSampleMidpointNs(1'001, 2'002), 1'501);
    const std::uint64_t start = 1'790'000'000'000'000'001ull;  // a 2026 CLOCK_REALTIME in ns
    EXPECT_EQ(pmSampleMidpointNs(start, start + 1'000'000), static_cast<std::int64_t>(start + 500'000));
}

}  // namespace
}  // namespace chokepoint::collectors
