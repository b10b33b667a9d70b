// Round trips through the .cptrace writer and reader: every field of the model survives.

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/format/CptraceFormat.h"
#include "core/format/CptraceReader.h"
#include "core/format/CptraceWriter.h"
#include "tests/core/format/ModelCompare.h"

namespace chokepoint::formattest {
namespace {

std::string tempPath(const std::string& name) {
    return (std::filesystem::temp_directory_path() /
            ("cptrace-test-" + std::to_string(::getpid()) + "-" + name))
        .string();
}

TEST(CptraceRoundTrip, EveryFieldSurvivesAFileRoundTrip) {
    TraceModel original = fullModel();
    const std::string path = tempPath("full.cptrace");
    ASSERT_TRUE(writeCptrace(original, path).ok());
    Result<TraceModel> read = readCptrace(path);
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_TRUE(read->finalized());
    expectModelsEqual(original, read.value());
    // No temporary file left behind.
    int entries = 0;
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) {
        entries += e.path().string().rfind(path + ".tmp", 0) == 0 ? 1 : 0;
    }
    EXPECT_EQ(entries, 0);
    std::filesystem::remove(path);
}

TEST(CptraceRoundTrip, ManySmallChunksWithStringAndThreadDeltas) {
    TraceModel original = fullModel(40);
    for (bool compress : {true, false}) {
        CptraceWriteOptions options;
        options.rowsPerChunk = 37;
        options.compress = compress;
        std::string bytes = encodeCptrace(original, options);
        Result<TraceModel> read = readCptraceFromMemory(bytes, "mem.cptrace");
        ASSERT_TRUE(read.ok()) << read.error().message;
        expectModelsEqual(original, read.value());
        EXPECT_EQ(read->stats.count("format.truncated_tail"), 0);
    }
}

TEST(CptraceRoundTrip, LargeChunksAreStoredRawSmallOnesCompressed) {
    TraceModel original = fullModel(60);
    CptraceWriteOptions mixed;
    mixed.rowsPerChunk = 200;
    mixed.compressMaxRawBytes = 10000;  // the first chunk (with the counters) is above, the rest below
    std::string bytes = encodeCptrace(original, mixed);
    CptraceWriteOptions all;
    all.rowsPerChunk = 200;
    all.compressMaxRawBytes = static_cast<std::size_t>(-1);
    CptraceWriteOptions none = all;
    none.compress = false;
    const std::size_t allSize = encodeCptrace(original, all).size();
    const std::size_t noneSize = encodeCptrace(original, none).size();
    EXPECT_GT(bytes.size(), allSize);
    EXPECT_LT(bytes.size(), noneSize);
    Result<TraceModel> read = readCptraceFromMemory(bytes, "mixed.cptrace");
    ASSERT_TRUE(read.ok()) << read.error().message;
    expectModelsEqual(original, read.value());
}

TEST(CptraceRoundTrip, CompressionMakesTheFileSmaller) {
    TraceModel original = fullModel(200);
    CptraceWriteOptions raw;
    raw.compress = false;
    CptraceWriteOptions compressed;
    compressed.compressMaxRawBytes = static_cast<std::size_t>(-1);
    std::string plain = encodeCptrace(original, raw);
    std::string packed = encodeCptrace(original, compressed);
    EXPECT_LT(packed.size(), plain.size());
}

TEST(CptraceRoundTrip, EmptyModelRoundTrips) {
    TraceModel empty;
    empty.finalize();
    std::string bytes = encodeCptrace(empty);
    ASSERT_TRUE(hasCptraceMagic(bytes));
    Result<TraceModel> read = readCptraceFromMemory(bytes, "empty.cptrace");
    ASSERT_TRUE(read.ok()) << read.error().message;
    EXPECT_EQ(read->gpuEventCount(), 0u);
    EXPECT_TRUE(read->stats.empty());
}

TEST(CptraceRoundTrip, StatsAreNotCountedTwiceByFinalize) {
    // Overlapping, badly nested ranges make finalize() add a nesting stat; reading the file back
    // (which finalizes again) must keep the stored count, not double it.
    testutils::TraceBuilder b;
    b.range("a", 0, 100);
    b.range("b", 50, 150);
    TraceModel original = b.build();
    ASSERT_EQ(original.stats.count("nesting.range_partial_overlap"), 1);
    Result<TraceModel> read = readCptraceFromMemory(encodeCptrace(original), "nest.cptrace");
    ASSERT_TRUE(read.ok());
    EXPECT_EQ(read->stats.count("nesting.range_partial_overlap"), 1);
}

TEST(CptraceRoundTrip, WriteToMissingFolderFailsNamingTheFile) {
    TraceModel m = fullModel();
    Status s = writeCptrace(m, "/nonexistent-folder-xyz/out.cptrace");
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("/nonexistent-folder-xyz/out.cptrace"), std::string::npos);
}

TEST(CptraceRoundTrip, StackFramesAndStacksKeepTheirIdsInAWholeModelFile) {
    TraceModel original = fullModel(3);
    ASSERT_GT(original.stackSamples.size(), 0u);
    std::string bytes = encodeCptrace(original);
    Result<TraceModel> read = readCptraceFromMemory(bytes, "stacks.cptrace");
    ASSERT_TRUE(read.ok()) << read.error().message;
    const TraceModel& m = read.value();
    EXPECT_EQ(m.stackOffsets, original.stackOffsets);
    EXPECT_EQ(m.stackFrameIds, original.stackFrameIds);
    ASSERT_EQ(m.stackFrames.size(), original.stackFrames.size());
    for (std::size_t i = 0; i < m.stackFrames.size(); ++i) {
        EXPECT_EQ(m.text(m.stackFrames[i].file), original.text(original.stackFrames[i].file));
        EXPECT_EQ(m.text(m.stackFrames[i].function), original.text(original.stackFrames[i].function));
        EXPECT_EQ(m.stackFrames[i].line, original.stackFrames[i].line);
    }
    EXPECT_EQ(m.stackSamples.stack, original.stackSamples.stack);
    // Interning still works on the model read back.
    TraceModel& mutableModel = read.value();
    EXPECT_EQ(mutableModel.internFrame("train.py", "main", 88),
              original.stack(original.stackSamples.stack[0]).back());
}

}  // namespace
}  // namespace chokepoint::formattest
