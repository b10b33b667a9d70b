#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "collectors/agent/CuptiApi.h"
#include "collectors/agent/CuptiLoader.h"

namespace chokepoint::collectors {

std::string describeCuptiResult(CUptiResult result) {
    const char* text = nullptr;
    std::string out;
    if (cuptiGetResultString(result, &text) == CUPTI_SUCCESS && text != nullptr) {
        out = text;
    } else {
        out = "CUPTI error";
    }
    return out + " (" + std::to_string(static_cast<int>(result)) + ")";
}

namespace {

// Set once cuptiFinalize has run from an API exit callback (detach).
std::atomic<int> g_detachWanted{0};
std::atomic<int> g_detached{0};
// setLaunchSink's target, read at every launch callback while one is set.
std::atomic<CuptiApi::LaunchSink> g_launchSink{nullptr};
std::atomic<void*> g_launchContext{nullptr};

// The kernel launch calls whose entry hands the kernel's name to the launch sink.
const CUpti_CallbackId kRuntimeLaunchCalls[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
};
const CUpti_CallbackId kDriverLaunchCalls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};

bool isLaunchCall(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        return std::find(std::begin(kRuntimeLaunchCalls), std::end(kRuntimeLaunchCalls), cbid) !=
               std::end(kRuntimeLaunchCalls);
    }
    return std::find(std::begin(kDriverLaunchCalls), std::end(kDriverLaunchCalls), cbid) !=
           std::end(kDriverLaunchCalls);
}

// cuptiSubscribe needs a callback. Callbacks are enabled only for the kernel launch calls while
// a launch sink is set, and for whole domains during a detach, when the first API exit calls
// cuptiFinalize, as cupti_activity.h describes (Kineto's teardown does the same).
void CUPTIAPI subscriberCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void* data) {
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) {
        return;
    }
    const auto* info = static_cast<const CUpti_CallbackData*>(data);
    if (info == nullptr) {
        return;
    }
    if (info->callbackSite == CUPTI_API_ENTER) {
        CuptiApi::LaunchSink sink = g_launchSink.load(std::memory_order_acquire);
        if (sink != nullptr && isLaunchCall(domain, cbid)) {
            sink(g_launchContext.load(std::memory_order_acquire), info->symbolName);
        }
        return;
    }
    if (info->callbackSite != CUPTI_API_EXIT) {
        return;
    }
    int expected = 1;
    if (g_detachWanted.compare_exchange_strong(expected, 0)) {
        cuptiFinalize();
        g_detached.store(1, std::memory_order_release);
    }
}

class RealCuptiApi final : public CuptiApi {
public:
    bool load(std::string* problem) override {
        const CuptiLoadResult& r = loadCupti();
        if (!r.ok && problem != nullptr) {
            *problem = r.problem;
        }
        return r.ok;
    }
    std::string libraryPath() override { return loadCupti().path; }
    CUptiResult subscribe(const char* name, std::string* holder) override {
        char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = {};
        CUpti_SubscriberParams params{};
        params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
        params.subscriberName = name;
        params.oldSubscriberName = old;
        params.oldSubscriberSize = sizeof old;
        // No callback function: the subscription is our cooperative lock on CUPTI (guide §1.5).
        CUptiResult r = cuptiSubscribe_v2(&m_subscriber, &subscriberCallback, nullptr, &params);
        if (r == CUPTI_SUCCESS) {
            m_subscribed = true;
        } else if (holder != nullptr) {
            old[sizeof old - 1] = '\0';
            *holder = old;
        }
        return r;
    }
    CUptiResult unsubscribe() override {
        if (!m_subscribed) {
            return CUPTI_SUCCESS;
        }
        m_subscribed = false;
        return cuptiUnsubscribe(m_subscriber);
    }
    CUptiResult registerCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                  CUpti_BuffersCallbackCompleteFunc complete) override {
        return cuptiActivityRegisterCallbacks(request, complete);
    }
    CUptiResult enable(CUpti_ActivityKind kind) override { return cuptiActivityEnable(kind); }
    CUptiResult disable(CUpti_ActivityKind kind) override { return cuptiActivityDisable(kind); }
    CUptiResult enableAndDump(CUpti_ActivityKind kind) override { return cuptiActivityEnableAndDump(kind); }
    CUptiResult enableRuntimeApi(CUpti_CallbackId cbid, bool on) override {
        return cuptiActivityEnableRuntimeApi(cbid, on ? 1 : 0);
    }
    CUptiResult enableDriverApi(CUpti_CallbackId cbid, bool on) override {
        return cuptiActivityEnableDriverApi(cbid, on ? 1 : 0);
    }
    CUptiResult flushAll(std::uint32_t flags) override { return cuptiActivityFlushAll(flags); }
    CUptiResult timestamp(std::uint64_t* ns) override { return cuptiGetTimestamp(ns); }
    CUptiResult droppedRecords(CUcontext context, std::uint32_t streamId, std::size_t* dropped) override {
        return cuptiActivityGetNumDroppedRecords(context, streamId, dropped);
    }
    CUptiResult version(std::uint32_t* v) override { return cuptiGetVersion(v); }
    CUptiResult setThreadIdType(CUpti_ActivityThreadIdType type,
                                CUpti_ActivityThreadIdType* previous) override {
        if (previous != nullptr && cuptiGetThreadIdType(previous) != CUPTI_SUCCESS) {
            *previous = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
        }
        return cuptiSetThreadIdType(type);
    }
    CUptiResult enableAllSyncRecords(bool all) override {
        return cuptiActivityEnableAllSyncRecords(all ? 1 : 0);
    }
    CUptiResult setZeroedBuffers(bool zeroed) override {
        std::uint8_t value = zeroed ? 1 : 0;
        std::size_t size = sizeof value;
        return cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &value);
    }
    CUptiResult setLaunchSink(LaunchSink sink, void* context) override {
        if (!m_subscribed) {
            g_launchSink.store(nullptr, std::memory_order_release);
            return sink != nullptr ? CUPTI_ERROR_NOT_INITIALIZED : CUPTI_SUCCESS;
        }
        const std::uint32_t on = sink != nullptr ? 1 : 0;
        if (sink != nullptr) {
            g_launchContext.store(context, std::memory_order_release);
            g_launchSink.store(sink, std::memory_order_release);
        }
        CUptiResult first = CUPTI_SUCCESS;
        for (CUpti_CallbackId cbid : kRuntimeLaunchCalls) {
            CUptiResult r = cuptiEnableCallback(on, m_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid);
            first = first == CUPTI_SUCCESS ? r : first;
        }
        for (CUpti_CallbackId cbid : kDriverLaunchCalls) {
            CUptiResult r = cuptiEnableCallback(on, m_subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
            first = first == CUPTI_SUCCESS ? r : first;
        }
        if (sink == nullptr) {
            // A callback already past the load above may still call the old sink; the engine keeps
            // its counter alive for its own lifetime.
            g_launchSink.store(nullptr, std::memory_order_release);
        }
        return first;
    }
    CUptiResult detach(int timeoutMs) override {
        if (!m_subscribed) {
            return CUPTI_ERROR_NOT_INITIALIZED;
        }
        // Both domains on first, then arm: an API exit between the two calls must not finalise
        // CUPTI under the second one (on an H100 it did: the second call saw NOT_INITIALIZED).
        g_detached.store(0);
        CUptiResult r = cuptiEnableDomain(1, m_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
        if (r == CUPTI_SUCCESS) {
            r = cuptiEnableDomain(1, m_subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
        }
        if (r != CUPTI_SUCCESS) {
            cuptiEnableDomain(0, m_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
            cuptiEnableDomain(0, m_subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
            return r;
        }
        g_detachWanted.store(1);
        auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
        while (g_detached.load(std::memory_order_acquire) == 0 &&
               std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        int wanted = 1;
        if (g_detachWanted.compare_exchange_strong(wanted, 0)) {
            // No CUDA call came in time: stay attached, switch the callbacks off again.
            cuptiEnableDomain(0, m_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
            cuptiEnableDomain(0, m_subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
            return CUPTI_ERROR_NOT_READY;
        }
        while (g_detached.load(std::memory_order_acquire) == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the finalize is under way
        }
        m_subscribed = false;  // cuptiFinalize ended every subscription
        return CUPTI_SUCCESS;
    }
    std::string resultString(CUptiResult result) override { return describeCuptiResult(result); }

private:
    CUpti_SubscriberHandle m_subscriber = nullptr;
    bool m_subscribed = false;
};

}  // namespace

std::unique_ptr<CuptiApi> makeRealCuptiApi() {
    return std::make_unique<RealCuptiApi>();
}

}  // namespace chokepoint::collectors
