// ChunkSpill: chunks come back in the order they went in, a poll takes about the bytes asked for,
// the cap and an unwritable directory are refused with the reason, and nothing is left on disk.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "collectors/control/ChunkSpill.h"

namespace chokepoint::collectors {
namespace {

wire::Chunk makeChunk(std::uint64_t seq, std::size_t sizeBytes) {
    wire::Chunk chunk;
    chunk.captureId = 7;
    chunk.seq = seq;
    chunk.records = static_cast<std::int64_t>(seq * 10);
    chunk.data = std::string(sizeBytes, static_cast<char>('a' + seq % 26));
    return chunk;
}

struct TempDir {
    std::filesystem::path path;
    TempDir() {
        std::string pattern = (std::filesystem::temp_directory_path() / "cp-spill-XXXXXX").string();
        path = ::mkdtemp(pattern.data());
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::size_t entries() const {
        return static_cast<std::size_t>(
            std::distance(std::filesystem::directory_iterator(path), std::filesystem::directory_iterator()));
    }
};

TEST(ChunkSpillTest, ChunksComeBackInOrderAndTheFileLeavesNoTrace) {
    TempDir dir;
    ChunkSpill spill(dir.path.string(), 64 << 20);
    EXPECT_TRUE(spill.empty());
    for (std::uint64_t seq = 0; seq < 50; ++seq) {
        ASSERT_TRUE(spill.push(makeChunk(seq, 10'000 + seq))) << spill.error();
    }
    EXPECT_EQ(dir.entries(), 0u) << "the file is unlinked as soon as it is created";
    EXPECT_EQ(spill.chunksSpilled(), 50u);
    EXPECT_GT(spill.bytesHeld(), 50u * 10'000);
    EXPECT_EQ(spill.peakBytes(), spill.bytesHeld());

    std::vector<wire::Chunk> out;
    ASSERT_TRUE(spill.pop(out, 35'000));  // about three chunks' worth
    EXPECT_EQ(out.size(), 3u);
    ASSERT_TRUE(spill.pop(out, 0));  // at least one, even when asked for nothing
    EXPECT_EQ(out.size(), 4u);
    // More arrive while the client reads: they queue behind the rest.
    ASSERT_TRUE(spill.push(makeChunk(50, 100)));
    ASSERT_TRUE(spill.pop(out, std::size_t(1) << 30));
    ASSERT_EQ(out.size(), 51u);
    for (std::uint64_t seq = 0; seq < out.size(); ++seq) {
        EXPECT_EQ(out[seq].seq, seq);
        EXPECT_EQ(out[seq].records, static_cast<std::int64_t>(seq * 10));
        EXPECT_EQ(out[seq].data, makeChunk(seq, seq == 50 ? 100 : 10'000 + seq).data);
    }
    EXPECT_TRUE(spill.empty());
    EXPECT_EQ(spill.bytesHeld(), 0u);
    // Emptied, it starts over and keeps working.
    ASSERT_TRUE(spill.push(makeChunk(51, 10)));
    out.clear();
    ASSERT_TRUE(spill.pop(out, 1));
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].seq, 51u);
}

TEST(ChunkSpillTest, TheCapAndAnUnwritableDirectoryAreRefusedWithTheReason) {
    TempDir dir;
    ChunkSpill capped(dir.path.string(), 25'000);
    ASSERT_TRUE(capped.push(makeChunk(0, 10'000)));
    ASSERT_TRUE(capped.push(makeChunk(1, 10'000)));
    EXPECT_FALSE(capped.push(makeChunk(2, 10'000)));
    EXPECT_NE(capped.error().find("cap"), std::string::npos) << capped.error();
    EXPECT_EQ(capped.chunksSpilled(), 2u);  // the refused one is not held

    ChunkSpill nowhere("/nonexistent/chokepoint-spill-dir", 1 << 20);
    EXPECT_FALSE(nowhere.push(makeChunk(0, 10)));
    EXPECT_NE(nowhere.error().find("/nonexistent/chokepoint-spill-dir"), std::string::npos)
        << nowhere.error();
    EXPECT_TRUE(nowhere.empty());
}

TEST(ChunkSpillTest, AbandonDropsWhatIsHeldAndCountsAfresh) {
    TempDir dir;
    ChunkSpill spill(dir.path.string(), 1 << 20);
    ASSERT_TRUE(spill.push(makeChunk(0, 100)));
    spill.abandon();
    EXPECT_TRUE(spill.empty());
    EXPECT_EQ(spill.bytesHeld(), 0u);
    EXPECT_EQ(spill.chunksSpilled(), 0u);
    ASSERT_TRUE(spill.push(makeChunk(1, 100)));
    std::vector<wire::Chunk> out;
    ASSERT_TRUE(spill.pop(out, 1 << 20));
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].seq, 1u);
}

}  // namespace
}  // namespace chokepoint::collectors
