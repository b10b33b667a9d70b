// Hostile and damaged .cptrace input: every case opens (up to the last whole chunk) or fails with
// an error naming the file and the byte offset; none crashes, hangs or allocates what a length
// prefix claims.

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "core/format/CptraceFormat.h"
#include "core/format/CptraceReader.h"
#include "core/format/CptraceWire.h"
#include "core/format/CptraceWriter.h"
#include "tests/core/format/ModelCompare.h"

namespace chokepoint::formattest {
namespace {

using namespace core::cptrace_wire;

std::string multiChunkFile(const TraceModel& m) {
    CptraceWriteOptions options;
    options.rowsPerChunk = 40;
    return encodeCptrace(m, options);
}

std::string headerBytes(std::uint32_t major = kCptraceVersionMajor) {
    std::string h(kCptraceMagic, kCptraceMagicSize);
    appendU32Le(h, major);
    appendU32Le(h, 0);
    return h;
}

// Rows of every table in `part` are the first rows of `whole`.
void expectPrefix(const TraceModel& whole, const TraceModel& part, std::size_t cut) {
    auto prefix = [&](const char* table, std::size_t n, std::size_t m, auto same) {
        ASSERT_LE(m, n) << table << " at cut " << cut;
        for (std::size_t i = 0; i < m; ++i) {
            ASSERT_TRUE(same(i)) << table << " row " << i << " differs at cut " << cut;
        }
    };
    prefix("kernels", whole.kernels.size(), part.kernels.size(), [&](std::size_t i) {
        return whole.kernels.startNs[i] == part.kernels.startNs[i] &&
               whole.kernels.endNs[i] == part.kernels.endNs[i] &&
               whole.text(whole.kernels.name[i]) == part.text(part.kernels.name[i]) &&
               whole.kernels.correlationId[i] == part.kernels.correlationId[i];
    });
    prefix("memcpys", whole.memcpys.size(), part.memcpys.size(), [&](std::size_t i) {
        return whole.memcpys.startNs[i] == part.memcpys.startNs[i] &&
               whole.memcpys.sizeBytes[i] == part.memcpys.sizeBytes[i];
    });
    prefix("memsets", whole.memsets.size(), part.memsets.size(),
           [&](std::size_t i) { return whole.memsets.startNs[i] == part.memsets.startNs[i]; });
    prefix("apiCalls", whole.apiCalls.size(), part.apiCalls.size(), [&](std::size_t i) {
        return whole.apiCalls.startNs[i] == part.apiCalls.startNs[i] &&
               whole.text(whole.apiCalls.name[i]) == part.text(part.apiCalls.name[i]);
    });
    prefix("syncs", whole.syncs.size(), part.syncs.size(),
           [&](std::size_t i) { return whole.syncs.startNs[i] == part.syncs.startNs[i]; });
    prefix("ranges", whole.ranges.size(), part.ranges.size(), [&](std::size_t i) {
        return whole.ranges.startNs[i] == part.ranges.startNs[i] &&
               whole.text(whole.ranges.name[i]) == part.text(part.ranges.name[i]);
    });
    prefix("cpuOps", whole.cpuOps.size(), part.cpuOps.size(), [&](std::size_t i) {
        return whole.cpuOps.startNs[i] == part.cpuOps.startNs[i] &&
               whole.text(whole.cpuOps.inputShapes[i]) == part.text(part.cpuOps.inputShapes[i]);
    });
    // Samples only refer to stacks of their own or earlier chunks, so a cut never leaves one dangling.
    prefix("stackSamples", whole.stackSamples.size(), part.stackSamples.size(), [&](std::size_t i) {
        const std::span<const FrameIndex> a = whole.stack(whole.stackSamples.stack[i]);
        const std::span<const FrameIndex> b = part.stack(part.stackSamples.stack[i]);
        return whole.stackSamples.timeNs[i] == part.stackSamples.timeNs[i] &&
               part.stackSamples.stack[i] < part.stackCount() &&
               std::equal(a.begin(), a.end(), b.begin(), b.end());
    });
}

TEST(CptraceCorruption, FileCutAtRandomOffsetsOpensUpToItsLastWholeChunk) {
    TraceModel original = fullModel(30);
    const std::string bytes = multiChunkFile(original);
    std::mt19937 rng(12345);
    std::uniform_int_distribution<std::size_t> pick(0, bytes.size());
    std::vector<std::size_t> cuts;
    for (std::size_t i = 0; i <= 40; ++i) {
        cuts.push_back(i);  // inside and right after the header
    }
    for (int i = 0; i < 200; ++i) {
        cuts.push_back(pick(rng));
    }
    cuts.push_back(bytes.size() - 1);
    int opened = 0, failed = 0;
    std::size_t lastRows = 0;
    for (std::size_t cut : cuts) {
        Result<TraceModel> read =
            readCptraceFromMemory(std::string_view(bytes).substr(0, cut), "cut.cptrace");
        if (cut < kCptraceHeaderSize) {
            ASSERT_FALSE(read.ok()) << "cut " << cut;
            EXPECT_NE(read.error().message.find("cut.cptrace"), std::string::npos);
            ++failed;
            continue;
        }
        // Cutting a valid file only loses its tail: it always opens.
        ASSERT_TRUE(read.ok()) << "cut " << cut << ": " << read.error().message;
        ++opened;
        EXPECT_EQ(read->stats.count("format.truncated_tail"), 1) << "cut " << cut;
        EXPECT_EQ(read->stats.find("format.truncated_tail")->severity, Severity::DataLoss);
        expectPrefix(original, read.value(), cut);
        lastRows = std::max(lastRows, read->kernels.size());
    }
    EXPECT_GT(opened, 200);
    EXPECT_EQ(failed, 16);
    EXPECT_GT(lastRows, 0u);  // some cuts kept real data
    Result<TraceModel> whole = readCptraceFromMemory(bytes, "cut.cptrace");
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ(whole->stats.count("format.truncated_tail"), 0);
}

TEST(CptraceCorruption, TruncationMessageSaysHowManyChunksWereRead) {
    TraceModel original = fullModel(30);
    const std::string bytes = multiChunkFile(original);
    Result<TraceModel> read =
        readCptraceFromMemory(std::string_view(bytes).substr(0, bytes.size() / 2), "half.cptrace");
    ASSERT_TRUE(read.ok());
    const TraceStat* stat = read->stats.find("format.truncated_tail");
    ASSERT_NE(stat, nullptr);
    EXPECT_NE(stat->detail.find("the file ends early"), std::string::npos) << stat->detail;
    EXPECT_NE(stat->detail.find(" of "), std::string::npos) << stat->detail;
    EXPECT_EQ(stat->detail.find(" of ?"), std::string::npos)
        << stat->detail;  // the writer announced the total
}

TEST(CptraceCorruption, BitFlipsNeverCrash) {
    TraceModel original = fullModel(10);
    const std::string bytes = multiChunkFile(original);
    std::mt19937 rng(777);
    std::uniform_int_distribution<std::size_t> pick(0, bytes.size() - 1);
    int errors = 0;
    for (int i = 0; i < 300; ++i) {
        std::string damaged = bytes;
        std::size_t at = pick(rng);
        damaged[at] = static_cast<char>(damaged[at] ^ (1 << (i % 8)));
        Result<TraceModel> read = readCptraceFromMemory(damaged, "flip.cptrace");
        if (!read.ok()) {
            ++errors;
            EXPECT_NE(read.error().message.find("flip.cptrace: byte "), std::string::npos)
                << read.error().message;
        } else {
            // A flip that still parses can only have shortened the file (a length prefix grew).
            EXPECT_EQ(read->stats.count("format.truncated_tail"), 1) << "flip at " << at;
        }
    }
    EXPECT_GT(errors, 250);  // the CRC catches nearly every flip
}

TEST(CptraceCorruption, WrongMagicNamesFileAndOffset) {
    std::string bytes = encodeCptrace(fullModel());
    bytes[0] = '{';
    Result<TraceModel> read = readCptraceFromMemory(bytes, "x.cptrace");
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error().message, "x.cptrace: byte 0: not a .cptrace file (wrong magic bytes)");
}

TEST(CptraceCorruption, NewerMajorVersionIsRefused) {
    std::string bytes = headerBytes(kCptraceVersionMajor + 1);
    Result<TraceModel> read = readCptraceFromMemory(bytes, "new.cptrace");
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.error().message.find("new.cptrace: byte 8"), std::string::npos);
    EXPECT_NE(read.error().message.find("newer"), std::string::npos) << read.error().message;
}

TEST(CptraceCorruption, NewerMinorVersionIsRead) {
    std::string bytes = encodeCptrace(fullModel());
    bytes[12] = 7;
    Result<TraceModel> read = readCptraceFromMemory(bytes, "minor.cptrace");
    ASSERT_TRUE(read.ok()) << read.error().message;
}

TEST(CptraceCorruption, ZeroByteFileAndDirectoryFailCleanly) {
    const std::string dir =
        std::filesystem::temp_directory_path() / ("cptrace-dir-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    Result<TraceModel> asDir = readCptrace(dir);
    ASSERT_FALSE(asDir.ok());
    EXPECT_NE(asDir.error().message.find(dir), std::string::npos);
    EXPECT_NE(asDir.error().message.find("directory"), std::string::npos);

    const std::string empty = dir + "/empty.cptrace";
    { std::ofstream(empty, std::ios::binary); }
    Result<TraceModel> asEmpty = readCptrace(empty);
    ASSERT_FALSE(asEmpty.ok());
    EXPECT_NE(asEmpty.error().message.find(empty), std::string::npos);
    EXPECT_NE(asEmpty.error().message.find("empty"), std::string::npos);

    Result<TraceModel> missing = readCptrace(dir + "/missing.cptrace");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("missing.cptrace"), std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST(CptraceCorruption, HostileLengthPrefixesDoNotAllocate) {
    // 2^60 bytes claimed: refused outright.
    std::string huge = headerBytes();
    appendVarint(huge, std::uint64_t{1} << 60);
    huge += "abc";
    Result<TraceModel> a = readCptraceFromMemory(huge, "huge.cptrace");
    ASSERT_FALSE(a.ok());
    EXPECT_NE(a.error().message.find("huge.cptrace: byte 16: chunk 0: length"), std::string::npos)
        << a.error().message;

    // An over-long varint.
    std::string malformed = headerBytes() + std::string(11, '\xff');
    Result<TraceModel> b = readCptraceFromMemory(malformed, "varint.cptrace");
    ASSERT_FALSE(b.ok());
    EXPECT_NE(b.error().message.find("malformed length"), std::string::npos);

    // A plausible length with too few bytes behind it: a torn tail, nothing allocated for it.
    std::string torn = headerBytes();
    appendVarint(torn, 100u << 20);
    torn += "only a few bytes";
    Result<TraceModel> c = readCptraceFromMemory(torn, "torn.cptrace");
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->stats.count("format.truncated_tail"), 1);

    // A zlib chunk claiming a decompressed size far beyond what its bytes could hold.
    std::string body;
    body.push_back(static_cast<char>(CptraceChunkEncoding::ZlibProtobuf));
    appendVarint(body, std::uint64_t{1} << 40);
    body += "xxxxxxxx";
    std::string withCrc;
    appendU32Le(withCrc, static_cast<std::uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(body.data()),
                                                          static_cast<uInt>(body.size()))));
    withCrc += body;
    std::string bomb = headerBytes();
    appendVarint(bomb, withCrc.size());
    bomb += withCrc;
    Result<TraceModel> d = readCptraceFromMemory(bomb, "bomb.cptrace");
    ASSERT_FALSE(d.ok());
    EXPECT_NE(d.error().message.find("implausible"), std::string::npos) << d.error().message;
}

std::string frameOf(std::string_view payload) {
    std::string body;
    body.push_back(static_cast<char>(CptraceChunkEncoding::Protobuf));
    body.append(payload);
    std::string out;
    std::string crcAndBody;
    appendU32Le(crcAndBody, static_cast<std::uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(body.data()),
                                                             static_cast<uInt>(body.size()))));
    crcAndBody += body;
    appendVarint(out, crcAndBody.size());
    return out + crcAndBody;
}

TEST(CptraceCorruption, ValidFrameWithGarbagePayloadIsAnError) {
    std::string bytes = headerBytes() + frameOf("\xff\xff\xff\xff garbage");
    Result<TraceModel> read = readCptraceFromMemory(bytes, "garbage.cptrace");
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.error().message.find("garbage.cptrace: byte 16: chunk 0"), std::string::npos)
        << read.error().message;
}

TEST(CptraceCorruption, DataAfterTheFooterIsAnError) {
    std::string bytes = encodeCptrace(fullModel());
    std::string doubled = bytes + bytes.substr(kCptraceHeaderSize);
    Result<TraceModel> read = readCptraceFromMemory(doubled, "twice.cptrace");
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.error().message.find("after the footer"), std::string::npos) << read.error().message;
}

}  // namespace
}  // namespace chokepoint::formattest
