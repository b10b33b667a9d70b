// Injection library for the NVTX test: installs the real NvtxRecorder handlers and, at unload,
// drains what they recorded into a text file named by CHOKEPOINT_NVTX_TEST_OUT:
//   modules N / steps N / dropped N / range <name>|<domain>|<tid>|<durationNs>
// CHOKEPOINT_NVTX_TEST_MODE=idle keeps the recorder idle.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "collectors/nvtx/NvtxRecorder.h"

using chokepoint::collectors::NvtxMode;
using chokepoint::collectors::NvtxRecorder;

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t getTable) {
    NvtxRecorder& r = NvtxRecorder::instance();
    static bool configured = false;
    if (!configured) {
        configured = true;
        r.setStepMarkers({"ProfilerStep#"});
        const char* mode = std::getenv("CHOKEPOINT_NVTX_TEST_MODE");
        r.setMode(mode != nullptr && std::strcmp(mode, "idle") == 0 ? NvtxMode::Idle : NvtxMode::Recording);
    }
    return r.install(getTable);
}

__attribute__((destructor)) static void dumpRecorded() {
    const char* out = std::getenv("CHOKEPOINT_NVTX_TEST_OUT");
    if (out == nullptr) {
        return;
    }
    NvtxRecorder& r = NvtxRecorder::instance();
    chokepoint::core::TraceModel batch;
    r.drainInto(batch, NvtxRecorder::nowNs());
    std::FILE* f = std::fopen(out, "w");
    if (f == nullptr) {
        return;
    }
    std::fprintf(f, "modules %d\nsteps %llu\ndropped %llu\n", r.modulesInstalled(),
                 static_cast<unsigned long long>(r.stepsSeen()),
                 static_cast<unsigned long long>(r.droppedEvents()));
    for (std::size_t i = 0; i < batch.ranges.size(); ++i) {
        auto row = batch.ranges.row(chokepoint::core::RangeId(static_cast<std::uint32_t>(i)));
        std::fprintf(f, "range %s|%s|%lld|%lld\n", std::string(batch.text(row.name)).c_str(),
                     std::string(batch.text(row.domain)).c_str(),
                     static_cast<long long>(batch.threads[row.thread].tid),
                     static_cast<long long>(row.endNs - row.startNs));
    }
    std::fprintf(f, "pid %lld\n", static_cast<long long>(::getpid()));
    std::fclose(f);
}
