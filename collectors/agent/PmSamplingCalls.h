#pragma once
// The CUPTI calls PmSampler makes on a device, behind an interface so that tests can stand in for
// a GPU (tests/collectors/agent/FakePmSampling.h). Each takes CUPTI's own parameter struct, as the
// CUPTI function of the same name does. The host-side configuration (buildPmSamplingConfig) is
// not here: the profiler host API works offline for a chip name, so tests use the real one.

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <string>

namespace chokepoint::collectors {

class PmSamplingCalls {
public:
    virtual ~PmSamplingCalls() = default;
    virtual CUptiResult profilerInitialize(CUpti_Profiler_Initialize_Params* p) = 0;
    virtual CUptiResult profilerDeInitialize(CUpti_Profiler_DeInitialize_Params* p) = 0;
    // Why PM sampling cannot work on GPU `deviceIndex` (MIG, vGPU, confidential computing...), or
    // "" when it can or the check is unavailable.
    virtual std::string unsupportedReason(int deviceIndex) = 0;
    virtual CUptiResult chipName(CUpti_Device_GetChipName_Params* p) = 0;
    virtual CUptiResult counterAvailability(CUpti_PmSampling_GetCounterAvailability_Params* p) = 0;
    virtual CUptiResult enable(CUpti_PmSampling_Enable_Params* p) = 0;
    // CUPTI keeps p->pConfig and reads it while sampling: the image must outlive disable().
    virtual CUptiResult setConfig(CUpti_PmSampling_SetConfig_Params* p) = 0;
    virtual CUptiResult counterDataSize(CUpti_PmSampling_GetCounterDataSize_Params* p) = 0;
    virtual CUptiResult initializeCounterData(CUpti_PmSampling_CounterDataImage_Initialize_Params* p) = 0;
    virtual CUptiResult start(CUpti_PmSampling_Start_Params* p) = 0;
    virtual CUptiResult stop(CUpti_PmSampling_Stop_Params* p) = 0;
    virtual CUptiResult disable(CUpti_PmSampling_Disable_Params* p) = 0;
    virtual CUptiResult decode(CUpti_PmSampling_DecodeData_Params* p) = 0;
    virtual CUptiResult counterDataInfo(CUpti_PmSampling_GetCounterDataInfo_Params* p) = 0;
    virtual CUptiResult sampleInfo(CUpti_PmSampling_CounterData_GetSampleInfo_Params* p) = 0;
    virtual CUptiResult evaluate(CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) = 0;
    virtual CUptiResult timestamp(std::uint64_t* ns) = 0;
};

// The calls into libcupti.
PmSamplingCalls& realPmSamplingCalls();

}  // namespace chokepoint::collectors
