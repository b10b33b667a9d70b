// A second NVTX-using module for the NVTX injection test: NVTX v3 initialises each module
// separately, so the injection must serve both.
#include <nvtx3/nvToolsExt.h>

extern "C" __attribute__((visibility("default"))) void nvtxHelperLibWork() {
    nvtxRangePushA("lib:work");
    nvtxMarkA("lib:mark");
    nvtxRangePop();
}
