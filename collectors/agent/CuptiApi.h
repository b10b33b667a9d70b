#pragma once
// The seam between the capture engine and libcupti. RealCuptiApi forwards to CUPTI; tests use a
// fake that returns chosen errors and calls the buffer callbacks from its own thread. Only the
// calls the engine makes while capturing go through here; record decoding uses the real
// cuptiActivityGetNextRecord (it works on plain memory, without a driver).

#include <cupti.h>

#include <cstdint>
#include <memory>
#include <string>

namespace chokepoint::collectors {

class CuptiApi {
public:
    virtual ~CuptiApi() = default;
    // Makes libcupti available (the agent opens it at the first capture, see CuptiLoader.h). On
    // failure `problem` says what was tried.
    virtual bool load(std::string* problem) = 0;
    // The libcupti in use after a successful load() (for the log and the trace notes).
    virtual std::string libraryPath() { return {}; }
    // cuptiSubscribe_v2 with our name. On CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, `holder`
    // receives the current subscriber's name ("CUPTI for PyTorch", an NVIDIA tool...).
    virtual CUptiResult subscribe(const char* name, std::string* holder) = 0;
    virtual CUptiResult unsubscribe() = 0;
    virtual CUptiResult registerCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                          CUpti_BuffersCallbackCompleteFunc complete) = 0;
    virtual CUptiResult enable(CUpti_ActivityKind kind) = 0;
    virtual CUptiResult disable(CUpti_ActivityKind kind) = 0;
    virtual CUptiResult enableAndDump(CUpti_ActivityKind kind) = 0;
    virtual CUptiResult enableRuntimeApi(CUpti_CallbackId cbid, bool on) = 0;
    virtual CUptiResult enableDriverApi(CUpti_CallbackId cbid, bool on) = 0;
    virtual CUptiResult flushAll(std::uint32_t flags) = 0;
    virtual CUptiResult timestamp(std::uint64_t* ns) = 0;
    virtual CUptiResult droppedRecords(CUcontext context, std::uint32_t streamId, std::size_t* dropped) = 0;
    virtual CUptiResult version(std::uint32_t* version) = 0;
    // API records carry gettid() with CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM (matching NVTX and /proc).
    virtual CUptiResult setThreadIdType(CUpti_ActivityThreadIdType type,
                                        CUpti_ActivityThreadIdType* previous) = 0;
    // cuptiActivityEnableAllSyncRecords: 0 = SYNCHRONIZATION records only for completed waits.
    virtual CUptiResult enableAllSyncRecords(bool all) = 0;
    // CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER: our buffers come zeroed, CUPTI need not
    // zero them again on the requesting (training) thread.
    virtual CUptiResult setZeroedBuffers(bool zeroed) = 0;
    // Detaches CUPTI from the process (cuptiFinalize from an API exit callback, the documented way,
    // cupti_activity.h), so the job runs as if CUPTI had never been attached. Needs the process to
    // make a CUDA API call within timeoutMs. Afterwards the subscription is gone.
    virtual CUptiResult detach(int timeoutMs) = 0;
    // Kernel launch callbacks: at the entry of each runtime and driver kernel launch call, `sink`
    // gets the kernel's name (null for a launch CUPTI names none). A null sink switches them off.
    // Needs the subscription; used only while `--after-steps` counts steps from launches.
    using LaunchSink = void (*)(void* context, const char* kernelName);
    virtual CUptiResult setLaunchSink(LaunchSink sink, void* context) = 0;
    virtual std::string resultString(CUptiResult result) = 0;
};

// The libcupti implementation: in the agent, libcupti opened at the first capture (CuptiLoader.h);
// in the test library, linked.
std::unique_ptr<CuptiApi> makeRealCuptiApi();

// "CUPTI_ERROR_UNKNOWN (999)" style text using cuptiGetResultString when it knows the code.
std::string describeCuptiResult(CUptiResult result);

}  // namespace chokepoint::collectors
