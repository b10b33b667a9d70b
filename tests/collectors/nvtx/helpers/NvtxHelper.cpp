// Test program for the NVTX injection: emits a known sequence of NVTX events from several threads
// and two modules. Run with NVTX_INJECTION64_PATH set to an injection library. Exits non-zero when
// the values NVTX returns (push depth) are wrong. CHOKEPOINT_NVTX_HELPER_FLOOD=N pushes/pops N
// extra ranges on the main thread (ring overflow test).
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

extern "C" void nvtxHelperLibWork();

int main() {
    int failures = 0;
    for (int step = 1; step <= 3; ++step) {
        char name[32];
        std::snprintf(name, sizeof name, "ProfilerStep#%d", step);
        int depth = nvtxRangePushA(name);
        if (depth != 0) {
            ++failures;
        }
        if (nvtxRangePushA("forward") != 1) {
            ++failures;
        }
        nvtxMarkA("inside-forward");
        if (nvtxRangePop() != 1) {
            ++failures;
        }
        nvtxHelperLibWork();
        nvtxRangePop();
    }
    // A start/end range that ends on another thread.
    nvtxRangeId_t id = nvtxRangeStartA("cross-thread");
    std::thread t([id] {
        nvtxRangePushA("worker:batch");
        nvtxRangePop();
        nvtxRangeEnd(id);
    });
    t.join();
    // A domain range with a registered string and an attribute-based range.
    nvtxDomainHandle_t domain = nvtxDomainCreateA("mydomain");
    nvtxStringHandle_t registered = nvtxDomainRegisterStringA(domain, "registered-name");
    nvtxEventAttributes_t attr{};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    attr.message.registered = registered;
    nvtxDomainRangePushEx(domain, &attr);
    nvtxDomainRangePop(domain);
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = "ex-range";
    nvtxRangePushEx(&attr);
    nvtxRangePop();
    // Left open on purpose: the capture closes it at stop.
    nvtxRangePushA("still-open");

    if (const char* flood = std::getenv("CHOKEPOINT_NVTX_HELPER_FLOOD")) {
        int n = std::atoi(flood);
        for (int i = 0; i < n; ++i) {
            nvtxRangePushA("flood");
            nvtxRangePop();
        }
    }
    if (failures != 0) {
        std::fprintf(stderr, "nvtx helper: %d wrong depth values\n", failures);
        return 1;
    }
    return 0;
}
