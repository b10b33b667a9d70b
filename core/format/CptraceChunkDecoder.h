#pragma once
// Incremental .cptrace decoder: accepts bytes in pieces of any size (a socket, a file read in
// blocks, one byte at a time) and appends every complete chunk's rows to a TraceModel. The file
// reader (CptraceReader.h) is built on it; the collector's client uses it on the live stream.
//
//   TraceModel model;
//   CptraceChunkDecoder decoder(model, "agent-1234.sock");
//   while (auto bytes = receive()) { if (!decoder.feed(bytes)) ...error... }
//   Status s = decoder.finish();   // resolves links, counts a torn tail in model.stats
//   model.finalize();
//
// Contract:
// - The target model must be empty when the decoder is made; the decoder owns it until finish().
// - feed() decodes every chunk that is complete; an incomplete tail is kept (only the bytes actually
//   fed are held: a length prefix claiming more than kCptraceMaxFrameBytes is an error, never an
//   allocation).
// - Errors name the source and the absolute byte offset of the frame at fault ("x.cptrace: byte
//   4096: chunk 3: CRC mismatch"). After an error the decoder accepts no more bytes.
// - finish() reports what a torn or missing tail lost: pending bytes or a missing footer add
//   `format.truncated_tail` (DataLoss) to model.stats; links that point at rows that never arrived
//   are cleared and counted in `format.dangling_link` (Warning). It does not call finalize().

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/Result.h"
#include "core/format/CptraceChunkEncoder.h"
#include "core/model/TraceModel.h"

namespace chokepoint::cptrace {
class Chunk;  // generated from proto/cptrace.proto
}  // namespace chokepoint::cptrace

namespace chokepoint::core {

struct CptraceDecoderOptions {
    bool expectHeader = true;  // false when the stream starts directly with chunk frames
    // Largest number of rows per table to reserve memory for when a chunk announces the file's
    // totals (a hint a hostile file could inflate). 0: never reserve ahead. The file reader sets it
    // from the file size.
    std::uint64_t reserveLimitRows = 0;
};

class CptraceChunkDecoder {
public:
    CptraceChunkDecoder(TraceModel& target, std::string_view sourceName, CptraceDecoderOptions options = {});
    ~CptraceChunkDecoder();
    CptraceChunkDecoder(const CptraceChunkDecoder&) = delete;
    CptraceChunkDecoder& operator=(const CptraceChunkDecoder&) = delete;

    // Decodes every complete chunk in the bytes fed so far. Returns an Error on a wrong magic, a
    // newer major version, a CRC mismatch, an oversized or malformed chunk.
    Status feed(std::string_view bytes);

    // Ends the stream: see the contract above. Returns an Error only if feed() had failed.
    Status finish();

    bool headerSeen() const { return m_headerSeen; }
    bool footerSeen() const { return m_footerSeen; }
    std::uint64_t chunksDecoded() const { return m_chunks; }
    // Chunk count announced by the writer (0 when unknown, e.g. a live stream).
    std::uint64_t expectedChunks() const { return m_expectedChunks; }
    // Bytes consumed by whole frames (and the header) so far.
    std::uint64_t bytesDecoded() const { return m_offset; }
    // Bytes fed but not yet part of a whole frame.
    std::size_t pendingBytes() const { return m_pending.size(); }
    // Stats the writer stored in the file (the reader applies them after finalize()).
    const TraceStats& storedStats() const { return m_storedStats; }

private:
    // Consumes whole frames from `data`; returns bytes consumed, or an Error.
    Result<std::size_t> consume(std::string_view data);
    Status decodePayload(std::string_view payload, std::uint64_t frameOffset);
    Status fail(std::uint64_t offset, const std::string& what);

    TraceModel& m_model;
    std::string m_source;
    CptraceDecoderOptions m_options;
    std::string m_pending;
    std::string m_scratch;                      // decompression buffer, reused
    std::unique_ptr<cptrace::Chunk> m_message;  // reused, so its column arrays keep their capacity
    std::uint64_t m_offset = 0;
    std::uint64_t m_chunks = 0;
    std::uint64_t m_expectedChunks = 0;
    bool m_headerSeen = false;
    bool m_footerSeen = false;
    bool m_failed = false;
    std::string m_error;
    std::vector<StringId> m_strings;            // global string id -> id in m_model.strings
    std::vector<std::uint32_t> m_counterTrack;  // global track -> index in m_model.counters
    TraceStats m_storedStats;
    std::uint64_t m_footerChunks = 0;
    CptraceRowCounts m_footerRows;
};

}  // namespace chokepoint::core
