#include "core/import/JsonScan.h"

#include <gtest/gtest.h>

#include <string>

using namespace chokepoint::core;

namespace {

ScanResult scan(const std::string& text) {
    std::string padded = text + std::string(kJsonScanPadding, ' ');
    return scanJsonValue(padded.data(), text.size());
}

}  // namespace

TEST(JsonScan, FindsTheEndOfValues) {
    EXPECT_EQ(scan("{\"a\": 1}, {").length, 8u);
    EXPECT_EQ(scan("[1, [2, {\"x\": [3]}]] tail").length, 20u);
    EXPECT_EQ(scan("\"str\\\"ing\" ,").length, 10u);
    EXPECT_EQ(scan("12.5e3,").length, 6u);
    EXPECT_EQ(scan("true]").length, 4u);
    // Brackets and quotes inside strings do not count.
    std::string tricky = R"({"n": "}]{[\"\\", "m": "x"})";
    EXPECT_EQ(scan(tricky + ",").length, tricky.size());
}

TEST(JsonScan, LongValuesCrossVectorBlocks) {
    std::string longString = "\"" + std::string(1000, 'a') + "\\\\" + std::string(37, 'b') + "\"";
    ScanResult r = scan("{\"k\": " + longString + "} ");
    ASSERT_EQ(r.status, ScanStatus::Complete);
    EXPECT_EQ(r.length, 7 + longString.size());
}

TEST(JsonScan, IncompleteAndInvalid) {
    EXPECT_EQ(scan("{\"a\": [1, 2").status, ScanStatus::Incomplete);
    EXPECT_EQ(scan("\"open string").status, ScanStatus::Incomplete);
    EXPECT_EQ(scan("\"ends with escape\\").status, ScanStatus::Incomplete);
    EXPECT_EQ(scan("123").status, ScanStatus::Incomplete);  // a number may continue
    EXPECT_EQ(scan("").status, ScanStatus::Incomplete);
    EXPECT_EQ(scan("}").status, ScanStatus::Invalid);
    EXPECT_EQ(scan(",").status, ScanStatus::Invalid);
}
