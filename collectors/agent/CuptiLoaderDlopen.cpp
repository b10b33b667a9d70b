// The agent's libcupti, opened with dlopen at the first capture (see CuptiLoader.h), and the
// forwarding functions that stand in for the libcupti symbols the agent calls. They are hidden
// (the version script exports only the injection entry points), so they never interpose the
// process's own libcupti; each resolves its target once, in the library loadCupti() opened.

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <mutex>

#include "collectors/agent/CuptiLoader.h"

namespace chokepoint::collectors {

namespace {

constexpr const char* kCuptiSoname = "libcupti.so.13";

void* g_cupti = nullptr;

std::vector<std::string> mappedFiles() {
    std::vector<std::string> files;
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        std::size_t slash = line.find('/');
        if (slash != std::string::npos && line.find(".so", slash) != std::string::npos) {
            files.push_back(line.substr(slash));
        }
    }
    return files;
}

std::string envOr(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr ? std::string(v) : std::string();
}

CuptiLoadResult search() {
    CuptiLoadResult result;
    // One CUPTI per process: when the job (torch.profiler) already loaded one, that one it is.
    if (void* loaded = ::dlopen(kCuptiSoname, RTLD_NOW | RTLD_NOLOAD)) {
        g_cupti = loaded;
        result.ok = true;
        result.path = std::string(kCuptiSoname) + " (already loaded by the process)";
        return result;
    }
    std::vector<std::string> candidates =
        cuptiCandidates(envOr("CHOKEPOINT_CUPTI_PATH"), mappedFiles(),
                        {envOr("CUDA_HOME"), envOr("CUDA_PATH"), "/usr/local/cuda"});
    std::string tried;
    for (const std::string& candidate : candidates) {
        ::dlerror();
        void* handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle != nullptr) {
            g_cupti = handle;
            result.ok = true;
            result.path = candidate;
            return result;
        }
        const char* why = ::dlerror();
        tried += "\n  " + candidate + ": " + (why != nullptr ? why : "not loadable");
    }
    result.problem =
        "CUPTI (libcupti.so.13, CUDA 13.0 Update 1 or newer) was not found; tried, in order:" + tried +
        "\nSet CHOKEPOINT_CUPTI_PATH to the library or its folder (pip install nvidia-cuda-cupti "
        "puts it in site-packages/nvidia/cu13/lib).";
    return result;
}

}  // namespace

void* cuptiSymbolForForwarding(const char* name) {
    if (!loadCupti().ok || g_cupti == nullptr) {
        return nullptr;
    }
    return ::dlsym(g_cupti, name);
}

const CuptiLoadResult& loadCupti() {
    static const CuptiLoadResult result = search();  // thread-safe, once
    return result;
}

}  // namespace chokepoint::collectors

// NOLINTBEGIN: the signatures are the CUDA 13.0 Update 1 headers' own.
#define CP_CUPTI_FORWARD(name, params, args)                                                          \
    extern "C" CUptiResult CUPTIAPI name params {                                                     \
        using Fn = CUptiResult(CUPTIAPI*) params;                                                     \
        static Fn fn = reinterpret_cast<Fn>(chokepoint::collectors::cuptiSymbolForForwarding(#name)); \
        return fn != nullptr ? fn args : CUPTI_ERROR_NOT_INITIALIZED;                                 \
    }

CP_CUPTI_FORWARD(cuptiActivityDisable, (CUpti_ActivityKind kind), (kind))
CP_CUPTI_FORWARD(cuptiActivityEnable, (CUpti_ActivityKind kind), (kind))
CP_CUPTI_FORWARD(cuptiActivityEnableAllSyncRecords, (uint8_t enable), (enable))
CP_CUPTI_FORWARD(cuptiActivityEnableAndDump, (CUpti_ActivityKind kind), (kind))
CP_CUPTI_FORWARD(cuptiActivityEnableDriverApi, (CUpti_CallbackId cbid, uint8_t enable), (cbid, enable))
CP_CUPTI_FORWARD(cuptiActivityEnableRuntimeApi, (CUpti_CallbackId cbid, uint8_t enable), (cbid, enable))
CP_CUPTI_FORWARD(cuptiActivityFlushAll, (uint32_t flag), (flag))
CP_CUPTI_FORWARD(cuptiActivityGetNextRecord,
                 (uint8_t * buffer, size_t validBufferSizeBytes, CUpti_Activity** record),
                 (buffer, validBufferSizeBytes, record))
CP_CUPTI_FORWARD(cuptiActivityGetNumDroppedRecords, (CUcontext context, uint32_t streamId, size_t* dropped),
                 (context, streamId, dropped))
CP_CUPTI_FORWARD(cuptiActivityRegisterCallbacks,
                 (CUpti_BuffersCallbackRequestFunc funcBufferRequested,
                  CUpti_BuffersCallbackCompleteFunc funcBufferCompleted),
                 (funcBufferRequested, funcBufferCompleted))
CP_CUPTI_FORWARD(cuptiActivitySetAttribute, (CUpti_ActivityAttribute attr, size_t* valueSize, void* value),
                 (attr, valueSize, value))
CP_CUPTI_FORWARD(cuptiDeviceGetChipName, (CUpti_Device_GetChipName_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiEnableCallback,
                 (uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,
                  CUpti_CallbackId cbid),
                 (enable, subscriber, domain, cbid))
CP_CUPTI_FORWARD(cuptiEnableDomain,
                 (uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain),
                 (enable, subscriber, domain))
CP_CUPTI_FORWARD(cuptiFinalize, (void), ())
CP_CUPTI_FORWARD(cuptiGetCallbackName, (CUpti_CallbackDomain domain, uint32_t cbid, const char** name),
                 (domain, cbid, name))
CP_CUPTI_FORWARD(cuptiGetResultString, (CUptiResult result, const char** str), (result, str))
CP_CUPTI_FORWARD(cuptiGetThreadIdType, (CUpti_ActivityThreadIdType * type), (type))
CP_CUPTI_FORWARD(cuptiGetTimestamp, (uint64_t * timestamp), (timestamp))
CP_CUPTI_FORWARD(cuptiGetVersion, (uint32_t * version), (version))
CP_CUPTI_FORWARD(cuptiPmSamplingCounterDataGetSampleInfo,
                 (CUpti_PmSampling_CounterData_GetSampleInfo_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiPmSamplingCounterDataImageInitialize,
                 (CUpti_PmSampling_CounterDataImage_Initialize_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiPmSamplingDecodeData, (CUpti_PmSampling_DecodeData_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiPmSamplingDisable, (CUpti_PmSampling_Disable_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiPmSamplingEnable, (CUpti_PmSampling_Enable_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiPmSamplingGetCounterAvailability,
                 (CUpti_PmSampling_GetCounterAvailability_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiPmSamplingGetCounterDataInfo, (CUpti_PmSampling_GetCounterDataInfo_Params * pParams),
                 (pParams))
CP_CUPTI_FORWARD(cuptiPmSamplingGetCounterDataSize, (CUpti_PmSampling_GetCounterDataSize_Params * pParams),
                 (pParams))
CP_CUPTI_FORWARD(cuptiPmSamplingSetConfig, (CUpti_PmSampling_SetConfig_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiPmSamplingStart, (CUpti_PmSampling_Start_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiPmSamplingStop, (CUpti_PmSampling_Stop_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiProfilerHostConfigAddMetrics, (CUpti_Profiler_Host_ConfigAddMetrics_Params * pParams),
                 (pParams))
CP_CUPTI_FORWARD(cuptiProfilerHostDeinitialize, (CUpti_Profiler_Host_Deinitialize_Params * pParams),
                 (pParams))
CP_CUPTI_FORWARD(cuptiProfilerHostEvaluateToGpuValues,
                 (CUpti_Profiler_Host_EvaluateToGpuValues_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiProfilerHostGetConfigImage, (CUpti_Profiler_Host_GetConfigImage_Params * pParams),
                 (pParams))
CP_CUPTI_FORWARD(cuptiProfilerHostGetConfigImageSize,
                 (CUpti_Profiler_Host_GetConfigImageSize_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiProfilerHostGetNumOfPasses, (CUpti_Profiler_Host_GetNumOfPasses_Params * pParams),
                 (pParams))
CP_CUPTI_FORWARD(cuptiProfilerHostInitialize, (CUpti_Profiler_Host_Initialize_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiProfilerInitialize, (CUpti_Profiler_Initialize_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiProfilerDeInitialize, (CUpti_Profiler_DeInitialize_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiProfilerDeviceSupported, (CUpti_Profiler_DeviceSupported_Params * pParams), (pParams))
CP_CUPTI_FORWARD(cuptiSetThreadIdType, (CUpti_ActivityThreadIdType type), (type))
CP_CUPTI_FORWARD(cuptiSubscribe_v2,
                 (CUpti_SubscriberHandle * subscriber, CUpti_CallbackFunc callback, void* userdata,
                  CUpti_SubscriberParams* pParams),
                 (subscriber, callback, userdata, pParams))
CP_CUPTI_FORWARD(cuptiUnsubscribe, (CUpti_SubscriberHandle subscriber), (subscriber))
// NOLINTEND
