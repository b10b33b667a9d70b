#pragma once
// A scriptable CUPTI for the capture engine tests: chosen results per call, a call log, and buffer
// delivery through the engine's registered callbacks from a separate thread (as CUPTI does).

#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "collectors/agent/CuptiApi.h"
#include "tests/collectors/agent/SyntheticCupti.h"

namespace chokepoint::testutils {

class FakeCuptiApi : public collectors::CuptiApi {
public:
    // Results to return; default success.
    CUptiResult subscribeResult = CUPTI_SUCCESS;
    std::string holderName;
    std::map<CUpti_ActivityKind, CUptiResult> enableResults;
    std::uint32_t apiVersion = CUPTI_API_VERSION;
    std::atomic<std::uint64_t> clockOffsetNs{0};  // CUPTI clock = CLOCK_REALTIME + offset

    // Records delivered at the next flushAll (any flag): each entry fills one buffer.
    std::function<void(SyntheticCupti&)> producer;
    int buffersPerFlush = 1;
    bool holdBuffers = false;  // request buffers but never complete them (slow consumer)
    std::size_t droppedPerNullBuffer = 100;

    std::mutex mutex;
    std::vector<std::string> calls;
    std::atomic<int> subscribed{0};
    std::atomic<std::size_t> dropped{0};
    std::vector<CUpti_ActivityKind> enabled;
    std::vector<std::uint8_t*> held;

    int count(const std::string& prefix) {
        std::lock_guard lock(mutex);
        int n = 0;
        for (const auto& c : calls) {
            n += c.rfind(prefix, 0) == 0 ? 1 : 0;
        }
        return n;
    }

    bool loadable = true;
    bool load(std::string* problem) override {
        if (!loadable && problem != nullptr) {
            *problem = "CUPTI was not found; tried: /fake/libcupti.so.13";
        }
        return loadable;
    }
    std::string libraryPath() override { return "/fake/libcupti.so.13"; }
    CUptiResult subscribe(const char*, std::string* holder) override {
        log("subscribe");
        if (subscribeResult != CUPTI_SUCCESS) {
            if (holder) {
                *holder = holderName;
            }
            return subscribeResult;
        }
        subscribed = 1;
        return CUPTI_SUCCESS;
    }
    CUptiResult unsubscribe() override {
        log("unsubscribe");
        subscribed = 0;
        return CUPTI_SUCCESS;
    }
    CUptiResult registerCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                  CUpti_BuffersCallbackCompleteFunc complete) override {
        log("registerCallbacks");
        m_request = request;
        m_complete = complete;
        return CUPTI_SUCCESS;
    }
    CUptiResult enable(CUpti_ActivityKind kind) override {
        log("enable " + std::to_string(kind));
        auto it = enableResults.find(kind);
        if (it != enableResults.end() && it->second != CUPTI_SUCCESS) {
            return it->second;
        }
        std::lock_guard lock(mutex);
        enabled.push_back(kind);
        return CUPTI_SUCCESS;
    }
    CUptiResult disable(CUpti_ActivityKind kind) override {
        log("disable " + std::to_string(kind));
        std::lock_guard lock(mutex);
        std::erase(enabled, kind);
        return CUPTI_SUCCESS;
    }
    std::atomic<std::thread::id> dumpThread{};
    CUptiResult enableAndDump(CUpti_ActivityKind kind) override {
        dumpThread = std::this_thread::get_id();
        return enable(kind);
    }
    CUptiResult enableRuntimeApi(CUpti_CallbackId cbid, bool on) override {
        log(on ? "runtimeApi on" : "runtimeApi off");
        std::lock_guard lock(mutex);
        runtimeCallOn[cbid] = on;
        return CUPTI_SUCCESS;
    }

    // The H100's behaviour (../shared/traces/h100): when the CUDA runtime was up before CUPTI
    // started (attach), per-call runtime enables alone give no runtime records; the RUNTIME kind
    // does, minus the calls switched off after it. Before the runtime is up (run), per-call enables
    // work. Producers ask this before writing a runtime API record.
    bool runtimeUpBeforeCapture = false;
    std::map<CUpti_CallbackId, bool> runtimeCallOn;
    bool runtimeRecordFlows(CUpti_CallbackId cbid) {
        std::lock_guard lock(mutex);
        auto call = runtimeCallOn.find(cbid);
        const bool kindOn =
            std::find(enabled.begin(), enabled.end(), CUPTI_ACTIVITY_KIND_RUNTIME) != enabled.end();
        if (kindOn) {
            return call == runtimeCallOn.end() || call->second;
        }
        return !runtimeUpBeforeCapture && call != runtimeCallOn.end() && call->second;
    }
    bool isEnabled(CUpti_ActivityKind kind) {
        std::lock_guard lock(mutex);
        return std::find(enabled.begin(), enabled.end(), kind) != enabled.end();
    }
    // The flags of the flush being served (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED or 0), for producers.
    std::atomic<std::uint32_t> flushFlags{0};
    CUptiResult enableDriverApi(CUpti_CallbackId, bool on) override {
        log(on ? "driverApi on" : "driverApi off");
        return CUPTI_SUCCESS;
    }
    CUptiResult flushAll(std::uint32_t flags) override {
        log("flushAll");
        flushFlags = flags;
        if (!producer || m_request == nullptr || stolen) {
            return CUPTI_SUCCESS;
        }
        // Deliver from another thread, like CUPTI's worker.
        std::thread t([this] {
            for (int i = 0; i < buffersPerFlush; ++i) {
                std::uint8_t* buffer = nullptr;
                std::size_t size = 0, maxRecords = 0;
                m_request(&buffer, &size, &maxRecords);
                if (buffer == nullptr) {
                    dropped += droppedPerNullBuffer;
                    continue;
                }
                if (holdBuffers) {
                    std::lock_guard lock(mutex);
                    held.push_back(buffer);
                    continue;
                }
                SyntheticCupti records;
                producer(records);
                std::size_t valid = records.copyTo(buffer, size);
                m_complete(nullptr, 0, buffer, size, valid);
            }
        });
        t.join();
        return CUPTI_SUCCESS;
    }
    std::atomic<int> timestampCalls{0};
    CUptiResult timestamp(std::uint64_t* ns) override {
        timestampCalls.fetch_add(1);
        timespec ts{};
        clock_gettime(CLOCK_REALTIME, &ts);
        *ns = static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec) +
              clockOffsetNs;
        return CUPTI_SUCCESS;
    }
    CUptiResult droppedRecords(CUcontext, std::uint32_t, std::size_t* n) override {
        *n = dropped.exchange(0);
        return CUPTI_SUCCESS;
    }
    CUptiResult version(std::uint32_t* v) override {
        *v = apiVersion;
        return CUPTI_SUCCESS;
    }
    CUptiResult setThreadIdType(CUpti_ActivityThreadIdType type,
                                CUpti_ActivityThreadIdType* previous) override {
        log("setThreadIdType " + std::to_string(static_cast<int>(type)));
        if (previous) {
            *previous = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
        }
        return CUPTI_SUCCESS;
    }
    CUptiResult enableAllSyncRecords(bool all) override {
        log(all ? "allSyncRecords on" : "allSyncRecords off");
        return CUPTI_SUCCESS;
    }
    CUptiResult setZeroedBuffers(bool zeroed) override {
        log(zeroed ? "zeroedBuffers on" : "zeroedBuffers off");
        return CUPTI_SUCCESS;
    }
    CUptiResult detach(int) override {
        log("detach");
        subscribed = 0;
        return CUPTI_SUCCESS;
    }
    CUptiResult setLaunchSink(LaunchSink sink, void* context) override {
        log(sink != nullptr ? "launchSink on" : "launchSink off");
        std::lock_guard lock(m_launchMutex);
        if (subscribed == 0) {
            m_launchSink = nullptr;
            return sink != nullptr ? CUPTI_ERROR_NOT_INITIALIZED : CUPTI_SUCCESS;
        }
        m_launchSink = sink;
        m_launchContext = context;
        return CUPTI_SUCCESS;
    }
    // A kernel launch call of the job: the launch sink sees it while one is set (true if it did).
    bool launch(const char* kernelName) {
        std::lock_guard lock(m_launchMutex);
        if (m_launchSink == nullptr) {
            return false;
        }
        m_launchSink(m_launchContext, kernelName);
        return true;
    }
    std::string resultString(CUptiResult r) override {
        return "fake error " + std::to_string(static_cast<int>(r));
    }

    // Another CUPTI client registers its own buffer callbacks: ours are never called again.
    void stealCallbacks() {
        std::lock_guard lock(mutex);
        stolen = true;
    }
    std::atomic<bool> stolen{false};

    // Completes buffers held back by holdBuffers (empty), as a slow consumer finally catching up.
    void releaseHeld() {
        std::vector<std::uint8_t*> buffers;
        {
            std::lock_guard lock(mutex);
            buffers.swap(held);
        }
        for (std::uint8_t* b : buffers) {
            m_complete(nullptr, 0, b, 0, 0);
        }
    }

private:
    void log(const std::string& call) {
        std::lock_guard lock(mutex);
        calls.push_back(call);
    }
    CUpti_BuffersCallbackRequestFunc m_request = nullptr;
    CUpti_BuffersCallbackCompleteFunc m_complete = nullptr;
    std::mutex m_launchMutex;
    LaunchSink m_launchSink = nullptr;
    void* m_launchContext = nullptr;
};

}  // namespace chokepoint::testutils
