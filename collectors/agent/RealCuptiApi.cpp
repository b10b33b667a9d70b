#include <cstring>

#include "collectors/agent/CuptiApi.h"

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

// cuptiSubscribe needs a callback; we enable no callback domain, so it is never called.
void CUPTIAPI ignoreCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

class RealCuptiApi final : public CuptiApi {
public:
    CUptiResult subscribe(const char* name, std::string* holder) override {
        char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = {};
        CUpti_SubscriberParams params{};
        params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
        params.subscriberName = name;
        params.oldSubscriberName = old;
        params.oldSubscriberSize = sizeof old;
        // No callback function: the subscription is our cooperative lock on CUPTI (guide §1.5).
        CUptiResult r = cuptiSubscribe_v2(&m_subscriber, &ignoreCallback, nullptr, &params);
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
