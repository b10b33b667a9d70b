#include "core/format/CptraceChunkEncoder.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

#include "core/format/CptraceFormat.h"
#include "core/format/CptraceWire.h"
#include "core/format/ProtoWireWriter.h"

namespace chokepoint::core {

using namespace cptrace_wire;

namespace {

constexpr std::uint32_t kUnsent = std::numeric_limits<std::uint32_t>::max();

bool sameDevice(const DeviceInfo& a, const DeviceInfo& b) {
    return a.deviceIndex == b.deviceIndex && a.name == b.name && a.vendor == b.vendor &&
           a.smCount == b.smCount && a.totalMemoryBytes == b.totalMemoryBytes &&
           a.computeMajor == b.computeMajor && a.computeMinor == b.computeMinor &&
           a.maxThreadsPerBlock == b.maxThreadsPerBlock && a.maxThreadsPerSm == b.maxThreadsPerSm &&
           a.registersPerBlock == b.registersPerBlock &&
           a.sharedMemoryPerBlockBytes == b.sharedMemoryPerBlockBytes && a.l2CacheBytes == b.l2CacheBytes &&
           a.warpSize == b.warpSize && a.coreClockKhz == b.coreClockKhz &&
           a.memoryClockKhz == b.memoryClockKhz && a.memoryBusWidthBits == b.memoryBusWidthBits;
}

bool sameDistributed(const DistributedInfo& a, const DistributedInfo& b) {
    return a.present == b.present && a.rank == b.rank && a.worldSize == b.worldSize && a.backend == b.backend;
}

bool sameMetadata(const CaptureMetadata& a, const CaptureMetadata& b) {
    return a.sourceFormat == b.sourceFormat && a.sourcePath == b.sourcePath && a.producer == b.producer &&
           a.hostName == b.hostName && a.captureStartUnixNs == b.captureStartUnixNs &&
           a.synthetic == b.synthetic && a.notes == b.notes;
}

bool isDefaultMetadata(const CaptureMetadata& m) {
    return sameMetadata(m, CaptureMetadata{});
}

// Column helpers: each packs value(i) for i in [begin, end) as one packed field of `out`, or omits
// the field when every value is 0 (an empty column means "all default", see proto/cptrace.proto).
// `scratch` is reused between columns.
template <class ValueFn>
void putSignedColumn(std::string& out, std::string& scratch, std::uint32_t field, std::size_t begin,
                     std::size_t end, ValueFn value) {
    bool any = false;
    for (std::size_t i = begin; i < end && !any; ++i) {
        any = value(i) != 0;
    }
    if (!any) {
        return;
    }
    protowire::packVarints(scratch, begin, end,
                           [&](std::size_t i) { return zigzag(static_cast<std::int64_t>(value(i))); });
    protowire::putPacked(out, field, scratch);
}

template <class ValueFn>
void putUnsignedColumn(std::string& out, std::string& scratch, std::uint32_t field, std::size_t begin,
                       std::size_t end, ValueFn value) {
    bool any = false;
    for (std::size_t i = begin; i < end && !any; ++i) {
        any = value(i) != 0;
    }
    if (!any) {
        return;
    }
    protowire::packVarints(scratch, begin, end,
                           [&](std::size_t i) { return static_cast<std::uint64_t>(value(i)); });
    protowire::putPacked(out, field, scratch);
}

// start_delta (field 1, always written) and duration (field 2) columns.
void putTimes(std::string& out, std::string& scratch, const std::vector<TimestampNs>& startNs,
              const std::vector<TimestampNs>& endNs, std::size_t begin, std::size_t end) {
    TimestampNs prev = 0;
    protowire::packVarints(scratch, begin, end, [&](std::size_t i) {
        const std::uint64_t delta = zigzag(wrapSub(startNs[i], prev));
        prev = startNs[i];
        return delta;
    });
    protowire::putPacked(out, 1, scratch);
    putSignedColumn(out, scratch, 2, begin, end,
                    [&](std::size_t i) { return wrapSub(endNs[i], startNs[i]); });
}

// value(i) - value(i - 1), row begin - 1 counting as 0; omitted when every value is 0.
void putDeltas(std::string& out, std::string& scratch, std::uint32_t field,
               const std::vector<std::int64_t>& values, std::size_t begin, std::size_t end) {
    bool any = false;
    for (std::size_t i = begin; i < end && !any; ++i) {
        any = values[i] != 0;
    }
    if (!any) {
        return;
    }
    std::int64_t prev = 0;
    protowire::packVarints(scratch, begin, end, [&](std::size_t i) {
        const std::uint64_t delta = zigzag(wrapSub(values[i], prev));
        prev = values[i];
        return delta;
    });
    protowire::putPacked(out, field, scratch);
}

template <class Id>
void putLinks(std::string& out, std::string& scratch, std::uint32_t field, const std::vector<Id>& links,
              std::size_t begin, std::size_t end, std::uint64_t offset) {
    bool any = false;
    for (std::size_t i = begin; i < end && !any; ++i) {
        any = links[i].valid();
    }
    if (!any) {
        return;
    }
    LinkEncoder encoder;
    protowire::packVarints(scratch, begin, end, [&](std::size_t i) {
        std::optional<std::uint64_t> g;
        if (links[i].valid()) {
            g = std::uint64_t{links[i].index} + offset;
        }
        return encoder.encode(g);
    });
    protowire::putPacked(out, field, scratch);
}

template <class Enum>
std::uint32_t enumValue(Enum e) {
    return static_cast<std::uint32_t>(e);
}

// A Footer message (used for the footer and for the totals hint, whose chunk_count is 0).
std::string footerMessage(std::uint64_t chunkCount, const CptraceRowCounts& rows, std::uint64_t strings,
                          std::uint64_t threads, std::uint64_t counterTracks, std::uint64_t frames,
                          std::uint64_t stacks) {
    using namespace protowire;
    std::string f;
    putUint(f, 1, chunkCount);
    putUint(f, 2, rows.kernels);
    putUint(f, 3, rows.memcpys);
    putUint(f, 4, rows.memsets);
    putUint(f, 5, rows.apiCalls);
    putUint(f, 6, rows.syncs);
    putUint(f, 7, rows.ranges);
    putUint(f, 8, rows.cpuOps);
    putUint(f, 9, strings);
    putUint(f, 10, threads);
    putUint(f, 11, counterTracks);
    putUint(f, 12, rows.counterSamples);
    putUint(f, 13, frames);
    putUint(f, 14, stacks);
    putUint(f, 15, rows.stackSamples);
    return f;
}

}  // namespace

CptraceChunkEncoder::CptraceChunkEncoder(CptraceEncoderOptions options) : m_options(options) {}
CptraceChunkEncoder::~CptraceChunkEncoder() = default;

std::string CptraceChunkEncoder::encodeHeader() const {
    std::string header(kCptraceMagic, kCptraceMagicSize);
    appendU32Le(header, kCptraceVersionMajor);
    appendU32Le(header, kCptraceVersionMinor);
    return header;
}

std::string CptraceChunkEncoder::frame(const std::string& payload) const {
    std::string body;
    body.reserve(payload.size() / 2 + 32);
    appendU32Le(body, 0);  // CRC, patched below
    bool stored = false;
    if (m_options.compress && payload.size() > 64 && payload.size() <= m_options.compressMaxRawBytes) {
        uLongf bound = compressBound(static_cast<uLong>(payload.size()));
        std::string compressed(bound, '\0');
        int level = std::clamp(m_options.compressionLevel, 1, 9);
        if (compress2(reinterpret_cast<Bytef*>(compressed.data()), &bound,
                      reinterpret_cast<const Bytef*>(payload.data()), static_cast<uLong>(payload.size()),
                      level) == Z_OK &&
            bound < payload.size()) {
            compressed.resize(bound);
            body.push_back(static_cast<char>(CptraceChunkEncoding::ZlibProtobuf));
            appendVarint(body, payload.size());
            body += compressed;
            stored = true;
        }
    }
    if (!stored) {
        body.push_back(static_cast<char>(CptraceChunkEncoding::Protobuf));
        body += payload;
    }
    auto crc = static_cast<std::uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(body.data() + 4), static_cast<uInt>(body.size() - 4)));
    for (int i = 0; i < 4; ++i) {
        body[static_cast<std::size_t>(i)] = static_cast<char>((crc >> (8 * i)) & 0xFF);
    }
    std::string out;
    out.reserve(body.size() + 10);
    appendVarint(out, body.size());
    out += body;
    return out;
}

std::string CptraceChunkEncoder::frame(const std::vector<std::string_view>& pieces) const {
    std::size_t payloadBytes = 0;
    for (std::string_view piece : pieces) {
        payloadBytes += piece.size();
    }
    if (m_options.compress && payloadBytes > 64 && payloadBytes <= m_options.compressMaxRawBytes) {
        std::string payload;
        payload.reserve(payloadBytes);
        for (std::string_view piece : pieces) {
            payload.append(piece);
        }
        return frame(payload);
    }
    // Stored raw: the pieces go straight into the frame, copied once.
    const std::size_t bodyBytes = 5 + payloadBytes;
    std::string out;
    out.reserve(bodyBytes + 10);
    appendVarint(out, bodyBytes);
    const std::size_t bodyStart = out.size();
    appendU32Le(out, 0);  // CRC, patched below
    out.push_back(static_cast<char>(CptraceChunkEncoding::Protobuf));
    for (std::string_view piece : pieces) {
        out.append(piece);
    }
    auto crc = static_cast<std::uint32_t>(crc32(
        0L, reinterpret_cast<const Bytef*>(out.data() + bodyStart + 4), static_cast<uInt>(bodyBytes - 4)));
    for (int i = 0; i < 4; ++i) {
        out[bodyStart + static_cast<std::size_t>(i)] = static_cast<char>((crc >> (8 * i)) & 0xFF);
    }
    return out;
}

std::string CptraceChunkEncoder::encodeChunk(const TraceModel& batch) {
    Slice slice;
    slice.kernels = {0, batch.kernels.size()};
    slice.memcpys = {0, batch.memcpys.size()};
    slice.memsets = {0, batch.memsets.size()};
    slice.apiCalls = {0, batch.apiCalls.size()};
    slice.syncs = {0, batch.syncs.size()};
    slice.ranges = {0, batch.ranges.size()};
    slice.cpuOps = {0, batch.cpuOps.size()};
    slice.stackSamples = {0, batch.stackSamples.size()};
    ModelIds ids;
    return encodeSlice(batch, slice, /*linksAreGlobal=*/false, /*totalChunks=*/0, ids);
}

template <class StrFn>
void CptraceChunkEncoder::encodeStacks(const TraceModel& model, const Slice& slice, ModelIds& ids, StrFn str,
                                       std::string& frameDelta, std::string& stackDelta) {
    using namespace protowire;
    const auto firstFrame = static_cast<std::uint32_t>(m_sentFrames.size());
    std::vector<std::uint32_t> newFiles, newFunctions;
    std::vector<std::int32_t> newLines;
    if (slice.dimensions) {
        ids.frames.assign(model.stackFrames.size(), kUnsent);
        for (std::size_t i = 0; i < model.stackFrames.size(); ++i) {
            const StackFrame& f = model.stackFrames[i];
            auto key = std::make_tuple(str(f.file), str(f.function), f.line);
            auto [it, added] = m_sentFrames.emplace(key, static_cast<std::uint32_t>(m_sentFrames.size()));
            if (added) {
                newFiles.push_back(std::get<0>(key));
                newFunctions.push_back(std::get<1>(key));
                newLines.push_back(f.line);
            }
            ids.frames[i] = it->second;
        }
    }
    const auto firstStack = static_cast<std::uint32_t>(m_sentStacks.size());
    std::vector<std::uint32_t> newDepths, newFrameIds;
    auto sendStack = [&](std::vector<std::uint32_t> frames) {
        auto [it, added] = m_sentStacks.emplace(frames, static_cast<std::uint32_t>(m_sentStacks.size()));
        if (added) {
            newDepths.push_back(static_cast<std::uint32_t>(frames.size()));
            newFrameIds.insert(newFrameIds.end(), frames.begin(), frames.end());
        }
        return it->second;
    };
    if (slice.dimensions) {
        ids.stacks.assign(model.stackCount(), kUnsent);
        std::vector<std::uint32_t> frames;
        for (StackIndex s = 0; s < model.stackCount(); ++s) {
            frames.clear();
            for (FrameIndex f : model.stack(s)) {
                if (f < ids.frames.size()) {  // a frame id outside the model is dropped
                    frames.push_back(ids.frames[f]);
                }
            }
            ids.stacks[s] = sendStack(frames);
        }
    }
    // A sample whose stack is not in the model (a broken batch) is sent with the empty stack.
    for (std::size_t i = slice.stackSamples.begin; i < slice.stackSamples.end; ++i) {
        const StackIndex stack = model.stackSamples.stack[i];
        if ((stack >= ids.stacks.size() || ids.stacks[stack] == kUnsent) && ids.unknownStack == kUnsent) {
            ids.unknownStack = sendStack({});
        }
    }
    std::string& scratch = m_scratch;
    std::string msg;
    if (!newFunctions.empty()) {
        putUint(msg, 1, firstFrame);
        packVarints(scratch, 0, newFunctions.size(), [&](std::size_t i) { return newFunctions[i]; });
        putPacked(msg, 2, scratch);
        putUnsignedColumn(msg, scratch, 3, 0, newFiles.size(), [&](std::size_t i) { return newFiles[i]; });
        putSignedColumn(msg, scratch, 4, 0, newLines.size(), [&](std::size_t i) { return newLines[i]; });
        putLen(frameDelta, 22, msg);
    }
    if (!newDepths.empty()) {
        msg.clear();
        putUint(msg, 1, firstStack);
        packVarints(scratch, 0, newDepths.size(), [&](std::size_t i) { return newDepths[i]; });
        putPacked(msg, 2, scratch);
        packVarints(scratch, 0, newFrameIds.size(), [&](std::size_t i) { return newFrameIds[i]; });
        putPacked(msg, 3, scratch);
        putLen(stackDelta, 23, msg);
    }
}

std::string CptraceChunkEncoder::encodeSlice(const TraceModel& model, const Slice& slice, bool linksAreGlobal,
                                             std::uint64_t totalChunks, ModelIds& ids) {
    using namespace protowire;
    // The Chunk message (proto/cptrace.proto) is written by hand: each repeated or sub-message field
    // is collected in its own buffer and the buffers are joined in field-number order at the end,
    // since strings (field 3) are known only once every row was encoded.
    std::string devices, processes, threads, streams, distributed, metadata, counters, stats, hint,
        collectives, strings, frameDelta, stackDelta, samples;
    std::string msg;
    std::string& scratch = m_scratch;
    // Tables, fields 4..10: each table's columns in its own reused buffer, preceded on the wire by
    // a small header (tag and length); the pieces are joined only once, in frame().
    std::string tableHeaders[7];
    for (std::string& columns : m_tableColumns) {
        columns.clear();
    }
    auto endTable = [&](int k, std::uint32_t field) {
        putLenHeader(tableHeaders[k], field, m_tableColumns[k].size());
    };

    // Strings: remap the model's ids to global ids, collecting those never sent.
    std::vector<std::uint32_t>& stringCache = ids.strings;
    stringCache.resize(model.strings.size(), kUnsent);
    const std::uint32_t firstNew = m_stringsSent;
    auto str = [&](StringId id) -> std::uint32_t {
        if (!id.valid() || id.index >= stringCache.size()) {
            return 0;
        }
        std::uint32_t& cached = stringCache[id.index];
        if (cached == kUnsent) {
            cached = m_sentStrings.intern(model.strings.view(id)).index;
        }
        return cached;
    };

    // Threads: local index -> global index + 1 (0 = none).
    std::vector<std::uint32_t> threadMap(model.threads.size());
    for (std::size_t i = 0; i < model.threads.size(); ++i) {
        const ThreadInfo& t = model.threads[i];
        auto [it, added] = m_threadIndex.emplace(std::make_pair(t.pid, t.tid),
                                                 static_cast<std::uint32_t>(m_threadIndex.size()));
        if (added) {
            m_threadNames.push_back(t.name);
        }
        std::uint32_t global = it->second;
        if (added || (!t.name.empty() && m_threadNames[global] != t.name)) {
            m_threadNames[global] = t.name;
            msg.clear();
            putUint(msg, 1, global);
            putInt(msg, 2, t.pid);
            putInt(msg, 3, t.tid);
            putBytes(msg, 4, t.name);
            putLen(threads, 13, msg);
        }
        threadMap[i] = global + 1;
    }
    auto thread = [&](ThreadIndex t) -> std::uint32_t { return t < threadMap.size() ? threadMap[t] : 0; };

    for (const DeviceInfo& d : model.devices) {
        auto it = m_devices.find(d.deviceIndex);
        if (it != m_devices.end() && sameDevice(it->second, d)) {
            continue;
        }
        m_devices[d.deviceIndex] = d;
        msg.clear();
        putSint(msg, 1, d.deviceIndex);
        putBytes(msg, 2, d.name);
        putBytes(msg, 3, d.vendor);
        putInt(msg, 4, d.smCount);
        putInt(msg, 5, d.totalMemoryBytes);
        putInt(msg, 6, d.computeMajor);
        putInt(msg, 7, d.computeMinor);
        putInt(msg, 8, d.maxThreadsPerBlock);
        putInt(msg, 9, d.maxThreadsPerSm);
        putInt(msg, 10, d.registersPerBlock);
        putInt(msg, 11, d.sharedMemoryPerBlockBytes);
        putInt(msg, 12, d.l2CacheBytes);
        putInt(msg, 13, d.warpSize);
        putInt(msg, 14, d.coreClockKhz);
        putInt(msg, 15, d.memoryClockKhz);
        putInt(msg, 16, d.memoryBusWidthBits);
        putLen(devices, 11, msg);
    }
    for (const ProcessInfo& p : model.processes) {
        auto it = m_processes.find(p.pid);
        if (it != m_processes.end() && it->second == p.name) {
            continue;
        }
        m_processes[p.pid] = p.name;
        msg.clear();
        putInt(msg, 1, p.pid);
        putBytes(msg, 2, p.name);
        putLen(processes, 12, msg);
    }
    for (const StreamInfo& s : model.streams) {
        auto key = std::make_pair(s.deviceIndex, s.streamId);
        auto it = m_streams.find(key);
        if (it != m_streams.end() && it->second == s.name) {
            continue;
        }
        m_streams[key] = s.name;
        msg.clear();
        putSint(msg, 1, s.deviceIndex);
        putSint(msg, 2, s.streamId);
        putBytes(msg, 3, s.name);
        putLen(streams, 14, msg);
    }
    // A batch with default distributed info means "unchanged", like metadata below.
    if (!sameDistributed(DistributedInfo{}, model.distributed) &&
        (!m_distributedSent || !sameDistributed(m_distributed, model.distributed))) {
        m_distributed = model.distributed;
        m_distributedSent = true;
        msg.clear();
        putBool(msg, 1, model.distributed.present);
        putInt(msg, 2, model.distributed.rank);
        putInt(msg, 3, model.distributed.worldSize);
        putBytes(msg, 4, model.distributed.backend);
        putLen(distributed, 15, msg);
    }
    // A streaming batch with default metadata means "unchanged"; the first non-default one is sent.
    if (!isDefaultMetadata(model.metadata) &&
        (!m_metadataSent || !sameMetadata(m_metadata, model.metadata))) {
        m_metadata = model.metadata;
        m_metadataSent = true;
        const CaptureMetadata& m = model.metadata;
        msg.clear();
        putBytes(msg, 1, m.sourceFormat);
        putBytes(msg, 2, m.sourcePath);
        putBytes(msg, 3, m.producer);
        putBytes(msg, 4, m.hostName);
        putInt(msg, 5, m.captureStartUnixNs);
        putBool(msg, 6, m.synthetic);
        std::string note;
        for (const auto& [key, value] : m.notes) {
            note.clear();
            putBytes(note, 1, key);
            putBytes(note, 2, value);
            putLen(msg, 7, note);
        }
        putLen(metadata, 16, msg);
    }

    // Row links: global id = local id + rows of the target table already sent (streaming batches).
    const CptraceRowCounts before = m_rows;
    auto offset = [&](std::uint64_t rowsBefore) { return linksAreGlobal ? 0 : rowsBefore; };

    // Tables, fields 4..10 of Chunk in this order; column field numbers as in proto/cptrace.proto.
    if (const Window w = slice.kernels; w.end > w.begin) {
        const KernelTable& t = model.kernels;
        std::string& cols = m_tableColumns[0];
        putTimes(cols, scratch, t.startNs, t.endNs, w.begin, w.end);
        putSignedColumn(cols, scratch, 3, w.begin, w.end, [&](std::size_t i) { return t.deviceIndex[i]; });
        putSignedColumn(cols, scratch, 4, w.begin, w.end, [&](std::size_t i) { return t.streamId[i]; });
        putUnsignedColumn(cols, scratch, 5, w.begin, w.end, [&](std::size_t i) { return str(t.name[i]); });
        putSignedColumn(cols, scratch, 6, w.begin, w.end, [&](std::size_t i) { return t.gridX[i]; });
        putSignedColumn(cols, scratch, 7, w.begin, w.end, [&](std::size_t i) { return t.gridY[i]; });
        putSignedColumn(cols, scratch, 8, w.begin, w.end, [&](std::size_t i) { return t.gridZ[i]; });
        putSignedColumn(cols, scratch, 9, w.begin, w.end, [&](std::size_t i) { return t.blockX[i]; });
        putSignedColumn(cols, scratch, 10, w.begin, w.end, [&](std::size_t i) { return t.blockY[i]; });
        putSignedColumn(cols, scratch, 11, w.begin, w.end, [&](std::size_t i) { return t.blockZ[i]; });
        putSignedColumn(cols, scratch, 12, w.begin, w.end,
                        [&](std::size_t i) { return t.registersPerThread[i]; });
        putSignedColumn(cols, scratch, 13, w.begin, w.end,
                        [&](std::size_t i) { return t.staticSharedBytes[i]; });
        putSignedColumn(cols, scratch, 14, w.begin, w.end,
                        [&](std::size_t i) { return t.dynamicSharedBytes[i]; });
        putDeltas(cols, scratch, 15, t.correlationId, w.begin, w.end);
        putLinks(cols, scratch, 16, t.launchCall, w.begin, w.end, offset(before.apiCalls));
        endTable(0, 4);
        m_rows.kernels += w.end - w.begin;
    }
    if (const Window w = slice.memcpys; w.end > w.begin) {
        const MemcpyTable& t = model.memcpys;
        std::string& cols = m_tableColumns[1];
        putTimes(cols, scratch, t.startNs, t.endNs, w.begin, w.end);
        putSignedColumn(cols, scratch, 3, w.begin, w.end, [&](std::size_t i) { return t.deviceIndex[i]; });
        putSignedColumn(cols, scratch, 4, w.begin, w.end, [&](std::size_t i) { return t.streamId[i]; });
        putUnsignedColumn(cols, scratch, 5, w.begin, w.end,
                          [&](std::size_t i) { return enumValue(t.kind[i]); });
        putUnsignedColumn(cols, scratch, 6, w.begin, w.end,
                          [&](std::size_t i) { return enumValue(t.srcKind[i]); });
        putUnsignedColumn(cols, scratch, 7, w.begin, w.end,
                          [&](std::size_t i) { return enumValue(t.dstKind[i]); });
        putSignedColumn(cols, scratch, 8, w.begin, w.end, [&](std::size_t i) { return t.sizeBytes[i]; });
        putDeltas(cols, scratch, 9, t.correlationId, w.begin, w.end);
        putLinks(cols, scratch, 10, t.launchCall, w.begin, w.end, offset(before.apiCalls));
        endTable(1, 5);
        m_rows.memcpys += w.end - w.begin;
    }
    if (const Window w = slice.memsets; w.end > w.begin) {
        const MemsetTable& t = model.memsets;
        std::string& cols = m_tableColumns[2];
        putTimes(cols, scratch, t.startNs, t.endNs, w.begin, w.end);
        putSignedColumn(cols, scratch, 3, w.begin, w.end, [&](std::size_t i) { return t.deviceIndex[i]; });
        putSignedColumn(cols, scratch, 4, w.begin, w.end, [&](std::size_t i) { return t.streamId[i]; });
        putUnsignedColumn(cols, scratch, 5, w.begin, w.end,
                          [&](std::size_t i) { return enumValue(t.memoryKind[i]); });
        putSignedColumn(cols, scratch, 6, w.begin, w.end, [&](std::size_t i) { return t.sizeBytes[i]; });
        putDeltas(cols, scratch, 7, t.correlationId, w.begin, w.end);
        putLinks(cols, scratch, 8, t.launchCall, w.begin, w.end, offset(before.apiCalls));
        endTable(2, 6);
        m_rows.memsets += w.end - w.begin;
    }
    if (const Window w = slice.apiCalls; w.end > w.begin) {
        const ApiCallTable& t = model.apiCalls;
        std::string& cols = m_tableColumns[3];
        putTimes(cols, scratch, t.startNs, t.endNs, w.begin, w.end);
        putUnsignedColumn(cols, scratch, 3, w.begin, w.end,
                          [&](std::size_t i) { return thread(t.thread[i]); });
        putUnsignedColumn(cols, scratch, 4, w.begin, w.end, [&](std::size_t i) { return str(t.name[i]); });
        putUnsignedColumn(cols, scratch, 5, w.begin, w.end,
                          [&](std::size_t i) { return enumValue(t.domain[i]); });
        putDeltas(cols, scratch, 6, t.correlationId, w.begin, w.end);
        putLinks(cols, scratch, 7, t.cpuOp, w.begin, w.end, offset(before.cpuOps));
        endTable(3, 7);
        m_rows.apiCalls += w.end - w.begin;
    }
    if (const Window w = slice.syncs; w.end > w.begin) {
        const SyncTable& t = model.syncs;
        std::string& cols = m_tableColumns[4];
        putTimes(cols, scratch, t.startNs, t.endNs, w.begin, w.end);
        putSignedColumn(cols, scratch, 3, w.begin, w.end, [&](std::size_t i) { return t.deviceIndex[i]; });
        putSignedColumn(cols, scratch, 4, w.begin, w.end, [&](std::size_t i) { return t.streamId[i]; });
        putUnsignedColumn(cols, scratch, 5, w.begin, w.end,
                          [&](std::size_t i) { return thread(t.thread[i]); });
        putUnsignedColumn(cols, scratch, 6, w.begin, w.end,
                          [&](std::size_t i) { return enumValue(t.kind[i]); });
        putDeltas(cols, scratch, 7, t.correlationId, w.begin, w.end);
        putLinks(cols, scratch, 8, t.apiCall, w.begin, w.end, offset(before.apiCalls));
        endTable(4, 8);
        m_rows.syncs += w.end - w.begin;
    }
    if (const Window w = slice.ranges; w.end > w.begin) {
        const RangeTable& t = model.ranges;
        std::string& cols = m_tableColumns[5];
        putTimes(cols, scratch, t.startNs, t.endNs, w.begin, w.end);
        putUnsignedColumn(cols, scratch, 3, w.begin, w.end,
                          [&](std::size_t i) { return enumValue(t.source[i]); });
        putUnsignedColumn(cols, scratch, 4, w.begin, w.end,
                          [&](std::size_t i) { return thread(t.thread[i]); });
        putSignedColumn(cols, scratch, 5, w.begin, w.end, [&](std::size_t i) { return t.deviceIndex[i]; });
        putSignedColumn(cols, scratch, 6, w.begin, w.end, [&](std::size_t i) { return t.streamId[i]; });
        putUnsignedColumn(cols, scratch, 7, w.begin, w.end, [&](std::size_t i) { return str(t.name[i]); });
        putUnsignedColumn(cols, scratch, 8, w.begin, w.end, [&](std::size_t i) { return str(t.domain[i]); });
        putUnsignedColumn(cols, scratch, 9, w.begin, w.end,
                          [&](std::size_t i) { return std::uint32_t{t.depth[i]}; });
        putLinks(cols, scratch, 10, t.parent, w.begin, w.end, offset(before.ranges));
        endTable(5, 9);
        m_rows.ranges += w.end - w.begin;
    }
    if (const Window w = slice.cpuOps; w.end > w.begin) {
        const CpuOpTable& t = model.cpuOps;
        std::string& cols = m_tableColumns[6];
        putTimes(cols, scratch, t.startNs, t.endNs, w.begin, w.end);
        putUnsignedColumn(cols, scratch, 3, w.begin, w.end,
                          [&](std::size_t i) { return thread(t.thread[i]); });
        putUnsignedColumn(cols, scratch, 4, w.begin, w.end, [&](std::size_t i) { return str(t.name[i]); });
        putUnsignedColumn(cols, scratch, 5, w.begin, w.end,
                          [&](std::size_t i) { return enumValue(t.category[i]); });
        putUnsignedColumn(cols, scratch, 6, w.begin, w.end,
                          [&](std::size_t i) { return str(t.inputShapes[i]); });
        putUnsignedColumn(cols, scratch, 7, w.begin, w.end,
                          [&](std::size_t i) { return str(t.inputTypes[i]); });
        putDeltas(cols, scratch, 8, t.externalId, w.begin, w.end);
        putUnsignedColumn(cols, scratch, 9, w.begin, w.end,
                          [&](std::size_t i) { return std::uint32_t{t.depth[i]}; });
        putLinks(cols, scratch, 10, t.parent, w.begin, w.end, offset(before.cpuOps));
        putUnsignedColumn(cols, scratch, 11, w.begin, w.end,
                          [&](std::size_t i) { return str(t.concreteInputs[i]); });
        endTable(6, 10);
        m_rows.cpuOps += w.end - w.begin;
    }

    // Stack samples (field 24) after the frames and stacks they use (fields 22, 23).
    encodeStacks(model, slice, ids, str, frameDelta, stackDelta);
    if (const Window w = slice.stackSamples; w.end > w.begin) {
        const StackSampleTable& t = model.stackSamples;
        msg.clear();
        TimestampNs prev = 0;
        packVarints(scratch, w.begin, w.end, [&](std::size_t i) {
            const std::uint64_t delta = zigzag(wrapSub(t.timeNs[i], prev));
            prev = t.timeNs[i];
            return delta;
        });
        putPacked(msg, 1, scratch);
        putUnsignedColumn(msg, scratch, 2, w.begin, w.end,
                          [&](std::size_t i) { return thread(t.thread[i]); });
        putUnsignedColumn(msg, scratch, 3, w.begin, w.end, [&](std::size_t i) {
            const StackIndex stack = t.stack[i];
            return stack < ids.stacks.size() && ids.stacks[stack] != kUnsent ? ids.stacks[stack]
                                                                             : ids.unknownStack;
        });
        putLen(samples, 24, msg);
        m_rows.stackSamples += w.end - w.begin;
    }

    if (slice.dimensions) {
        for (const CounterTrack& track : model.counters) {
            auto key = std::make_tuple(track.name, track.unit, track.deviceIndex, track.pid, track.tid);
            auto [it, added] =
                m_counterTracks.emplace(key, static_cast<std::uint32_t>(m_counterTracks.size()));
            if (!added && track.timesNs.empty()) {
                continue;
            }
            msg.clear();
            putUint(msg, 1, it->second);
            if (added) {
                putBytes(msg, 2, track.name);
                putBytes(msg, 3, track.unit);
                putSint(msg, 4, track.deviceIndex);
                putInt(msg, 5, track.pid);
                putInt(msg, 6, track.tid);
            }
            std::size_t n = std::min(track.timesNs.size(), track.values.size());
            TimestampNs prev = 0;
            packVarints(scratch, 0, n, [&](std::size_t i) {
                const std::uint64_t delta = zigzag(wrapSub(track.timesNs[i], prev));
                prev = track.timesNs[i];
                return delta;
            });
            putPacked(msg, 7, scratch);
            packDoubles(scratch, track.values.data(), n);
            putPacked(msg, 8, scratch);
            putLen(counters, 17, msg);
            m_rows.counterSamples += n;
        }
        for (const CollectiveCallRow& call : model.collectiveCalls) {
            msg.clear();
            putInt(msg, 1, call.correlationId);
            putBytes(msg, 2, model.text(call.collectiveName));
            putBytes(msg, 3, model.text(call.processGroupName));
            putBytes(msg, 4, model.text(call.processGroupDescription));
            putBytes(msg, 5, model.text(call.processGroupRanks));
            putBytes(msg, 6, model.text(call.dtype));
            putInt(msg, 7, call.inNelems);
            putInt(msg, 8, call.outNelems);
            putInt(msg, 9, call.groupSize);
            putInt(msg, 10, call.seq);
            putUint(msg, 11, call.commsId);
            putUint(msg, 12, call.hasCommsId ? 1 : 0);
            putLen(collectives, 21, msg);
        }
        for (const TraceStat& stat : model.stats.entries()) {
            msg.clear();
            putBytes(msg, 1, stat.name);
            putUint(msg, 2, enumValue(stat.severity));
            putInt(msg, 3, stat.count);
            putBytes(msg, 4, stat.detail);
            putLen(stats, 18, msg);
        }
    }

    if (m_totalsHint != nullptr) {
        const TraceModel& m = *m_totalsHint;
        CptraceRowCounts totals;
        totals.kernels = m.kernels.size();
        totals.memcpys = m.memcpys.size();
        totals.memsets = m.memsets.size();
        totals.apiCalls = m.apiCalls.size();
        totals.syncs = m.syncs.size();
        totals.ranges = m.ranges.size();
        totals.cpuOps = m.cpuOps.size();
        totals.stackSamples = m.stackSamples.size();
        putLen(hint, 20,
               footerMessage(0, totals, m.strings.size(), m.threads.size(), m.counters.size(),
                             m.stackFrames.size(), m.stackCount()));
        m_totalsHint = nullptr;
    }

    // New strings got consecutive global ids from firstNew on (StringPool assigns ids in order).
    if (m_sentStrings.size() > firstNew) {
        msg.clear();
        putUint(msg, 1, firstNew);
        for (std::size_t id = firstNew; id < m_sentStrings.size(); ++id) {
            putLen(msg, 2, m_sentStrings.view(StringId{static_cast<std::uint32_t>(id)}));
        }
        putLen(strings, 3, msg);
        m_stringsSent = static_cast<std::uint32_t>(m_sentStrings.size());
    }

    std::string head;
    putUint(head, 1, m_chunks);
    putUint(head, 2, totalChunks);
    std::vector<std::string_view> pieces = {head, strings};
    for (int k = 0; k < 7; ++k) {
        if (!tableHeaders[k].empty()) {
            pieces.push_back(tableHeaders[k]);
            pieces.push_back(m_tableColumns[k]);
        }
    }
    for (const std::string* part :
         {&devices, &processes, &threads, &streams, &distributed, &metadata, &counters, &stats, &hint,
          &collectives, &frameDelta, &stackDelta, &samples}) {
        pieces.push_back(*part);
    }
    ++m_chunks;
    return frame(pieces);
}

std::string CptraceChunkEncoder::encodeFooter() {
    using namespace protowire;
    std::string chunk;
    putUint(chunk, 1, m_chunks);
    putLen(chunk, 19,
           footerMessage(m_chunks, m_rows, m_stringsSent, m_threadIndex.size(), m_counterTracks.size(),
                         m_sentFrames.size(), m_sentStacks.size()));
    ++m_chunks;
    return frame(chunk);
}

bool CptraceChunkEncoder::encodeModel(const TraceModel& model, std::size_t rowsPerChunk,
                                      const std::function<bool(std::string_view)>& sink) {
    const std::size_t totalRows = model.kernels.size() + model.memcpys.size() + model.memsets.size() +
                                  model.apiCalls.size() + model.syncs.size() + model.ranges.size() +
                                  model.cpuOps.size() + model.stackSamples.size();
    rowsPerChunk = std::max<std::size_t>(rowsPerChunk, 1);
    const std::size_t chunkCount = std::max<std::size_t>(1, (totalRows + rowsPerChunk - 1) / rowsPerChunk);
    if (!sink(encodeHeader())) {
        return false;
    }
    // Every table is cut in the same proportions, so chunk k covers about the same stretch of time
    // in each (tables are sorted by start), and a truncated file keeps a consistent prefix.
    auto window = [&](std::size_t n, std::size_t k) {
        return Window{n * k / chunkCount, n * (k + 1) / chunkCount};
    };
    ModelIds ids;
    for (std::size_t k = 0; k < chunkCount; ++k) {
        Slice slice;
        slice.kernels = window(model.kernels.size(), k);
        slice.memcpys = window(model.memcpys.size(), k);
        slice.memsets = window(model.memsets.size(), k);
        slice.apiCalls = window(model.apiCalls.size(), k);
        slice.syncs = window(model.syncs.size(), k);
        slice.ranges = window(model.ranges.size(), k);
        slice.cpuOps = window(model.cpuOps.size(), k);
        slice.stackSamples = window(model.stackSamples.size(), k);
        slice.dimensions = k == 0;
        m_totalsHint = k == 0 ? &model : nullptr;
        if (!sink(encodeSlice(model, slice, /*linksAreGlobal=*/true, chunkCount, ids))) {
            return false;
        }
    }
    return sink(encodeFooter());
}

}  // namespace chokepoint::core
