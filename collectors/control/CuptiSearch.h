#pragma once
// Where a CUDA 13 libcupti is looked for, in order (the agent's loader, collectors/agent/
// CuptiLoader.h, and `chokepoint-cli doctor` use the same list). No CUDA needed.

#include <string>
#include <vector>

namespace chokepoint::collectors {

// The candidate files in search order from: CHOKEPOINT_CUPTI_PATH (a library, or the folder holding
// libcupti.so.13), the libraries mapped in the process (the site-packages of torch first:
// nvidia/cu13/lib, then nvidia/cuda_cupti/lib), the CUDA toolkit roots (lib64, extras/CUPTI/lib64,
// targets/x86_64-linux/lib), and last the bare soname for the loader's own search path. Pure.
std::vector<std::string> cuptiCandidates(const std::string& envPath,
                                         const std::vector<std::string>& mappedFiles,
                                         const std::vector<std::string>& cudaRoots);

// The site-packages (or dist-packages) folder of a library path, or "".
std::string sitePackagesOf(const std::string& path);

}  // namespace chokepoint::collectors
