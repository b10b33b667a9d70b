#include "core/format/CptraceChunkEncoder.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

#include "core/format/CptraceFormat.h"
#include "core/format/CptraceWire.h"
#include "proto/cptrace.pb.h"

namespace chokepoint::core {

namespace pb = chokepoint::cptrace;
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

// Fills `out` with value(i) for i in [begin, end), or leaves it empty when every value is 0.
template <class Field, class ValueFn>
void fillColumn(Field* out, std::size_t begin, std::size_t end, ValueFn value) {
    bool any = false;
    for (std::size_t i = begin; i < end && !any; ++i) {
        any = value(i) != 0;
    }
    if (!any) {
        return;
    }
    out->Reserve(static_cast<int>(end - begin));
    for (std::size_t i = begin; i < end; ++i) {
        out->AddAlreadyReserved(value(i));
    }
}

// start_delta and duration columns.
template <class Columns>
void fillTimes(Columns* out, const std::vector<TimestampNs>& startNs, const std::vector<TimestampNs>& endNs,
               std::size_t begin, std::size_t end) {
    auto* starts = out->mutable_start_delta();
    starts->Reserve(static_cast<int>(end - begin));
    TimestampNs prev = 0;
    for (std::size_t i = begin; i < end; ++i) {
        starts->AddAlreadyReserved(wrapSub(startNs[i], prev));
        prev = startNs[i];
    }
    fillColumn(out->mutable_duration(), begin, end,
               [&](std::size_t i) { return wrapSub(endNs[i], startNs[i]); });
}

template <class Field>
void fillDeltas(Field* out, const std::vector<std::int64_t>& values, std::size_t begin, std::size_t end) {
    bool any = false;
    for (std::size_t i = begin; i < end && !any; ++i) {
        any = values[i] != 0;
    }
    if (!any) {
        return;
    }
    out->Reserve(static_cast<int>(end - begin));
    std::int64_t prev = 0;
    for (std::size_t i = begin; i < end; ++i) {
        out->AddAlreadyReserved(wrapSub(values[i], prev));
        prev = values[i];
    }
}

template <class Field, class Id>
void fillLinks(Field* out, const std::vector<Id>& links, std::size_t begin, std::size_t end,
               std::uint64_t offset) {
    bool any = false;
    for (std::size_t i = begin; i < end && !any; ++i) {
        any = links[i].valid();
    }
    if (!any) {
        return;
    }
    out->Reserve(static_cast<int>(end - begin));
    LinkEncoder encoder;
    for (std::size_t i = begin; i < end; ++i) {
        std::optional<std::uint64_t> g;
        if (links[i].valid()) {
            g = std::uint64_t{links[i].index} + offset;
        }
        out->AddAlreadyReserved(encoder.encode(g));
    }
}

template <class Enum>
std::uint32_t enumValue(Enum e) {
    return static_cast<std::uint32_t>(e);
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

std::string CptraceChunkEncoder::encodeChunk(const TraceModel& batch) {
    Slice slice;
    slice.kernels = {0, batch.kernels.size()};
    slice.memcpys = {0, batch.memcpys.size()};
    slice.memsets = {0, batch.memsets.size()};
    slice.apiCalls = {0, batch.apiCalls.size()};
    slice.syncs = {0, batch.syncs.size()};
    slice.ranges = {0, batch.ranges.size()};
    slice.cpuOps = {0, batch.cpuOps.size()};
    std::vector<std::uint32_t> stringCache;
    return encodeSlice(batch, slice, /*linksAreGlobal=*/false, /*totalChunks=*/0, stringCache);
}

std::string CptraceChunkEncoder::encodeSlice(const TraceModel& model, const Slice& slice, bool linksAreGlobal,
                                             std::uint64_t totalChunks,
                                             std::vector<std::uint32_t>& stringCache) {
    pb::Chunk chunk;
    chunk.set_seq(m_chunks);
    chunk.set_total_chunks(totalChunks);

    // Strings: remap the model's ids to global ids, collecting those never sent.
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
            pb::Thread* record = chunk.add_threads();
            record->set_index(global);
            record->set_pid(t.pid);
            record->set_tid(t.tid);
            record->set_name(t.name);
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
        pb::Device* r = chunk.add_devices();
        r->set_device_index(d.deviceIndex);
        r->set_name(d.name);
        r->set_vendor(d.vendor);
        r->set_sm_count(d.smCount);
        r->set_total_memory_bytes(d.totalMemoryBytes);
        r->set_compute_major(d.computeMajor);
        r->set_compute_minor(d.computeMinor);
        r->set_max_threads_per_block(d.maxThreadsPerBlock);
        r->set_max_threads_per_sm(d.maxThreadsPerSm);
        r->set_registers_per_block(d.registersPerBlock);
        r->set_shared_memory_per_block_bytes(d.sharedMemoryPerBlockBytes);
        r->set_l2_cache_bytes(d.l2CacheBytes);
        r->set_warp_size(d.warpSize);
        r->set_core_clock_khz(d.coreClockKhz);
        r->set_memory_clock_khz(d.memoryClockKhz);
        r->set_memory_bus_width_bits(d.memoryBusWidthBits);
    }
    for (const ProcessInfo& p : model.processes) {
        auto it = m_processes.find(p.pid);
        if (it != m_processes.end() && it->second == p.name) {
            continue;
        }
        m_processes[p.pid] = p.name;
        pb::Process* r = chunk.add_processes();
        r->set_pid(p.pid);
        r->set_name(p.name);
    }
    for (const StreamInfo& s : model.streams) {
        auto key = std::make_pair(s.deviceIndex, s.streamId);
        auto it = m_streams.find(key);
        if (it != m_streams.end() && it->second == s.name) {
            continue;
        }
        m_streams[key] = s.name;
        pb::Stream* r = chunk.add_streams();
        r->set_device_index(s.deviceIndex);
        r->set_stream_id(s.streamId);
        r->set_name(s.name);
    }
    // A batch with default distributed info means "unchanged", like metadata below.
    if (!sameDistributed(DistributedInfo{}, model.distributed) &&
        (!m_distributedSent || !sameDistributed(m_distributed, model.distributed))) {
        m_distributed = model.distributed;
        m_distributedSent = true;
        pb::Distributed* r = chunk.mutable_distributed();
        r->set_present(model.distributed.present);
        r->set_rank(model.distributed.rank);
        r->set_world_size(model.distributed.worldSize);
        r->set_backend(model.distributed.backend);
    }
    // A streaming batch with default metadata means "unchanged"; the first non-default one is sent.
    if (!isDefaultMetadata(model.metadata) &&
        (!m_metadataSent || !sameMetadata(m_metadata, model.metadata))) {
        m_metadata = model.metadata;
        m_metadataSent = true;
        const CaptureMetadata& m = model.metadata;
        pb::Metadata* r = chunk.mutable_metadata();
        r->set_source_format(m.sourceFormat);
        r->set_source_path(m.sourcePath);
        r->set_producer(m.producer);
        r->set_host_name(m.hostName);
        r->set_capture_start_unix_ns(m.captureStartUnixNs);
        r->set_synthetic(m.synthetic);
        for (const auto& [key, value] : m.notes) {
            pb::Note* note = r->add_notes();
            note->set_key(key);
            note->set_value(value);
        }
    }

    // Row links: global id = local id + rows of the target table already sent (streaming batches).
    const CptraceRowCounts before = m_rows;
    auto offset = [&](std::uint64_t rowsBefore) { return linksAreGlobal ? 0 : rowsBefore; };

    if (const Window w = slice.kernels; w.end > w.begin) {
        const KernelTable& t = model.kernels;
        pb::KernelColumns* c = chunk.mutable_kernels();
        fillTimes(c, t.startNs, t.endNs, w.begin, w.end);
        fillColumn(c->mutable_device(), w.begin, w.end,
                   [&](std::size_t i) { return std::int32_t{t.deviceIndex[i]}; });
        fillColumn(c->mutable_stream(), w.begin, w.end, [&](std::size_t i) { return t.streamId[i]; });
        fillColumn(c->mutable_name(), w.begin, w.end, [&](std::size_t i) { return str(t.name[i]); });
        fillColumn(c->mutable_grid_x(), w.begin, w.end, [&](std::size_t i) { return t.gridX[i]; });
        fillColumn(c->mutable_grid_y(), w.begin, w.end, [&](std::size_t i) { return t.gridY[i]; });
        fillColumn(c->mutable_grid_z(), w.begin, w.end, [&](std::size_t i) { return t.gridZ[i]; });
        fillColumn(c->mutable_block_x(), w.begin, w.end, [&](std::size_t i) { return t.blockX[i]; });
        fillColumn(c->mutable_block_y(), w.begin, w.end, [&](std::size_t i) { return t.blockY[i]; });
        fillColumn(c->mutable_block_z(), w.begin, w.end, [&](std::size_t i) { return t.blockZ[i]; });
        fillColumn(c->mutable_registers_per_thread(), w.begin, w.end,
                   [&](std::size_t i) { return t.registersPerThread[i]; });
        fillColumn(c->mutable_static_shared_bytes(), w.begin, w.end,
                   [&](std::size_t i) { return t.staticSharedBytes[i]; });
        fillColumn(c->mutable_dynamic_shared_bytes(), w.begin, w.end,
                   [&](std::size_t i) { return t.dynamicSharedBytes[i]; });
        fillDeltas(c->mutable_correlation_delta(), t.correlationId, w.begin, w.end);
        fillLinks(c->mutable_launch_call(), t.launchCall, w.begin, w.end, offset(before.apiCalls));
        m_rows.kernels += w.end - w.begin;
    }
    if (const Window w = slice.memcpys; w.end > w.begin) {
        const MemcpyTable& t = model.memcpys;
        pb::MemcpyColumns* c = chunk.mutable_memcpys();
        fillTimes(c, t.startNs, t.endNs, w.begin, w.end);
        fillColumn(c->mutable_device(), w.begin, w.end,
                   [&](std::size_t i) { return std::int32_t{t.deviceIndex[i]}; });
        fillColumn(c->mutable_stream(), w.begin, w.end, [&](std::size_t i) { return t.streamId[i]; });
        fillColumn(c->mutable_kind(), w.begin, w.end, [&](std::size_t i) { return enumValue(t.kind[i]); });
        fillColumn(c->mutable_src_kind(), w.begin, w.end,
                   [&](std::size_t i) { return enumValue(t.srcKind[i]); });
        fillColumn(c->mutable_dst_kind(), w.begin, w.end,
                   [&](std::size_t i) { return enumValue(t.dstKind[i]); });
        fillColumn(c->mutable_size_bytes(), w.begin, w.end, [&](std::size_t i) { return t.sizeBytes[i]; });
        fillDeltas(c->mutable_correlation_delta(), t.correlationId, w.begin, w.end);
        fillLinks(c->mutable_launch_call(), t.launchCall, w.begin, w.end, offset(before.apiCalls));
        m_rows.memcpys += w.end - w.begin;
    }
    if (const Window w = slice.memsets; w.end > w.begin) {
        const MemsetTable& t = model.memsets;
        pb::MemsetColumns* c = chunk.mutable_memsets();
        fillTimes(c, t.startNs, t.endNs, w.begin, w.end);
        fillColumn(c->mutable_device(), w.begin, w.end,
                   [&](std::size_t i) { return std::int32_t{t.deviceIndex[i]}; });
        fillColumn(c->mutable_stream(), w.begin, w.end, [&](std::size_t i) { return t.streamId[i]; });
        fillColumn(c->mutable_memory_kind(), w.begin, w.end,
                   [&](std::size_t i) { return enumValue(t.memoryKind[i]); });
        fillColumn(c->mutable_size_bytes(), w.begin, w.end, [&](std::size_t i) { return t.sizeBytes[i]; });
        fillDeltas(c->mutable_correlation_delta(), t.correlationId, w.begin, w.end);
        fillLinks(c->mutable_launch_call(), t.launchCall, w.begin, w.end, offset(before.apiCalls));
        m_rows.memsets += w.end - w.begin;
    }
    if (const Window w = slice.apiCalls; w.end > w.begin) {
        const ApiCallTable& t = model.apiCalls;
        pb::ApiCallColumns* c = chunk.mutable_api_calls();
        fillTimes(c, t.startNs, t.endNs, w.begin, w.end);
        fillColumn(c->mutable_thread(), w.begin, w.end, [&](std::size_t i) { return thread(t.thread[i]); });
        fillColumn(c->mutable_name(), w.begin, w.end, [&](std::size_t i) { return str(t.name[i]); });
        fillColumn(c->mutable_domain(), w.begin, w.end,
                   [&](std::size_t i) { return enumValue(t.domain[i]); });
        fillDeltas(c->mutable_correlation_delta(), t.correlationId, w.begin, w.end);
        fillLinks(c->mutable_cpu_op(), t.cpuOp, w.begin, w.end, offset(before.cpuOps));
        m_rows.apiCalls += w.end - w.begin;
    }
    if (const Window w = slice.syncs; w.end > w.begin) {
        const SyncTable& t = model.syncs;
        pb::SyncColumns* c = chunk.mutable_syncs();
        fillTimes(c, t.startNs, t.endNs, w.begin, w.end);
        fillColumn(c->mutable_device(), w.begin, w.end,
                   [&](std::size_t i) { return std::int32_t{t.deviceIndex[i]}; });
        fillColumn(c->mutable_stream(), w.begin, w.end, [&](std::size_t i) { return t.streamId[i]; });
        fillColumn(c->mutable_thread(), w.begin, w.end, [&](std::size_t i) { return thread(t.thread[i]); });
        fillColumn(c->mutable_kind(), w.begin, w.end, [&](std::size_t i) { return enumValue(t.kind[i]); });
        fillDeltas(c->mutable_correlation_delta(), t.correlationId, w.begin, w.end);
        fillLinks(c->mutable_api_call(), t.apiCall, w.begin, w.end, offset(before.apiCalls));
        m_rows.syncs += w.end - w.begin;
    }
    if (const Window w = slice.ranges; w.end > w.begin) {
        const RangeTable& t = model.ranges;
        pb::RangeColumns* c = chunk.mutable_ranges();
        fillTimes(c, t.startNs, t.endNs, w.begin, w.end);
        fillColumn(c->mutable_source(), w.begin, w.end,
                   [&](std::size_t i) { return enumValue(t.source[i]); });
        fillColumn(c->mutable_thread(), w.begin, w.end, [&](std::size_t i) { return thread(t.thread[i]); });
        fillColumn(c->mutable_device(), w.begin, w.end,
                   [&](std::size_t i) { return std::int32_t{t.deviceIndex[i]}; });
        fillColumn(c->mutable_stream(), w.begin, w.end, [&](std::size_t i) { return t.streamId[i]; });
        fillColumn(c->mutable_name(), w.begin, w.end, [&](std::size_t i) { return str(t.name[i]); });
        fillColumn(c->mutable_domain(), w.begin, w.end, [&](std::size_t i) { return str(t.domain[i]); });
        fillColumn(c->mutable_depth(), w.begin, w.end,
                   [&](std::size_t i) { return std::uint32_t{t.depth[i]}; });
        fillLinks(c->mutable_parent(), t.parent, w.begin, w.end, offset(before.ranges));
        m_rows.ranges += w.end - w.begin;
    }
    if (const Window w = slice.cpuOps; w.end > w.begin) {
        const CpuOpTable& t = model.cpuOps;
        pb::CpuOpColumns* c = chunk.mutable_cpu_ops();
        fillTimes(c, t.startNs, t.endNs, w.begin, w.end);
        fillColumn(c->mutable_thread(), w.begin, w.end, [&](std::size_t i) { return thread(t.thread[i]); });
        fillColumn(c->mutable_name(), w.begin, w.end, [&](std::size_t i) { return str(t.name[i]); });
        fillColumn(c->mutable_category(), w.begin, w.end,
                   [&](std::size_t i) { return enumValue(t.category[i]); });
        fillColumn(c->mutable_input_shapes(), w.begin, w.end,
                   [&](std::size_t i) { return str(t.inputShapes[i]); });
        fillColumn(c->mutable_input_types(), w.begin, w.end,
                   [&](std::size_t i) { return str(t.inputTypes[i]); });
        fillDeltas(c->mutable_external_id_delta(), t.externalId, w.begin, w.end);
        fillColumn(c->mutable_depth(), w.begin, w.end,
                   [&](std::size_t i) { return std::uint32_t{t.depth[i]}; });
        fillLinks(c->mutable_parent(), t.parent, w.begin, w.end, offset(before.cpuOps));
        m_rows.cpuOps += w.end - w.begin;
    }

    if (slice.dimensions) {
        for (const CounterTrack& track : model.counters) {
            auto key = std::make_tuple(track.name, track.unit, track.deviceIndex, track.pid, track.tid);
            auto [it, added] =
                m_counterTracks.emplace(key, static_cast<std::uint32_t>(m_counterTracks.size()));
            if (!added && track.timesNs.empty()) {
                continue;
            }
            pb::Counter* r = chunk.add_counters();
            r->set_track(it->second);
            if (added) {
                r->set_name(track.name);
                r->set_unit(track.unit);
                r->set_device_index(track.deviceIndex);
                r->set_pid(track.pid);
                r->set_tid(track.tid);
            }
            std::size_t n = std::min(track.timesNs.size(), track.values.size());
            r->mutable_time_delta()->Reserve(static_cast<int>(n));
            r->mutable_values()->Reserve(static_cast<int>(n));
            TimestampNs prev = 0;
            for (std::size_t i = 0; i < n; ++i) {
                r->add_time_delta(wrapSub(track.timesNs[i], prev));
                prev = track.timesNs[i];
                r->add_values(track.values[i]);
            }
            m_rows.counterSamples += n;
        }
        for (const CollectiveCallRow& call : model.collectiveCalls) {
            pb::CollectiveCall* r = chunk.add_collective_calls();
            r->set_correlation_id(call.correlationId);
            r->set_collective_name(std::string(model.text(call.collectiveName)));
            r->set_process_group_name(std::string(model.text(call.processGroupName)));
            r->set_process_group_description(std::string(model.text(call.processGroupDescription)));
            r->set_process_group_ranks(std::string(model.text(call.processGroupRanks)));
            r->set_dtype(std::string(model.text(call.dtype)));
            r->set_in_nelems(call.inNelems);
            r->set_out_nelems(call.outNelems);
            r->set_group_size(call.groupSize);
        }
        for (const TraceStat& stat : model.stats.entries()) {
            pb::Stat* r = chunk.add_stats();
            r->set_name(stat.name);
            r->set_severity(enumValue(stat.severity));
            r->set_count(stat.count);
            r->set_detail(stat.detail);
        }
    }

    if (m_totalsHint != nullptr) {
        const TraceModel& m = *m_totalsHint;
        pb::Footer* hint = chunk.mutable_totals_hint();
        hint->set_kernels(m.kernels.size());
        hint->set_memcpys(m.memcpys.size());
        hint->set_memsets(m.memsets.size());
        hint->set_api_calls(m.apiCalls.size());
        hint->set_syncs(m.syncs.size());
        hint->set_ranges(m.ranges.size());
        hint->set_cpu_ops(m.cpuOps.size());
        hint->set_strings(m.strings.size());
        hint->set_threads(m.threads.size());
        hint->set_counter_tracks(m.counters.size());
        m_totalsHint = nullptr;
    }

    // New strings got consecutive global ids from firstNew on (StringPool assigns ids in order).
    if (m_sentStrings.size() > firstNew) {
        pb::StringDelta* delta = chunk.mutable_strings();
        delta->set_first_id(firstNew);
        for (std::size_t id = firstNew; id < m_sentStrings.size(); ++id) {
            std::string_view text = m_sentStrings.view(StringId{static_cast<std::uint32_t>(id)});
            delta->add_values(text.data(), text.size());
        }
        m_stringsSent = static_cast<std::uint32_t>(m_sentStrings.size());
    }

    ++m_chunks;
    return frame(chunk.SerializeAsString());
}

std::string CptraceChunkEncoder::encodeFooter() {
    pb::Chunk chunk;
    chunk.set_seq(m_chunks);
    pb::Footer* f = chunk.mutable_footer();
    f->set_chunk_count(m_chunks);
    f->set_kernels(m_rows.kernels);
    f->set_memcpys(m_rows.memcpys);
    f->set_memsets(m_rows.memsets);
    f->set_api_calls(m_rows.apiCalls);
    f->set_syncs(m_rows.syncs);
    f->set_ranges(m_rows.ranges);
    f->set_cpu_ops(m_rows.cpuOps);
    f->set_strings(m_stringsSent);
    f->set_threads(m_threadIndex.size());
    f->set_counter_tracks(m_counterTracks.size());
    f->set_counter_samples(m_rows.counterSamples);
    ++m_chunks;
    return frame(chunk.SerializeAsString());
}

bool CptraceChunkEncoder::encodeModel(const TraceModel& model, std::size_t rowsPerChunk,
                                      const std::function<bool(std::string_view)>& sink) {
    const std::size_t totalRows = model.kernels.size() + model.memcpys.size() + model.memsets.size() +
                                  model.apiCalls.size() + model.syncs.size() + model.ranges.size() +
                                  model.cpuOps.size();
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
    std::vector<std::uint32_t> stringCache;
    for (std::size_t k = 0; k < chunkCount; ++k) {
        Slice slice;
        slice.kernels = window(model.kernels.size(), k);
        slice.memcpys = window(model.memcpys.size(), k);
        slice.memsets = window(model.memsets.size(), k);
        slice.apiCalls = window(model.apiCalls.size(), k);
        slice.syncs = window(model.syncs.size(), k);
        slice.ranges = window(model.ranges.size(), k);
        slice.cpuOps = window(model.cpuOps.size(), k);
        slice.dimensions = k == 0;
        m_totalsHint = k == 0 ? &model : nullptr;
        if (!sink(encodeSlice(model, slice, /*linksAreGlobal=*/true, chunkCount, stringCache))) {
            return false;
        }
    }
    return sink(encodeFooter());
}

}  // namespace chokepoint::core
