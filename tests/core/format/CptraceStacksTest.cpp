// Stack frames, stacks and samples in .cptrace: hand-built chunks (through the generated protobuf
// classes) that define them across chunks, and hostile ones that must fail with an error naming the
// file, the byte offset and the chunk, never crash or allocate what a count claims.

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>
#include <vector>

#include "core/format/CptraceFormat.h"
#include "core/format/CptraceReader.h"
#include "core/format/CptraceWire.h"
#include "proto/cptrace.pb.h"
#include "tests/core/format/ModelCompare.h"

namespace chokepoint::formattest {
namespace {

namespace pb = chokepoint::cptrace;
using namespace core::cptrace_wire;

std::string frameOf(const pb::Chunk& chunk) {
    std::string body;
    body.push_back(static_cast<char>(CptraceChunkEncoding::Protobuf));
    body += chunk.SerializeAsString();
    std::string crcAndBody;
    appendU32Le(crcAndBody, static_cast<std::uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(body.data()),
                                                             static_cast<uInt>(body.size()))));
    crcAndBody += body;
    std::string out;
    appendVarint(out, crcAndBody.size());
    return out + crcAndBody;
}

std::string fileOf(std::vector<pb::Chunk> chunks, bool footer = true) {
    std::string out(kCptraceMagic, kCptraceMagicSize);
    appendU32Le(out, kCptraceVersionMajor);
    appendU32Le(out, kCptraceVersionMinor);
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        chunks[i].set_seq(i);
        out += frameOf(chunks[i]);
    }
    if (footer) {
        // Totals as the two chunks below define them.
        pb::Chunk last;
        last.set_seq(chunks.size());
        pb::Footer* f = last.mutable_footer();
        f->set_chunk_count(chunks.size());
        f->set_strings(6);  // the empty string and five more
        f->set_threads(1);
        f->set_stack_frames(3);
        f->set_stacks(3);
        f->set_stack_samples(4);
        out += frameOf(last);
    }
    return out;
}

// Chunk 0: strings, a thread, two frames, two stacks and two samples. Chunk 1: a third frame, a
// stack that reuses frame 0 of chunk 0, and samples on stacks of both chunks.
std::vector<pb::Chunk> validChunks() {
    pb::Chunk a;
    a.mutable_strings()->set_first_id(1);
    for (const char* text : {"train.py", "main", "dataloader.py", "__next__"}) {
        a.mutable_strings()->add_values(text);
    }
    pb::Thread* t = a.add_threads();
    t->set_index(0);
    t->set_pid(10);
    t->set_tid(10);
    t->set_name("python");
    pb::FrameDelta* frames = a.mutable_frames();
    frames->set_first_id(0);
    for (std::uint32_t function : {2u, 4u}) {
        frames->add_function(function);
    }
    for (std::uint32_t file : {1u, 3u}) {
        frames->add_file(file);
    }
    for (std::int32_t line : {12, 630}) {
        frames->add_line(line);
    }
    pb::StackDelta* stacks = a.mutable_stacks();
    stacks->set_first_id(0);
    stacks->add_depth(1);  // stack 0: main
    stacks->add_frames(0);
    stacks->add_depth(2);  // stack 1: __next__ <- main
    stacks->add_frames(1);
    stacks->add_frames(0);
    pb::StackSampleColumns* samples = a.mutable_stack_samples();
    for (std::int64_t delta : {1000, 500}) {
        samples->add_time_delta(delta);
    }
    for (std::uint32_t thread : {1u, 1u}) {
        samples->add_thread(thread);
    }
    for (std::uint32_t stack : {0u, 1u}) {
        samples->add_stack(stack);
    }

    pb::Chunk b;
    b.mutable_strings()->set_first_id(5);
    b.mutable_strings()->add_values("step");
    b.mutable_frames()->set_first_id(2);
    b.mutable_frames()->add_function(5);  // no file, no line column: all 0
    b.mutable_stacks()->set_first_id(2);
    b.mutable_stacks()->add_depth(2);  // stack 2: step <- main
    b.mutable_stacks()->add_frames(2);
    b.mutable_stacks()->add_frames(0);
    pb::StackSampleColumns* more = b.mutable_stack_samples();
    more->add_time_delta(2000);
    more->add_time_delta(100);
    more->add_thread(1);
    more->add_thread(1);
    more->add_stack(2);
    more->add_stack(1);  // a stack of the previous chunk
    return {a, b};
}

TEST(CptraceStacks, FramesAndStacksAreInternedAcrossChunks) {
    Result<TraceModel> read = readCptraceFromMemory(fileOf(validChunks()), "stacks.cptrace");
    ASSERT_TRUE(read.ok()) << read.error().message;
    const TraceModel& m = read.value();
    ASSERT_EQ(m.stackFrames.size(), 3u);
    EXPECT_EQ(m.text(m.stackFrames[1].function), "__next__");
    EXPECT_EQ(m.stackFrames[1].line, 630);
    EXPECT_EQ(m.text(m.stackFrames[2].file), "");
    ASSERT_EQ(m.stackCount(), 3u);
    ASSERT_EQ(m.stack(2).size(), 2u);
    EXPECT_EQ(m.stack(2)[0], 2u);
    EXPECT_EQ(m.stack(2)[1], 0u);
    ASSERT_EQ(m.stackSamples.size(), 4u);
    EXPECT_EQ(m.stackSamples.timeNs, (std::vector<TimestampNs>{1000, 1500, 2000, 2100}));
    EXPECT_EQ(m.stackSamples.stack, (std::vector<StackIndex>{0, 1, 2, 1}));
    EXPECT_EQ(m.stackSamples.thread[3], 0u);
}

// Each case damages one field of the valid chunks and names what the error must say.
struct Damage {
    const char* name;
    int chunk;
    void (*apply)(pb::Chunk&);
    const char* expected;
};

TEST(CptraceStacks, HostileStackChunksFailNamingFileOffsetAndChunk) {
    const Damage cases[] = {
        {"frame skips ahead", 1, [](pb::Chunk& c) { c.mutable_frames()->set_first_id(7); },
         "chunk 1: stack frames: ids start at 7, expected 2"},
        {"undefined function string", 0, [](pb::Chunk& c) { c.mutable_frames()->set_function(0, 99); },
         "chunk 0: stack frames: string id 99 was never defined"},
        {"file column too short", 0, [](pb::Chunk& c) { c.mutable_frames()->mutable_file()->RemoveLast(); },
         "chunk 0: stack frames column file has 1 values for 2 rows"},
        {"stack skips ahead", 0, [](pb::Chunk& c) { c.mutable_stacks()->set_first_id(1); },
         "chunk 0: stacks: ids start at 1, expected 0"},
        {"undefined frame", 1, [](pb::Chunk& c) { c.mutable_stacks()->set_frames(0, 3); },
         "chunk 1: stacks: frame 3 was never defined"},
        {"frame of a later chunk", 0, [](pb::Chunk& c) { c.mutable_stacks()->set_frames(0, 2); },
         "chunk 0: stacks: frame 2 was never defined"},
        {"depths claim more frames", 0, [](pb::Chunk& c) { c.mutable_stacks()->set_depth(1, 0xFFFFFFFFu); },
         "chunk 0: stacks: depths add up to 4294967296 frames, the chunk holds 3"},
        {"undefined stack", 1, [](pb::Chunk& c) { c.mutable_stack_samples()->set_stack(0, 3); },
         "chunk 1: stack samples: stack 3 was never defined"},
        {"undefined thread", 0, [](pb::Chunk& c) { c.mutable_stack_samples()->set_thread(1, 5); },
         "chunk 0: stack samples: thread 4 was never defined"},
        {"stack column too long", 1, [](pb::Chunk& c) { c.mutable_stack_samples()->add_stack(0); },
         "chunk 1: stack samples column stack has 3 values for 2 rows"},
    };
    for (const Damage& d : cases) {
        std::vector<pb::Chunk> chunks = validChunks();
        d.apply(chunks[static_cast<std::size_t>(d.chunk)]);
        Result<TraceModel> read = readCptraceFromMemory(fileOf(chunks), "bad.cptrace");
        ASSERT_FALSE(read.ok()) << d.name;
        EXPECT_NE(read.error().message.find("bad.cptrace: byte "), std::string::npos) << read.error().message;
        EXPECT_NE(read.error().message.find(d.expected), std::string::npos)
            << d.name << ": " << read.error().message;
    }
}

TEST(CptraceStacks, FooterCountsStackTables) {
    std::vector<pb::Chunk> chunks = validChunks();
    chunks[1].mutable_stack_samples()->Clear();
    Result<TraceModel> read = readCptraceFromMemory(fileOf(chunks), "short.cptrace");
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.error().message.find("footer says 4 stack samples, the file holds 2"), std::string::npos)
        << read.error().message;
}

TEST(CptraceStacks, RandomValuesInStackFieldsNeverCrash) {
    std::mt19937 rng(2024);
    std::uniform_int_distribution<std::uint32_t> small(0, 6);
    std::uniform_int_distribution<std::uint32_t> any;
    auto value = [&] { return rng() % 4 == 0 ? any(rng) : small(rng); };
    int opened = 0, failed = 0;
    for (int round = 0; round < 400; ++round) {
        std::vector<pb::Chunk> chunks = validChunks();
        pb::Chunk& c = chunks[rng() % 2];
        switch (rng() % 7) {
            case 0:
                c.mutable_frames()->set_first_id(value());
                break;
            case 1:
                c.mutable_frames()->set_function(0, value());
                break;
            case 2:
                c.mutable_stacks()->set_depth(0, value());
                break;
            case 3:
                c.mutable_stacks()->set_frames(0, value());
                break;
            case 4:
                c.mutable_stacks()->add_depth(value());
                break;
            case 5:
                c.mutable_stack_samples()->set_stack(0, value());
                break;
            default:
                c.mutable_stack_samples()->set_time_delta(1, static_cast<std::int64_t>(any(rng)) << 31);
                break;
        }
        Result<TraceModel> read = readCptraceFromMemory(fileOf(chunks), "fuzz.cptrace");
        if (read.ok()) {
            ++opened;
            const TraceModel& m = read.value();
            for (StackIndex s : m.stackSamples.stack) {
                ASSERT_LT(s, m.stackCount());
            }
            for (FrameIndex f : m.stackFrameIds) {
                ASSERT_LT(f, m.stackFrames.size());
            }
            ASSERT_EQ(m.stackOffsets.back(), m.stackFrameIds.size());
        } else {
            ++failed;
            EXPECT_NE(read.error().message.find("fuzz.cptrace: byte "), std::string::npos)
                << read.error().message;
        }
    }
    EXPECT_GT(opened, 0);  // e.g. an unchanged value or a new time
    EXPECT_GT(failed, 100);
}

TEST(CptraceStacks, ChunkAfterTheFooterIsStillAnError) {
    // Samples recorded beside a capture are merged into the model and the file is written again
    // (FORMAT.md); a chunk appended after the footer is refused like any other.
    std::vector<pb::Chunk> chunks = validChunks();
    std::string bytes = fileOf(chunks);
    pb::Chunk extra;
    extra.set_seq(3);
    extra.mutable_stack_samples()->add_time_delta(5);
    bytes += frameOf(extra);
    Result<TraceModel> read = readCptraceFromMemory(bytes, "appended.cptrace");
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.error().message.find("after the footer"), std::string::npos) << read.error().message;
}

}  // namespace
}  // namespace chokepoint::formattest
