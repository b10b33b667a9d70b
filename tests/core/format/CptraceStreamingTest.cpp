// The streaming API: a collector encodes small batches (each its own TraceModel with its own string
// pool and thread list); a client decodes the bytes in pieces of any size.

#include <gtest/gtest.h>

#include <set>

#include "core/format/CptraceChunkDecoder.h"
#include "core/format/CptraceChunkEncoder.h"
#include "core/format/CptraceReader.h"
#include "tests/core/format/ModelCompare.h"

namespace chokepoint::formattest {
namespace {

struct Window {
    std::size_t begin, end;
    bool contains(std::uint32_t i) const { return i >= begin && i < end; }
};

Window part(std::size_t n, int p, int parts) {
    return {n * static_cast<std::size_t>(p) / static_cast<std::size_t>(parts),
            n * static_cast<std::size_t>(p + 1) / static_cast<std::size_t>(parts)};
}

// Cuts `m` into `parts` batches the way a collector would produce them: fresh string pools, only the
// threads each batch uses, links only within the batch (others left for finalize() to re-derive).
std::vector<TraceModel> splitIntoBatches(const TraceModel& m, int parts) {
    std::vector<TraceModel> batches;
    for (int p = 0; p < parts; ++p) {
        TraceModel b;
        Window k = part(m.kernels.size(), p, parts), c = part(m.memcpys.size(), p, parts),
               s = part(m.memsets.size(), p, parts), a = part(m.apiCalls.size(), p, parts),
               y = part(m.syncs.size(), p, parts), r = part(m.ranges.size(), p, parts),
               o = part(m.cpuOps.size(), p, parts), q = part(m.stackSamples.size(), p, parts);
        std::set<ThreadIndex> used;
        for (std::size_t i = a.begin; i < a.end; ++i)
            used.insert(m.apiCalls.thread[i]);
        for (std::size_t i = y.begin; i < y.end; ++i)
            used.insert(m.syncs.thread[i]);
        for (std::size_t i = r.begin; i < r.end; ++i)
            used.insert(m.ranges.thread[i]);
        for (std::size_t i = o.begin; i < o.end; ++i)
            used.insert(m.cpuOps.thread[i]);
        for (std::size_t i = q.begin; i < q.end; ++i)
            used.insert(m.stackSamples.thread[i]);
        std::vector<ThreadIndex> threadMap(m.threads.size(), kNoThread);
        for (ThreadIndex t : used) {
            if (t != kNoThread) {
                threadMap[t] = b.threadIndex(m.threads[t].pid, m.threads[t].tid, m.threads[t].name);
            }
        }
        auto th = [&](ThreadIndex t) { return t == kNoThread ? kNoThread : threadMap[t]; };
        auto str = [&](StringId id) { return b.intern(m.text(id)); };
        auto local = [](auto id, Window w) {
            using Id = decltype(id);
            return id.valid() && w.contains(id.index) ? Id{static_cast<std::uint32_t>(id.index - w.begin)}
                                                      : Id{};
        };
        for (std::size_t i = k.begin; i < k.end; ++i) {
            KernelRow row = m.kernels.row(KernelId{static_cast<std::uint32_t>(i)});
            row.name = str(row.name);
            row.launchCall = local(row.launchCall, a);
            b.kernels.add(row);
        }
        for (std::size_t i = c.begin; i < c.end; ++i) {
            MemcpyRow row = m.memcpys.row(MemcpyId{static_cast<std::uint32_t>(i)});
            row.launchCall = local(row.launchCall, a);
            b.memcpys.add(row);
        }
        for (std::size_t i = s.begin; i < s.end; ++i) {
            MemsetRow row = m.memsets.row(MemsetId{static_cast<std::uint32_t>(i)});
            row.launchCall = local(row.launchCall, a);
            b.memsets.add(row);
        }
        for (std::size_t i = a.begin; i < a.end; ++i) {
            ApiCallRow row = m.apiCalls.row(ApiCallId{static_cast<std::uint32_t>(i)});
            row.name = str(row.name);
            row.thread = th(row.thread);
            row.cpuOp = local(row.cpuOp, o);
            b.apiCalls.add(row);
        }
        for (std::size_t i = y.begin; i < y.end; ++i) {
            SyncRow row = m.syncs.row(SyncId{static_cast<std::uint32_t>(i)});
            row.thread = th(row.thread);
            row.apiCall = local(row.apiCall, a);
            b.syncs.add(row);
        }
        for (std::size_t i = r.begin; i < r.end; ++i) {
            RangeRow row = m.ranges.row(RangeId{static_cast<std::uint32_t>(i)});
            row.name = str(row.name);
            row.domain = str(row.domain);
            row.thread = th(row.thread);
            row.parent = local(row.parent, r);
            b.ranges.add(row);
        }
        for (std::size_t i = o.begin; i < o.end; ++i) {
            CpuOpRow row = m.cpuOps.row(CpuOpId{static_cast<std::uint32_t>(i)});
            row.name = str(row.name);
            row.inputShapes = str(row.inputShapes);
            row.inputTypes = str(row.inputTypes);
            row.concreteInputs = str(row.concreteInputs);
            row.thread = th(row.thread);
            row.parent = local(row.parent, o);
            b.cpuOps.add(row);
        }
        // Each batch interns the frames and stacks its samples use, as a sampler would.
        for (std::size_t i = q.begin; i < q.end; ++i) {
            std::vector<FrameIndex> frames;
            for (FrameIndex f : m.stack(m.stackSamples.stack[i])) {
                const StackFrame& frame = m.stackFrames[f];
                frames.push_back(b.internFrame(m.text(frame.file), m.text(frame.function), frame.line));
            }
            b.stackSamples.add(
                {m.stackSamples.timeNs[i], th(m.stackSamples.thread[i]), b.internStack(frames)});
        }
        if (p == 0) {
            b.devices = m.devices;
            b.processes = m.processes;
            for (const StreamInfo& st : m.streams) {
                b.streams.push_back(st);
            }
            b.distributed = m.distributed;
            b.metadata = m.metadata;
            for (const TraceStat& st : m.stats.entries()) {
                b.stats.add(st.name, st.severity, st.count, st.detail);
            }
        }
        // Counter samples arrive over several batches: first half in batch 0, the rest in the last.
        if (p == 0 || p == parts - 1) {
            for (const CounterTrack& track : m.counters) {
                CounterTrack t = track;
                std::size_t half = track.timesNs.size() / 2;
                std::size_t from = p == 0 ? 0 : half, to = p == 0 ? half : track.timesNs.size();
                t.timesNs.assign(track.timesNs.begin() + static_cast<std::ptrdiff_t>(from),
                                 track.timesNs.begin() + static_cast<std::ptrdiff_t>(to));
                t.values.assign(track.values.begin() + static_cast<std::ptrdiff_t>(from),
                                track.values.begin() + static_cast<std::ptrdiff_t>(to));
                b.counters.push_back(std::move(t));
            }
        }
        batches.push_back(std::move(b));
    }
    return batches;
}

// A model whose last CPU op runs on a thread that appears only in the last batch.
TraceModel streamedOriginal() {
    TraceModel m = fullModel(6);
    CpuOpRow late;
    late.startNs = m.timeSpan().endNs + 10;
    late.endNs = late.startNs + 50;
    late.thread = m.threadIndex(4242, 5000, "late thread");
    late.name = m.intern("late op only in the last batch");
    m.cpuOps.add(late);
    m.finalize();
    return m;
}

TEST(CptraceStreaming, BatchesDecodeToTheSameModelAsTheWholeTrace) {
    TraceModel original = streamedOriginal();
    std::vector<TraceModel> batches = splitIntoBatches(original, 3);
    CptraceChunkEncoder encoder;
    std::string bytes = encoder.encodeHeader();
    for (const TraceModel& batch : batches) {
        bytes += encoder.encodeChunk(batch);
    }
    bytes += encoder.encodeFooter();
    EXPECT_EQ(encoder.chunksEncoded(), 4u);

    Result<TraceModel> read = readCptraceFromMemory(bytes, "stream.cptrace");
    ASSERT_TRUE(read.ok()) << read.error().message;
    expectModelsEqual(original, read.value());
    EXPECT_EQ(read->threads.back().name, "late thread");
}

TEST(CptraceStreaming, DecoderFedOneByteAtATime) {
    TraceModel original = streamedOriginal();
    std::vector<TraceModel> batches = splitIntoBatches(original, 4);
    CptraceChunkEncoder encoder;
    std::string bytes = encoder.encodeHeader();
    for (const TraceModel& batch : batches) {
        bytes += encoder.encodeChunk(batch);
    }
    bytes += encoder.encodeFooter();

    TraceModel model;
    CptraceChunkDecoder decoder(model, "socket");
    std::uint64_t chunksSeen = 0;
    for (char byte : bytes) {
        ASSERT_TRUE(decoder.feed(std::string_view(&byte, 1)).ok());
        // Chunks become visible as soon as their last byte arrives, never earlier.
        EXPECT_GE(decoder.chunksDecoded(), chunksSeen);
        chunksSeen = decoder.chunksDecoded();
    }
    EXPECT_EQ(decoder.chunksDecoded(), 5u);
    EXPECT_TRUE(decoder.footerSeen());
    EXPECT_EQ(decoder.pendingBytes(), 0u);
    EXPECT_EQ(decoder.bytesDecoded(), bytes.size());
    ASSERT_TRUE(decoder.finish().ok());
    model.finalize();
    expectModelsEqual(original, model, /*compareStats=*/false);
    EXPECT_EQ(model.stats.count("format.truncated_tail"), 0);
}

TEST(CptraceStreaming, LiveStreamWithoutHeaderOrFooterCountsAMissingTail) {
    TraceModel original = streamedOriginal();
    std::vector<TraceModel> batches = splitIntoBatches(original, 2);
    CptraceChunkEncoder encoder;
    TraceModel model;
    CptraceChunkDecoder decoder(model, "agent-77.sock", CptraceDecoderOptions{false});
    ASSERT_TRUE(decoder.feed(encoder.encodeChunk(batches[0])).ok());
    EXPECT_EQ(decoder.chunksDecoded(), 1u);
    EXPECT_GT(model.kernels.size(), 0u);
    std::string second = encoder.encodeChunk(batches[1]);
    ASSERT_TRUE(decoder.feed(std::string_view(second).substr(0, second.size() / 2)).ok());
    ASSERT_TRUE(decoder.finish().ok());
    EXPECT_EQ(decoder.chunksDecoded(), 1u);
    EXPECT_EQ(model.stats.count("format.truncated_tail"), 1);
    EXPECT_EQ(model.stats.find("format.truncated_tail")->severity, Severity::DataLoss);
}

TEST(CptraceStreaming, BatchLinksAreOffsetByRowsAlreadySent) {
    CptraceChunkEncoder encoder;
    std::string bytes = encoder.encodeHeader();
    for (int batchIndex = 0; batchIndex < 3; ++batchIndex) {
        testutils::TraceBuilder b;
        const core::TimestampNs t = batchIndex * 1000;
        b.apiCall("cudaLaunchKernel", t, t + 10, /*correlationId=*/0);
        core::ApiCallId call = b.apiCall("cudaLaunchKernel", t + 20, t + 30, 0);
        core::KernelId k = b.kernel("k" + std::to_string(batchIndex), t + 40, t + 90);
        b.model().kernels.launchCall[k.index] = call;  // explicit link, no correlation id
        bytes += encoder.encodeChunk(b.model());
    }
    bytes += encoder.encodeFooter();
    Result<TraceModel> read = readCptraceFromMemory(bytes, "links.cptrace");
    ASSERT_TRUE(read.ok()) << read.error().message;
    ASSERT_EQ(read->kernels.size(), 3u);
    for (std::uint32_t i = 0; i < 3; ++i) {
        EXPECT_EQ(read->kernels.launchCall[i], ApiCallId{2 * i + 1});
        EXPECT_EQ(read->text(read->kernels.name[i]), "k" + std::to_string(i));
    }
    // The same thread in every batch is one thread in the file.
    EXPECT_EQ(read->threads.size(), 1u);
}

}  // namespace
}  // namespace chokepoint::formattest
