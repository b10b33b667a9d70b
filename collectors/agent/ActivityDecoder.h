#pragma once
// Turns CUPTI activity buffers into model rows. Walks a buffer with the real
// cuptiActivityGetNextRecord (works on plain memory, no driver needed) and appends to a batch
// TraceModel:
//   CONCURRENT_KERNEL -> kernels (demangled names), MEMCPY/MEMCPY2 -> memcpys, MEMSET -> memsets,
//   RUNTIME/DRIVER/INTERNAL_LAUNCH_API -> apiCalls (names without the "_vNNNN" suffix),
//   SYNCHRONIZATION -> syncs, GRAPH_TRACE -> kernels named "CUDA graph <id>",
//   DEVICE -> devices, EXTERNAL_CORRELATION -> the external-id table below,
//   OVERHEAD -> counted (and its overheadData freed, as CUPTI requires).
// CUPTI timestamps are mapped to CLOCK_MONOTONIC with the ClockMap. Records without timestamps
// (start = end = 0) or with end < start are counted and skipped; records that start outside the
// capture window are counted and skipped. Not thread-safe (one decoder thread).

#include <cupti.h>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>

#include "collectors/agent/ClockSync.h"
#include "core/model/TraceModel.h"

namespace chokepoint::collectors {

struct DecoderCounts {
    std::uint64_t records = 0;
    std::uint64_t kernels = 0, memcpys = 0, memsets = 0, apiCalls = 0, syncs = 0, graphs = 0, devices = 0;
    std::uint64_t externalCorrelations = 0, overhead = 0;
    std::int64_t overheadNs = 0;
    std::uint64_t noTimestamp = 0, inverted = 0, outsideWindow = 0, unknownKind = 0;
    std::uint64_t bufferErrors = 0;  // cuptiActivityGetNextRecord failed other than at the end
};

struct ExternalCorrelation {
    std::uint32_t kind = 0;  // CUpti_ExternalCorrelationKind
    std::uint64_t externalId = 0;
};

class ActivityDecoder {
public:
    explicit ActivityDecoder(const ClockMap& clock) : m_clock(clock) {}

    // Rows whose (monotonic) start is outside [startNs, endNs) are skipped.
    void setWindow(core::TimestampNs startNs, core::TimestampNs endNs) {
        m_windowStart = startNs;
        m_windowEnd = endNs;
    }

    // Decodes every record in buffer[0, validBytes) into `batch`.
    void decode(std::uint8_t* buffer, std::size_t validBytes, core::TraceModel& batch);

    // External correlation recorded for a CUPTI correlation id (e.g. Kineto's CUSTOM0 op id).
    const ExternalCorrelation* externalFor(std::uint32_t correlationId) const;
    // Device ordinal of a CUDA context, learned from kernel/memcpy/memset records.
    int deviceOfContext(std::uint32_t contextId) const;

    const DecoderCounts& counts() const { return m_counts; }
    // Adds the data-quality counters to `stats` (and resets nothing).
    void reportStats(core::TraceStats& stats) const;

    // "cudaLaunchKernel" for CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000.
    static std::string apiName(CUpti_ActivityKind kind, CUpti_CallbackId cbid);
    static std::string demangle(const char* name);

private:
    bool inWindow(core::TimestampNs t) const { return t >= m_windowStart && t < m_windowEnd; }
    bool timesValid(std::uint64_t start, std::uint64_t end);
    const std::string& kernelName(const char* mangled);
    const std::string& cachedApiName(CUpti_ActivityKind kind, CUpti_CallbackId cbid);

    const ClockMap& m_clock;
    core::TimestampNs m_windowStart = std::numeric_limits<core::TimestampNs>::min();
    core::TimestampNs m_windowEnd = std::numeric_limits<core::TimestampNs>::max();
    DecoderCounts m_counts;
    std::unordered_map<const char*, std::string> m_kernelNames;  // CUPTI keeps name pointers alive
    std::map<std::pair<int, std::uint32_t>, std::string> m_apiNames;
    std::unordered_map<std::uint32_t, ExternalCorrelation> m_external;
    std::unordered_map<std::uint32_t, int> m_contextDevice;
};

}  // namespace chokepoint::collectors
