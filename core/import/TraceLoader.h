#pragma once
// One entry point to open any supported trace file: detects the format from the file's first
// bytes (not its name) and calls the matching importer or reader. The returned model is finalized.

#include <string>
#include <string_view>

#include "core/base/Progress.h"
#include "core/base/Result.h"
#include "core/model/LoadOptions.h"
#include "core/model/TraceModel.h"

namespace chokepoint::core {

enum class TraceFormat {
    Unknown,
    KinetoJson,  // PyTorch profiler / Kineto Chrome-trace JSON, plain or gzip
    NsysSqlite,  // Nsight Systems `nsys export --type sqlite`
    Cptrace,     // our native format
};

std::string_view toString(TraceFormat format);

// Looks at the file's magic bytes (gzip, SQLite, .cptrace, '{' or '[').
Result<TraceFormat> detectTraceFormat(const std::string& path);

// Opens `path` in whatever supported format it is. Errors name the file and the place.
Result<TraceModel> loadTrace(const std::string& path, const LoadOptions& options = {});

}  // namespace chokepoint::core
