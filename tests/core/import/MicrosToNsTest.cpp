#include "core/import/MicrosToNs.h"

#include <gtest/gtest.h>

#include <limits>

using namespace chokepoint::core;

namespace {

std::int64_t ns(std::string_view text) {
    std::int64_t out = -777;
    EXPECT_EQ(microsToNs(text, out), NumberParse::Ok) << text;
    return out;
}

}  // namespace

TEST(MicrosToNs, IntegersAndFractions) {
    EXPECT_EQ(ns("0"), 0);
    EXPECT_EQ(ns("21"), 21000);
    EXPECT_EQ(ns("63.813"), 63813);
    EXPECT_EQ(ns("1.5"), 1500);
    EXPECT_EQ(ns("0.001"), 1);
    EXPECT_EQ(ns("-2.5"), -2500);
    EXPECT_EQ(ns("  7.25 \n"), 7250);
}

TEST(MicrosToNs, LargeEpochTimestampsKeepEveryNanosecond) {
    // A double has 15-16 significant digits; this needs 19.
    EXPECT_EQ(ns("1712195495519689.047"), 1712195495519689047);
    EXPECT_EQ(ns("1712195495519689.999"), 1712195495519689999);
    EXPECT_EQ(ns("4203669603771.648"), 4203669603771648);
}

TEST(MicrosToNs, RoundsToNearestNanosecondHalfAwayFromZero) {
    EXPECT_EQ(ns("1.0004"), 1000);
    EXPECT_EQ(ns("1.0005"), 1001);
    EXPECT_EQ(ns("1.00049999"), 1000);
    EXPECT_EQ(ns("-1.0005"), -1001);
    EXPECT_EQ(ns("1712195495519689.0475"), 1712195495519689048);
}

TEST(MicrosToNs, Exponents) {
    EXPECT_EQ(ns("1.5e3"), 1500000);
    EXPECT_EQ(ns("15E-1"), 1500);
    EXPECT_EQ(ns("1e-9"), 0);
    EXPECT_EQ(ns("2.5e-3"), 3);
}

TEST(MicrosToNs, OutOfRangeAndGarbage) {
    std::int64_t out = 0;
    EXPECT_EQ(microsToNs("1e300", out), NumberParse::OutOfRange);
    EXPECT_EQ(microsToNs("1180591620717411303424", out), NumberParse::OutOfRange);  // 2^70
    EXPECT_EQ(microsToNs("9223372036854775807", out), NumberParse::OutOfRange);     // * 1000 overflows
    EXPECT_EQ(microsToNs("9223372036854775.807", out), NumberParse::Ok);
    EXPECT_EQ(out, std::numeric_limits<std::int64_t>::max());
    EXPECT_EQ(microsToNs("abc", out), NumberParse::NotANumber);
    EXPECT_EQ(microsToNs("1.", out), NumberParse::NotANumber);
    EXPECT_EQ(microsToNs("01", out), NumberParse::NotANumber);
    EXPECT_EQ(microsToNs("", out), NumberParse::NotANumber);
    EXPECT_EQ(microsToNs("1e", out), NumberParse::NotANumber);
}

TEST(ParseInt64Token, TruncatesAndChecksRange) {
    std::int64_t out = 0;
    ASSERT_EQ(parseInt64Token("135071", out), NumberParse::Ok);
    EXPECT_EQ(out, 135071);
    ASSERT_EQ(parseInt64Token("5.9", out), NumberParse::Ok);
    EXPECT_EQ(out, 5);
    ASSERT_EQ(parseInt64Token("-3", out), NumberParse::Ok);
    EXPECT_EQ(out, -3);
    ASSERT_EQ(parseInt64Token("1e3", out), NumberParse::Ok);
    EXPECT_EQ(out, 1000);
    EXPECT_EQ(parseInt64Token("1180591620717411303424", out), NumberParse::OutOfRange);
    EXPECT_EQ(parseInt64Token("0x0", out), NumberParse::NotANumber);
}
