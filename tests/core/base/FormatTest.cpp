#include "core/base/Format.h"

#include <gtest/gtest.h>

#include <cstdint>

using namespace chokepoint::core;

TEST(Format, DurationPicksUnit) {
    EXPECT_EQ(formatDuration(850), "850 ns");
    EXPECT_EQ(formatDuration(12'345), "12.3 µs");
    EXPECT_EQ(formatDuration(4'560'000), "4.56 ms");
    EXPECT_EQ(formatDuration(1'234'000'000), "1.23 s");
}

TEST(Format, BytesAndRates) {
    EXPECT_EQ(formatBytes(512), "512 B");
    EXPECT_EQ(formatBytes(1536), "1.50 KiB");
    EXPECT_EQ(formatBandwidth(2.039e12), "2.04 TB/s");
    EXPECT_EQ(formatFlopsPerSecond(989e12), "989 TFLOP/s");
    EXPECT_EQ(formatPercent(0.123), "12.3 %");
    EXPECT_EQ(formatCount(1234567), "1,234,567");
    EXPECT_EQ(formatCount(-1000), "-1,000");
}

// A toy job's MFU (hta-amd-mi250: 347 kFLOP per 9.29 ms step) read "0.0 %", as if none were counted.
TEST(Format, SmallPercentsKeepTwoSignificantDigits) {
    EXPECT_EQ(formatSmallPercent(0.283), "28.3 %");
    EXPECT_EQ(formatSmallPercent(0.001), "0.1 %");
    EXPECT_EQ(formatSmallPercent(0.0000016), "0.00016 %");
    EXPECT_EQ(formatSmallPercent(0.0), "0.0 %");
    EXPECT_EQ(formatFlops(0.788e12), "788 GFLOP");
    EXPECT_EQ(formatFlops(21.56e12), "21.6 TFLOP");
    EXPECT_EQ(formatFlops(347e3), "347 kFLOP");
}

TEST(Format, ThreadIdsShowUnsigned) {
    EXPECT_EQ(formatThreadId(1234), "1234");
    // hta-negative-queue records its threads as -1220540864 and -1107294656: 32-bit pthread ids
    // written as signed ints.
    EXPECT_EQ(formatThreadId(-1220540864), "3074426432");
    EXPECT_EQ(formatThreadId(-1107294656), "3187672640");
    EXPECT_EQ(formatThreadId(-1), "4294967295");
    EXPECT_EQ(formatThreadId(-5'000'000'000), "18446744068709551616");
}

// Points in time read in the unit of their size, exact to the nanosecond (issue 23: a point 15 s
// into a trace read "14971209.026 µs after trace start").
TEST(Format, TimeOffsetsInTheUnitOfTheirSize) {
    EXPECT_EQ(formatTimeOffset(0), "0 ns");
    EXPECT_EQ(formatTimeOffset(850), "850 ns");
    EXPECT_EQ(formatTimeOffset(12'345), "12.345 µs");
    EXPECT_EQ(formatTimeOffset(4'567'890), "4.567890 ms");
    EXPECT_EQ(formatTimeOffset(14'971'209'026), "14.971209026 s");
    EXPECT_EQ(formatTimeOffset(1'000'000'000), "1.000000000 s");
    EXPECT_EQ(formatTimeOffset(-2'500), "-2.500 µs");
    // Offsets far beyond a double's integer precision keep their last digit.
    EXPECT_EQ(formatTimeOffset(9'007'199'254'740'993), "9007199.254740993 s");
    EXPECT_EQ(formatTimeOffset(INT64_MIN), "-9223372036.854775808 s");
}

// A counter's scale names its unit: "max 107.1" on a CPU % track read as a bare number.
TEST(Format, CounterValuesCarryTheirUnit) {
    using chokepoint::core::formatCounterValue;
    EXPECT_EQ(formatCounterValue(107.1, "%"), "107 %");
    EXPECT_EQ(formatCounterValue(3.04, "%"), "3.0 %");
    EXPECT_EQ(formatCounterValue(1.5 * 1024 * 1024 * 1024, "bytes"),
              chokepoint::core::formatBytes(1.5 * 1024 * 1024 * 1024));
    EXPECT_EQ(formatCounterValue(12e9, "B/s"), chokepoint::core::formatBandwidth(12e9));
    EXPECT_EQ(formatCounterValue(312.25, "W"), "312.2 W");
    EXPECT_EQ(formatCounterValue(2.5, ""), "2.5");
}
