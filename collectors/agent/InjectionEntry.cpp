// The only symbols libchokepoint_agent.so exports (see agent.map): the CUDA and NVTX injection
// entry points. No exception may leave them; a failure leaves the process untouched.

#include <nvtx3/nvToolsExt.h>

#include "collectors/agent/Agent.h"

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    try {
        return chokepoint::collectors::Agent::instance().initializeCuda();
    } catch (...) {
        return 1;  // stay loaded but inert; CUDA must keep working
    }
}

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t getTable) {
    try {
        return chokepoint::collectors::Agent::instance().initializeNvtx(getTable);
    } catch (...) {
        return 0;  // NVTX unloads us and its calls become no-ops
    }
}
