#include "core/format/CptraceReader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/format/CptraceChunkDecoder.h"

namespace chokepoint::core {

namespace {

constexpr std::size_t kProgressBlockBytes = std::size_t{8} << 20;

}  // namespace

Result<TraceModel> readCptraceFromMemory(std::string_view bytes, std::string_view displayName,
                                         const LoadOptions& options) {
    TraceModel model;
    CptraceDecoderOptions decoderOptions;
    // The writer announces the totals up front; trust them for reserving only as far as the file's
    // size makes plausible (real files hold a row in a few bytes, compressed).
    decoderOptions.reserveLimitRows = 2 * static_cast<std::uint64_t>(bytes.size());
    CptraceChunkDecoder decoder(model, displayName, decoderOptions);
    if (!options.progress) {
        if (Status s = decoder.feed(bytes); !s) {
            return s.error();
        }
    } else {
        for (std::size_t at = 0; at < bytes.size(); at += kProgressBlockBytes) {
            if (Status s = decoder.feed(bytes.substr(at, kProgressBlockBytes)); !s) {
                return s.error();
            }
            if (!reportProgress(options.progress,
                                0.9 * static_cast<double>(at) / static_cast<double>(bytes.size()))) {
                return makeError(kCancelledMessage);
            }
        }
    }
    if (Status s = decoder.finish(); !s) {
        return s.error();
    }
    // finalize() re-derives nesting and joins and may add stats the writer already stored (the
    // model was usually finalized before it was written). Keep the stored stats as they were, add
    // the reader's own (truncation, dangling links), and only those of finalize() that are new.
    TraceStats readerStats = std::move(model.stats);
    model.stats = TraceStats{};
    model.finalize();
    TraceStats finalizeStats = std::move(model.stats);
    model.stats = decoder.storedStats();
    for (const TraceStat& stat : readerStats.entries()) {
        model.stats.add(stat.name, stat.severity, stat.count, stat.detail);
    }
    for (const TraceStat& stat : finalizeStats.entries()) {
        if (decoder.storedStats().find(stat.name) == nullptr) {
            model.stats.add(stat.name, stat.severity, stat.count, stat.detail);
        }
    }
    if (!reportProgress(options.progress, 1.0)) {
        return makeError(kCancelledMessage);
    }
    return model;
}

Result<TraceModel> readCptrace(const std::string& path, const LoadOptions& options) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        return makeError(path + ": cannot open: " + std::strerror(errno));
    }
    if (S_ISDIR(info.st_mode)) {
        return makeError(path + ": is a directory, not a .cptrace file");
    }
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
        return makeError(path + ": cannot open: " + std::strerror(errno));
    }
    std::string bytes;
    if (S_ISREG(info.st_mode) && info.st_size > 0) {
        bytes.reserve(static_cast<std::size_t>(info.st_size));
    }
    char buffer[1 << 16];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
        bytes.append(buffer, n);
    }
    bool readError = std::ferror(file) != 0;
    std::fclose(file);
    if (readError) {
        return makeError(path + ": read error at byte " + std::to_string(bytes.size()));
    }
    return readCptraceFromMemory(bytes, path, options);
}

}  // namespace chokepoint::core
