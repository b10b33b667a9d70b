#include "core/format/CptraceChunkDecoder.h"

#include <zlib.h>

#include <limits>
#include <type_traits>

#include "core/format/CptraceFormat.h"
#include "core/format/CptraceWire.h"
#include "proto/cptrace.pb.h"

namespace chokepoint::core {

namespace pb = chokepoint::cptrace;
using namespace cptrace_wire;

namespace {

// The first problem found while decoding columns (later ones are ignored).
struct Problem {
    std::string what;
    bool any() const { return !what.empty(); }
    void set(std::string text) {
        if (what.empty()) {
            what = std::move(text);
        }
    }
};

// Checks that a column has either n values or none (none = all default).
template <class Field>
bool columnOk(const Field& column, int n, const char* table, const char* name, Problem& problem) {
    if (column.size() != 0 && column.size() != n) {
        problem.set(std::string(table) + " column " + name + " has " + std::to_string(column.size()) +
                    " values for " + std::to_string(n) + " rows");
        return false;
    }
    return true;
}

template <class Field>
auto at(const Field& column, int i) -> std::remove_cvref_t<decltype(column.Get(0))> {
    return column.empty() ? 0 : column.Get(i);
}

// Reserves every column of every table for the announced totals (capped), so decoding a large file
// does not copy its columns over and over as they grow.
void reserveRows(TraceModel& m, const pb::Footer& hint, std::uint64_t limit) {
    auto n = [limit](std::uint64_t rows) { return static_cast<std::size_t>(std::min(rows, limit)); };
    auto all = [](std::size_t rows, auto&... columns) { (columns.reserve(rows), ...); };
    m.kernels.reserve(n(hint.kernels()));
    MemcpyTable& c = m.memcpys;
    all(n(hint.memcpys()), c.startNs, c.endNs, c.deviceIndex, c.streamId, c.kind, c.srcKind, c.dstKind,
        c.sizeBytes, c.correlationId, c.launchCall);
    MemsetTable& s = m.memsets;
    all(n(hint.memsets()), s.startNs, s.endNs, s.deviceIndex, s.streamId, s.memoryKind, s.sizeBytes,
        s.correlationId, s.launchCall);
    ApiCallTable& a = m.apiCalls;
    all(n(hint.api_calls()), a.startNs, a.endNs, a.thread, a.name, a.domain, a.correlationId, a.cpuOp);
    SyncTable& y = m.syncs;
    all(n(hint.syncs()), y.startNs, y.endNs, y.deviceIndex, y.streamId, y.thread, y.kind, y.correlationId,
        y.apiCall);
    RangeTable& r = m.ranges;
    all(n(hint.ranges()), r.startNs, r.endNs, r.source, r.thread, r.deviceIndex, r.streamId, r.name, r.domain,
        r.depth, r.parent);
    CpuOpTable& o = m.cpuOps;
    all(n(hint.cpu_ops()), o.startNs, o.endNs, o.thread, o.name, o.category, o.inputShapes, o.inputTypes,
        o.concreteInputs, o.externalId, o.depth, o.parent);
    m.stackSamples.reserve(n(hint.stack_samples()));
}

}  // namespace

// Decodes the columns of one chunk into the model. Kept in a class so the per-table code can share
// the string/thread/enum checks.
class ChunkColumnsDecoder {
public:
    ChunkColumnsDecoder(TraceModel& model, const std::vector<StringId>& strings, Problem& problem)
        : m_model(model), m_strings(strings), m_problem(problem) {}

    StringId str(std::uint32_t global, const char* table) {
        if (global >= m_strings.size()) {
            m_problem.set(std::string(table) + ": string id " + std::to_string(global) +
                          " was never defined");
            return StringPool::emptyId();
        }
        return m_strings[global];
    }

    ThreadIndex thread(std::uint32_t wire, const char* table) {
        if (wire == 0) {
            return kNoThread;
        }
        if (wire - 1 >= m_model.threads.size()) {
            m_problem.set(std::string(table) + ": thread " + std::to_string(wire - 1) + " was never defined");
            return kNoThread;
        }
        return wire - 1;
    }

    std::int16_t device(std::int32_t value, const char* table) {
        if (value < std::numeric_limits<std::int16_t>::min() ||
            value > std::numeric_limits<std::int16_t>::max()) {
            m_problem.set(std::string(table) + ": device index " + std::to_string(value) + " out of range");
            return 0;
        }
        return static_cast<std::int16_t>(value);
    }

    template <class Enum>
    Enum enumValue(std::uint32_t value, std::uint32_t maxValue, const char* table, const char* column) {
        if (value > maxValue) {
            m_problem.set(std::string(table) + ": " + column + " value " + std::to_string(value) +
                          " unknown");
            return Enum{};
        }
        return static_cast<Enum>(value);
    }

    std::uint16_t depth(std::uint32_t value, const char* table) {
        if (value > 0xFFFF) {
            m_problem.set(std::string(table) + ": depth " + std::to_string(value) + " out of range");
            return 0;
        }
        return static_cast<std::uint16_t>(value);
    }

    template <class Id>
    Id link(LinkDecoder& decoder, std::uint64_t wire, const char* table) {
        std::optional<std::int64_t> g = decoder.decode(wire);
        if (!g) {
            return Id{};
        }
        if (*g < 0 || *g >= static_cast<std::int64_t>(Id::kInvalid)) {
            m_problem.set(std::string(table) + ": link to row " + std::to_string(*g) + " out of range");
            return Id{};
        }
        return Id{static_cast<std::uint32_t>(*g)};
    }

    void kernels(const pb::KernelColumns& c);
    void memcpys(const pb::MemcpyColumns& c);
    void memsets(const pb::MemsetColumns& c);
    void apiCalls(const pb::ApiCallColumns& c);
    void syncs(const pb::SyncColumns& c);
    void ranges(const pb::RangeColumns& c);
    void cpuOps(const pb::CpuOpColumns& c);
    void frames(const pb::FrameDelta& c);
    void stacks(const pb::StackDelta& c);
    void stackSamples(const pb::StackSampleColumns& c);

private:
    TraceModel& m_model;
    const std::vector<StringId>& m_strings;
    Problem& m_problem;
};

#define CPTRACE_CHECK_COLUMN(table, field) columnOk(c.field(), n, table, #field, m_problem)

void ChunkColumnsDecoder::kernels(const pb::KernelColumns& c) {
    const int n = c.start_delta_size();
    const char* t = "kernels";
    bool ok = CPTRACE_CHECK_COLUMN(t, duration) && CPTRACE_CHECK_COLUMN(t, device) &&
              CPTRACE_CHECK_COLUMN(t, stream) && CPTRACE_CHECK_COLUMN(t, name) &&
              CPTRACE_CHECK_COLUMN(t, grid_x) && CPTRACE_CHECK_COLUMN(t, grid_y) &&
              CPTRACE_CHECK_COLUMN(t, grid_z) && CPTRACE_CHECK_COLUMN(t, block_x) &&
              CPTRACE_CHECK_COLUMN(t, block_y) && CPTRACE_CHECK_COLUMN(t, block_z) &&
              CPTRACE_CHECK_COLUMN(t, registers_per_thread) && CPTRACE_CHECK_COLUMN(t, static_shared_bytes) &&
              CPTRACE_CHECK_COLUMN(t, dynamic_shared_bytes) && CPTRACE_CHECK_COLUMN(t, correlation_delta) &&
              CPTRACE_CHECK_COLUMN(t, launch_call);
    if (!ok) {
        return;
    }
    KernelTable& k = m_model.kernels;
    TimestampNs start = 0;
    std::int64_t correlation = 0;
    LinkDecoder launch;
    for (int i = 0; i < n && !m_problem.any(); ++i) {
        KernelRow r;
        start = wrapAdd(start, c.start_delta(i));
        correlation = wrapAdd(correlation, at(c.correlation_delta(), i));
        r.startNs = start;
        r.endNs = wrapAdd(start, at(c.duration(), i));
        r.deviceIndex = device(at(c.device(), i), t);
        r.streamId = at(c.stream(), i);
        r.name = str(at(c.name(), i), t);
        r.gridX = at(c.grid_x(), i);
        r.gridY = at(c.grid_y(), i);
        r.gridZ = at(c.grid_z(), i);
        r.blockX = at(c.block_x(), i);
        r.blockY = at(c.block_y(), i);
        r.blockZ = at(c.block_z(), i);
        r.registersPerThread = at(c.registers_per_thread(), i);
        r.staticSharedBytes = at(c.static_shared_bytes(), i);
        r.dynamicSharedBytes = at(c.dynamic_shared_bytes(), i);
        r.correlationId = correlation;
        r.launchCall = link<ApiCallId>(launch, at(c.launch_call(), i), t);
        k.add(r);
    }
}

void ChunkColumnsDecoder::memcpys(const pb::MemcpyColumns& c) {
    const int n = c.start_delta_size();
    const char* t = "memcpys";
    bool ok = CPTRACE_CHECK_COLUMN(t, duration) && CPTRACE_CHECK_COLUMN(t, device) &&
              CPTRACE_CHECK_COLUMN(t, stream) && CPTRACE_CHECK_COLUMN(t, kind) &&
              CPTRACE_CHECK_COLUMN(t, src_kind) && CPTRACE_CHECK_COLUMN(t, dst_kind) &&
              CPTRACE_CHECK_COLUMN(t, size_bytes) && CPTRACE_CHECK_COLUMN(t, correlation_delta) &&
              CPTRACE_CHECK_COLUMN(t, launch_call);
    if (!ok) {
        return;
    }
    TimestampNs start = 0;
    std::int64_t correlation = 0;
    LinkDecoder launch;
    for (int i = 0; i < n && !m_problem.any(); ++i) {
        MemcpyRow r;
        start = wrapAdd(start, c.start_delta(i));
        correlation = wrapAdd(correlation, at(c.correlation_delta(), i));
        r.startNs = start;
        r.endNs = wrapAdd(start, at(c.duration(), i));
        r.deviceIndex = device(at(c.device(), i), t);
        r.streamId = at(c.stream(), i);
        r.kind = enumValue<MemcpyKind>(at(c.kind(), i), 5, t, "kind");
        r.srcKind = enumValue<MemoryKind>(at(c.src_kind(), i), 4, t, "src_kind");
        r.dstKind = enumValue<MemoryKind>(at(c.dst_kind(), i), 4, t, "dst_kind");
        r.sizeBytes = at(c.size_bytes(), i);
        r.correlationId = correlation;
        r.launchCall = link<ApiCallId>(launch, at(c.launch_call(), i), t);
        m_model.memcpys.add(r);
    }
}

void ChunkColumnsDecoder::memsets(const pb::MemsetColumns& c) {
    const int n = c.start_delta_size();
    const char* t = "memsets";
    bool ok = CPTRACE_CHECK_COLUMN(t, duration) && CPTRACE_CHECK_COLUMN(t, device) &&
              CPTRACE_CHECK_COLUMN(t, stream) && CPTRACE_CHECK_COLUMN(t, memory_kind) &&
              CPTRACE_CHECK_COLUMN(t, size_bytes) && CPTRACE_CHECK_COLUMN(t, correlation_delta) &&
              CPTRACE_CHECK_COLUMN(t, launch_call);
    if (!ok) {
        return;
    }
    TimestampNs start = 0;
    std::int64_t correlation = 0;
    LinkDecoder launch;
    for (int i = 0; i < n && !m_problem.any(); ++i) {
        MemsetRow r;
        start = wrapAdd(start, c.start_delta(i));
        correlation = wrapAdd(correlation, at(c.correlation_delta(), i));
        r.startNs = start;
        r.endNs = wrapAdd(start, at(c.duration(), i));
        r.deviceIndex = device(at(c.device(), i), t);
        r.streamId = at(c.stream(), i);
        r.memoryKind = enumValue<MemoryKind>(at(c.memory_kind(), i), 4, t, "memory_kind");
        r.sizeBytes = at(c.size_bytes(), i);
        r.correlationId = correlation;
        r.launchCall = link<ApiCallId>(launch, at(c.launch_call(), i), t);
        m_model.memsets.add(r);
    }
}

void ChunkColumnsDecoder::apiCalls(const pb::ApiCallColumns& c) {
    const int n = c.start_delta_size();
    const char* t = "api_calls";
    bool ok = CPTRACE_CHECK_COLUMN(t, duration) && CPTRACE_CHECK_COLUMN(t, thread) &&
              CPTRACE_CHECK_COLUMN(t, name) && CPTRACE_CHECK_COLUMN(t, domain) &&
              CPTRACE_CHECK_COLUMN(t, correlation_delta) && CPTRACE_CHECK_COLUMN(t, cpu_op);
    if (!ok) {
        return;
    }
    TimestampNs start = 0;
    std::int64_t correlation = 0;
    LinkDecoder op;
    for (int i = 0; i < n && !m_problem.any(); ++i) {
        ApiCallRow r;
        start = wrapAdd(start, c.start_delta(i));
        correlation = wrapAdd(correlation, at(c.correlation_delta(), i));
        r.startNs = start;
        r.endNs = wrapAdd(start, at(c.duration(), i));
        r.thread = thread(at(c.thread(), i), t);
        r.name = str(at(c.name(), i), t);
        r.domain = enumValue<ApiDomain>(at(c.domain(), i), 2, t, "domain");
        r.correlationId = correlation;
        r.cpuOp = link<CpuOpId>(op, at(c.cpu_op(), i), t);
        m_model.apiCalls.add(r);
    }
}

void ChunkColumnsDecoder::syncs(const pb::SyncColumns& c) {
    const int n = c.start_delta_size();
    const char* t = "syncs";
    bool ok = CPTRACE_CHECK_COLUMN(t, duration) && CPTRACE_CHECK_COLUMN(t, device) &&
              CPTRACE_CHECK_COLUMN(t, stream) && CPTRACE_CHECK_COLUMN(t, thread) &&
              CPTRACE_CHECK_COLUMN(t, kind) && CPTRACE_CHECK_COLUMN(t, correlation_delta) &&
              CPTRACE_CHECK_COLUMN(t, api_call);
    if (!ok) {
        return;
    }
    TimestampNs start = 0;
    std::int64_t correlation = 0;
    LinkDecoder call;
    for (int i = 0; i < n && !m_problem.any(); ++i) {
        SyncRow r;
        start = wrapAdd(start, c.start_delta(i));
        correlation = wrapAdd(correlation, at(c.correlation_delta(), i));
        r.startNs = start;
        r.endNs = wrapAdd(start, at(c.duration(), i));
        r.deviceIndex = device(at(c.device(), i), t);
        r.streamId = at(c.stream(), i);
        r.thread = thread(at(c.thread(), i), t);
        r.kind = enumValue<SyncKind>(at(c.kind(), i), 4, t, "kind");
        r.correlationId = correlation;
        r.apiCall = link<ApiCallId>(call, at(c.api_call(), i), t);
        m_model.syncs.add(r);
    }
}

void ChunkColumnsDecoder::ranges(const pb::RangeColumns& c) {
    const int n = c.start_delta_size();
    const char* t = "ranges";
    bool ok = CPTRACE_CHECK_COLUMN(t, duration) && CPTRACE_CHECK_COLUMN(t, source) &&
              CPTRACE_CHECK_COLUMN(t, thread) && CPTRACE_CHECK_COLUMN(t, device) &&
              CPTRACE_CHECK_COLUMN(t, stream) && CPTRACE_CHECK_COLUMN(t, name) &&
              CPTRACE_CHECK_COLUMN(t, domain) && CPTRACE_CHECK_COLUMN(t, depth) &&
              CPTRACE_CHECK_COLUMN(t, parent);
    if (!ok) {
        return;
    }
    TimestampNs start = 0;
    LinkDecoder parent;
    for (int i = 0; i < n && !m_problem.any(); ++i) {
        RangeRow r;
        start = wrapAdd(start, c.start_delta(i));
        r.startNs = start;
        r.endNs = wrapAdd(start, at(c.duration(), i));
        r.source = enumValue<RangeSource>(at(c.source(), i), 2, t, "source");
        r.thread = thread(at(c.thread(), i), t);
        r.deviceIndex = device(at(c.device(), i), t);
        r.streamId = at(c.stream(), i);
        r.name = str(at(c.name(), i), t);
        r.domain = str(at(c.domain(), i), t);
        r.depth = depth(at(c.depth(), i), t);
        r.parent = link<RangeId>(parent, at(c.parent(), i), t);
        m_model.ranges.add(r);
    }
}

void ChunkColumnsDecoder::cpuOps(const pb::CpuOpColumns& c) {
    const int n = c.start_delta_size();
    const char* t = "cpu_ops";
    bool ok = CPTRACE_CHECK_COLUMN(t, duration) && CPTRACE_CHECK_COLUMN(t, thread) &&
              CPTRACE_CHECK_COLUMN(t, name) && CPTRACE_CHECK_COLUMN(t, category) &&
              CPTRACE_CHECK_COLUMN(t, input_shapes) && CPTRACE_CHECK_COLUMN(t, input_types) &&
              CPTRACE_CHECK_COLUMN(t, external_id_delta) && CPTRACE_CHECK_COLUMN(t, depth) &&
              CPTRACE_CHECK_COLUMN(t, parent) && CPTRACE_CHECK_COLUMN(t, concrete_inputs);
    if (!ok) {
        return;
    }
    TimestampNs start = 0;
    std::int64_t external = 0;
    LinkDecoder parent;
    for (int i = 0; i < n && !m_problem.any(); ++i) {
        CpuOpRow r;
        start = wrapAdd(start, c.start_delta(i));
        external = wrapAdd(external, at(c.external_id_delta(), i));
        r.startNs = start;
        r.endNs = wrapAdd(start, at(c.duration(), i));
        r.thread = thread(at(c.thread(), i), t);
        r.name = str(at(c.name(), i), t);
        r.category = enumValue<CpuOpCategory>(at(c.category(), i), 2, t, "category");
        r.inputShapes = str(at(c.input_shapes(), i), t);
        r.inputTypes = str(at(c.input_types(), i), t);
        r.concreteInputs = str(at(c.concrete_inputs(), i), t);
        r.externalId = external;
        r.depth = depth(at(c.depth(), i), t);
        r.parent = link<CpuOpId>(parent, at(c.parent(), i), t);
        m_model.cpuOps.add(r);
    }
}

void ChunkColumnsDecoder::frames(const pb::FrameDelta& c) {
    const int n = c.function_size();
    const char* t = "stack frames";
    if (!CPTRACE_CHECK_COLUMN(t, file) || !CPTRACE_CHECK_COLUMN(t, line)) {
        return;
    }
    if (c.first_id() != m_model.stackFrames.size()) {
        m_problem.set(std::string(t) + ": ids start at " + std::to_string(c.first_id()) + ", expected " +
                      std::to_string(m_model.stackFrames.size()));
        return;
    }
    for (int i = 0; i < n && !m_problem.any(); ++i) {
        m_model.stackFrames.push_back(
            StackFrame{str(at(c.file(), i), t), str(c.function(i), t), at(c.line(), i)});
    }
}

void ChunkColumnsDecoder::stacks(const pb::StackDelta& c) {
    const char* t = "stacks";
    if (c.first_id() != m_model.stackCount()) {
        m_problem.set(std::string(t) + ": ids start at " + std::to_string(c.first_id()) + ", expected " +
                      std::to_string(m_model.stackCount()));
        return;
    }
    std::uint64_t total = 0;
    for (std::uint32_t depth : c.depth()) {
        total += depth;
    }
    if (total != static_cast<std::uint64_t>(c.frames_size())) {
        m_problem.set(std::string(t) + ": depths add up to " + std::to_string(total) +
                      " frames, the chunk holds " + std::to_string(c.frames_size()));
        return;
    }
    if (m_model.stackFrameIds.size() + total > std::numeric_limits<std::uint32_t>::max()) {
        m_problem.set(std::string(t) + ": more than 2^32 frame references in all");
        return;
    }
    const std::size_t frameCount = m_model.stackFrames.size();
    for (std::uint32_t frame : c.frames()) {
        if (frame >= frameCount) {
            m_problem.set(std::string(t) + ": frame " + std::to_string(frame) + " was never defined");
            return;
        }
    }
    m_model.stackFrameIds.insert(m_model.stackFrameIds.end(), c.frames().begin(), c.frames().end());
    if (m_model.stackOffsets.empty()) {
        m_model.stackOffsets.push_back(0);
    }
    std::uint32_t end = m_model.stackOffsets.back();
    for (std::uint32_t depth : c.depth()) {
        end += depth;
        m_model.stackOffsets.push_back(end);
    }
}

void ChunkColumnsDecoder::stackSamples(const pb::StackSampleColumns& c) {
    const int n = c.time_delta_size();
    const char* t = "stack samples";
    if (!CPTRACE_CHECK_COLUMN(t, thread) || !CPTRACE_CHECK_COLUMN(t, stack)) {
        return;
    }
    const std::size_t stackCount = m_model.stackCount();
    TimestampNs time = 0;
    for (int i = 0; i < n && !m_problem.any(); ++i) {
        time = wrapAdd(time, c.time_delta(i));
        const std::uint32_t stack = at(c.stack(), i);
        if (stack >= stackCount) {
            m_problem.set(std::string(t) + ": stack " + std::to_string(stack) + " was never defined");
            return;
        }
        m_model.stackSamples.add(StackSampleRow{time, thread(at(c.thread(), i), t), stack});
    }
}

#undef CPTRACE_CHECK_COLUMN

CptraceChunkDecoder::CptraceChunkDecoder(TraceModel& target, std::string_view sourceName,
                                         CptraceDecoderOptions options)
    : m_model(target), m_source(sourceName), m_options(options) {
    m_strings.push_back(StringPool::emptyId());
    m_headerSeen = !options.expectHeader;
}

CptraceChunkDecoder::~CptraceChunkDecoder() = default;

Status CptraceChunkDecoder::fail(std::uint64_t offset, const std::string& what) {
    m_failed = true;
    m_error = m_source + ": byte " + std::to_string(offset) + ": " + what;
    return makeError(m_error);
}

Status CptraceChunkDecoder::feed(std::string_view bytes) {
    if (m_failed) {
        return makeError(m_error);
    }
    if (m_pending.empty()) {
        Result<std::size_t> used = consume(bytes);
        if (!used) {
            return used.error();
        }
        m_pending.assign(bytes.substr(used.value()));
        return Ok{};
    }
    m_pending.append(bytes);
    Result<std::size_t> used = consume(m_pending);
    if (!used) {
        return used.error();
    }
    m_pending.erase(0, used.value());
    return Ok{};
}

Result<std::size_t> CptraceChunkDecoder::consume(std::string_view data) {
    std::size_t pos = 0;
    if (!m_headerSeen) {
        // Reject a wrong magic as soon as the bytes that differ arrive.
        std::size_t have = std::min(data.size(), kCptraceMagicSize);
        if (data.substr(0, have) != std::string_view(kCptraceMagic, have)) {
            return fail(0, "not a .cptrace file (wrong magic bytes)").error();
        }
        if (data.size() < kCptraceHeaderSize) {
            return std::size_t{0};
        }
        std::uint32_t major = readU32Le(data.data() + 8);
        std::uint32_t minor = readU32Le(data.data() + 12);
        if (major != kCptraceVersionMajor) {
            return fail(8, "format version " + std::to_string(major) + "." + std::to_string(minor) +
                               " is not supported (this build reads " + std::to_string(kCptraceVersionMajor) +
                               ".x); " +
                               (major > kCptraceVersionMajor ? "a newer Chokepoint wrote it" : "corrupt"))
                .error();
        }
        m_headerSeen = true;
        m_offset = kCptraceHeaderSize;
        pos = kCptraceHeaderSize;
    }
    while (pos < data.size()) {
        const std::uint64_t frameOffset = m_offset;
        std::size_t p = pos;
        std::uint64_t bodyBytes = 0;
        VarintStatus vs = readVarint(data, p, bodyBytes);
        if (vs == VarintStatus::NeedMore) {
            break;
        }
        if (vs == VarintStatus::Malformed) {
            return fail(frameOffset, "chunk " + std::to_string(m_chunks) + ": malformed length prefix")
                .error();
        }
        if (bodyBytes > kCptraceMaxFrameBytes) {
            return fail(frameOffset, "chunk " + std::to_string(m_chunks) + ": length " +
                                         std::to_string(bodyBytes) + " exceeds the limit of " +
                                         std::to_string(kCptraceMaxFrameBytes) + " bytes")
                .error();
        }
        if (bodyBytes < 5) {
            return fail(frameOffset, "chunk " + std::to_string(m_chunks) + ": length " +
                                         std::to_string(bodyBytes) + " is too short for a chunk")
                .error();
        }
        if (data.size() - p < bodyBytes) {
            break;  // incomplete frame: wait for more bytes (or a torn tail)
        }
        if (m_footerSeen) {
            return fail(frameOffset, "data after the footer chunk").error();
        }
        std::string_view body = data.substr(p, static_cast<std::size_t>(bodyBytes));
        std::uint32_t storedCrc = readU32Le(body.data());
        auto crc = static_cast<std::uint32_t>(
            crc32(0L, reinterpret_cast<const Bytef*>(body.data() + 4), static_cast<uInt>(body.size() - 4)));
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
        if (crc != storedCrc) {
            return fail(frameOffset, "chunk " + std::to_string(m_chunks) + ": CRC mismatch (corrupt data)")
                .error();
        }
#else
        // The fuzzer mutates chunk contents; checking the CRC would stop every mutation at the door.
        (void)crc;
        (void)storedCrc;
#endif
        auto encoding = static_cast<std::uint8_t>(body[4]);
        std::string_view payload = body.substr(5);
        if (encoding == static_cast<std::uint8_t>(CptraceChunkEncoding::ZlibProtobuf)) {
            std::size_t q = 0;
            std::uint64_t rawBytes = 0;
            if (readVarint(payload, q, rawBytes) != VarintStatus::Ok) {
                return fail(frameOffset, "chunk " + std::to_string(m_chunks) + ": malformed raw length")
                    .error();
            }
            payload = payload.substr(q);
            if (rawBytes > kCptraceMaxRawChunkBytes ||
                rawBytes > payload.size() * kCptraceMaxInflateRatio + 64) {
                return fail(frameOffset, "chunk " + std::to_string(m_chunks) + ": claimed size " +
                                             std::to_string(rawBytes) + " is implausible")
                    .error();
            }
            m_scratch.resize(static_cast<std::size_t>(rawBytes));
            uLongf outBytes = static_cast<uLongf>(rawBytes);
            int rc = uncompress(reinterpret_cast<Bytef*>(m_scratch.data()), &outBytes,
                                reinterpret_cast<const Bytef*>(payload.data()),
                                static_cast<uLong>(payload.size()));
            if (rc != Z_OK || outBytes != rawBytes) {
                return fail(frameOffset, "chunk " + std::to_string(m_chunks) + ": zlib data is corrupt")
                    .error();
            }
            payload = std::string_view(m_scratch.data(), static_cast<std::size_t>(rawBytes));
        } else if (encoding != static_cast<std::uint8_t>(CptraceChunkEncoding::Protobuf)) {
            return fail(frameOffset, "chunk " + std::to_string(m_chunks) + ": unknown encoding " +
                                         std::to_string(encoding))
                .error();
        }
        if (Status s = decodePayload(payload, frameOffset); !s) {
            return s.error();
        }
        const std::size_t frameEnd = p + static_cast<std::size_t>(bodyBytes);
        m_offset = frameOffset + (frameEnd - pos);
        pos = frameEnd;
    }
    return pos;
}

Status CptraceChunkDecoder::decodePayload(std::string_view payload, std::uint64_t frameOffset) {
    if (!m_message) {
        m_message = std::make_unique<pb::Chunk>();
    }
    pb::Chunk& chunk = *m_message;
    const std::string where = "chunk " + std::to_string(m_chunks);
    if (payload.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
        !chunk.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
        return fail(frameOffset, where + ": not a valid Chunk message");
    }
    if (chunk.seq() != m_chunks) {
        return fail(frameOffset,
                    where + ": sequence number " + std::to_string(chunk.seq()) + " out of order");
    }
    if (chunk.total_chunks() != 0) {
        m_expectedChunks = chunk.total_chunks();
    }
    if (chunk.has_totals_hint() && m_options.reserveLimitRows > 0) {
        reserveRows(m_model, chunk.totals_hint(), m_options.reserveLimitRows);
    }
    if (chunk.has_strings()) {
        const pb::StringDelta& delta = chunk.strings();
        if (delta.first_id() != m_strings.size()) {
            return fail(frameOffset, where + ": string ids start at " + std::to_string(delta.first_id()) +
                                         ", expected " + std::to_string(m_strings.size()));
        }
        for (const std::string& text : delta.values()) {
            m_strings.push_back(m_model.strings.intern(text));
        }
    }
    for (const pb::Thread& t : chunk.threads()) {
        if (t.index() == m_model.threads.size()) {
            m_model.threads.push_back(ThreadInfo{t.pid(), t.tid(), t.name()});
        } else if (t.index() < m_model.threads.size()) {
            m_model.threads[t.index()].name = t.name();
        } else {
            return fail(frameOffset, where + ": thread index " + std::to_string(t.index()) + " skips ahead");
        }
    }
    for (const pb::Device& r : chunk.devices()) {
        DeviceInfo& d = m_model.deviceOrAdd(r.device_index());
        d.name = r.name();
        d.vendor = r.vendor();
        d.smCount = r.sm_count();
        d.totalMemoryBytes = r.total_memory_bytes();
        d.computeMajor = r.compute_major();
        d.computeMinor = r.compute_minor();
        d.maxThreadsPerBlock = r.max_threads_per_block();
        d.maxThreadsPerSm = r.max_threads_per_sm();
        d.registersPerBlock = r.registers_per_block();
        d.sharedMemoryPerBlockBytes = r.shared_memory_per_block_bytes();
        d.l2CacheBytes = r.l2_cache_bytes();
        d.warpSize = r.warp_size();
        d.coreClockKhz = r.core_clock_khz();
        d.memoryClockKhz = r.memory_clock_khz();
        d.memoryBusWidthBits = r.memory_bus_width_bits();
    }
    for (const pb::Process& r : chunk.processes()) {
        bool found = false;
        for (ProcessInfo& p : m_model.processes) {
            if (p.pid == r.pid()) {
                p.name = r.name();
                found = true;
                break;
            }
        }
        if (!found) {
            m_model.processes.push_back(ProcessInfo{r.pid(), r.name()});
        }
    }
    for (const pb::Stream& r : chunk.streams()) {
        m_model.streams[m_model.streamIndex(r.device_index(), r.stream_id())].name = r.name();
    }
    for (const pb::CollectiveCall& r : chunk.collective_calls()) {
        CollectiveCallRow call;
        call.correlationId = r.correlation_id();
        call.collectiveName = m_model.intern(r.collective_name());
        call.processGroupName = m_model.intern(r.process_group_name());
        call.processGroupDescription = m_model.intern(r.process_group_description());
        call.processGroupRanks = m_model.intern(r.process_group_ranks());
        call.dtype = m_model.intern(r.dtype());
        call.inNelems = r.in_nelems();
        call.outNelems = r.out_nelems();
        call.groupSize = r.group_size();
        call.hasCommsId = r.has_comms_id();
        call.commsId = r.comms_id();
        call.seq = r.has_comms_id() ? r.seq() : -1;  // files before field 10 read 0: not a seq
        m_model.collectiveCalls.push_back(call);
    }
    if (chunk.has_distributed()) {
        const pb::Distributed& r = chunk.distributed();
        m_model.distributed = DistributedInfo{r.present(), r.rank(), r.world_size(), r.backend()};
    }
    if (chunk.has_metadata()) {
        const pb::Metadata& r = chunk.metadata();
        CaptureMetadata& m = m_model.metadata;
        m.sourceFormat = r.source_format();
        m.sourcePath = r.source_path();
        m.producer = r.producer();
        m.hostName = r.host_name();
        m.captureStartUnixNs = r.capture_start_unix_ns();
        m.synthetic = r.synthetic();
        m.notes.clear();
        for (const pb::Note& note : r.notes()) {
            m.notes.emplace_back(note.key(), note.value());
        }
    }

    Problem problem;
    ChunkColumnsDecoder columns(m_model, m_strings, problem);
    if (chunk.has_kernels()) {
        columns.kernels(chunk.kernels());
    }
    if (chunk.has_memcpys() && !problem.any()) {
        columns.memcpys(chunk.memcpys());
    }
    if (chunk.has_memsets() && !problem.any()) {
        columns.memsets(chunk.memsets());
    }
    if (chunk.has_api_calls() && !problem.any()) {
        columns.apiCalls(chunk.api_calls());
    }
    if (chunk.has_syncs() && !problem.any()) {
        columns.syncs(chunk.syncs());
    }
    if (chunk.has_ranges() && !problem.any()) {
        columns.ranges(chunk.ranges());
    }
    if (chunk.has_cpu_ops() && !problem.any()) {
        columns.cpuOps(chunk.cpu_ops());
    }
    if (chunk.has_frames() && !problem.any()) {
        columns.frames(chunk.frames());
    }
    if (chunk.has_stacks() && !problem.any()) {
        columns.stacks(chunk.stacks());
    }
    if (chunk.has_stack_samples() && !problem.any()) {
        columns.stackSamples(chunk.stack_samples());
    }
    if (problem.any()) {
        return fail(frameOffset, where + ": " + problem.what);
    }

    for (const pb::Counter& r : chunk.counters()) {
        if (r.time_delta_size() != r.values_size()) {
            return fail(frameOffset, where + ": counter track " + std::to_string(r.track()) + " has " +
                                         std::to_string(r.time_delta_size()) + " times but " +
                                         std::to_string(r.values_size()) + " values");
        }
        if (r.track() == m_counterTrack.size()) {
            CounterTrack track;
            track.name = r.name();
            track.unit = r.unit();
            if (r.device_index() < std::numeric_limits<std::int16_t>::min() ||
                r.device_index() > std::numeric_limits<std::int16_t>::max()) {
                return fail(frameOffset, where + ": counter device index out of range");
            }
            track.deviceIndex = static_cast<std::int16_t>(r.device_index());
            track.pid = r.pid();
            track.tid = r.tid();
            m_counterTrack.push_back(static_cast<std::uint32_t>(m_model.counters.size()));
            m_model.counters.push_back(std::move(track));
        } else if (r.track() > m_counterTrack.size()) {
            return fail(frameOffset, where + ": counter track " + std::to_string(r.track()) + " skips ahead");
        }
        CounterTrack& track = m_model.counters[m_counterTrack[r.track()]];
        TimestampNs t = 0;
        for (int i = 0; i < r.time_delta_size(); ++i) {
            t = wrapAdd(t, r.time_delta(i));
            track.timesNs.push_back(t);
            track.values.push_back(r.values(i));
        }
    }
    for (const pb::Stat& r : chunk.stats()) {
        if (r.severity() > static_cast<std::uint32_t>(Severity::Error)) {
            return fail(frameOffset, where + ": stat '" + r.name() + "' has unknown severity");
        }
        m_storedStats.add(r.name(), static_cast<Severity>(r.severity()), r.count(), r.detail());
    }
    if (chunk.has_footer()) {
        const pb::Footer& f = chunk.footer();
        m_footerSeen = true;
        m_footerChunks = f.chunk_count();
        m_footerRows =
            CptraceRowCounts{f.kernels(), f.memcpys(), f.memsets(),         f.api_calls(),    f.syncs(),
                             f.ranges(),  f.cpu_ops(), f.counter_samples(), f.stack_samples()};
        if (f.chunk_count() != m_chunks) {
            return fail(frameOffset, "footer says the file has " + std::to_string(f.chunk_count()) +
                                         " chunks before it, but " + std::to_string(m_chunks) + " were read");
        }
        auto mismatch = [](const char* what, std::uint64_t expected, std::size_t got) {
            return std::string("footer says ") + std::to_string(expected) + " " + what + ", the file holds " +
                   std::to_string(got);
        };
        const TraceModel& m = m_model;
        std::uint64_t samples = 0;
        for (const CounterTrack& track : m.counters) {
            samples += track.timesNs.size();
        }
        std::string bad;
        if (f.kernels() != m.kernels.size()) {
            bad = mismatch("kernels", f.kernels(), m.kernels.size());
        } else if (f.memcpys() != m.memcpys.size()) {
            bad = mismatch("memcpys", f.memcpys(), m.memcpys.size());
        } else if (f.memsets() != m.memsets.size()) {
            bad = mismatch("memsets", f.memsets(), m.memsets.size());
        } else if (f.api_calls() != m.apiCalls.size()) {
            bad = mismatch("API calls", f.api_calls(), m.apiCalls.size());
        } else if (f.syncs() != m.syncs.size()) {
            bad = mismatch("syncs", f.syncs(), m.syncs.size());
        } else if (f.ranges() != m.ranges.size()) {
            bad = mismatch("ranges", f.ranges(), m.ranges.size());
        } else if (f.cpu_ops() != m.cpuOps.size()) {
            bad = mismatch("CPU ops", f.cpu_ops(), m.cpuOps.size());
        } else if (f.strings() != m_strings.size()) {
            bad = mismatch("strings", f.strings(), m_strings.size());
        } else if (f.threads() != m.threads.size()) {
            bad = mismatch("threads", f.threads(), m.threads.size());
        } else if (f.counter_tracks() != m.counters.size()) {
            bad = mismatch("counter tracks", f.counter_tracks(), m.counters.size());
        } else if (f.counter_samples() != samples) {
            bad = mismatch("counter samples", f.counter_samples(), static_cast<std::size_t>(samples));
        } else if (f.stack_frames() != m.stackFrames.size()) {
            bad = mismatch("stack frames", f.stack_frames(), m.stackFrames.size());
        } else if (f.stacks() != m.stackCount()) {
            bad = mismatch("stacks", f.stacks(), m.stackCount());
        } else if (f.stack_samples() != m.stackSamples.size()) {
            bad = mismatch("stack samples", f.stack_samples(), m.stackSamples.size());
        }
        if (!bad.empty()) {
            return fail(frameOffset, bad);
        }
    }
    ++m_chunks;
    return Ok{};
}

Status CptraceChunkDecoder::finish() {
    if (m_failed) {
        return makeError(m_error);
    }
    if (!m_headerSeen) {
        return makeError(m_source + ": byte " + std::to_string(m_pending.size()) +
                         (m_pending.empty() ? ": empty file, no .cptrace header"
                                            : ": the file ends inside the 16-byte .cptrace header"));
    }
    if (!m_footerSeen || !m_pending.empty()) {
        std::string detail = "the file ends early at byte " + std::to_string(m_offset + m_pending.size()) +
                             ": " + std::to_string(m_chunks) + " of " +
                             (m_expectedChunks ? std::to_string(m_expectedChunks) : std::string("?")) +
                             " chunks read";
        if (!m_pending.empty()) {
            detail += ", " + std::to_string(m_pending.size()) + " bytes of a partial chunk dropped";
        }
        m_model.stats.add("format.truncated_tail", Severity::DataLoss, 1, detail);
    }
    // Links to rows that never arrived (a torn file, or a batch that pointed past its own rows).
    std::int64_t dangling = 0;
    auto check = [&dangling](auto& column, std::size_t targetRows) {
        for (auto& id : column) {
            if (id.valid() && id.index >= targetRows) {
                id = std::remove_reference_t<decltype(id)>{};
                ++dangling;
            }
        }
    };
    check(m_model.kernels.launchCall, m_model.apiCalls.size());
    check(m_model.memcpys.launchCall, m_model.apiCalls.size());
    check(m_model.memsets.launchCall, m_model.apiCalls.size());
    check(m_model.syncs.apiCall, m_model.apiCalls.size());
    check(m_model.apiCalls.cpuOp, m_model.cpuOps.size());
    check(m_model.ranges.parent, m_model.ranges.size());
    check(m_model.cpuOps.parent, m_model.cpuOps.size());
    if (dangling > 0) {
        m_model.stats.add("format.dangling_link", Severity::Warning, dangling,
                          "links to rows that are not in the file were cleared");
    }
    return Ok{};
}

}  // namespace chokepoint::core
