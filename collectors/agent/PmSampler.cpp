#include "collectors/agent/PmSampler.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "collectors/agent/CuptiApi.h"
#include "collectors/agent/PmSamplingCalls.h"
#include "core/model/PmMetricNames.h"

namespace chokepoint::collectors {

namespace {

// CUPTI parameter structs: zeroed, with the size CUPTI checks.
template <class Params>
Params params(std::size_t structSize) {
    Params p{};
    p.structSize = structSize;
    return p;
}

std::string describe(const char* call, CUptiResult r) {
    return std::string(call) + " failed: " + describeCuptiResult(r);
}

// Owns a host object for the duration of a config build.
struct HostObject {
    CUpti_Profiler_Host_Object* object = nullptr;
    ~HostObject() {
        if (object != nullptr) {
            auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(
                CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
            p.pHostObject = object;
            cuptiProfilerHostDeinitialize(&p);
        }
    }
};

core::Result<CUpti_Profiler_Host_Object*> initHost(const std::string& chip,
                                                   const std::vector<std::uint8_t>& availability) {
    auto p = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    p.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    CUptiResult r = cuptiProfilerHostInitialize(&p);
    if (r != CUPTI_SUCCESS) {
        return core::makeError(describe(("cuptiProfilerHostInitialize(" + chip + ")").c_str(), r));
    }
    return p.pHostObject;
}

core::Result<PmConfig> configure(CUpti_Profiler_Host_Object* host, const std::vector<PmMetric>& metrics) {
    // All metrics in one call: each ConfigAddMetrics call is scheduled as its own pass.
    std::vector<const char*> names;
    for (const PmMetric& m : metrics) {
        names.push_back(m.name);
    }
    auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = host;
    add.ppMetricNames = names.data();
    add.numMetrics = names.size();
    if (CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS) {
        return core::makeError("PM sampling metric set rejected: " + describeCuptiResult(r));
    }
    auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    size.pHostObject = host;
    if (CUptiResult r = cuptiProfilerHostGetConfigImageSize(&size); r != CUPTI_SUCCESS) {
        return core::makeError(describe("cuptiProfilerHostGetConfigImageSize", r));
    }
    PmConfig config;
    config.image.resize(size.configImageSize);
    auto image = params<CUpti_Profiler_Host_GetConfigImage_Params>(
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    image.pHostObject = host;
    image.configImageSize = config.image.size();
    image.pConfigImage = config.image.data();
    if (CUptiResult r = cuptiProfilerHostGetConfigImage(&image); r != CUPTI_SUCCESS) {
        return core::makeError(describe("cuptiProfilerHostGetConfigImage", r));
    }
    auto passes = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(
        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    passes.configImageSize = config.image.size();
    passes.pConfigImage = config.image.data();
    if (CUptiResult r = cuptiProfilerHostGetNumOfPasses(&passes); r != CUPTI_SUCCESS) {
        return core::makeError(describe("cuptiProfilerHostGetNumOfPasses", r));
    }
    config.passes = passes.numOfPasses;
    if (config.passes != 1) {
        return core::makeError("the PM sampling metric set needs " + std::to_string(config.passes) +
                               " passes; PM sampling can only record a single-pass set");
    }
    return config;
}

}  // namespace

const std::vector<PmMetric>& defaultPmMetrics() {
    // The names live in core/model (PmMetricNames), which Kineto's PM counters are named by too.
    static const std::vector<PmMetric> kMetrics = [] {
        std::vector<PmMetric> metrics;
        for (const core::PmMetricInfo& info : core::defaultPmMetricSet()) {
            metrics.push_back({info.cupti.data(), info.name.data(), info.unit.data()});
        }
        return metrics;
    }();
    return kMetrics;
}

namespace {

core::Result<PmConfig> configureOnNewHost(const std::string& chip,
                                          const std::vector<std::uint8_t>& availability,
                                          const std::vector<PmMetric>& metrics) {
    core::Result<CUpti_Profiler_Host_Object*> host = initHost(chip, availability);
    if (!host.ok()) {
        return host.error();
    }
    HostObject owner{host.value()};
    return configure(owner.object, metrics);
}

}  // namespace

core::Result<PmConfig> buildPmSamplingConfig(const std::string& chip,
                                             const std::vector<std::uint8_t>& availability,
                                             const std::vector<PmMetric>& metrics) {
    core::Result<PmConfig> whole = configureOnNewHost(chip, availability, metrics);
    if (whole.ok()) {
        whole->metrics = metrics;
        return whole;
    }
    if (whole.error().message.find("cuptiProfilerHostInitialize") != std::string::npos) {
        return whole;  // no host object for the chip at all
    }
    if (metrics.size() == 1) {
        return core::makeError(std::string("metric '") + metrics.front().name + "' cannot be sampled on " +
                               chip + ": " + whole.error().message);
    }
    // The set was refused (on an H100: CUPTI_ERROR_UNKNOWN for the whole set). Drop the metrics
    // the device refuses alone, then add the rest one by one while the set stays one pass, so one
    // unavailable counter (NVLink on a GPU without links, say) costs that metric, not all of them.
    PmConfig best;
    std::vector<PmMetric> kept;
    std::vector<std::string> dropped;
    for (const PmMetric& m : metrics) {
        core::Result<PmConfig> alone = configureOnNewHost(chip, availability, {m});
        if (!alone.ok()) {
            dropped.push_back(std::string(m.name) + ": " + alone.error().message);
            continue;
        }
        std::vector<PmMetric> candidate = kept;
        candidate.push_back(m);
        core::Result<PmConfig> together = configureOnNewHost(chip, availability, candidate);
        if (!together.ok()) {
            dropped.push_back(std::string(m.name) + ": not recordable together with the others (" +
                              together.error().message + ")");
            continue;
        }
        kept = std::move(candidate);
        best = std::move(together.value());
    }
    if (kept.empty()) {
        return core::makeError("no metric of the PM sampling set is available on " + chip +
                               " (the whole set: " + whole.error().message + "; for example " +
                               dropped.front() + ")");
    }
    best.metrics = std::move(kept);
    best.dropped = std::move(dropped);
    return best;
}

std::int64_t pmSampleMidpointNs(std::uint64_t startNs, std::uint64_t endNs) {
    if (endNs <= startNs) {
        return -1;  // both 0, or zero-length
    }
    return static_cast<std::int64_t>(startNs / 2 + endNs / 2 + (startNs % 2 + endNs % 2) / 2);
}

PmSampler::PmSampler() : m_calls(realPmSamplingCalls()) {}

PmSampler::PmSampler(PmSamplingCalls& calls) : m_calls(calls) {}

PmSampler::~PmSampler() {
    release();
}

void PmSampler::release() {
    if (m_object != nullptr) {
        auto d = params<CUpti_PmSampling_Disable_Params>(CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
        d.pPmSamplingObject = m_object;
        m_calls.disable(&d);
        m_object = nullptr;
    }
    m_configImage.clear();  // CUPTI read it until the disable
    m_paused = false;
    if (m_host != nullptr) {
        auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(
            CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
        p.pHostObject = m_host;
        cuptiProfilerHostDeinitialize(&p);
        m_host = nullptr;
    }
    if (m_profilerInitialized) {
        // Paired with cuptiProfilerInitialize in start(), so captures do not stack initialisations.
        auto p = params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
        m_calls.profilerDeInitialize(&p);
        m_profilerInitialized = false;
    }
}

bool PmSampler::deviceHasContext(int deviceIndex) {
    void* cuda = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);  // loaded already: it loaded us
    if (cuda == nullptr) {
        return false;
    }
    using GetDevice = int (*)(CUdevice*, int);
    using PrimaryState = int (*)(CUdevice, unsigned int*, int*);
    auto getDevice = reinterpret_cast<GetDevice>(::dlsym(cuda, "cuDeviceGet"));
    auto primaryState = reinterpret_cast<PrimaryState>(::dlsym(cuda, "cuDevicePrimaryCtxGetState"));
    CUdevice device = 0;
    unsigned int flags = 0;
    int active = 0;
    bool ready = getDevice != nullptr && primaryState != nullptr && getDevice(&device, deviceIndex) == 0 &&
                 primaryState(device, &flags, &active) == 0 && active != 0;
    ::dlclose(cuda);
    return ready;
}

core::Status PmSampler::start(const Options& options) {
    m_options = options;
    auto init = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    if (CUptiResult r = m_calls.profilerInitialize(&init); r != CUPTI_SUCCESS) {
        return core::makeError(describe("cuptiProfilerInitialize", r));
    }
    m_profilerInitialized = true;
    if (std::string why = m_calls.unsupportedReason(options.deviceIndex); !why.empty()) {
        release();
        return core::makeError(why);
    }
    auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = static_cast<std::size_t>(options.deviceIndex);
    if (CUptiResult r = m_calls.chipName(&chip); r != CUPTI_SUCCESS) {
        release();
        return core::makeError(describe("cuptiDeviceGetChipName", r));
    }
    auto avail = params<CUpti_PmSampling_GetCounterAvailability_Params>(
        CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
    avail.deviceIndex = static_cast<std::size_t>(options.deviceIndex);
    std::vector<std::uint8_t> availability;
    if (m_calls.counterAvailability(&avail) == CUPTI_SUCCESS && avail.counterAvailabilityImageSize > 0) {
        availability.resize(avail.counterAvailabilityImageSize);
        avail.pCounterAvailabilityImage = availability.data();
        if (m_calls.counterAvailability(&avail) != CUPTI_SUCCESS) {
            availability.clear();
        }
    }
    const std::vector<PmMetric>& wanted = options.metrics.empty() ? defaultPmMetrics() : options.metrics;
    core::Result<PmConfig> config = buildPmSamplingConfig(chip.pChipName, availability, wanted);
    if (!config.ok() && !availability.empty()) {
        // The availability image only matters for chips newer than the CUPTI; a bad one must not
        // cost every metric. Without it the offline configuration stands (SetConfig still checks).
        core::Result<PmConfig> offline = buildPmSamplingConfig(chip.pChipName, {}, wanted);
        if (offline.ok()) {
            m_notes.push_back(
                "configuration built without the device's counter availability image (with it: " +
                config.error().message + ")");
            availability.clear();
            config = std::move(offline);
        }
    }
    if (!config.ok()) {
        release();
        return config.error();
    }
    m_metrics = config->metrics;
    m_dropped = config->dropped;
    // The host object that evaluates samples holds the same metrics as the image.
    core::Result<CUpti_Profiler_Host_Object*> host = initHost(chip.pChipName, availability);
    if (!host.ok()) {
        release();
        return host.error();
    }
    m_host = host.value();
    if (core::Result<PmConfig> again = configure(m_host, m_metrics); !again.ok()) {
        release();
        return again.error();
    }
    auto enable = params<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
    enable.deviceIndex = static_cast<std::size_t>(options.deviceIndex);
    CUptiResult r = m_calls.enable(&enable);
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
        release();
        return core::makeError(
            "GPU performance counters are restricted to administrators on this machine (ERR_NVGPUCTRPERM). "
            "Ask an administrator to set `options nvidia NVreg_RestrictProfilingToAdminUsers=0` (modprobe.d, "
            "then reload the driver), or run the job as root / with CAP_SYS_ADMIN. Kernel timelines still "
            "work.");
    }
    if (r == CUPTI_ERROR_INVALID_OPERATION || r == CUPTI_ERROR_HARDWARE_BUSY) {
        release();
        return core::makeError(
            "GPU " + std::to_string(options.deviceIndex) +
            " counters are in use by another profiler (another rank's agent, Nsight, or DCGM "
            "profiling metrics: pause those with `dcgmi profile --pause`): " +
            describeCuptiResult(r));
    }
    if (r != CUPTI_SUCCESS) {
        release();
        return core::makeError(describe("cuptiPmSamplingEnable", r));
    }
    m_object = enable.pPmSamplingObject;
    // CUPTI keeps the pointer to the configuration image and reads it while sampling (Kineto found
    // hangs and crashes when it was freed early, pytorch/kineto#1532): it lives until release().
    m_configImage = std::move(config->image);
    auto set = params<CUpti_PmSampling_SetConfig_Params>(CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
    set.pPmSamplingObject = m_object;
    set.configSize = m_configImage.size();
    set.pConfig = m_configImage.data();
    set.hardwareBufferSize = options.hardwareBufferBytes;
    set.samplingInterval = options.intervalNs;
    set.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    set.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST;
    if ((r = m_calls.setConfig(&set)) != CUPTI_SUCCESS) {
        release();
        return core::makeError(describe("cuptiPmSamplingSetConfig", r));
    }
    m_metricNames.clear();
    for (const PmMetric& m : m_metrics) {
        m_metricNames.push_back(m.name);
    }
    auto size = params<CUpti_PmSampling_GetCounterDataSize_Params>(
        CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
    size.pPmSamplingObject = m_object;
    size.pMetricNames = m_metricNames.data();
    size.numMetrics = m_metricNames.size();
    size.maxSamples = options.maxSamplesPerDecode;
    if ((r = m_calls.counterDataSize(&size)) != CUPTI_SUCCESS) {
        release();
        return core::makeError(describe("cuptiPmSamplingGetCounterDataSize", r));
    }
    m_counterData.assign(size.counterDataSize, 0);
    if (core::Status started = startSampling(); !started.ok()) {
        release();
        return started;
    }
    return core::Ok{};
}

core::Status PmSampler::startSampling() {
    auto image = params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
        CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    image.pPmSamplingObject = m_object;
    image.counterDataSize = m_counterData.size();
    image.pCounterData = m_counterData.data();
    if (CUptiResult r = m_calls.initializeCounterData(&image); r != CUPTI_SUCCESS) {
        return core::makeError(describe("cuptiPmSamplingCounterDataImageInitialize", r));
    }
    auto startParams = params<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
    startParams.pPmSamplingObject = m_object;
    if (CUptiResult r = m_calls.start(&startParams); r != CUPTI_SUCCESS) {
        return core::makeError(describe("cuptiPmSamplingStart", r));
    }
    m_paused = false;
    m_tally = {};
    std::uint64_t now = 0;
    m_startCuptiNs = m_calls.timestamp(&now) == CUPTI_SUCCESS ? static_cast<std::int64_t>(now) : 0;
    return core::Ok{};
}

core::Status PmSampler::resume() {
    if (m_object == nullptr || !m_paused) {
        return core::makeError("no paused PM sampling session to resume");
    }
    m_notes.clear();  // the notes of the capture that paused it went into its trace
    return startSampling();
}

void PmSampler::decodeInto(core::TraceModel& batch, const ClockMap& clock, core::TimestampNs windowStartNs,
                           core::TimestampNs windowEndNs) {
    if (m_object == nullptr || m_paused || m_tally.overflowStuck) {
        return;
    }
    const auto& metrics = m_metrics;
    std::map<std::size_t, std::size_t> trackOf;  // metric index -> batch.counters index
    std::vector<double> values(metrics.size());
    // Decode until the hardware buffer is empty; a full image is evaluated and reset in between.
    for (int round = 0; round < 64; ++round) {
        auto decode =
            params<CUpti_PmSampling_DecodeData_Params>(CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
        decode.pPmSamplingObject = m_object;
        decode.pCounterDataImage = m_counterData.data();
        decode.counterDataImageSize = m_counterData.size();
        CUptiResult r = m_calls.decode(&decode);
        if (decode.overflow != 0) {
            ++m_tally.overflows;
        }
        if (r == CUPTI_ERROR_OUT_OF_MEMORY) {
            // A hardware-buffer overflow: every later decode returns it again, with no samples
            // (measured on an H100, CUDA 13.3). Stop asking, and say so.
            m_tally.overflowStuck = true;
            m_tally.samplesAtOverflow = m_tally.samples;
            m_tally.lastError = "cuptiPmSamplingDecodeData: " + describeCuptiResult(r);
            return;
        }
        if (r != CUPTI_SUCCESS) {
            ++m_tally.decodeErrors;
            m_tally.lastError = "cuptiPmSamplingDecodeData: " + describeCuptiResult(r);
            return;
        }
        auto info = params<CUpti_PmSampling_GetCounterDataInfo_Params>(
            CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
        info.pCounterDataImage = m_counterData.data();
        info.counterDataImageSize = m_counterData.size();
        if (CUptiResult ri = m_calls.counterDataInfo(&info); ri != CUPTI_SUCCESS) {
            ++m_tally.decodeErrors;
            m_tally.lastError = "cuptiPmSamplingGetCounterDataInfo: " + describeCuptiResult(ri);
            return;
        }
        for (std::size_t i = 0; i < info.numCompletedSamples; ++i) {
            auto sample = params<CUpti_PmSampling_CounterData_GetSampleInfo_Params>(
                CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE);
            sample.pPmSamplingObject = m_object;
            sample.pCounterDataImage = m_counterData.data();
            sample.counterDataImageSize = m_counterData.size();
            sample.sampleIndex = i;
            if (CUptiResult rs = m_calls.sampleInfo(&sample); rs != CUPTI_SUCCESS) {
                ++m_tally.decodeErrors;
                m_tally.lastError = "cuptiPmSamplingCounterDataGetSampleInfo: " + describeCuptiResult(rs);
                continue;
            }
            ++m_tally.raw;
            const std::int64_t midNs = pmSampleMidpointNs(sample.startTimestamp, sample.endTimestamp);
            if (midNs < 0) {
                ++m_tally.untimed;
                continue;
            }
            if (!m_tally.firstSampleSeen) {
                m_tally.firstSampleSeen = true;  // CUPTI: the first sample may be an outlier
                m_tally.firstRawNs = midNs;
                // Sample times are expected on CUPTI's clock (guide §4.1). When the first one is far
                // from CUPTI's time at start, they are on another (the GPU's own timer): place them
                // by the first sample, which began right after cuptiPmSamplingStart.
                if (m_startCuptiNs != 0 && std::llabs(midNs - m_startCuptiNs) > 10 * core::kNsPerSecond) {
                    m_tally.clockOffsetNs = m_startCuptiNs - midNs;
                    m_notes.push_back("sample times are not on CUPTI's clock (first sample " +
                                      std::to_string(midNs) + " ns, CUPTI at start " +
                                      std::to_string(m_startCuptiNs) +
                                      " ns); placed by the first sample, to within one interval");
                }
                continue;
            }
            core::TimestampNs t =
                clock.toMonotonic(static_cast<std::uint64_t>(midNs + m_tally.clockOffsetNs));
            if (t < windowStartNs || t >= windowEndNs) {
                ++m_tally.outsideWindow;
                continue;
            }
            auto eval = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
                CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
            eval.pHostObject = m_host;
            eval.pCounterDataImage = m_counterData.data();
            eval.counterDataImageSize = m_counterData.size();
            eval.rangeIndex = i;
            eval.ppMetricNames = m_metricNames.data();
            eval.numMetrics = m_metricNames.size();
            eval.pMetricValues = values.data();
            if (CUptiResult re = m_calls.evaluate(&eval); re != CUPTI_SUCCESS) {
                ++m_tally.evaluateErrors;
                m_tally.lastError = "cuptiProfilerHostEvaluateToGpuValues: " + describeCuptiResult(re);
                continue;
            }
            ++m_tally.samples;
            for (std::size_t m = 0; m < metrics.size(); ++m) {
                if (!std::isfinite(values[m])) {
                    ++m_tally.nonFinite;
                    continue;
                }
                auto it = trackOf.find(m);
                if (it == trackOf.end()) {
                    core::CounterTrack track;
                    track.name = metrics[m].label;
                    track.unit = metrics[m].unit;
                    track.deviceIndex = static_cast<std::int16_t>(m_options.deviceIndex);
                    batch.counters.push_back(std::move(track));
                    it = trackOf.emplace(m, batch.counters.size() - 1).first;
                }
                batch.counters[it->second].timesNs.push_back(t);
                batch.counters[it->second].values.push_back(values[m]);
            }
        }
        auto reset = params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
            CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
        reset.pPmSamplingObject = m_object;
        reset.counterDataSize = m_counterData.size();
        reset.pCounterData = m_counterData.data();
        m_calls.initializeCounterData(&reset);
        // END_OF_RECORDS: the hardware buffer is empty. COUNTER_DATA_FULL: more is waiting. OTHER
        // (undocumented) came with completed samples in Kineto's runs (pytorch/kineto#1532), so
        // decoding goes on while it still yields samples.
        const bool more = decode.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL ||
                          (decode.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_OTHER &&
                           info.numCompletedSamples > 0);
        if (!more) {
            break;
        }
    }
}

void PmSampler::stop(core::TraceModel& batch, const ClockMap& clock, core::TimestampNs windowStartNs,
                     core::TimestampNs windowEndNs) {
    finishCapture(batch, clock, windowStartNs, windowEndNs);
    release();
}

void PmSampler::pause(core::TraceModel& batch, const ClockMap& clock, core::TimestampNs windowStartNs,
                      core::TimestampNs windowEndNs) {
    finishCapture(batch, clock, windowStartNs, windowEndNs);
    if (m_object != nullptr) {
        m_paused = true;
    }
}

void PmSampler::finishCapture(core::TraceModel& batch, const ClockMap& clock, core::TimestampNs windowStartNs,
                              core::TimestampNs windowEndNs) {
    if (m_object == nullptr || m_paused) {
        return;
    }
    auto stopParams = params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
    stopParams.pPmSamplingObject = m_object;
    m_calls.stop(&stopParams);
    decodeInto(batch, clock, windowStartNs, windowEndNs);
    if (m_tally.overflowStuck) {
        batch.stats.add("agent.gpu_metrics_overflow", core::Severity::DataLoss,
                        static_cast<std::int64_t>(std::max<std::uint64_t>(m_tally.overflows, 1)),
                        "the PM sampling hardware buffer overflowed after " +
                            std::to_string(m_tally.samplesAtOverflow) +
                            " samples; CUPTI returns no samples after an overflow, so the rest of the window "
                            "has no GPU metrics");
    } else if (m_tally.overflows > 0) {
        batch.stats.add("agent.gpu_metrics_overflow", core::Severity::DataLoss,
                        static_cast<std::int64_t>(m_tally.overflows),
                        "the PM sampling hardware buffer overflowed; the oldest samples were lost");
    }
    if (m_tally.nonFinite > 0) {
        batch.stats.add("agent.gpu_metrics_non_finite", core::Severity::Warning,
                        static_cast<std::int64_t>(m_tally.nonFinite),
                        "PM sampling metric values that were not finite were left out");
    }
    // What the decoder saw, so a capture with no samples says why (decode or evaluation errors,
    // or samples whose times fell outside the window).
    m_notes.push_back(
        "decoded " + std::to_string(m_tally.raw) + " samples: " + std::to_string(m_tally.samples) +
        " kept, " + std::to_string(m_tally.outsideWindow) + " outside the window, " +
        std::to_string(m_tally.untimed) + " without a time span, " + std::to_string(m_tally.evaluateErrors) +
        " not evaluated, " + std::to_string(m_tally.decodeErrors) + " decode errors" +
        (m_tally.lastError.empty() ? std::string() : " (last: " + m_tally.lastError + ")") +
        "; first sample time " + std::to_string(m_tally.firstRawNs) + " ns, CUPTI at start " +
        std::to_string(m_startCuptiNs) + " ns");
}

}  // namespace chokepoint::collectors
