#include "core/import/KinetoModelBuilder.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/model/PmMetricNames.h"
#include "core/names/NameRules.h"

namespace chokepoint::core {

namespace {

char lower(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// Case-insensitive equality against a lower-case literal.
bool equalsLower(std::string_view text, std::string_view lowerLiteral) {
    if (text.size() != lowerLiteral.size()) {
        return false;
    }
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (lower(text[i]) != lowerLiteral[i]) {
            return false;
        }
    }
    return true;
}

// Parses "123", "-5" or a trailing number ("stream 7") from a text id; false when there is none.
bool numberInText(std::string_view text, std::int64_t& out, bool allowTrailing) {
    std::size_t start = 0;
    if (allowTrailing) {
        std::size_t end = text.size();
        while (end > 0 && text[end - 1] >= '0' && text[end - 1] <= '9') {
            --end;
        }
        start = end;
        if (start == text.size()) {
            return false;
        }
    }
    bool negative = false;
    if (!allowTrailing && start < text.size() && text[start] == '-') {
        negative = true;
        ++start;
    }
    if (start >= text.size() || text.size() - start > 18) {
        return false;
    }
    std::int64_t value = 0;
    for (std::size_t i = start; i < text.size(); ++i) {
        if (text[i] < '0' || text[i] > '9') {
            return false;
        }
        value = value * 10 + (text[i] - '0');
    }
    out = negative ? -value : value;
    return true;
}

// "Memcpy HtoD (Pageable -> Device)": the direction token after "Memcpy ".
MemcpyKind memcpyKindFromText(std::string_view text) {
    auto has = [&](std::string_view token) { return text.find(token) != std::string_view::npos; };
    if (has("HtoD")) {
        return MemcpyKind::HostToDevice;
    }
    if (has("DtoH")) {
        return MemcpyKind::DeviceToHost;
    }
    if (has("DtoD")) {
        return MemcpyKind::DeviceToDevice;
    }
    if (has("PtoP")) {
        return MemcpyKind::PeerToPeer;
    }
    if (has("HtoH")) {
        return MemcpyKind::HostToHost;
    }
    return MemcpyKind::Unknown;
}

MemoryKind memoryKindFromWord(std::string_view word) {
    if (word == "Pageable") {
        return MemoryKind::Pageable;
    }
    if (word == "Pinned") {
        return MemoryKind::Pinned;
    }
    if (word == "Device") {
        return MemoryKind::Device;
    }
    if (word == "Managed") {
        return MemoryKind::Managed;
    }
    return MemoryKind::Unknown;  // "Host" (AMD) does not say pageable or pinned
}

std::string_view trimSpaces(std::string_view text) {
    while (!text.empty() && text.front() == ' ') {
        text.remove_prefix(1);
    }
    while (!text.empty() && text.back() == ' ') {
        text.remove_suffix(1);
    }
    return text;
}

// "(Pageable -> Device)" -> {Pageable, Device}; "(Device)" -> {Device, Device}.
std::pair<MemoryKind, MemoryKind> memoryKindsFromName(std::string_view name) {
    std::size_t open = name.find('(');
    std::size_t close = name.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
        return {MemoryKind::Unknown, MemoryKind::Unknown};
    }
    std::string_view inner = name.substr(open + 1, close - open - 1);
    std::size_t arrow = inner.find("->");
    if (arrow == std::string_view::npos) {
        MemoryKind k = memoryKindFromWord(trimSpaces(inner));
        return {k, k};
    }
    return {memoryKindFromWord(trimSpaces(inner.substr(0, arrow))),
            memoryKindFromWord(trimSpaces(inner.substr(arrow + 2)))};
}

// Runtime/driver calls that make the host wait, by name (CUDA runtime, driver and HIP).
SyncKind syncKindFromApiName(std::string_view name) {
    if (name.size() < 4) {
        return SyncKind::Unknown;
    }
    std::string_view base;
    if (name.starts_with("cuda") || name.starts_with("hip")) {
        base = name.substr(name[0] == 'c' ? 4 : 3);
    } else if (name.starts_with("cu")) {
        base = name.substr(2);
    } else {
        return SyncKind::Unknown;
    }
    if (base == "DeviceSynchronize" || base == "CtxSynchronize" || base == "ThreadSynchronize") {
        return SyncKind::DeviceSynchronize;
    }
    if (base == "StreamSynchronize") {
        return SyncKind::StreamSynchronize;
    }
    if (base == "EventSynchronize") {
        return SyncKind::EventSynchronize;
    }
    if (base == "StreamWaitEvent" || base == "StreamWaitEvent_ptsz") {
        return SyncKind::StreamWaitEvent;
    }
    return SyncKind::Unknown;
}

// Kineto cuda_sync event names: "Stream Sync", "Event Sync", "Context Sync", "Stream Wait Event".
SyncKind syncKindFromSyncEventName(std::string_view name) {
    if (name.find("Wait") != std::string_view::npos) {
        return SyncKind::StreamWaitEvent;
    }
    if (name.starts_with("Stream")) {
        return SyncKind::StreamSynchronize;
    }
    if (name.starts_with("Event")) {
        return SyncKind::EventSynchronize;
    }
    if (name.starts_with("Context") || name.starts_with("Device")) {
        return SyncKind::DeviceSynchronize;
    }
    return SyncKind::Unknown;
}

// Kineto (2026-04, pytorch/kineto#1356) draws "Stream Sync" events on a row of their own: tid =
// stream id + this, named "stream N (sync)" (ChromeTraceLogger::kSyncStreamTidOffset).
constexpr std::int64_t kSyncRowTidOffset = 1'000'000;

bool isSyncRowName(std::string_view name) {
    return name.find("(sync)") != std::string_view::npos;
}

// "GPU 3 Counters": the pseudo-process Kineto puts CUPTI PM-sampling counters on (2026-08,
// pytorch/kineto#1530). Sets `device` and returns true when `text` has that shape.
bool pmCounterDevice(std::string_view text, std::int64_t& device) {
    constexpr std::string_view kPrefix = "GPU ", kSuffix = " Counters";
    if (text.size() <= kPrefix.size() + kSuffix.size() || text.substr(0, kPrefix.size()) != kPrefix ||
        text.substr(text.size() - kSuffix.size()) != kSuffix) {
        return false;
    }
    std::string_view digits = text.substr(kPrefix.size(), text.size() - kPrefix.size() - kSuffix.size());
    if (digits.empty() || digits.size() > 5) {
        return false;
    }
    std::int64_t n = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') {
            return false;
        }
        n = n * 10 + (c - '0');
    }
    device = n;
    return true;
}

std::int32_t clampInt32(std::int64_t v) {
    return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, std::numeric_limits<std::int32_t>::min(),
                                                              std::numeric_limits<std::int32_t>::max()));
}

}  // namespace

KinetoModelBuilder::KinetoModelBuilder(TraceModel& model) : m_model(model) {}

KinetoModelBuilder::Kind KinetoModelBuilder::classify(std::string_view c) {
    switch (c.size()) {
        case 4:
            if (equalsLower(c, "ac2g")) {
                return Kind::LaunchFlow;
            }
            break;
        case 5:
            if (equalsLower(c, "async")) {
                return Kind::LaunchFlow;
            }
            if (equalsLower(c, "trace")) {
                return Kind::TraceSpan;
            }
            break;
        case 6:
            if (equalsLower(c, "kernel")) {
                return Kind::Kernel;
            }
            if (equalsLower(c, "cpu_op")) {
                return Kind::CpuOp;
            }
            if (equalsLower(c, "memcpy")) {
                return Kind::Memcpy;
            }
            if (equalsLower(c, "memset")) {
                return Kind::Memset;
            }
            if (equalsLower(c, "fwdbwd")) {
                return Kind::OtherFlow;
            }
            if (equalsLower(c, "driver")) {
                return Kind::Driver;
            }
            break;
        case 7:
            if (equalsLower(c, "runtime")) {
                return Kind::Runtime;
            }
            break;
        case 8:
            if (equalsLower(c, "operator")) {
                return Kind::CpuOp;
            }
            if (equalsLower(c, "overhead")) {
                return Kind::ProfilerOverhead;
            }
            break;
        case 9:
            if (equalsLower(c, "cuda_sync")) {
                return Kind::CudaSync;
            }
            break;
        case 10:
            if (equalsLower(c, "cuda_event")) {
                return Kind::CudaEvent;
            }
            if (equalsLower(c, "gpu_memcpy")) {
                return Kind::Memcpy;
            }
            if (equalsLower(c, "gpu_memset")) {
                return Kind::Memset;
            }
            break;
        case 11:
            if (equalsLower(c, "cuda_driver")) {
                return Kind::Driver;
            }
            if (equalsLower(c, "xpu_runtime")) {
                return Kind::OtherRuntime;
            }
            break;
        case 12:
            if (equalsLower(c, "cuda_runtime")) {
                return Kind::Runtime;
            }
            if (equalsLower(c, "mtia_runtime")) {
                return Kind::OtherRuntime;
            }
            break;
        case 15:
            if (equalsLower(c, "python_function")) {
                return Kind::PythonFunction;
            }
            if (equalsLower(c, "user_annotation")) {
                return Kind::UserAnnotation;
            }
            break;
        case 16:
            if (equalsLower(c, "async_cpu_to_gpu")) {
                return Kind::LaunchFlow;
            }
            break;
        case 17:
            if (equalsLower(c, "cpu_instant_event")) {
                return Kind::Instant;
            }
            break;
        case 19:
            if (equalsLower(c, "gpu_user_annotation")) {
                return Kind::GpuUserAnnotation;
            }
            if (equalsLower(c, "privateuse1_runtime")) {
                return Kind::OtherRuntime;
            }
            if (equalsLower(c, "cuda_profiler_range")) {
                return Kind::RangeProfilerRecord;
            }
            break;
        default:
            break;
    }
    return Kind::Unknown;
}

void KinetoModelBuilder::count(std::string_view statName, Severity severity, std::string_view detail,
                               std::int64_t n) {
    for (auto& [name, stat] : m_stats) {
        if (name == statName) {
            stat.count += n;
            stat.severity = std::max(stat.severity, severity);
            return;
        }
    }
    m_stats.emplace_back(std::string(statName), LocalStat{severity, n, std::string(detail)});
}

void KinetoModelBuilder::countIssue(std::string_view statName, Severity severity, std::string_view detail) {
    count(statName, severity, detail);
}

StringId KinetoModelBuilder::intern(std::string_view text) {
    const std::size_t n = text.size();
    std::uint64_t h = n * 0x9E3779B97F4A7C15ull;
    if (n >= 8) {
        std::uint64_t head = 0, middle = 0, tail = 0;
        std::memcpy(&head, text.data(), 8);
        std::memcpy(&middle, text.data() + n / 2 - 4, 8);
        std::memcpy(&tail, text.data() + n - 8, 8);
        h ^= (head * 0xC2B2AE3D27D4EB4Full) ^ (middle * 0x165667B19E3779F9ull) ^
             (tail * 0x27D4EB2F165667C5ull);
    } else {
        for (char c : text) {
            h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
        }
    }
    NameCacheEntry& entry = m_nameCache[(h ^ (h >> 29)) & (kNameCacheSize - 1)];
    if (entry.id.valid() && entry.length == n) {
        std::string_view cached = m_model.text(entry.id);
        // n == 0: an empty view may have a null data() pointer, which memcmp must not see.
        if (n == 0 || std::memcmp(cached.data(), text.data(), n) == 0) {
            return entry.id;
        }
    }
    StringId id = m_model.intern(text);
    entry.id = id;
    entry.length = static_cast<std::uint32_t>(n);
    return id;
}

std::int64_t KinetoModelBuilder::idNumber(const KinetoId& id) {
    if (!id.present) {
        return 0;
    }
    if (!id.isText) {
        return id.number;
    }
    std::int64_t n = 0;
    if (numberInText(id.text, n, false)) {
        return n;
    }
    // A text id ("Traces", "PyTorch Profiler") gets a stable synthetic number far from real ids.
    auto it = m_textIds.find(std::string(id.text));
    if (it != m_textIds.end()) {
        return it->second;
    }
    std::int64_t synthetic = (std::int64_t{1} << 62) + static_cast<std::int64_t>(m_textIds.size());
    m_textIds.emplace(std::string(id.text), synthetic);
    return synthetic;
}

ThreadIndex KinetoModelBuilder::thread(const KinetoId& pidId, const KinetoId& tidId) {
    std::int64_t pid = idNumber(pidId);
    std::int64_t tid = idNumber(tidId);
    if (m_lastThread != kNoThread && pid == m_lastPid && tid == m_lastTid) {
        return m_lastThread;
    }
    auto [it, inserted] = m_threads.try_emplace({pid, tid}, kNoThread);
    if (inserted) {
        m_model.threads.push_back(
            ThreadInfo{pid, tid, tidId.isText ? std::string(tidId.text) : std::string()});
        it->second = static_cast<ThreadIndex>(m_model.threads.size() - 1);
    }
    m_lastPid = pid;
    m_lastTid = tid;
    m_lastThread = it->second;
    return it->second;
}

std::int32_t KinetoModelBuilder::gpuDevice(const KinetoEvent& e) {
    std::int64_t device = 0;
    if (e.device.present) {
        device = e.device.value;
    } else if (e.pid.present) {
        if (!e.pid.isText) {
            device = e.pid.number;
        } else if (!numberInText(e.pid.text, device, true)) {
            device = 0;
        }
    }
    if (e.rank.present) {
        // A fused trace: GPU 0 of rank 3 is not GPU 0 of rank 5.
        const auto key = std::make_pair(e.rank.value, device);
        auto it = m_fusedDevice.find(key);
        if (it == m_fusedDevice.end()) {
            if (m_fusedDevice.size() > static_cast<std::size_t>(std::numeric_limits<std::int16_t>::max())) {
                count("import.value_out_of_range", Severity::Warning,
                      "more GPUs in the fused trace than device indices; device 0 used");
                return 0;
            }
            it = m_fusedDevice.emplace(key, static_cast<std::int32_t>(m_fusedDevice.size())).first;
        }
        return it->second;
    }
    if (device < 0 || device > std::numeric_limits<std::int16_t>::max()) {
        count("import.value_out_of_range", Severity::Warning, "GPU device index out of range; device 0 used");
        device = 0;
    }
    return static_cast<std::int32_t>(device);
}

std::int32_t KinetoModelBuilder::gpuStream(const KinetoEvent& e) {
    std::int64_t stream = 0;
    if (e.stream.present) {
        stream = e.stream.value;
    } else if (e.tid.present) {
        if (!e.tid.isText) {
            stream = e.tid.number;
        } else if (!numberInText(e.tid.text, stream, true)) {
            stream = 0;
        }
    }
    return clampInt32(stream);
}

void KinetoModelBuilder::addEvent(const KinetoEvent& e, std::uint64_t eventIndex) {
    ++m_events;
    if (e.rank.present && e.pid.present) {
        m_pidRank.emplace(idNumber(e.pid), e.rank.value);
    }
    if (e.phase.size() != 1) {
        if (e.phase.empty()) {
            count("import.event_without_phase", Severity::DataLoss,
                  "event #" + std::to_string(eventIndex) + " has no \"ph\"; skipped");
        } else {
            count(
                "import.unsupported_phase", Severity::DataLoss,
                "phase \"" + std::string(e.phase) + "\" (event #" + std::to_string(eventIndex) + ") skipped");
        }
        return;
    }
    Kind kind = classify(e.category);
    switch (e.phase[0]) {
        case 'X':
            addComplete(e, kind, eventIndex);
            return;
        case 'i':
        case 'I':
            if (e.name == "[memory]") {
                addMemoryEvent(e);
                return;
            }
            ++m_instants;
            if (kind == Kind::Instant) {
                ++m_cpuInstants;
            }
            return;
        case 'M':
            addMetadata(e);
            return;
        case 'C':
            addCounter(e);
            return;
        case 's':
        case 'f':
        case 't':
            addFlow(e, kind);
            return;
        default:
            count(
                "import.unsupported_phase", Severity::DataLoss,
                "phase \"" + std::string(e.phase) + "\" (event #" + std::to_string(eventIndex) + ") skipped");
            return;
    }
}

void KinetoModelBuilder::addComplete(const KinetoEvent& e, Kind kind, std::uint64_t eventIndex) {
    if (kind == Kind::Unknown) {
        count("import.unknown_category", Severity::Warning,
              "category \"" + std::string(e.category) + "\" (first: event #" + std::to_string(eventIndex) +
                  " \"" + std::string(e.name.substr(0, 80)) + "\") not imported");
        return;
    }
    if (kind == Kind::TraceSpan || kind == Kind::Instant || kind == Kind::LaunchFlow ||
        kind == Kind::OtherFlow) {
        return;  // the profiler's own span and stray markers carry no work
    }
    if (kind == Kind::CudaEvent) {
        ++m_cudaEvents;
        return;
    }
    if (kind == Kind::RangeProfilerRecord) {
        // Kineto's counter mode (CUPTI range profiler) serialises kernels and times each under its
        // own range: counters per kernel, no timeline. Said, so the trace is not taken for CPU-only.
        count("import.range_profiler_records", Severity::Warning,
              "CUPTI range-profiler records (cat \"cuda_profiler_range\", per-kernel counters such as "
              "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum) are not imported: they time kernels one "
              "at a time, not the job; record without the profiler's counter mode for a timeline");
        return;
    }
    if (kind == Kind::ProfilerOverhead) {
        count("import.profiler_overhead_events", Severity::Info,
              "CUPTI/profiler overhead intervals (cat \"overhead\") counted, not imported as work");
        return;
    }
    if (!e.hasTs) {
        count("import.missing_timestamp", Severity::DataLoss,
              "event #" + std::to_string(eventIndex) + " has no \"ts\"; skipped");
        return;
    }
    DurationNs dur = e.durNs;
    if (!e.hasDur) {
        count("import.missing_field", Severity::Warning,
              "event #" + std::to_string(eventIndex) + " has no \"dur\"; duration 0 used");
        dur = 0;
    } else if (dur < 0) {
        count("import.negative_duration_clamped", Severity::Warning,
              "event #" + std::to_string(eventIndex) + " has a negative \"dur\"; clamped to 0");
        dur = 0;
    }
    TimestampNs start = e.tsNs;
    TimestampNs end = 0;
    if (__builtin_add_overflow(start, dur, &end)) {
        count("import.value_out_of_range", Severity::Warning,
              "event #" + std::to_string(eventIndex) + ": ts + dur overflows; duration 0 used");
        end = start;
    }
    if (!e.hasName) {
        count("import.missing_field", Severity::Warning,
              "event #" + std::to_string(eventIndex) + " has no \"name\"; empty name used");
    }
    std::int64_t correlation = e.correlation.present ? e.correlation.value : 0;
    auto pendingLink = [&](std::uint8_t table, std::size_t row) {
        m_pendingLinks.push_back(
            PendingLink{table, static_cast<std::uint32_t>(row), idNumber(e.pid), idNumber(e.tid), start});
    };

    switch (kind) {
        case Kind::Kernel: {
            KernelRow row;
            row.startNs = start;
            row.endNs = end;
            row.deviceIndex = static_cast<std::int16_t>(gpuDevice(e));
            row.streamId = gpuStream(e);
            row.name = intern(e.name);
            if (e.hasGrid) {
                row.gridX = e.grid[0];
                row.gridY = e.grid[1];
                row.gridZ = e.grid[2];
            }
            if (e.hasBlock) {
                row.blockX = e.block[0];
                row.blockY = e.block[1];
                row.blockZ = e.block[2];
            }
            row.registersPerThread =
                e.registersPerThread.present ? clampInt32(e.registersPerThread.value) : 0;
            // Kineto records one "shared memory" figure (static + dynamic bytes per block).
            row.staticSharedBytes = e.sharedMemoryBytes.present ? clampInt32(e.sharedMemoryBytes.value) : 0;
            row.correlationId = correlation;
            m_occupancyKernels += e.hasOccupancy ? 1 : 0;
            KernelId id = m_model.kernels.add(row);
            if (!e.correlation.present) {
                pendingLink(1, id.index);
            } else if (!e.collectiveName.empty()) {
                addCollectiveCall(e, correlation);
            }
            return;
        }
        case Kind::Memcpy: {
            MemcpyRow row;
            row.startNs = start;
            row.endNs = end;
            row.deviceIndex = static_cast<std::int16_t>(gpuDevice(e));
            row.streamId = gpuStream(e);
            row.kind = memcpyKindFromText(e.name);
            if (row.kind == MemcpyKind::Unknown && !e.memcpyKindArg.empty()) {
                row.kind = memcpyKindFromText(e.memcpyKindArg);
            }
            auto [src, dst] = memoryKindsFromName(e.name);
            row.srcKind = src;
            row.dstKind = dst;
            row.sizeBytes = e.bytes.present ? e.bytes.value : 0;
            row.correlationId = correlation;
            MemcpyId id = m_model.memcpys.add(row);
            if (!e.correlation.present) {
                pendingLink(2, id.index);
            }
            return;
        }
        case Kind::Memset: {
            MemsetRow row;
            row.startNs = start;
            row.endNs = end;
            row.deviceIndex = static_cast<std::int16_t>(gpuDevice(e));
            row.streamId = gpuStream(e);
            row.memoryKind = memoryKindsFromName(e.name).second;
            row.sizeBytes = e.bytes.present ? e.bytes.value : 0;
            row.correlationId = correlation;
            MemsetId id = m_model.memsets.add(row);
            if (!e.correlation.present) {
                pendingLink(3, id.index);
            }
            return;
        }
        case Kind::Runtime:
        case Kind::OtherRuntime:
        case Kind::Driver: {
            ApiCallRow row;
            row.startNs = start;
            row.endNs = end;
            row.thread = thread(e.pid, e.tid);
            row.name = intern(e.name);
            row.domain = kind == Kind::Driver         ? ApiDomain::Driver
                         : kind == Kind::OtherRuntime ? ApiDomain::Other
                                                      : ApiDomain::Runtime;
            row.correlationId = correlation;
            if (!m_sawHip && e.name.starts_with("hip")) {
                m_sawHip = true;
            }
            ApiCallId id = m_model.apiCalls.add(row);
            if (!e.correlation.present) {
                pendingLink(0, id.index);
            }
            if (syncKindFromApiName(e.name) != SyncKind::Unknown) {
                m_syncCalls.push_back(id.index);
            }
            return;
        }
        case Kind::CudaSync: {
            m_sawCudaSync = true;
            SyncRow row;
            row.startNs = start;
            row.endNs = end;
            row.deviceIndex = static_cast<std::int16_t>(gpuDevice(e));
            row.streamId = e.stream.present ? clampInt32(e.stream.value) : -1;
            // Since Kineto 2026-04 "Stream Sync" rows sit on tid stream + 1,000,000; "args.stream"
            // still names the stream. Without it the stream comes from the tid.
            if (const std::int64_t tid = e.tid.present && !e.tid.isText ? e.tid.number : -1;
                tid >= kSyncRowTidOffset) {
                ++m_syncOnVirtualRow;
                if (!e.stream.present) {
                    row.streamId = clampInt32(tid - kSyncRowTidOffset);
                }
            }
            row.kind = syncKindFromSyncEventName(e.name);
            row.correlationId = correlation;
            m_model.syncs.add(row);
            return;
        }
        case Kind::CpuOp:
        case Kind::PythonFunction: {
            // 2021 traces record ProfilerStep#N as an "Operator"; it is a step annotation.
            if (kind == Kind::CpuOp && names::isProfilerStepName(e.name)) {
                RangeRow range;
                range.startNs = start;
                range.endNs = end;
                range.source = RangeSource::UserAnnotation;
                range.thread = thread(e.pid, e.tid);
                range.name = intern(e.name);
                m_model.ranges.add(range);
                return;
            }
            CpuOpRow row;
            row.startNs = start;
            row.endNs = end;
            row.thread = thread(e.pid, e.tid);
            row.name = intern(e.name);
            row.category =
                kind == Kind::PythonFunction ? CpuOpCategory::PythonFunction : CpuOpCategory::Operator;
            if (!e.inputDims.empty()) {
                row.inputShapes = intern(e.inputDims);
            }
            if (!e.inputTypes.empty()) {
                row.inputTypes = intern(e.inputTypes);
            }
            if (!e.concreteInputs.empty()) {
                row.concreteInputs = intern(e.concreteInputs);
            }
            row.externalId = e.externalId.present ? e.externalId.value : 0;
            m_model.cpuOps.add(row);
            return;
        }
        case Kind::UserAnnotation:
        case Kind::GpuUserAnnotation: {
            RangeRow row;
            row.startNs = start;
            row.endNs = end;
            row.name = intern(e.name);
            if (kind == Kind::GpuUserAnnotation) {
                row.source = RangeSource::GpuUserAnnotation;
                row.deviceIndex = static_cast<std::int16_t>(gpuDevice(e));
                row.streamId = gpuStream(e);
            } else {
                row.source = RangeSource::UserAnnotation;
                row.thread = thread(e.pid, e.tid);
            }
            m_model.ranges.add(row);
            return;
        }
        default:
            return;
    }
}

void KinetoModelBuilder::addMetadata(const KinetoEvent& e) {
    std::int64_t pid = idNumber(e.pid);
    if (e.name == "process_name" || e.name == "process_labels") {
        auto [it, inserted] = m_processRow.try_emplace(pid, m_model.processes.size());
        if (inserted) {
            m_model.processes.push_back(ProcessInfo{pid, {}});
        }
        ProcessInfo& process = m_model.processes[it->second];
        if (e.name == "process_name" && !e.argName.empty()) {
            process.name.assign(e.argName);
        } else if (e.name == "process_labels" && !e.argLabels.empty()) {
            if (e.argLabels.starts_with("GPU ")) {
                m_gpuPids[pid] = true;
            }
            if (process.name.empty()) {
                process.name.assign(e.argLabels);
            }
        }
    } else if (e.name == "thread_name" && !e.argName.empty()) {
        PendingName pending{e.pid, e.tid, std::string(e.pid.text), std::string(e.tid.text),
                            std::string(e.argName)};
        m_threadNames.push_back(std::move(pending));
    }
    // process_sort_index, thread_sort_index and other display hints carry no data.
}

void KinetoModelBuilder::addCounter(const KinetoEvent& e) {
    if (!e.hasTs) {
        count("import.missing_timestamp", Severity::DataLoss, "counter event has no \"ts\"; skipped");
        return;
    }
    std::int64_t pid = idNumber(e.pid);
    // torch.profiler's own CUPTI PM sampling: one event per metric and sample, {"": value}, on
    // pid "GPU N Counters". Those become the device's tracks under the agent's names and units.
    std::int64_t pmDevice = -1;
    if (e.pid.present && e.pid.isText && pmCounterDevice(e.pid.text, pmDevice)) {
        if (pmDevice > std::numeric_limits<std::int16_t>::max()) {
            count("import.value_out_of_range", Severity::Warning,
                  "PM-sampling counter on a GPU index out of range; skipped");
            return;
        }
        ++m_pmSamples;
        for (const auto& [key, value] : e.counterValues) {
            const std::string metric = e.name.empty() ? std::string(key) : std::string(e.name);
            PmTrackName track = pmTrackForMetric(metric);
            std::string trackKey = "pm\n" + std::to_string(pmDevice) + '\n' + track.name;
            auto [it, inserted] = m_counterRow.try_emplace(std::move(trackKey), m_model.counters.size());
            if (inserted) {
                CounterTrack t;
                t.name = std::move(track.name);
                t.unit = std::move(track.unit);
                t.deviceIndex = static_cast<std::int16_t>(pmDevice);
                t.pid = pid;
                m_model.counters.push_back(std::move(t));
            }
            CounterTrack& t = m_model.counters[it->second];
            t.timesNs.push_back(e.tsNs);
            t.values.push_back(value);
        }
        return;
    }
    for (const auto& [key, value] : e.counterValues) {
        std::string trackName(e.name);
        if (e.counterValues.size() > 1 || trackName.empty()) {
            if (!trackName.empty()) {
                trackName += '.';
            }
            trackName.append(key);
        }
        std::string trackKey = std::to_string(pid) + '\n' + trackName;
        auto [it, inserted] = m_counterRow.try_emplace(std::move(trackKey), m_model.counters.size());
        if (inserted) {
            CounterTrack t;
            t.name = trackName;
            t.pid = pid;
            m_model.counters.push_back(std::move(t));
        }
        CounterTrack* track = &m_model.counters[it->second];
        track->timesNs.push_back(e.tsNs);
        track->values.push_back(value);
    }
}

// c10::DeviceType: 0 is the CPU, 1 CUDA (ROCm builds report HIP memory as CUDA too).
void KinetoModelBuilder::addMemoryEvent(const KinetoEvent& e) {
    constexpr std::int64_t kCpu = 0;
    constexpr std::int64_t kCuda = 1;
    if (!e.hasTs) {
        count("import.missing_timestamp", Severity::Warning, "memory event has no \"ts\"; skipped");
        return;
    }
    if (e.memoryDeviceType.present && e.memoryDeviceType.value == kCpu) {
        m_memory.addHost();
        return;
    }
    if (!e.memoryDeviceType.present || e.memoryDeviceType.value != kCuda || !e.memoryDeviceId.present ||
        e.memoryDeviceId.value < 0 || !e.memoryBytes.present) {
        count("import.unusable_memory_event", Severity::Info,
              "memory events without a CUDA \"Device Type\", a \"Device Id\" and \"Bytes\"; skipped");
        return;
    }
    KinetoEvent onDevice;
    onDevice.device = e.memoryDeviceId;
    onDevice.rank = e.rank;
    const std::int16_t device = static_cast<std::int16_t>(gpuDevice(onDevice));
    auto total = [](const OptInt& v) {
        return v.present && v.value >= 0 ? std::optional<std::int64_t>(v.value) : std::nullopt;
    };
    m_memory.addDevice(device, idNumber(e.pid), e.tsNs, e.memoryBytes.value, total(e.totalAllocated),
                       total(e.totalReserved));
}

void KinetoModelBuilder::addFlow(const KinetoEvent& e, Kind kind) {
    ++m_flowEvents;
    if (kind == Kind::OtherFlow) {
        return;  // fwdbwd links forward ops to backward ops; not a launch
    }
    if (kind != Kind::LaunchFlow) {
        count("import.unknown_category", Severity::Warning,
              "flow category \"" + std::string(e.category) + "\" not imported");
        return;
    }
    if (e.phase[0] == 't' || !e.flowId.present || !e.hasTs) {
        return;
    }
    FlowPoint point{idNumber(e.pid), idNumber(e.tid), e.tsNs, e.flowId.value};
    if (e.phase[0] == 's') {
        m_flowStarts.push_back(point);
    } else {
        m_flowEnds.push_back(point);
    }
}

void KinetoModelBuilder::finish() {
    // A fused trace names each process after its rank ("RANK 3 - python"), which is how the job
    // analysis tells the ranks of one file apart (core/job/RankSplit.h).
    for (const auto& [pid, rank] : m_pidRank) {
        auto [it, inserted] = m_processRow.try_emplace(pid, m_model.processes.size());
        if (inserted) {
            m_model.processes.push_back(ProcessInfo{pid, {}});
        }
        ProcessInfo& process = m_model.processes[it->second];
        const std::string prefix = "RANK " + std::to_string(rank);
        if (!process.name.starts_with(prefix)) {
            process.name = process.name.empty() ? prefix : prefix + " - " + process.name;
        }
    }
    // Link events without a "correlation" arg through the flow that starts or ends on them: a flow
    // starts at its launch call (same pid, tid, ts) and ends at the GPU record it launched.
    if (!m_pendingLinks.empty()) {
        struct KeyHash {
            std::size_t operator()(const std::array<std::int64_t, 3>& k) const noexcept {
                std::uint64_t h = static_cast<std::uint64_t>(k[0]) * 0x9E3779B97F4A7C15ull;
                h ^= static_cast<std::uint64_t>(k[1]) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
                h ^= static_cast<std::uint64_t>(k[2]) + 0x94D049BB133111EBull + (h << 6) + (h >> 2);
                return static_cast<std::size_t>(h);
            }
        };
        std::unordered_map<std::array<std::int64_t, 3>, std::int64_t, KeyHash> starts, ends;
        for (const FlowPoint& p : m_flowStarts) {
            starts.emplace(std::array<std::int64_t, 3>{p.pid, p.tid, p.tsNs}, p.id);
        }
        for (const FlowPoint& p : m_flowEnds) {
            ends.emplace(std::array<std::int64_t, 3>{p.pid, p.tid, p.tsNs}, p.id);
        }
        std::int64_t linked = 0;
        for (const PendingLink& link : m_pendingLinks) {
            const auto& map = link.table == 0 ? starts : ends;
            auto it = map.find({link.pid, link.tid, link.tsNs});
            if (it == map.end()) {
                continue;
            }
            ++linked;
            switch (link.table) {
                case 0:
                    m_model.apiCalls.correlationId[link.row] = it->second;
                    break;
                case 1:
                    m_model.kernels.correlationId[link.row] = it->second;
                    break;
                case 2:
                    m_model.memcpys.correlationId[link.row] = it->second;
                    break;
                default:
                    m_model.memsets.correlationId[link.row] = it->second;
                    break;
            }
        }
        if (linked > 0) {
            count("import.correlation_from_flow", Severity::Info,
                  "events without a \"correlation\" arg linked through their launch flow", linked);
        }
    }
    // Synchronizing runtime calls become sync rows unless the trace recorded cuda_sync events.
    if (!m_sawCudaSync) {
        for (std::uint32_t call : m_syncCalls) {
            SyncRow row;
            row.startNs = m_model.apiCalls.startNs[call];
            row.endNs = m_model.apiCalls.endNs[call];
            row.thread = m_model.apiCalls.thread[call];
            row.kind = syncKindFromApiName(m_model.text(m_model.apiCalls.name[call]));
            row.correlationId = m_model.apiCalls.correlationId[call];
            row.apiCall = ApiCallId{call};
            m_model.syncs.add(row);
        }
    }
    // Thread names: on a GPU pseudo-process they name streams ("stream 7 "), else host threads.
    for (PendingName& pending : m_threadNames) {
        pending.pid.text = pending.pidText;
        pending.tid.text = pending.tidText;
        std::int64_t pid = idNumber(pending.pid);
        if (m_gpuPids.count(pid) > 0) {
            std::int64_t stream = 0;
            if (!pending.tid.isText) {
                stream = pending.tid.number;
            } else if (!numberInText(pending.tid.text, stream, true)) {
                continue;
            }
            if (stream >= kSyncRowTidOffset && isSyncRowName(pending.name)) {
                continue;  // "stream N (sync)": its syncs belong to stream N (their args.stream)
            }
            std::size_t row = m_model.streamIndex(
                static_cast<std::int32_t>(std::clamp<std::int64_t>(pid, 0, INT16_MAX)), clampInt32(stream));
            m_model.streams[row].name.assign(trimSpaces(pending.name));
        } else {
            m_model.threads[thread(pending.pid, pending.tid)].name = std::move(pending.name);
        }
    }
    // GPU pseudo-processes are not host processes.
    std::erase_if(m_model.processes, [this](const ProcessInfo& p) { return m_gpuPids.count(p.pid) > 0; });
    if (m_sawHip) {
        for (DeviceInfo& d : m_model.devices) {
            if (d.vendor.empty()) {
                d.vendor = "AMD";
            }
        }
    }
    m_memory.finish(m_model);
    if (m_instants > 0) {
        count("import.instant_events", Severity::Info,
              "instant events (ph i/I) counted, not imported as rows", static_cast<std::int64_t>(m_instants));
    }
    if (m_cpuInstants > 0) {
        count("import.cpu_instant_events", Severity::Info, "cpu_instant_event markers counted",
              static_cast<std::int64_t>(m_cpuInstants));
    }
    if (m_flowEvents > 0) {
        count("import.flow_events", Severity::Info, "flow events (ph s/f/t) read",
              static_cast<std::int64_t>(m_flowEvents));
    }
    if (m_cudaEvents > 0) {
        count("import.cuda_events_not_imported", Severity::Warning,
              "cudaEvent markers (cat \"cuda_event\", CUDA 12.8+) are drawn by Perfetto but not imported: "
              "event records carry no GPU time; the waits on them are imported as cuda_sync rows",
              static_cast<std::int64_t>(m_cudaEvents));
    }
    if (m_occupancyKernels > 0) {
        count("import.kernel_occupancy_not_imported", Severity::Warning,
              "kernels carry args.occupancy (limitingFactors, blockLimit*) shown by Perfetto; not imported, "
              "the TensorBoard-overview figures estimate occupancy from registers, shared memory and block "
              "size",
              static_cast<std::int64_t>(m_occupancyKernels));
    }
    if (m_pmSamples > 0) {
        count("import.kineto_pm_sampling", Severity::Info,
              "CUPTI PM-sampling counter samples (pid \"GPU N Counters\") imported as device counter tracks",
              static_cast<std::int64_t>(m_pmSamples));
    }
    if (m_syncOnVirtualRow > 0) {
        count(
            "import.sync_rows_on_virtual_tid", Severity::Info,
            "cuda_sync events on Kineto's \"stream N (sync)\" rows (tid N + 1000000) attributed to stream N",
            static_cast<std::int64_t>(m_syncOnVirtualRow));
    }
    if (m_model.gpuEventCount() == 0) {
        const bool counterMode = std::any_of(m_stats.begin(), m_stats.end(), [](const auto& entry) {
            return entry.first == "import.range_profiler_records";
        });
        count("import.no_gpu_events", Severity::Info,
              counterMode
                  ? "the trace has no GPU kernels, memcpys or memsets: the profiler ran in counter mode "
                    "(CUPTI range profiler), which records counters, not a timeline"
                  : "the trace has no GPU kernels, memcpys or memsets (CPU-only capture)");
    }
    for (auto& [name, stat] : m_stats) {
        m_model.stats.add(name, stat.severity, stat.count, stat.detail);
    }
    m_stats.clear();
}

void KinetoModelBuilder::addCollectiveCall(const KinetoEvent& e, std::int64_t correlationId) {
    CollectiveCallRow call;
    call.correlationId = correlationId;
    call.collectiveName = intern(e.collectiveName);
    call.processGroupName = intern(e.processGroupName);
    call.processGroupDescription = intern(e.processGroupDescription);
    call.processGroupRanks = intern(e.processGroupRanks);
    call.dtype = intern(e.dtype);
    call.inNelems = e.inNelems.present ? e.inNelems.value : -1;
    call.outNelems = e.outNelems.present ? e.outNelems.value : -1;
    call.groupSize = e.groupSize.present ? clampInt32(e.groupSize.value) : 0;
    call.seq = e.seq.present ? e.seq.value : -1;
    call.hasCommsId = e.hasCommsId;
    call.commsId = e.commsId;
    m_model.collectiveCalls.push_back(call);
}

}  // namespace chokepoint::core
