#pragma once
// Reads a .cptrace file (see FORMAT.md beside this header). A file cut off mid-write opens up to
// its last whole chunk, with the loss counted in TraceStats.

#include <string>
#include <string_view>

#include "core/base/Result.h"
#include "core/model/LoadOptions.h"
#include "core/model/TraceModel.h"

namespace chokepoint::core {

Result<TraceModel> readCptrace(const std::string& path, const LoadOptions& options = {});
Result<TraceModel> readCptraceFromMemory(std::string_view bytes, std::string_view displayName,
                                         const LoadOptions& options = {});

}  // namespace chokepoint::core
