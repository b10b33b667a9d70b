#include "samples/synthetic/SyntheticJobWriter.h"

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/base/JsonEscape.h"
#include "core/format/CptraceWriter.h"

namespace chokepoint::samples {

namespace {

// Kineto's layout: host events under the process and thread ids, GPU events under pid = device
// ordinal and tid = stream id; times in microseconds with nanosecond decimals.
class KinetoWriter {
public:
    explicit KinetoWriter(const core::TraceModel& model) : m(model) {
        for (const core::CollectiveCallRow& c : m.collectiveCalls) {
            m_calls[c.correlationId] = &c;
        }
    }

    std::string write() {
        const core::DeviceInfo* d = m.device(0);
        out += "{\"schemaVersion\":1";
        if (d) {
            out += ",\"deviceProperties\":[{\"id\":0,\"name\":";
            core::appendJsonString(out, d->name);
            out += ",\"totalGlobalMem\":" + std::to_string(d->totalMemoryBytes) +
                   ",\"computeMajor\":" + std::to_string(d->computeMajor) +
                   ",\"computeMinor\":" + std::to_string(d->computeMinor) +
                   ",\"maxThreadsPerBlock\":" + std::to_string(d->maxThreadsPerBlock) +
                   ",\"maxThreadsPerMultiprocessor\":" + std::to_string(d->maxThreadsPerSm) +
                   ",\"regsPerBlock\":" + std::to_string(d->registersPerBlock) +
                   ",\"warpSize\":" + std::to_string(d->warpSize) +
                   ",\"sharedMemPerBlock\":" + std::to_string(d->sharedMemoryPerBlockBytes) +
                   ",\"numSms\":" + std::to_string(d->smCount) +
                   ",\"l2CacheSize\":" + std::to_string(d->l2CacheBytes) + "}]";
        }
        if (m.distributed.present) {
            out += ",\"distributedInfo\":{\"backend\":";
            core::appendJsonString(out, m.distributed.backend);
            out += ",\"rank\":" + std::to_string(m.distributed.rank) +
                   ",\"world_size\":" + std::to_string(m.distributed.worldSize) + "}";
        }
        out += ",\"traceEvents\":[";
        for (const core::ProcessInfo& p : m.processes) {
            meta("process_name", p.pid, 0, p.name);
        }
        for (const core::ThreadInfo& t : m.threads) {
            meta("thread_name", t.pid, t.tid, t.name);
        }
        for (std::size_t i = 0; i < m.ranges.size(); ++i) {
            host("user_annotation", m.ranges.name[i], m.ranges.thread[i], m.ranges.startNs[i],
                 m.ranges.endNs[i]);
            out += "}";
        }
        for (std::size_t i = 0; i < m.cpuOps.size(); ++i) {
            const bool python = m.cpuOps.category[i] == core::CpuOpCategory::PythonFunction;
            host(python ? "python_function" : "cpu_op", m.cpuOps.name[i], m.cpuOps.thread[i],
                 m.cpuOps.startNs[i], m.cpuOps.endNs[i]);
            out += ",\"args\":{\"External id\":" + std::to_string(m.cpuOps.externalId[i]);
            rawArg("Input Dims", m.text(m.cpuOps.inputShapes[i]));
            rawArg("Input type", m.text(m.cpuOps.inputTypes[i]));
            out += "}}";
        }
        for (std::size_t i = 0; i < m.apiCalls.size(); ++i) {
            host("cuda_runtime", m.apiCalls.name[i], m.apiCalls.thread[i], m.apiCalls.startNs[i],
                 m.apiCalls.endNs[i]);
            out += ",\"args\":{\"correlation\":" + std::to_string(m.apiCalls.correlationId[i]) + "}}";
        }
        for (std::size_t i = 0; i < m.syncs.size(); ++i) {
            host("cuda_sync", std::string_view("Stream Sync"), m.syncs.thread[i], m.syncs.startNs[i],
                 m.syncs.endNs[i]);
            out += ",\"args\":{\"stream\":" + std::to_string(m.syncs.streamId[i]) + "}}";
        }
        for (std::size_t i = 0; i < m.kernels.size(); ++i) {
            gpu("kernel", m.text(m.kernels.name[i]), m.kernels.deviceIndex[i], m.kernels.streamId[i],
                m.kernels.startNs[i], m.kernels.endNs[i], m.kernels.correlationId[i]);
            out += ",\"grid\":[" + std::to_string(m.kernels.gridX[i]) + "," +
                   std::to_string(m.kernels.gridY[i]) + "," + std::to_string(m.kernels.gridZ[i]) +
                   "],\"block\":[" + std::to_string(m.kernels.blockX[i]) + "," +
                   std::to_string(m.kernels.blockY[i]) + "," + std::to_string(m.kernels.blockZ[i]) +
                   "],\"registers per thread\":" + std::to_string(m.kernels.registersPerThread[i]) +
                   ",\"shared memory\":" +
                   std::to_string(m.kernels.staticSharedBytes[i] + m.kernels.dynamicSharedBytes[i]);
            auto call = m_calls.find(m.kernels.correlationId[i]);
            if (call != m_calls.end()) {
                const core::CollectiveCallRow& c = *call->second;
                stringArg("Collective name", m.text(c.collectiveName));
                out += ",\"In msg nelems\":" + std::to_string(c.inNelems) +
                       ",\"Out msg nelems\":" + std::to_string(c.outNelems) +
                       ",\"Group size\":" + std::to_string(c.groupSize);
                stringArg("dtype", m.text(c.dtype));
                stringArg("Process Group Name", m.text(c.processGroupName));
                stringArg("Process Group Description", m.text(c.processGroupDescription));
                stringArg("Process Group Ranks", m.text(c.processGroupRanks));
            }
            out += "}}";
        }
        for (std::size_t i = 0; i < m.memcpys.size(); ++i) {
            const bool toDevice = m.memcpys.kind[i] == core::MemcpyKind::HostToDevice;
            const std::string name =
                toDevice ? "Memcpy HtoD (Pinned -> Device)" : "Memcpy DtoH (Device -> Pageable)";
            gpu("gpu_memcpy", name, m.memcpys.deviceIndex[i], m.memcpys.streamId[i], m.memcpys.startNs[i],
                m.memcpys.endNs[i], m.memcpys.correlationId[i]);
            out += ",\"bytes\":" + std::to_string(m.memcpys.sizeBytes[i]) + "}}";
        }
        out += "\n],\"traceName\":\"synthetic rank " + std::to_string(m.distributed.rank) + "\"}\n";
        return std::move(out);
    }

private:
    void micros(core::TimestampNs ns) {
        char buffer[40];
        const char* sign = ns < 0 ? "-" : "";
        const std::int64_t a = ns < 0 ? -ns : ns;
        std::snprintf(buffer, sizeof buffer, "%s%" PRId64 ".%03" PRId64, sign, a / 1000, a % 1000);
        out += buffer;
    }
    void event(std::string_view cat, std::string_view name, std::int64_t pid, std::int64_t tid,
               core::TimestampNs start, core::TimestampNs end) {
        out += m_first ? "\n{\"ph\":\"X\",\"cat\":\"" : ",\n{\"ph\":\"X\",\"cat\":\"";
        m_first = false;
        out += cat;
        out += "\",\"name\":";
        core::appendJsonString(out, name);
        out += ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":";
        micros(start);
        out += ",\"dur\":";
        micros(end > start ? end - start : 0);
    }
    void host(std::string_view cat, core::StringId name, core::ThreadIndex thread, core::TimestampNs start,
              core::TimestampNs end) {
        const core::ThreadInfo& t = m.threads[thread];
        event(cat, m.text(name), t.pid, t.tid, start, end);
    }
    void host(std::string_view cat, std::string_view name, core::ThreadIndex thread, core::TimestampNs start,
              core::TimestampNs end) {
        const core::ThreadInfo& t = m.threads[thread];
        event(cat, name, t.pid, t.tid, start, end);
    }
    void gpu(std::string_view cat, std::string_view name, std::int32_t device, std::int32_t stream,
             core::TimestampNs start, core::TimestampNs end, std::int64_t correlation) {
        event(cat, name, device, stream, start, end);
        out += ",\"args\":{\"device\":" + std::to_string(device) + ",\"stream\":" + std::to_string(stream) +
               ",\"correlation\":" + std::to_string(correlation);
    }
    void meta(std::string_view what, std::int64_t pid, std::int64_t tid, std::string_view name) {
        out += m_first ? "\n{\"ph\":\"M\",\"name\":\"" : ",\n{\"ph\":\"M\",\"name\":\"";
        m_first = false;
        out += what;
        out +=
            "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"args\":{\"name\":";
        core::appendJsonString(out, name);
        out += "}}";
    }
    void stringArg(std::string_view key, std::string_view value) {
        out += ",";
        core::appendJsonString(out, key);
        out += ":";
        core::appendJsonString(out, value);
    }
    // Input Dims / Input type are JSON arrays as recorded.
    void rawArg(std::string_view key, std::string_view json) {
        if (json.empty()) {
            return;
        }
        out += ",";
        core::appendJsonString(out, key);
        out += ":";
        out += json;
    }

    const core::TraceModel& m;
    std::map<std::int64_t, const core::CollectiveCallRow*> m_calls;
    std::string out;
    bool m_first = true;
};

}  // namespace

std::string syntheticRankKinetoJson(const core::TraceModel& model) {
    return KinetoWriter(model).write();
}

core::Status writeSyntheticJob(const std::vector<core::TraceModel>& ranks, const std::string& folder,
                               SyntheticJobFormat format) {
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec) {
        return core::makeError(folder + ": cannot create the folder: " + ec.message());
    }
    for (const core::TraceModel& model : ranks) {
        const std::string stem = "rank-" + std::to_string(model.distributed.rank);
        if (format == SyntheticJobFormat::Cptrace) {
            const std::filesystem::path file = std::filesystem::path(folder) / (stem + ".cptrace");
            core::Status written = core::writeCptrace(model, file.string());
            if (!written.ok()) {
                return written;
            }
            continue;
        }
        const std::filesystem::path file = std::filesystem::path(folder) / (stem + ".pt.trace.json");
        std::ofstream stream(file, std::ios::binary | std::ios::trunc);
        stream << syntheticRankKinetoJson(model);
        stream.close();
        if (!stream) {
            return core::makeError(file.string() + ": cannot write the trace");
        }
    }
    return core::Ok{};
}

}  // namespace chokepoint::samples
