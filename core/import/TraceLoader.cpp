#include "core/import/TraceLoader.h"

#include <zlib.h>

#include "core/import/ByteSource.h"
#include "core/import/JsonScan.h"
#include "core/import/KinetoJsonImporter.h"

#include "core/format/CptraceFormat.h"
#if defined(CHOKEPOINT_IMPORT_HAVE_CPTRACE)
#include "core/format/CptraceReader.h"
#endif
#if defined(CHOKEPOINT_IMPORT_HAVE_NSYS)
#include "core/import/NsysSqliteImporter.h"
#endif

namespace chokepoint::core {

namespace {

constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};
constexpr std::size_t kPrefixBytes = 4096;

// The first bytes of a gzip member's inflated data (enough to see the JSON's first character).
std::string inflatedPrefix(std::string_view gzipBytes, std::size_t want) {
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 16) != Z_OK) {
        return {};
    }
    std::string out(want, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gzipBytes.data()));
    zs.avail_in = static_cast<uInt>(gzipBytes.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    inflate(&zs, Z_SYNC_FLUSH);
    out.resize(out.size() - zs.avail_out);
    inflateEnd(&zs);
    return out;
}

TraceFormat formatOfText(std::string_view bytes) {
    std::size_t i = skipJsonSpace(bytes.data(), bytes.size(), 0);
    // A UTF-8 byte order mark is not JSON; writers do not emit it, so it is not accepted either.
    if (i < bytes.size() && (bytes[i] == '{' || bytes[i] == '[')) {
        return TraceFormat::KinetoJson;
    }
    return TraceFormat::Unknown;
}

}  // namespace

std::string_view toString(TraceFormat format) {
    switch (format) {
        case TraceFormat::KinetoJson:
            return "kineto-json";
        case TraceFormat::NsysSqlite:
            return "nsys-sqlite";
        case TraceFormat::Cptrace:
            return "cptrace";
        case TraceFormat::Unknown:
            break;
    }
    return "unknown";
}

Result<TraceFormat> detectTraceFormat(const std::string& path) {
    auto prefix = readFilePrefix(path, kPrefixBytes);
    if (!prefix.ok()) {
        return prefix.error();
    }
    const std::string& bytes = prefix.value();
    if (bytes.empty()) {
        return makeError(path + ": the file is empty (0 bytes)");
    }
    if (hasCptraceMagic(bytes)) {
        return TraceFormat::Cptrace;
    }
    if (bytes.substr(0, kSqliteMagic.size()) == kSqliteMagic) {
        return TraceFormat::NsysSqlite;
    }
    if (hasGzipMagic(bytes)) {
        std::string inflated = inflatedPrefix(bytes, 256);
        if (formatOfText(inflated) == TraceFormat::KinetoJson) {
            return TraceFormat::KinetoJson;
        }
        return makeError(
            path + ": gzip file whose content is not a JSON trace" +
            (inflated.empty() ? std::string(" (cannot inflate its first bytes)") : std::string()));
    }
    if (formatOfText(bytes) == TraceFormat::KinetoJson) {
        return TraceFormat::KinetoJson;
    }
    if (skipJsonSpace(bytes.data(), bytes.size(), 0) == bytes.size()) {
        return makeError(path + ": the first " + std::to_string(bytes.size()) +
                         " bytes are whitespace: no JSON document found");
    }
    return makeError(
        path +
        ": unknown trace format (not Kineto/Chrome JSON, gzip, an Nsight Systems SQLite export or "
        ".cptrace) at byte 0");
}

namespace {

// A file from which not one record could be read is not an empty trace: the reader went past damage
// (a cut, a corrupt tail) and kept nothing. Said as an error naming the damage, so that no view
// calls an unreadable file "a CPU-only trace" with confidence.
Result<TraceModel> refuseIfNothingRead(Result<TraceModel> loaded, const std::string& path) {
    if (!loaded.ok()) {
        return loaded;
    }
    const TraceModel& model = loaded.value();
    const bool nothingRead = model.gpuEventCount() == 0 && model.cpuOps.size() == 0 &&
                             model.apiCalls.size() == 0 && model.ranges.size() == 0;
    if (!nothingRead) {
        return loaded;
    }
    for (const TraceStat& stat : model.stats.entries()) {
        if (stat.severity >= Severity::DataLoss) {
            return makeError(path + ": no records could be read (" + stat.name + ": " + stat.detail + ")");
        }
    }
    return loaded;
}

Result<TraceModel> loadByFormat(const std::string& path, const LoadOptions& options);

}  // namespace

Result<TraceModel> loadTrace(const std::string& path, const LoadOptions& options) {
    return refuseIfNothingRead(loadByFormat(path, options), path);
}

namespace {

Result<TraceModel> loadByFormat(const std::string& path, const LoadOptions& options) {
    auto format = detectTraceFormat(path);
    if (!format.ok()) {
        return format.error();
    }
    switch (format.value()) {
        case TraceFormat::KinetoJson:
            return importKinetoJson(path, options);
        case TraceFormat::NsysSqlite:
#if defined(CHOKEPOINT_IMPORT_HAVE_NSYS)
            return importNsysSqlite(path, options);
#else
            return makeError(path + ": Nsight Systems SQLite export, but this build has no nsys importer");
#endif
        case TraceFormat::Cptrace:
#if defined(CHOKEPOINT_IMPORT_HAVE_CPTRACE)
            return readCptrace(path, options);
#else
            return makeError(path + ": .cptrace file, but this build has no .cptrace reader");
#endif
        case TraceFormat::Unknown:
            break;
    }
    return makeError(path + ": unknown trace format");
}

}  // namespace

}  // namespace chokepoint::core
