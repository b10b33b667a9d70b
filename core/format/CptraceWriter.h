#pragma once
// Writes a whole TraceModel as a .cptrace file (see FORMAT.md beside this header).

#include <cstddef>
#include <string>

#include "core/base/Result.h"
#include "core/model/TraceModel.h"

namespace chokepoint::core {

struct CptraceWriteOptions {
    std::size_t rowsPerChunk = 65536;  // event rows per chunk (all tables together)
    bool compress = true;              // zlib per chunk
    // Only chunks up to this many raw bytes are compressed (see CptraceEncoderOptions): small traces
    // stay small, large ones load about twice as fast. Use SIZE_MAX to compress every chunk.
    std::size_t compressMaxRawBytes = 256 * 1024;
};

// Writes atomically: to a temporary file beside `path`, then renamed over it, so a reader never
// sees a half-written file under the final name. Errors name the file.
Status writeCptrace(const TraceModel& model, const std::string& path);
Status writeCptrace(const TraceModel& model, const std::string& path, const CptraceWriteOptions& options);

// The bytes writeCptrace would write.
std::string encodeCptrace(const TraceModel& model, const CptraceWriteOptions& options = {});

}  // namespace chokepoint::core
