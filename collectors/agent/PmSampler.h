#pragma once
// GPU metrics over time through CUPTI PM sampling (guide §4): the GPU's performance monitors sample
// a fixed single-pass counter configuration every `intervalNs`; we decode the hardware buffer on
// the engine's worker thread and append one counter track per metric (device-wide values).
//
// The metric configuration is built with the CUPTI profiler host API, which works offline for a
// chip name ("GH100") without a GPU; buildPmSamplingConfig() is tested that way. The sampling
// itself needs a GPU and permission to read its counters: without it cuptiPmSamplingEnable
// returns CUPTI_ERROR_INSUFFICIENT_PRIVILEGES and start() explains ERR_NVGPUCTRPERM and the fix.
// One PM sampling user per device: a second one (another rank, DCGM profiling) is reported.
// Not thread-safe: start/decode/stop from one thread. The device-side calls go through
// PmSamplingCalls, which tests replace.

#include <cstdint>
#include <string>
#include <vector>

#include "collectors/agent/ClockSync.h"
#include "core/base/Result.h"
#include "core/model/TraceModel.h"

struct CUpti_Profiler_Host_Object;
struct CUpti_PmSampling_Object;

namespace chokepoint::collectors {

class PmSamplingCalls;

struct PmMetric {
    const char* name;   // CUPTI metric
    const char* label;  // counter track name
    const char* unit;
};

// The 17-metric GH100 set of guide §4.2 (validated there as one pass on GH100 with CUDA 13.0).
const std::vector<PmMetric>& defaultPmMetrics();

struct PmConfig {
    std::vector<std::uint8_t> image;
    std::size_t passes = 0;
    std::vector<PmMetric> metrics;     // the metrics the image holds, in the order asked for
    std::vector<std::string> dropped;  // "metric: why" for each one left out
};

// Builds the PM sampling configuration image for `chip` (optionally restricted by a counter
// availability image from the device). When the whole set is refused, the metrics refused alone
// or that would need a second pass are dropped (named in `dropped`) and the rest is kept. Fails,
// naming the metric or the pass count, when a single metric is refused or none is left.
core::Result<PmConfig> buildPmSamplingConfig(const std::string& chip,
                                             const std::vector<std::uint8_t>& availability,
                                             const std::vector<PmMetric>& metrics);

// The midpoint of a decoded PM sample, or -1 for a sample that covers no time: both timestamps 0
// (what decodes return after the counter data image once filled up) or end not after start (the
// one or two samples decoded after cuptiPmSamplingStop, stamped at the start). Measured on an H100
// with CUDA 13.3 by another project (docs/COLLECTORS.md, "GPU metrics"); not seen by us yet.
std::int64_t pmSampleMidpointNs(std::uint64_t startNs, std::uint64_t endNs);

class PmSampler {
public:
    struct Options {
        int deviceIndex = 0;
        std::uint64_t intervalNs = 1'000'000;  // 1 kHz: enough to classify step phases
        std::size_t hardwareBufferBytes = 64u << 20;
        std::uint32_t maxSamplesPerDecode = 1024;
        std::vector<PmMetric> metrics;  // empty: defaultPmMetrics()
    };

    // True when GPU `deviceIndex` has an active primary context. PM sampling is started only then:
    // before the job has created its context (run mode starts inside cuInit) the counter
    // availability and the profiler calls have no context to work on.
    static bool deviceHasContext(int deviceIndex);

    PmSampler();                                 // calls libcupti
    explicit PmSampler(PmSamplingCalls& calls);  // tests: a stand-in for the GPU
    ~PmSampler();
    PmSampler(const PmSampler&) = delete;
    PmSampler& operator=(const PmSampler&) = delete;

    // Enables, configures and starts sampling. The error says why (permission, device busy...).
    core::Status start(const Options& options);
    // Decodes what the hardware buffer holds and appends samples whose (monotonic) time lies in
    // [windowStartNs, windowEndNs) to `batch`.
    void decodeInto(core::TraceModel& batch, const ClockMap& clock, core::TimestampNs windowStartNs,
                    core::TimestampNs windowEndNs);
    // Stops, decodes the rest, disables. Safe to call when not started.
    void stop(core::TraceModel& batch, const ClockMap& clock, core::TimestampNs windowStartNs,
              core::TimestampNs windowEndNs);
    // Stops and decodes the rest like stop(), but keeps the session enabled for resume(), for when
    // cuptiPmSamplingDisable must not be called: it may finalize CUPTI (XLA's PM sampler), which
    // crashed a CUDA-graph job on an H100, and at process exit the profiler's objects may be gone.
    void pause(core::TraceModel& batch, const ClockMap& clock, core::TimestampNs windowStartNs,
               core::TimestampNs windowEndNs);
    // Starts a paused session again for the next capture, with the same metrics.
    core::Status resume();
    bool paused() const { return m_paused; }
    std::uint64_t samples() const { return m_tally.samples; }
    std::uint64_t overflows() const { return m_tally.overflows; }
    // Metrics left out of the set ("metric: why") and other remarks for the trace notes.
    const std::vector<std::string>& droppedMetrics() const { return m_dropped; }
    const std::vector<std::string>& notes() const { return m_notes; }
    std::size_t metricCount() const { return m_metrics.size(); }

private:
    // What one capture's decodes saw; reset when a paused session resumes.
    struct DecodeTally {
        std::uint64_t samples = 0;
        std::uint64_t overflows = 0;
        std::uint64_t nonFinite = 0;
        std::uint64_t raw = 0, outsideWindow = 0, evaluateErrors = 0, decodeErrors = 0;
        std::uint64_t untimed = 0;   // samples that cover no time (pmSampleMidpointNs)
        bool overflowStuck = false;  // the hardware buffer overflowed: decodes return nothing
        std::uint64_t samplesAtOverflow = 0;
        std::string lastError;
        bool firstSampleSeen = false;
        std::int64_t firstRawNs = 0;     // the first sample's time as CUPTI gave it
        std::int64_t clockOffsetNs = 0;  // added to sample times when they are not on CUPTI's clock
    };

    core::Status startSampling();  // initialises the counter data image and starts
    void finishCapture(core::TraceModel& batch, const ClockMap& clock, core::TimestampNs windowStartNs,
                       core::TimestampNs windowEndNs);
    void release();

    PmSamplingCalls& m_calls;
    Options m_options;
    CUpti_PmSampling_Object* m_object = nullptr;
    std::vector<std::uint8_t> m_configImage;  // CUPTI holds a pointer to it until the disable
    CUpti_Profiler_Host_Object* m_host = nullptr;
    bool m_profilerInitialized = false;
    std::vector<std::uint8_t> m_counterData;
    std::vector<PmMetric> m_metrics;
    std::vector<std::string> m_dropped;
    std::vector<std::string> m_notes;
    std::vector<const char*> m_metricNames;
    bool m_paused = false;
    DecodeTally m_tally;
    std::int64_t m_startCuptiNs = 0;  // cuptiGetTimestamp when sampling started
};

}  // namespace chokepoint::collectors
