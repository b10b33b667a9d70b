#pragma once
// Imports PyTorch profiler / Kineto Chrome-trace JSON (plain or gzip-compressed) into a TraceModel.
// Both the 2021 categories (Kernel, Runtime, Operator, Memcpy, Memset with "async" flows) and the
// current ones (kernel, cuda_runtime, cuda_driver, cpu_op, gpu_memcpy, gpu_memset, user_annotation,
// gpu_user_annotation, python_function with "ac2g" flows) are understood, as are AMD (ROCm) traces.

#include <string>
#include <string_view>

#include "core/base/Result.h"
#include "core/model/LoadOptions.h"
#include "core/model/TraceModel.h"

namespace chokepoint::core {

// Reads and imports the file at `path`; gzip is detected by its magic bytes. Returns a finalized
// model, or an Error naming the file and the byte offset or event index at fault.
Result<TraceModel> importKinetoJson(const std::string& path, const LoadOptions& options = {});

// Imports JSON (not gzip) already in memory; `displayName` names the source in errors.
Result<TraceModel> importKinetoJsonFromMemory(std::string_view json, std::string_view displayName,
                                              const LoadOptions& options = {});

}  // namespace chokepoint::core
