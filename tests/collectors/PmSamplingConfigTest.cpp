// The PM sampling metric configuration, built offline with the CUPTI profiler host API for the
// Hopper chip (GH100 = H100 and H200): no GPU needed.

#include <gtest/gtest.h>

#include "collectors/agent/PmSampler.h"

namespace chokepoint::collectors {
namespace {

TEST(PmSamplingConfigTest, DefaultSetIsOnePassOnHopper) {
    auto config = buildPmSamplingConfig("GH100", {}, defaultPmMetrics());
    ASSERT_TRUE(config.ok()) << config.error().message;
    EXPECT_EQ(config->passes, 1u);
    EXPECT_GT(config->image.size(), 0u);
    EXPECT_EQ(defaultPmMetrics().size(), 17u);
}

TEST(PmSamplingConfigTest, UnknownMetricIsNamed) {
    std::vector<PmMetric> metrics = {{"dram__bytes_read.sum", "DRAM read", "bytes"},
                                     {"no_such__metric.sum", "nothing", ""}};
    auto config = buildPmSamplingConfig("GH100", {}, metrics);
    ASSERT_FALSE(config.ok());
    EXPECT_NE(config.error().message.find("no_such__metric.sum"), std::string::npos);
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

}  // namespace
}  // namespace chokepoint::collectors
