#pragma once
// Streaming .cptrace encoder: turns batches of new rows into the framed chunks of the .cptrace
// format (FORMAT.md). The collector sends the same bytes over its socket that it writes to a file:
//
//   CptraceChunkEncoder encoder;
//   sink(encoder.encodeHeader());
//   while (capturing) sink(encoder.encodeChunk(batch));   // batch: a fresh, non-finalized TraceModel
//   sink(encoder.encodeFooter());
//
// Concatenated, these strings are a complete .cptrace file; any prefix that ends on a chunk
// boundary opens as a trace up to that chunk.
//
// What the encoder tracks across batches (so each batch is a small, self-contained TraceModel):
// - strings: a chunk carries only the strings not sent before, with their global ids; the batch's
//   own StringIds are remapped to global ids. Global id 0 is the empty string.
// - threads: keyed by (pid, tid); global thread index = order of first appearance. A later batch
//   that names an already-sent thread differently sends the new name.
// - devices (by deviceIndex), processes (by pid), streams (by device, stream): sent when new or
//   changed; distributed info and capture metadata: sent when changed.
// - counters: tracks keyed by (name, unit, device, pid, tid); samples are appended to the track.
// - stats: each batch's TraceStats are increments added to the reader's TraceStats.
// - row links (kernel/memcpy/memset launchCall, sync apiCall, api cpuOp, range/op parent): in a
//   batch they are row indices within that batch (or invalid). On the wire every row id is global:
//   batch index + rows of that table sent in earlier chunks. Links to rows of earlier batches cannot
//   be expressed in a batch; leave them invalid and the reader's finalize() joins GPU work to its
//   launch call by correlation id and API calls to their enclosing op.
// - stack frames and stacks: interned across batches by content (file, function, line / the frames
//   leaf first); a chunk carries every frame and stack of its batch not sent before, and samples
//   refer to global stack ids. A whole-model file sends all of them in its first chunk.
//
// Not thread-safe; one encoder per output stream.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/base/Result.h"
#include "core/base/StringPool.h"
#include "core/model/TraceModel.h"

namespace chokepoint::core {

struct CptraceEncoderOptions {
    bool compress = true;      // zlib-compress each chunk payload (per chunk, so truncation still works)
    int compressionLevel = 6;  // zlib level 1..9
    // Chunks whose serialized payload is larger than this are stored uncompressed: inflating them
    // costs about as much as decoding them (measured: a 9.4 MB raw, 635k-row trace loads in 33 ms
    // CPU raw vs 60 ms compressed), while their columnar varints are already compact. Default: no
    // limit (the collector's stream is always compressed); the file writer uses 256 KiB.
    std::size_t compressMaxRawBytes = static_cast<std::size_t>(-1);
};

// Row counts of every event table; used for the id offsets and the footer totals.
struct CptraceRowCounts {
    std::uint64_t kernels = 0, memcpys = 0, memsets = 0, apiCalls = 0, syncs = 0, ranges = 0, cpuOps = 0;
    std::uint64_t counterSamples = 0;
    std::uint64_t stackSamples = 0;
};

class CptraceChunkEncoder {
public:
    explicit CptraceChunkEncoder(CptraceEncoderOptions options = {});
    ~CptraceChunkEncoder();
    CptraceChunkEncoder(const CptraceChunkEncoder&) = delete;
    CptraceChunkEncoder& operator=(const CptraceChunkEncoder&) = delete;

    // The 16-byte file header (magic and version). Send it once, first.
    std::string encodeHeader() const;

    // One framed chunk holding every row of `batch` plus whatever dimension records, strings,
    // counters and stats changed. `batch` need not be finalized; it is not modified.
    std::string encodeChunk(const TraceModel& batch);

    // The footer frame: totals per table and the chunk count, so a reader can tell a complete file
    // from one that ends early. Send it once, last.
    std::string encodeFooter();

    // Encodes a whole (usually finalized) model as header, chunks of about `rowsPerChunk` rows and
    // footer, handing each piece to `sink` in order. Row links in `model` are already global.
    // Stops and returns false as soon as `sink` returns false.
    bool encodeModel(const TraceModel& model, std::size_t rowsPerChunk,
                     const std::function<bool(std::string_view)>& sink);

    std::uint64_t chunksEncoded() const { return m_chunks; }
    const CptraceRowCounts& rowsEncoded() const { return m_rows; }

    // Row window of one table: [begin, end).
    struct Window {
        std::size_t begin = 0, end = 0;
    };
    struct Slice {
        Window kernels, memcpys, memsets, apiCalls, syncs, ranges, cpuOps, stackSamples;
        bool dimensions = true;  // include devices/threads/counters/stats/metadata, frames and stacks
    };

private:
    // Maps ids of one model to global ids (kUnsent when not looked up yet): strings, and the frames
    // and stacks sent with the slice that has `dimensions`. Kept across slices of one unchanged model.
    struct ModelIds {
        std::vector<std::uint32_t> strings, frames, stacks;
        std::uint32_t unknownStack = std::numeric_limits<std::uint32_t>::max();  // the empty stack, once sent
    };
    std::string encodeSlice(const TraceModel& model, const Slice& slice, bool linksAreGlobal,
                            std::uint64_t totalChunks, ModelIds& ids);
    // Frames and stacks of `model` not sent before (Chunk fields 22 and 23); fills ids.frames/stacks.
    template <class StrFn>
    void encodeStacks(const TraceModel& model, const Slice& slice, ModelIds& ids, StrFn str,
                      std::string& frameDelta, std::string& stackDelta);
    std::string frame(const std::string& payload) const;
    std::string frame(const std::vector<std::string_view>& payloadPieces) const;

    CptraceEncoderOptions m_options;
    std::string m_tableColumns[7];             // per-table column buffers, reused across chunks
    std::string m_scratch;                     // one column being packed
    const TraceModel* m_totalsHint = nullptr;  // model whose totals go into the next chunk
    std::uint64_t m_chunks = 0;
    CptraceRowCounts m_rows;
    StringPool m_sentStrings;         // global string ids = ids in this pool
    std::uint32_t m_stringsSent = 1;  // id 0 (empty) is implicit
    std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> m_threadIndex;  // (pid, tid) -> global
    std::vector<std::string> m_threadNames;
    std::map<std::int32_t, DeviceInfo> m_devices;
    std::map<std::int64_t, std::string> m_processes;
    std::map<std::pair<std::int32_t, std::int32_t>, std::string> m_streams;
    std::map<std::tuple<std::string, std::string, std::int16_t, std::int64_t, std::int64_t>, std::uint32_t>
        m_counterTracks;
    bool m_distributedSent = false;
    DistributedInfo m_distributed;
    bool m_metadataSent = false;
    CaptureMetadata m_metadata;
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::int32_t>, std::uint32_t> m_sentFrames;  // global
    std::map<std::vector<std::uint32_t>, std::uint32_t> m_sentStacks;  // global frame ids -> global stack
};

}  // namespace chokepoint::core
