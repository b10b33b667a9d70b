#pragma once
// A stand-in for CUPTI PM sampling on a GPU (PmSamplingCalls): the test puts samples in the
// "hardware buffer", decodes move them into the counter data image a few at a time, and the
// fake checks what CUPTI relies on. In particular it re-reads the configuration image through the
// pointer SetConfig was given at every later call, as CUPTI does while sampling: an image freed
// or rewritten early shows up as `configBroken` (pytorch/kineto#1532 saw hangs and crashes).

#include <cstring>
#include <ctime>
#include <deque>
#include <string>
#include <vector>

#include "collectors/agent/PmSamplingCalls.h"

namespace chokepoint::collectors::testing {

struct FakePmSample {
    std::uint64_t startNs = 0;
    std::uint64_t endNs = 0;
    double value = 0;  // every metric of the sample gets value + metric index
};

class FakePmSampling final : public PmSamplingCalls {
public:
    // --- set by the test ---
    std::deque<FakePmSample> hardware;                                // recorded, not yet decoded
    std::deque<CUpti_PmSampling_DecodeStopReason> forcedStopReasons;  // for the next decodes
    bool overflowed = false;  // decodes fail with OUT_OF_MEMORY from now on
    std::uint64_t cuptiNowNs = 5'000'000'000;
    // Live: CUPTI's clock is CLOCK_REALTIME (as FakeCuptiApi's), and every decode finds the 1 ms
    // samples recorded since the previous one, as a GPU sampling at 1 kHz would leave them.
    bool live = false;

    // --- seen by the fake ---
    int configChecks = 0;
    int configBroken = 0;  // checks that found the image gone or changed
    bool disabled = false;
    int enables = 0, starts = 0, stops = 0, disables = 0, decodes = 0;

    CUptiResult profilerInitialize(CUpti_Profiler_Initialize_Params*) override { return CUPTI_SUCCESS; }
    CUptiResult profilerDeInitialize(CUpti_Profiler_DeInitialize_Params*) override { return CUPTI_SUCCESS; }
    std::string unsupportedReason(int) override { return {}; }
    CUptiResult chipName(CUpti_Device_GetChipName_Params* p) override {
        p->pChipName = "GH100";  // the host API builds its configuration offline for this chip
        return CUPTI_SUCCESS;
    }
    CUptiResult counterAvailability(CUpti_PmSampling_GetCounterAvailability_Params* p) override {
        p->counterAvailabilityImageSize = 0;  // none: the offline configuration stands
        return CUPTI_SUCCESS;
    }
    CUptiResult enable(CUpti_PmSampling_Enable_Params* p) override {
        ++enables;
        p->pPmSamplingObject = reinterpret_cast<CUpti_PmSampling_Object*>(&m_objectTag);
        return CUPTI_SUCCESS;
    }
    CUptiResult setConfig(CUpti_PmSampling_SetConfig_Params* p) override {
        m_config = p->pConfig;
        m_configCopy.assign(p->pConfig, p->pConfig + p->configSize);
        return CUPTI_SUCCESS;
    }
    CUptiResult counterDataSize(CUpti_PmSampling_GetCounterDataSize_Params* p) override {
        m_capacity = p->maxSamples;
        m_metricCount = p->numMetrics;
        p->counterDataSize = 256;
        return CUPTI_SUCCESS;
    }
    CUptiResult initializeCounterData(CUpti_PmSampling_CounterDataImage_Initialize_Params*) override {
        m_image.clear();
        return CUPTI_SUCCESS;
    }
    CUptiResult start(CUpti_PmSampling_Start_Params*) override {
        ++starts;
        checkConfig();
        m_liveNextNs = realtimeNs();
        return CUPTI_SUCCESS;
    }
    CUptiResult stop(CUpti_PmSampling_Stop_Params*) override {
        ++stops;
        checkConfig();
        return CUPTI_SUCCESS;
    }
    CUptiResult disable(CUpti_PmSampling_Disable_Params*) override {
        ++disables;
        checkConfig();
        disabled = true;
        m_config = nullptr;
        return CUPTI_SUCCESS;
    }
    CUptiResult decode(CUpti_PmSampling_DecodeData_Params* p) override {
        ++decodes;
        checkConfig();
        if (overflowed) {
            p->overflow = 1;
            return CUPTI_ERROR_OUT_OF_MEMORY;
        }
        for (const std::uint64_t now = realtimeNs(); live && m_liveNextNs + kLiveIntervalNs <= now;
             m_liveNextNs += kLiveIntervalNs) {
            hardware.push_back({m_liveNextNs, m_liveNextNs + kLiveIntervalNs, 1.0});
        }
        while (!hardware.empty() && m_image.size() < m_capacity) {
            m_image.push_back(hardware.front());
            hardware.pop_front();
        }
        p->decodeStopReason = hardware.empty() ? CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS
                                               : CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
        if (!forcedStopReasons.empty()) {
            p->decodeStopReason = forcedStopReasons.front();
            forcedStopReasons.pop_front();
        }
        return CUPTI_SUCCESS;
    }
    CUptiResult counterDataInfo(CUpti_PmSampling_GetCounterDataInfo_Params* p) override {
        p->numTotalSamples = m_capacity;
        p->numPopulatedSamples = m_image.size();
        p->numCompletedSamples = m_image.size();
        return CUPTI_SUCCESS;
    }
    CUptiResult sampleInfo(CUpti_PmSampling_CounterData_GetSampleInfo_Params* p) override {
        if (p->sampleIndex >= m_image.size()) {
            return CUPTI_ERROR_INVALID_PARAMETER;
        }
        p->startTimestamp = m_image[p->sampleIndex].startNs;
        p->endTimestamp = m_image[p->sampleIndex].endNs;
        return CUPTI_SUCCESS;
    }
    CUptiResult evaluate(CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) override {
        if (p->rangeIndex >= m_image.size() || p->numMetrics != m_metricCount) {
            return CUPTI_ERROR_INVALID_PARAMETER;
        }
        for (std::size_t m = 0; m < p->numMetrics; ++m) {
            p->pMetricValues[m] = m_image[p->rangeIndex].value + static_cast<double>(m);
        }
        return CUPTI_SUCCESS;
    }
    CUptiResult timestamp(std::uint64_t* ns) override {
        *ns = live ? realtimeNs() : cuptiNowNs;
        return CUPTI_SUCCESS;
    }

private:
    static constexpr std::uint64_t kLiveIntervalNs = 1'000'000;
    static std::uint64_t realtimeNs() {
        timespec ts{};
        clock_gettime(CLOCK_REALTIME, &ts);
        return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull +
               static_cast<std::uint64_t>(ts.tv_nsec);
    }

    void checkConfig() {
        ++configChecks;
        if (m_config == nullptr || std::memcmp(m_config, m_configCopy.data(), m_configCopy.size()) != 0) {
            ++configBroken;
        }
    }

    std::uint64_t m_liveNextNs = 0;
    int m_objectTag = 0;
    const std::uint8_t* m_config = nullptr;
    std::vector<std::uint8_t> m_configCopy;
    std::size_t m_capacity = 0;
    std::size_t m_metricCount = 0;
    std::vector<FakePmSample> m_image;  // decoded, in the order decoded
};

}  // namespace chokepoint::collectors::testing
