#include <cuda.h>
#include <dlfcn.h>

#include "collectors/agent/PmSamplingCalls.h"

namespace chokepoint::collectors {

namespace {

class RealPmSamplingCalls final : public PmSamplingCalls {
public:
    CUptiResult profilerInitialize(CUpti_Profiler_Initialize_Params* p) override {
        return cuptiProfilerInitialize(p);
    }
    CUptiResult profilerDeInitialize(CUpti_Profiler_DeInitialize_Params* p) override {
        return cuptiProfilerDeInitialize(p);
    }
    std::string unsupportedReason(int deviceIndex) override;
    CUptiResult chipName(CUpti_Device_GetChipName_Params* p) override { return cuptiDeviceGetChipName(p); }
    CUptiResult counterAvailability(CUpti_PmSampling_GetCounterAvailability_Params* p) override {
        return cuptiPmSamplingGetCounterAvailability(p);
    }
    CUptiResult enable(CUpti_PmSampling_Enable_Params* p) override { return cuptiPmSamplingEnable(p); }
    CUptiResult setConfig(CUpti_PmSampling_SetConfig_Params* p) override {
        return cuptiPmSamplingSetConfig(p);
    }
    CUptiResult counterDataSize(CUpti_PmSampling_GetCounterDataSize_Params* p) override {
        return cuptiPmSamplingGetCounterDataSize(p);
    }
    CUptiResult initializeCounterData(CUpti_PmSampling_CounterDataImage_Initialize_Params* p) override {
        return cuptiPmSamplingCounterDataImageInitialize(p);
    }
    CUptiResult start(CUpti_PmSampling_Start_Params* p) override { return cuptiPmSamplingStart(p); }
    CUptiResult stop(CUpti_PmSampling_Stop_Params* p) override { return cuptiPmSamplingStop(p); }
    CUptiResult disable(CUpti_PmSampling_Disable_Params* p) override { return cuptiPmSamplingDisable(p); }
    CUptiResult decode(CUpti_PmSampling_DecodeData_Params* p) override {
        return cuptiPmSamplingDecodeData(p);
    }
    CUptiResult counterDataInfo(CUpti_PmSampling_GetCounterDataInfo_Params* p) override {
        return cuptiPmSamplingGetCounterDataInfo(p);
    }
    CUptiResult sampleInfo(CUpti_PmSampling_CounterData_GetSampleInfo_Params* p) override {
        return cuptiPmSamplingCounterDataGetSampleInfo(p);
    }
    CUptiResult evaluate(CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) override {
        return cuptiProfilerHostEvaluateToGpuValues(p);
    }
    CUptiResult timestamp(std::uint64_t* ns) override { return cuptiGetTimestamp(ns); }
};

std::string RealPmSamplingCalls::unsupportedReason(int deviceIndex) {
    void* cuda = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);  // loaded already: it loaded us
    if (cuda == nullptr) {
        return {};
    }
    using GetDevice = int (*)(CUdevice*, int);
    auto getDevice = reinterpret_cast<GetDevice>(::dlsym(cuda, "cuDeviceGet"));
    CUdevice device = 0;
    bool haveDevice = getDevice != nullptr && getDevice(&device, deviceIndex) == 0;
    ::dlclose(cuda);
    if (!haveDevice) {
        return {};
    }
    CUpti_Profiler_DeviceSupported_Params p{};
    p.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
    p.cuDevice = device;
    p.api = CUPTI_PROFILER_PM_SAMPLING;
    if (cuptiProfilerDeviceSupported(&p) != CUPTI_SUCCESS ||
        p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        return {};
    }
    std::string why;
    auto note = [&why](CUpti_Profiler_Support_Level level, const char* what) {
        if (level != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
            why += (why.empty() ? "" : ", ") + std::string(what);
        }
    };
    note(p.architecture, "the GPU architecture (compute capability below 7.0)");
    note(p.sli, "SLI is enabled");
    note(p.vGpu, "a vGPU without profiling enabled");
    note(p.confidentialCompute, "confidential computing is on");
    note(p.cmp, "a mining processor (CMP)");
    note(p.wsl, "WSL");
    return "PM sampling is not supported on GPU " + std::to_string(deviceIndex) + ": " +
           (why.empty() ? std::string("the device or its configuration (for example a MIG instance)") : why);
}

}  // namespace

PmSamplingCalls& realPmSamplingCalls() {
    // Never destroyed: the agent's exit handler may stop a capture after static destructors ran.
    static auto* calls = new RealPmSamplingCalls;
    return *calls;
}

}  // namespace chokepoint::collectors
