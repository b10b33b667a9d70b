#include "core/format/CptraceWriter.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/format/CptraceChunkEncoder.h"

namespace chokepoint::core {

std::string encodeCptrace(const TraceModel& model, const CptraceWriteOptions& options) {
    CptraceChunkEncoder encoder(CptraceEncoderOptions{options.compress, 6, options.compressMaxRawBytes});
    std::string out;
    encoder.encodeModel(model, options.rowsPerChunk, [&out](std::string_view piece) {
        out.append(piece);
        return true;
    });
    return out;
}

Status writeCptrace(const TraceModel& model, const std::string& path) {
    return writeCptrace(model, path, CptraceWriteOptions{});
}

Status writeCptrace(const TraceModel& model, const std::string& path, const CptraceWriteOptions& options) {
    const std::string temp = path + ".tmp." + std::to_string(::getpid());
    std::FILE* file = std::fopen(temp.c_str(), "wb");
    if (file == nullptr) {
        return makeError(path + ": cannot create " + temp + ": " + std::strerror(errno));
    }
    CptraceChunkEncoder encoder(CptraceEncoderOptions{options.compress, 6, options.compressMaxRawBytes});
    int writeErrno = 0;
    bool ok = encoder.encodeModel(model, options.rowsPerChunk, [&](std::string_view piece) {
        if (std::fwrite(piece.data(), 1, piece.size(), file) != piece.size()) {
            writeErrno = errno;
            return false;
        }
        return true;
    });
    if (std::fflush(file) != 0 && ok) {
        ok = false;
        writeErrno = errno;
    }
    if (ok && ::fsync(::fileno(file)) != 0) {
        ok = false;
        writeErrno = errno;
    }
    if (std::fclose(file) != 0 && ok) {
        ok = false;
        writeErrno = errno;
    }
    if (!ok) {
        std::remove(temp.c_str());
        return makeError(path + ": write failed: " + std::strerror(writeErrno));
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        int e = errno;
        std::remove(temp.c_str());
        return makeError(path + ": cannot rename the temporary file into place: " + std::strerror(e));
    }
    return Ok{};
}

}  // namespace chokepoint::core
