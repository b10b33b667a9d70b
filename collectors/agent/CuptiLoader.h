#pragma once
// Where the agent's libcupti comes from. The injection library does not depend on libcupti (the
// driver loads us before the job has said where its CUPTI is, and a NEEDED entry the loader cannot
// resolve would keep the agent from loading at all). CUPTI is opened with dlopen at the first
// capture, searched in this order:
//   0. a libcupti.so.13 the process already loaded (torch.profiler's Kineto): one CUPTI per process;
//   1. CHOKEPOINT_CUPTI_PATH (the library, or the folder holding libcupti.so.13);
//   2. the CUPTI beside the job's torch: <site-packages>/nvidia/cu13/lib, then
//      <site-packages>/nvidia/cuda_cupti/lib (site-packages found from the libraries mapped in
//      the process, e.g. .../site-packages/torch/lib/libtorch_cuda.so);
//   3. the CUDA toolkit: $CUDA_HOME, $CUDA_PATH, /usr/local/cuda (lib64, extras/CUPTI/lib64,
//      targets/x86_64-linux/lib);
//   4. the loader's search path (LD_LIBRARY_PATH, ld.so.cache).
// In the agent every cupti* call goes through a forwarding function resolved in that library; the
// test library links libcupti directly instead (CuptiLoaderLinked.cpp).

#include <string>
#include <vector>

#include "collectors/control/CuptiSearch.h"

namespace chokepoint::collectors {

struct CuptiLoadResult {
    bool ok = false;
    std::string path;     // the library used
    std::string problem;  // when !ok: what was tried and why each failed
};

// Loads CUPTI once (later calls return the first result). Thread-safe.
const CuptiLoadResult& loadCupti();

}  // namespace chokepoint::collectors
