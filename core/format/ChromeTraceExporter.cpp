#include "core/format/ChromeTraceExporter.h"

#include <unistd.h>
#include <zlib.h>

#include <simdjson.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "core/base/JsonEscape.h"

namespace chokepoint::core {

namespace {

constexpr std::size_t kFlushBytes = std::size_t{1} << 20;

// Buffers output and hands it to the sink in ~1 MiB pieces.
class JsonOut {
public:
    explicit JsonOut(const std::function<bool(std::string_view)>& sink) : m_sink(sink) {
        m_buffer.reserve(kFlushBytes + 4096);
    }

    std::string& buffer() { return m_buffer; }
    bool ok() const { return m_ok; }

    void raw(std::string_view text) { m_buffer.append(text); }
    void str(std::string_view text) { appendJsonString(m_buffer, text); }
    void integer(std::int64_t value) {
        char digits[24];
        auto result = std::to_chars(digits, digits + sizeof digits, value);
        m_buffer.append(digits, result.ptr);
    }
    void number(double value) {
        char digits[32];
        auto result = std::to_chars(digits, digits + sizeof digits, value);
        m_buffer.append(digits, result.ptr);
    }
    // Nanoseconds as microseconds with exactly three decimals.
    void micros(std::int64_t ns) {
        std::uint64_t magnitude =
            ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
        if (ns < 0) {
            m_buffer.push_back('-');
        }
        char digits[24];
        auto result = std::to_chars(digits, digits + sizeof digits, magnitude / 1000);
        m_buffer.append(digits, result.ptr);
        auto frac = static_cast<unsigned>(magnitude % 1000);
        m_buffer.push_back('.');
        m_buffer.push_back(static_cast<char>('0' + frac / 100));
        m_buffer.push_back(static_cast<char>('0' + frac / 10 % 10));
        m_buffer.push_back(static_cast<char>('0' + frac % 10));
    }
    void maybeFlush() {
        if (m_buffer.size() >= kFlushBytes) {
            flush();
        }
    }
    void flush() {
        if (m_ok && !m_buffer.empty()) {
            m_ok = m_sink(m_buffer);
        }
        m_buffer.clear();
    }

private:
    const std::function<bool(std::string_view)>& m_sink;
    std::string m_buffer;
    bool m_ok = true;
};

std::string_view memcpyKindLabel(MemcpyKind kind) {
    switch (kind) {
        case MemcpyKind::HostToDevice:
            return "HtoD";
        case MemcpyKind::DeviceToHost:
            return "DtoH";
        case MemcpyKind::DeviceToDevice:
            return "DtoD";
        case MemcpyKind::PeerToPeer:
            return "PtoP";
        case MemcpyKind::HostToHost:
            return "HtoH";
        case MemcpyKind::Unknown:
            break;
    }
    return "Unknown";
}

std::string_view memoryKindLabel(MemoryKind kind) {
    switch (kind) {
        case MemoryKind::Pageable:
            return "Pageable";
        case MemoryKind::Pinned:
            return "Pinned";
        case MemoryKind::Device:
            return "Device";
        case MemoryKind::Managed:
            return "Managed";
        case MemoryKind::Unknown:
            break;
    }
    return "Unknown";
}

// Kineto's cuda_sync event names.
std::string_view syncLabel(SyncKind kind) {
    switch (kind) {
        case SyncKind::StreamSynchronize:
            return "Stream Sync";
        case SyncKind::DeviceSynchronize:
            return "Context Sync";
        case SyncKind::EventSynchronize:
            return "Event Sync";
        case SyncKind::StreamWaitEvent:
            return "Stream Wait Event";
        case SyncKind::Unknown:
            break;
    }
    return "Sync";
}

class ChromeTraceWriter {
public:
    ChromeTraceWriter(const TraceModel& model, JsonOut& out) : m_model(model), m_out(out) {}

    void write() {
        // No "displayTimeUnit": it is only a display hint, and some Perfetto releases read "ns" as
        // "timestamps are nanoseconds" (google/perfetto#274); "ts" is microseconds for every reader.
        m_out.raw("{\"schemaVersion\":1");
        writeDeviceProperties();
        writeDistributedInfo();
        m_out.raw(",\"traceEvents\":[");
        writeMetadataEvents();
        writeKernels();
        writeMemcpys();
        writeMemsets();
        writeApiCalls();
        writeSyncs();
        writeRanges();
        writeCpuOps();
        writeCounters();
        writeStackSamples();
        m_out.raw("\n]}\n");
        m_out.flush();
    }

private:
    // Starts one event object: {"ph":"X","cat":...,"name":...,"pid":...,"tid":...,"ts":...
    void begin(char ph, std::string_view cat, std::string_view name, std::int64_t pid, std::int64_t tid,
               std::int64_t tsNs) {
        m_out.raw(m_first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
        m_first = false;
        m_out.buffer().push_back(ph);
        m_out.raw("\",\"cat\":");
        m_out.str(cat);
        m_out.raw(",\"name\":");
        m_out.str(name);
        m_out.raw(",\"pid\":");
        m_out.integer(pid);
        m_out.raw(",\"tid\":");
        m_out.integer(tid);
        m_out.raw(",\"ts\":");
        m_out.micros(tsNs);
    }
    void duration(std::int64_t startNs, std::int64_t endNs) {
        m_out.raw(",\"dur\":");
        m_out.micros(endNs > startNs ? endNs - startNs : 0);
    }
    void end() {
        m_out.raw("}");
        m_out.maybeFlush();
    }
    void argInt(std::string_view key, std::int64_t value) {
        argKey(key);
        m_out.integer(value);
    }
    void argStr(std::string_view key, std::string_view value) {
        argKey(key);
        m_out.str(value);
    }
    void argDim3(std::string_view key, std::int32_t x, std::int32_t y, std::int32_t z) {
        argKey(key);
        m_out.raw("[");
        m_out.integer(x);
        m_out.raw(",");
        m_out.integer(y);
        m_out.raw(",");
        m_out.integer(z);
        m_out.raw("]");
    }
    void argKey(std::string_view key) {
        m_out.raw(m_firstArg ? ",\"args\":{" : ",");
        m_firstArg = false;
        m_out.str(key);
        m_out.raw(":");
    }
    void beginArgs() { m_firstArg = true; }
    void endArgs() {
        if (!m_firstArg) {
            m_out.raw("}");
        }
    }

    std::int64_t threadPid(ThreadIndex t) const {
        return t < m_model.threads.size() ? m_model.threads[t].pid : 0;
    }
    std::int64_t threadTid(ThreadIndex t) const {
        return t < m_model.threads.size() ? m_model.threads[t].tid : 0;
    }

    // External id of the op that launched GPU work through `call`, or 0.
    std::int64_t externalIdOf(ApiCallId call) const {
        if (!call.valid() || call.index >= m_model.apiCalls.size()) {
            return 0;
        }
        CpuOpId op = m_model.apiCalls.cpuOp[call.index];
        return op.valid() && op.index < m_model.cpuOps.size() ? m_model.cpuOps.externalId[op.index] : 0;
    }

    void writeDeviceProperties() {
        if (m_model.devices.empty()) {
            return;
        }
        m_out.raw(",\"deviceProperties\":[");
        bool first = true;
        for (const DeviceInfo& d : m_model.devices) {
            m_out.raw(first ? "\n{\"id\":" : ",\n{\"id\":");
            first = false;
            m_out.integer(d.deviceIndex);
            m_out.raw(",\"name\":");
            m_out.str(d.name);
            if (!d.vendor.empty()) {
                m_out.raw(",\"vendor\":");
                m_out.str(d.vendor);
            }
            auto field = [&](const char* key, std::int64_t value) {
                if (value != 0) {
                    m_out.raw(",\"");
                    m_out.raw(key);
                    m_out.raw("\":");
                    m_out.integer(value);
                }
            };
            field("totalGlobalMem", d.totalMemoryBytes);
            field("computeMajor", d.computeMajor);
            field("computeMinor", d.computeMinor);
            field("maxThreadsPerBlock", d.maxThreadsPerBlock);
            field("maxThreadsPerMultiprocessor", d.maxThreadsPerSm);
            field("regsPerBlock", d.registersPerBlock);
            field("warpSize", d.warpSize);
            field("sharedMemPerBlock", d.sharedMemoryPerBlockBytes);
            field("numSms", d.smCount);
            field("l2CacheSize", d.l2CacheBytes);
            field("clockRate", d.coreClockKhz);
            field("memoryClockRate", d.memoryClockKhz);
            field("memoryBusWidth", d.memoryBusWidthBits);
            m_out.raw("}");
        }
        m_out.raw("]");
    }

    void writeDistributedInfo() {
        const DistributedInfo& d = m_model.distributed;
        if (!d.present) {
            return;
        }
        m_out.raw(",\"distributedInfo\":{\"backend\":");
        m_out.str(d.backend);
        m_out.raw(",\"rank\":");
        m_out.integer(d.rank);
        m_out.raw(",\"world_size\":");
        m_out.integer(d.worldSize);
        m_out.raw("}");
    }

    void nameEvent(const char* what, std::int64_t pid, std::int64_t tid, std::string_view name) {
        begin('M', "__metadata", what, pid, tid, 0);
        beginArgs();
        argStr("name", name);
        endArgs();
        end();
    }

    void sortEvent(const char* what, std::int64_t pid, std::int64_t tid, std::int64_t index) {
        begin('M', "__metadata", what, pid, tid, 0);
        beginArgs();
        argInt("sort_index", index);
        endArgs();
        end();
    }

    void writeMetadataEvents() {
        std::set<std::int64_t> named;
        for (const ProcessInfo& p : m_model.processes) {
            if (!p.name.empty() && named.insert(p.pid).second) {
                nameEvent("process_name", p.pid, 0, p.name);
            }
        }
        for (const ThreadInfo& t : m_model.threads) {
            if (!t.name.empty()) {
                nameEvent("thread_name", t.pid, t.tid, t.name);
            }
        }
        // One process per GPU: every device that has properties or events.
        std::map<std::int32_t, std::set<std::int32_t>> gpuStreams;
        for (const DeviceInfo& d : m_model.devices) {
            gpuStreams[d.deviceIndex];
        }
        for (const StreamInfo& s : m_model.streams) {
            gpuStreams[s.deviceIndex].insert(s.streamId);
        }
        auto addStreams = [&](const std::vector<std::int16_t>& dev, const std::vector<std::int32_t>& stream) {
            for (std::size_t i = 0; i < dev.size(); ++i) {
                gpuStreams[dev[i]].insert(stream[i]);
            }
        };
        addStreams(m_model.kernels.deviceIndex, m_model.kernels.streamId);
        addStreams(m_model.memcpys.deviceIndex, m_model.memcpys.streamId);
        addStreams(m_model.memsets.deviceIndex, m_model.memsets.streamId);
        for (const auto& [device, streams] : gpuStreams) {
            const DeviceInfo* info = m_model.device(device);
            std::string label = "GPU " + std::to_string(device);
            if (info != nullptr && !info->name.empty()) {
                label += ": " + info->name;
            }
            nameEvent("process_name", device, 0, label);
            sortEvent("process_sort_index", device, 0, 1'000'000 + device);
            for (std::int32_t stream : streams) {
                std::string streamLabel = "stream " + std::to_string(stream);
                for (const StreamInfo& s : m_model.streams) {
                    if (s.deviceIndex == device && s.streamId == stream && !s.name.empty()) {
                        streamLabel += " " + s.name;
                    }
                }
                nameEvent("thread_name", device, stream, streamLabel);
            }
        }
    }

    // Flow arrow from the launching call to GPU work starting at (device, stream, startNs).
    void flow(ApiCallId call, std::int64_t correlation, std::int32_t device, std::int32_t stream,
              std::int64_t startNs) {
        if (!call.valid() || call.index >= m_model.apiCalls.size()) {
            return;
        }
        // Kineto uses the correlation id as the flow id; rows without one get ids above 2^48.
        std::int64_t id = correlation != 0 ? correlation : (std::int64_t{1} << 48) + m_syntheticFlowIds++;
        ThreadIndex t = m_model.apiCalls.thread[call.index];
        begin('s', "ac2g", "ac2g", threadPid(t), threadTid(t), m_model.apiCalls.startNs[call.index]);
        m_out.raw(",\"id\":");
        m_out.integer(id);
        end();
        begin('f', "ac2g", "ac2g", device, stream, startNs);
        m_out.raw(",\"id\":");
        m_out.integer(id);
        m_out.raw(",\"bp\":\"e\"");
        end();
    }

    void writeKernels() {
        const KernelTable& t = m_model.kernels;
        for (std::size_t i = 0; i < t.size(); ++i) {
            begin('X', "kernel", m_model.text(t.name[i]), t.deviceIndex[i], t.streamId[i], t.startNs[i]);
            duration(t.startNs[i], t.endNs[i]);
            beginArgs();
            argInt("device", t.deviceIndex[i]);
            argInt("stream", t.streamId[i]);
            argInt("correlation", t.correlationId[i]);
            if (std::int64_t external = externalIdOf(t.launchCall[i]); external != 0) {
                argInt("External id", external);
            }
            argDim3("grid", t.gridX[i], t.gridY[i], t.gridZ[i]);
            argDim3("block", t.blockX[i], t.blockY[i], t.blockZ[i]);
            argInt("registers per thread", t.registersPerThread[i]);
            argInt("shared memory", std::int64_t{t.staticSharedBytes[i]} + t.dynamicSharedBytes[i]);
            argInt("static shared memory", t.staticSharedBytes[i]);
            argInt("dynamic shared memory", t.dynamicSharedBytes[i]);
            endArgs();
            end();
            flow(t.launchCall[i], t.correlationId[i], t.deviceIndex[i], t.streamId[i], t.startNs[i]);
        }
    }

    void writeMemcpys() {
        const MemcpyTable& t = m_model.memcpys;
        std::string name;
        for (std::size_t i = 0; i < t.size(); ++i) {
            name = "Memcpy ";
            name += memcpyKindLabel(t.kind[i]);
            name += " (";
            name += memoryKindLabel(t.srcKind[i]);
            name += " -> ";
            name += memoryKindLabel(t.dstKind[i]);
            name += ")";
            begin('X', "gpu_memcpy", name, t.deviceIndex[i], t.streamId[i], t.startNs[i]);
            duration(t.startNs[i], t.endNs[i]);
            beginArgs();
            argInt("device", t.deviceIndex[i]);
            argInt("stream", t.streamId[i]);
            argInt("correlation", t.correlationId[i]);
            argInt("bytes", t.sizeBytes[i]);
            endArgs();
            end();
            flow(t.launchCall[i], t.correlationId[i], t.deviceIndex[i], t.streamId[i], t.startNs[i]);
        }
    }

    void writeMemsets() {
        const MemsetTable& t = m_model.memsets;
        std::string name;
        for (std::size_t i = 0; i < t.size(); ++i) {
            name = "Memset (";
            name += memoryKindLabel(t.memoryKind[i]);
            name += ")";
            begin('X', "gpu_memset", name, t.deviceIndex[i], t.streamId[i], t.startNs[i]);
            duration(t.startNs[i], t.endNs[i]);
            beginArgs();
            argInt("device", t.deviceIndex[i]);
            argInt("stream", t.streamId[i]);
            argInt("correlation", t.correlationId[i]);
            argInt("bytes", t.sizeBytes[i]);
            endArgs();
            end();
            flow(t.launchCall[i], t.correlationId[i], t.deviceIndex[i], t.streamId[i], t.startNs[i]);
        }
    }

    void writeApiCalls() {
        const ApiCallTable& t = m_model.apiCalls;
        for (std::size_t i = 0; i < t.size(); ++i) {
            std::string_view cat = t.domain[i] == ApiDomain::Driver ? "cuda_driver" : "cuda_runtime";
            begin('X', cat, m_model.text(t.name[i]), threadPid(t.thread[i]), threadTid(t.thread[i]),
                  t.startNs[i]);
            duration(t.startNs[i], t.endNs[i]);
            beginArgs();
            argInt("correlation", t.correlationId[i]);
            if (std::int64_t external = externalIdOf(ApiCallId{static_cast<std::uint32_t>(i)});
                external != 0) {
                argInt("External id", external);
            }
            endArgs();
            end();
        }
    }

    void writeSyncs() {
        const SyncTable& t = m_model.syncs;
        for (std::size_t i = 0; i < t.size(); ++i) {
            begin('X', "cuda_sync", syncLabel(t.kind[i]), t.deviceIndex[i], t.streamId[i], t.startNs[i]);
            duration(t.startNs[i], t.endNs[i]);
            beginArgs();
            argInt("device", t.deviceIndex[i]);
            argInt("stream", t.streamId[i]);
            argInt("correlation", t.correlationId[i]);
            if (t.thread[i] != kNoThread) {
                argInt("host pid", threadPid(t.thread[i]));
                argInt("host tid", threadTid(t.thread[i]));
            }
            endArgs();
            end();
        }
    }

    void writeRanges() {
        const RangeTable& t = m_model.ranges;
        for (std::size_t i = 0; i < t.size(); ++i) {
            if (t.source[i] == RangeSource::GpuUserAnnotation) {
                begin('X', "gpu_user_annotation", m_model.text(t.name[i]), t.deviceIndex[i], t.streamId[i],
                      t.startNs[i]);
            } else {
                begin('X', "user_annotation", m_model.text(t.name[i]), threadPid(t.thread[i]),
                      threadTid(t.thread[i]), t.startNs[i]);
            }
            duration(t.startNs[i], t.endNs[i]);
            beginArgs();
            if (t.source[i] == RangeSource::GpuUserAnnotation) {
                argInt("device", t.deviceIndex[i]);
                argInt("stream", t.streamId[i]);
            }
            if (t.source[i] == RangeSource::Nvtx) {
                argStr("source", "NVTX");
            }
            if (std::string_view domain = m_model.text(t.domain[i]); !domain.empty()) {
                argStr("domain", domain);
            }
            endArgs();
            end();
        }
    }

    // Input shapes are stored as the trace recorded them, normally a JSON array: written raw when
    // it is one, as a string otherwise (so the document stays valid).
    bool isJsonArray(StringId id) {
        if (id.index >= m_arrayCheck.size()) {
            m_arrayCheck.resize(m_model.strings.size(), 0);
        }
        if (id.index >= m_arrayCheck.size()) {
            return false;
        }
        std::int8_t& state = m_arrayCheck[id.index];
        if (state == 0) {
            std::string_view text = m_model.text(id);
            simdjson::dom::element element;
            bool array = !text.empty() && text.front() == '[' &&
                         m_parser.parse(simdjson::padded_string(text)).get(element) == simdjson::SUCCESS &&
                         element.is_array();
            state = array ? 1 : -1;
        }
        return state == 1;
    }

    void writeCpuOps() {
        const CpuOpTable& t = m_model.cpuOps;
        for (std::size_t i = 0; i < t.size(); ++i) {
            std::string_view cat =
                t.category[i] == CpuOpCategory::PythonFunction ? "python_function" : "cpu_op";
            begin('X', cat, m_model.text(t.name[i]), threadPid(t.thread[i]), threadTid(t.thread[i]),
                  t.startNs[i]);
            duration(t.startNs[i], t.endNs[i]);
            beginArgs();
            if (t.externalId[i] != 0) {
                argInt("External id", t.externalId[i]);
            }
            if (t.inputShapes[i].valid() && !m_model.text(t.inputShapes[i]).empty()) {
                if (isJsonArray(t.inputShapes[i])) {
                    argKey("Input Dims");
                    m_out.raw(m_model.text(t.inputShapes[i]));
                } else {
                    argStr("Input Dims", m_model.text(t.inputShapes[i]));
                }
            }
            if (t.inputTypes[i].valid() && !m_model.text(t.inputTypes[i]).empty()) {
                if (isJsonArray(t.inputTypes[i])) {
                    argKey("Input type");
                    m_out.raw(m_model.text(t.inputTypes[i]));
                } else {
                    argStr("Input type", m_model.text(t.inputTypes[i]));
                }
            }
            if (t.concreteInputs[i].valid() && !m_model.text(t.concreteInputs[i]).empty() &&
                isJsonArray(t.concreteInputs[i])) {
                argKey("Concrete Inputs");
                m_out.raw(m_model.text(t.concreteInputs[i]));
            }
            endArgs();
            end();
        }
    }

    void writeCounters() {
        for (const CounterTrack& track : m_model.counters) {
            std::int64_t pid = track.deviceIndex >= 0 ? track.deviceIndex : track.pid;
            std::string_view key =
                track.unit.empty() ? std::string_view("value") : std::string_view(track.unit);
            std::size_t n = std::min(track.timesNs.size(), track.values.size());
            for (std::size_t i = 0; i < n; ++i) {
                if (!std::isfinite(track.values[i])) {
                    continue;
                }
                begin('C', "counter", track.name, pid, track.tid, track.timesNs[i]);
                m_out.raw(",\"args\":{");
                m_out.str(key);
                m_out.raw(":");
                m_out.number(track.values[i]);
                m_out.raw("}");
                end();
            }
        }
    }

    // Stack samples. Perfetto's JSON importer reads neither the trace-event format's "stackFrames"
    // dictionary nor its "P" sample events (JSON is imported on a best-effort basis and those never
    // were: google/perfetto#387), so each sample is written as a thread-scoped instant event
    // ("ph":"i","s":"t") on its thread: Perfetto draws it as a tick on that thread's track and shows
    // the stack in the event's args ("stack": the frames leaf first, "function (file:line)").
    // The name is the leaf frame's function. chrome://tracing shows the same.
    void writeStackSamples() {
        const StackSampleTable& t = m_model.stackSamples;
        std::vector<std::string> frameText(m_model.stackFrames.size());
        auto frame = [&](FrameIndex f) -> const std::string& {
            std::string& text = frameText[f];
            if (text.empty()) {
                const StackFrame& sf = m_model.stackFrames[f];
                text = std::string(m_model.text(sf.function));
                if (!m_model.text(sf.file).empty()) {
                    text += " (" + std::string(m_model.text(sf.file)) +
                            (sf.line > 0 ? ":" + std::to_string(sf.line) : std::string()) + ")";
                }
            }
            return text;
        };
        for (std::size_t i = 0; i < t.size(); ++i) {
            const std::span<const FrameIndex> frames = m_model.stack(t.stack[i]);
            std::string_view leaf = "(no frames)";
            if (!frames.empty() && frames.front() < m_model.stackFrames.size()) {
                leaf = m_model.text(m_model.stackFrames[frames.front()].function);
            }
            begin('i', "python_stack_sample", leaf, threadPid(t.thread[i]), threadTid(t.thread[i]),
                  t.timeNs[i]);
            m_out.raw(",\"s\":\"t\",\"args\":{\"stack\":[");
            bool first = true;
            for (FrameIndex f : frames) {
                if (f >= m_model.stackFrames.size()) {
                    continue;
                }
                m_out.raw(first ? "" : ",");
                first = false;
                m_out.str(frame(f));
            }
            m_out.raw("]}");
            end();
        }
    }

    const TraceModel& m_model;
    JsonOut& m_out;
    bool m_first = true;
    bool m_firstArg = true;
    std::int64_t m_syntheticFlowIds = 0;
    std::vector<std::int8_t> m_arrayCheck;  // per string id: 0 unknown, 1 JSON array, -1 not
    simdjson::dom::parser m_parser;
};

}  // namespace

bool writeChromeTrace(const TraceModel& model, const std::function<bool(std::string_view)>& sink) {
    JsonOut out(sink);
    ChromeTraceWriter writer(model, out);
    writer.write();
    return out.ok();
}

std::string chromeTraceJson(const TraceModel& model) {
    std::string json;
    writeChromeTrace(model, [&json](std::string_view piece) {
        json.append(piece);
        return true;
    });
    return json;
}

Status exportChromeTrace(const TraceModel& model, const std::string& path) {
    const bool gzip = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    const std::string temp = path + ".tmp." + std::to_string(::getpid());
    bool ok = true;
    std::string failure;
    if (gzip) {
        gzFile file = gzopen(temp.c_str(), "wb6");
        if (file == nullptr) {
            return makeError(path + ": cannot create " + temp + ": " + std::strerror(errno));
        }
        ok = writeChromeTrace(model, [&](std::string_view piece) {
            return gzwrite(file, piece.data(), static_cast<unsigned>(piece.size())) ==
                   static_cast<int>(piece.size());
        });
        if (!ok) {
            int code = 0;
            const char* message = gzerror(file, &code);
            failure = message != nullptr ? message : "gzip write failed";
        }
        if (gzclose(file) != Z_OK && ok) {
            ok = false;
            failure = "gzip close failed";
        }
    } else {
        std::FILE* file = std::fopen(temp.c_str(), "wb");
        if (file == nullptr) {
            return makeError(path + ": cannot create " + temp + ": " + std::strerror(errno));
        }
        ok = writeChromeTrace(model, [&](std::string_view piece) {
            return std::fwrite(piece.data(), 1, piece.size(), file) == piece.size();
        });
        if (!ok) {
            failure = std::strerror(errno);
        }
        if (std::fclose(file) != 0 && ok) {
            ok = false;
            failure = std::strerror(errno);
        }
    }
    if (!ok) {
        std::remove(temp.c_str());
        return makeError(path + ": write failed: " + failure);
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        int e = errno;
        std::remove(temp.c_str());
        return makeError(path + ": cannot rename the temporary file into place: " + std::strerror(e));
    }
    return Ok{};
}

}  // namespace chokepoint::core
