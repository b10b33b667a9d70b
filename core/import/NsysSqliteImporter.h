#pragma once
// Imports an Nsight Systems SQLite export (`nsys export --type sqlite`): kernels, memcpy, memset,
// CUDA runtime/driver API, NVTX ranges, string ids and GPU info, for old and new schema versions.

#include <string>

#include "core/base/Result.h"
#include "core/model/LoadOptions.h"
#include "core/model/TraceModel.h"

namespace chokepoint::core {

// Opens the database read-only. Returns a finalized model or an Error naming the file and the
// table or row at fault.
Result<TraceModel> importNsysSqlite(const std::string& path, const LoadOptions& options = {});

}  // namespace chokepoint::core
