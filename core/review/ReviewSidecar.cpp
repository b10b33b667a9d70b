#include "core/review/ReviewSidecar.h"

#include <unistd.h>

#include <simdjson.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <utility>

#include "core/base/JsonEscape.h"

namespace chokepoint::core {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kFormatName = "chokepoint-review";

// --- Writing --------------------------------------------------------------------------------------

// Shortest text that reads back as the same double.
std::string jsonNumber(double value) {
    char buffer[40];
    for (int digits = 15; digits <= 17; ++digits) {
        std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
        if (std::strtod(buffer, nullptr) == value) {
            break;
        }
    }
    return buffer;
}

void appendAnalysisSettings(std::string& out, const AnalysisSettings& a) {
    out += "  \"analysisSettings\": {";
    const char* separator = "";
    const auto key = [&](std::string_view name) {
        out += separator;
        separator = ", ";
        appendJsonString(out, name);
        out += ": ";
    };
    if (!a.deviceId.empty()) {
        key("device");
        appendJsonString(out, a.deviceId);
    }
    const std::pair<std::string_view, const std::optional<double>*> numbers[] = {
        {"modelFlopsPerStep", &a.modelFlopsPerStep},
        {"parameterCount", &a.parameterCount},
        {"tokensPerStep", &a.tokensPerStep},
        {"peakMemoryBytes", &a.peakMemoryBytes},
    };
    for (const auto& [name, value] : numbers) {
        if (value->has_value()) {
            key(name);
            out += jsonNumber(**value);
        }
    }
    if (a.outOfMemoryObserved) {
        key("outOfMemoryObserved");
        out += "true";
    }
    if (!a.precision.empty()) {
        key("precision");
        appendJsonString(out, a.precision);
    }
    if (!a.thresholds.empty()) {
        key("thresholds");
        out += "{";
        bool first = true;
        for (const auto& [name, value] : a.thresholds) {
            out += first ? "" : ", ";
            first = false;
            appendJsonString(out, name);
            out += ": " + jsonNumber(value);
        }
        out += "}";
    }
    out += "},\n";
}

// Reads the "analysisSettings" object. Settings only steer the analysis, so a bad entry never
// makes the sidecar unreadable: it is left out with a warning naming the file and the field.
AnalysisSettings readAnalysisSettings(simdjson::dom::element element, const std::string& source,
                                      std::vector<std::string>& warnings) {
    AnalysisSettings a;
    const std::string path = source + ": analysisSettings";
    simdjson::dom::object object;
    if (element.get_object().get(object)) {
        warnings.push_back(path + ": expected an object; the analysis settings are ignored");
        return a;
    }
    for (auto field : object) {
        const std::string key(field.key);
        const std::string where = path + "." + key;
        const simdjson::dom::element value = field.value;
        if (key == "device" || key == "precision") {
            std::string_view text;
            if (value.get_string().get(text)) {
                warnings.push_back(where + ": expected a string; ignored");
            } else {
                (key == "device" ? a.deviceId : a.precision) = std::string(text);
            }
        } else if (key == "modelFlopsPerStep" || key == "parameterCount" || key == "tokensPerStep" ||
                   key == "peakMemoryBytes") {
            double number = 0;
            if (value.get_double().get(number) || !std::isfinite(number) || number <= 0) {
                warnings.push_back(where + ": expected a positive number; ignored");
                continue;
            }
            std::optional<double>& target = key == "modelFlopsPerStep" ? a.modelFlopsPerStep
                                            : key == "parameterCount"  ? a.parameterCount
                                            : key == "tokensPerStep"   ? a.tokensPerStep
                                                                       : a.peakMemoryBytes;
            target = number;
        } else if (key == "outOfMemoryObserved") {
            bool flag = false;
            if (value.get_bool().get(flag)) {
                warnings.push_back(where + ": expected true or false; ignored");
            } else {
                a.outOfMemoryObserved = flag;
            }
        } else if (key == "thresholds") {
            simdjson::dom::object thresholds;
            if (value.get_object().get(thresholds)) {
                warnings.push_back(where + ": expected an object of key: number; ignored");
                continue;
            }
            for (auto threshold : thresholds) {
                double number = 0;
                if (threshold.value.get_double().get(number) || !std::isfinite(number)) {
                    warnings.push_back(where + "." + std::string(threshold.key) +
                                       ": expected a number; ignored");
                } else {
                    a.thresholds[std::string(threshold.key)] = number;
                }
            }
        }
        // Other keys: written by a newer Chokepoint; ignored like unknown fields elsewhere.
    }
    return a;
}

void appendTrackLayout(std::string& out, const timeline::TrackLayout& layout) {
    if (layout.empty()) {
        return;  // sidecars without a layout stay as they were
    }
    auto list = [&out](std::string_view name, const std::vector<std::string>& keys, bool last) {
        out += "\n    ";
        appendJsonString(out, name);
        out += ": [";
        for (std::size_t i = 0; i < keys.size(); ++i) {
            out += i == 0 ? "" : ", ";
            appendJsonString(out, keys[i]);
        }
        out += last ? "]" : "],";
    };
    out += ",\n  \"trackLayout\": {";
    list("hidden", layout.hiddenTracks, false);
    list("collapsed", layout.collapsedGroups, false);
    list("groupOrder", layout.groupOrder, false);
    list("trackOrder", layout.trackOrder, true);
    out += "\n  }";
}

// Reads a "trackLayout" object into `layout`; true with `problem` set (", path: what") when it is
// malformed. Every field is optional.
bool readTrackLayout(simdjson::dom::element element, timeline::TrackLayout& layout, std::string& problem) {
    simdjson::dom::object object;
    if (element.get_object().get(object)) {
        problem = ": expected an object";
        return true;
    }
    auto list = [&](std::string_view name, std::vector<std::string>& keys) {
        simdjson::dom::element value;
        if (object.at_key(name).get(value)) {
            return false;
        }
        simdjson::dom::array array;
        if (value.get_array().get(array)) {
            problem = "." + std::string(name) + ": expected an array of strings";
            return true;
        }
        std::size_t index = 0;
        for (simdjson::dom::element item : array) {
            std::string_view text;
            if (item.get_string().get(text)) {
                problem = "." + std::string(name) + "[" + std::to_string(index) + "]: expected a string";
                return true;
            }
            keys.emplace_back(text);
            ++index;
        }
        return false;
    };
    if (list("hidden", layout.hiddenTracks) || list("collapsed", layout.collapsedGroups) ||
        list("groupOrder", layout.groupOrder) || list("trackOrder", layout.trackOrder)) {
        return true;
    }
    for (auto* sorted : {&layout.hiddenTracks, &layout.collapsedGroups}) {
        std::sort(sorted->begin(), sorted->end());
        sorted->erase(std::unique(sorted->begin(), sorted->end()), sorted->end());
    }
    return false;
}

// --- Reading --------------------------------------------------------------------------------------

// simdjson's DOM parser reports what went wrong but not where. Walking the text with the On-Demand
// API stops at the first bad token, and its iterator then points at the place to report.
simdjson::error_code walkValue(simdjson::ondemand::value value, int depth) {
    using simdjson::ondemand::json_type;
    if (depth > 256) {
        return simdjson::DEPTH_ERROR;
    }
    json_type type;
    if (auto err = value.type().get(type)) {
        return err;
    }
    switch (type) {
        case json_type::object: {
            simdjson::ondemand::object object;
            if (auto err = value.get_object().get(object)) {
                return err;
            }
            for (auto fieldResult : object) {
                simdjson::ondemand::field field;
                if (auto err = std::move(fieldResult).get(field)) {
                    return err;
                }
                std::string_view key;
                if (auto err = field.unescaped_key().get(key)) {
                    return err;
                }
                if (auto err = walkValue(field.value(), depth + 1)) {
                    return err;
                }
            }
            return simdjson::SUCCESS;
        }
        case json_type::array: {
            simdjson::ondemand::array array;
            if (auto err = value.get_array().get(array)) {
                return err;
            }
            for (auto elementResult : array) {
                simdjson::ondemand::value element;
                if (auto err = std::move(elementResult).get(element)) {
                    return err;
                }
                if (auto err = walkValue(element, depth + 1)) {
                    return err;
                }
            }
            return simdjson::SUCCESS;
        }
        case json_type::number:
            return value.get_number().error();
        case json_type::string:
            return value.get_string().error();
        case json_type::boolean:
            return value.get_bool().error();
        case json_type::null:
            return value.is_null().error();
    }
    return simdjson::INCORRECT_TYPE;
}

// Byte offset of the first syntax error in `json`, or its size when the walk finds none.
std::size_t locateSyntaxError(const simdjson::padded_string& json) {
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    if (parser.iterate(json).get(doc)) {
        return 0;
    }
    simdjson::ondemand::value root;
    simdjson::error_code err = doc.get_value().get(root);
    if (!err) {
        err = walkValue(root, 0);
    }
    const char* location = nullptr;
    if (doc.current_location().get(location) || location == nullptr) {
        return json.size();
    }
    const auto offset = location - json.data();
    return offset < 0 ? 0 : static_cast<std::size_t>(offset);
}

class Reader {
public:
    explicit Reader(std::string_view source) : m_source(source) {}

    Error error(const std::string& path, const std::string& what) const {
        return makeError(std::string(m_source) + ": " + path + ": " + what);
    }

    // Optional string field; nullopt when absent, Error when present with another type.
    Result<std::optional<std::string>> optString(simdjson::dom::object object, std::string_view key,
                                                 const std::string& path) const {
        simdjson::dom::element element;
        if (object.at_key(key).get(element)) {
            return std::optional<std::string>{};
        }
        std::string_view text;
        if (element.get_string().get(text)) {
            return error(path + "." + std::string(key), "expected a string");
        }
        return std::optional<std::string>{std::string(text)};
    }

    Result<std::optional<std::int64_t>> optInt(simdjson::dom::object object, std::string_view key,
                                               const std::string& path, std::int64_t minValue,
                                               std::int64_t maxValue) const {
        simdjson::dom::element element;
        if (object.at_key(key).get(element)) {
            return std::optional<std::int64_t>{};
        }
        std::int64_t value = 0;
        if (element.get_int64().get(value)) {
            return error(path + "." + std::string(key), "expected an integer");
        }
        if (value < minValue || value > maxValue) {
            return error(path + "." + std::string(key), "value " + std::to_string(value) + " out of range");
        }
        return std::optional<std::int64_t>{value};
    }

    Result<Bookmark> bookmark(simdjson::dom::element element, const std::string& path) const {
        simdjson::dom::object object;
        if (element.get_object().get(object)) {
            return error(path, "expected an object");
        }
        constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
        constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
        Bookmark b;

        auto id = optInt(object, "id", path, 1, kMax);
        if (!id) {
            return id.error();
        }
        if (!id.value()) {
            return error(path, "missing \"id\"");
        }
        b.id = static_cast<std::uint64_t>(*id.value());

        auto kind = optString(object, "kind", path);
        if (!kind) {
            return kind.error();
        }
        if (kind.value()) {
            const auto parsed = bookmarkKindFromString(*kind.value());
            if (!parsed) {
                return error(path + ".kind", "unknown kind \"" + *kind.value() + "\"");
            }
            b.kind = *parsed;
        }

        auto start = optInt(object, "startNs", path, kMin, kMax);
        auto end = optInt(object, "endNs", path, kMin, kMax);
        if (!start) {
            return start.error();
        }
        if (!end) {
            return end.error();
        }
        if (!start.value() || !end.value()) {
            return error(path, "missing \"startNs\" or \"endNs\"");
        }
        b.range = {*start.value(), *end.value()};
        if (b.range.endNs < b.range.startNs) {
            return error(path + ".endNs", "ends before it starts");
        }

        constexpr std::int64_t kI32Min = std::numeric_limits<std::int32_t>::min();
        constexpr std::int64_t kI32Max = std::numeric_limits<std::int32_t>::max();
        auto device = optInt(object, "device", path, kI32Min, kI32Max);
        auto stream = optInt(object, "stream", path, kI32Min, kI32Max);
        auto created = optInt(object, "createdUnixMs", path, 0, kMax);
        auto kernel = optString(object, "kernel", path);
        auto title = optString(object, "title", path);
        auto note = optString(object, "note", path);
        for (const Error* e : {device ? nullptr : &device.error(), stream ? nullptr : &stream.error(),
                               created ? nullptr : &created.error(), kernel ? nullptr : &kernel.error(),
                               title ? nullptr : &title.error(), note ? nullptr : &note.error()}) {
            if (e != nullptr) {
                return *e;
            }
        }
        b.deviceIndex = static_cast<std::int32_t>(device.value().value_or(-1));
        b.streamId = static_cast<std::int32_t>(stream.value().value_or(-1));
        b.createdUnixMs = created.value().value_or(0);
        b.kernelName = kernel.value().value_or(std::string{});
        b.title = title.value().value_or(std::string{});
        b.note = note.value().value_or(std::string{});
        if (b.kind == BookmarkKind::Kernel && b.deviceIndex < 0) {
            return error(path, "a kernel bookmark needs \"device\"");
        }
        return b;
    }

private:
    std::string_view m_source;
};

}  // namespace

std::string reviewSidecarPathFor(std::string_view tracePath, bool besideExists, bool folderReadOnly,
                                 std::string_view userReviewsDir) {
    std::string beside = std::string(tracePath) + std::string(kReviewSidecarSuffix);
    if (besideExists || !folderReadOnly || userReviewsDir.empty()) {
        return beside;
    }
    // FNV-1a 64 of the absolute path: stable across runs and builds, unlike std::hash.
    const std::string absolute = fs::absolute(fs::path(tracePath)).lexically_normal().string();
    std::uint64_t hash = 14695981039346656037ULL;
    for (unsigned char c : absolute) {
        hash = (hash ^ c) * 1099511628211ULL;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    return (fs::path(userReviewsDir) /
            (fs::path(tracePath).filename().string() + "-" + hex + std::string(kReviewSidecarSuffix)))
        .string();
}

std::string userReviewsFolder() {
    if (const char* data = std::getenv("XDG_DATA_HOME"); data != nullptr && data[0] == '/') {
        return (fs::path(data) / "chokepoint" / "reviews").string();
    }
    if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') {
        return (fs::path(home) / ".local" / "share" / "chokepoint" / "reviews").string();
    }
    return {};
}

std::string reviewSidecarPath(std::string_view tracePath) {
    const std::string beside = std::string(tracePath) + std::string(kReviewSidecarSuffix);
    std::error_code ec;
    if (fs::exists(beside, ec)) {
        return beside;
    }
    fs::path folder = fs::path(tracePath).parent_path();
    if (folder.empty()) {
        folder = ".";
    }
    // Read-only only when the folder is there and refuses writing (EACCES, EROFS): a path that does
    // not exist yet keeps the plain rule.
    const bool readOnly = fs::is_directory(folder, ec) && ::access(folder.c_str(), W_OK) != 0 &&
                          (errno == EACCES || errno == EROFS || errno == EPERM);
    return reviewSidecarPathFor(tracePath, false, readOnly, userReviewsFolder());
}

std::string serializeReviewSidecar(const ReviewNotes& notes) {
    std::string out;
    out += "{\n  \"format\": ";
    appendJsonString(out, kFormatName);
    out += ",\n  \"version\": " + std::to_string(kReviewSidecarFormatVersion) +
           ",\n  \"trace\": {\"fileName\": ";
    appendJsonString(out, notes.traceFileName);
    out += ", \"sizeBytes\": " + std::to_string(notes.traceSizeBytes) + "},\n";
    if (!notes.analysisSettings.isDefault()) {
        appendAnalysisSettings(out, notes.analysisSettings);
    }
    out += "  \"bookmarks\": [";
    bool first = true;
    for (const Bookmark& b : notes.bookmarks()) {
        out += first ? "\n    {" : ",\n    {";
        first = false;
        out += "\"id\": " + std::to_string(b.id) + ", \"kind\": ";
        appendJsonString(out, toString(b.kind));
        out += ", \"startNs\": " + std::to_string(b.range.startNs) +
               ", \"endNs\": " + std::to_string(b.range.endNs);
        if (b.kind == BookmarkKind::Kernel) {
            out += ", \"kernel\": ";
            appendJsonString(out, b.kernelName);
            out += ", \"device\": " + std::to_string(b.deviceIndex) +
                   ", \"stream\": " + std::to_string(b.streamId);
        }
        out += ", \"title\": ";
        appendJsonString(out, b.title);
        out += ", \"note\": ";
        appendJsonString(out, b.note);
        out += ", \"createdUnixMs\": " + std::to_string(b.createdUnixMs) + "}";
    }
    out += first ? "]" : "\n  ]";
    appendTrackLayout(out, notes.trackLayout);
    out += "\n}\n";
    return out;
}

Result<ReviewNotes> parseReviewSidecar(std::string_view json, std::string_view sourceName,
                                       std::vector<std::string>* warnings) {
    const std::string source(sourceName);
    if (static_cast<std::int64_t>(json.size()) > kMaxReviewSidecarBytes) {
        return makeError(source + ": " + std::to_string(json.size()) +
                         " bytes is too large for a review sidecar");
    }
    const simdjson::padded_string padded(json);
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (auto err = parser.parse(padded).get(root)) {
        const std::size_t offset = locateSyntaxError(padded);
        return makeError(source + ": byte " + std::to_string(offset) + ": invalid JSON (" +
                         simdjson::error_message(err) + ")");
    }
    const Reader reader(source);
    simdjson::dom::object object;
    if (root.get_object().get(object)) {
        return reader.error("top level", "expected an object");
    }
    std::string_view format;
    if (object.at_key("format").get_string().get(format) || format != kFormatName) {
        return reader.error("format",
                            "not a Chokepoint review sidecar (expected \"format\": \"chokepoint-review\")");
    }
    std::int64_t version = 0;
    if (object.at_key("version").get_int64().get(version) || version < 1) {
        return reader.error("version", "missing or invalid version");
    }
    if (version > kReviewSidecarFormatVersion) {
        return reader.error("version", "written by a newer Chokepoint (version " + std::to_string(version) +
                                           "; this build reads up to " +
                                           std::to_string(kReviewSidecarFormatVersion) + ")");
    }

    ReviewNotes notes;
    simdjson::dom::element trace;
    if (!object.at_key("trace").get(trace)) {
        simdjson::dom::object traceObject;
        if (trace.get_object().get(traceObject)) {
            return reader.error("trace", "expected an object");
        }
        auto fileName = reader.optString(traceObject, "fileName", "trace");
        if (!fileName) {
            return fileName.error();
        }
        auto size =
            reader.optInt(traceObject, "sizeBytes", "trace", 0, std::numeric_limits<std::int64_t>::max());
        if (!size) {
            return size.error();
        }
        notes.traceFileName = fileName.value().value_or(std::string{});
        notes.traceSizeBytes = size.value().value_or(0);
    }

    simdjson::dom::element settings;
    if (!object.at_key("analysisSettings").get(settings)) {
        std::vector<std::string> settingsWarnings;
        notes.analysisSettings = readAnalysisSettings(settings, source, settingsWarnings);
        if (warnings != nullptr) {
            warnings->insert(warnings->end(), settingsWarnings.begin(), settingsWarnings.end());
        }
    }

    simdjson::dom::element bookmarks;
    if (!object.at_key("bookmarks").get(bookmarks)) {
        simdjson::dom::array array;
        if (bookmarks.get_array().get(array)) {
            return reader.error("bookmarks", "expected an array");
        }
        std::size_t index = 0;
        for (simdjson::dom::element element : array) {
            const std::string path = "bookmarks[" + std::to_string(index) + "]";
            auto bookmark = reader.bookmark(element, path);
            if (!bookmark) {
                return bookmark.error();
            }
            const std::uint64_t id = bookmark->id;
            if (!notes.insertWithId(std::move(bookmark.value()))) {
                return reader.error(path + ".id", "duplicate id " + std::to_string(id));
            }
            ++index;
        }
    }
    simdjson::dom::element layout;
    if (!object.at_key("trackLayout").get(layout)) {
        std::string problem;
        if (readTrackLayout(layout, notes.trackLayout, problem)) {
            if (warnings != nullptr) {
                warnings->push_back(source + ": trackLayout" + problem + "; the track layout is ignored");
            }
            notes.trackLayout = {};
        }
    }
    return notes;
}

Result<ReviewNotes> readReviewSidecar(const std::string& sidecarPath, std::vector<std::string>* warnings) {
    std::error_code ec;
    const auto size = fs::file_size(sidecarPath, ec);
    if (ec) {
        return makeError(sidecarPath + ": cannot read: " + ec.message());
    }
    if (static_cast<std::int64_t>(size) > kMaxReviewSidecarBytes) {
        return makeError(sidecarPath + ": " + std::to_string(size) +
                         " bytes is too large for a review sidecar");
    }
    std::ifstream in(sidecarPath, std::ios::binary);
    if (!in) {
        return makeError(sidecarPath + ": cannot open: " + std::strerror(errno));
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) {
        return makeError(sidecarPath + ": read error");
    }
    return parseReviewSidecar(buffer.str(), sidecarPath, warnings);
}

Status writeReviewSidecar(const std::string& sidecarPath, const ReviewNotes& notes) {
    const std::string text = serializeReviewSidecar(notes);
    const std::string tempPath = sidecarPath + ".tmp";
    // The user's reviews folder is made on its first use; any other missing folder is an error
    // (the trace's own folder has gone).
    if (const std::string reviews = userReviewsFolder();
        !reviews.empty() && fs::path(sidecarPath).parent_path() == fs::path(reviews)) {
        std::error_code ec;
        fs::create_directories(reviews, ec);
    }
    {
        std::ofstream out(tempPath, std::ios::binary | std::ios::trunc);
        if (!out) {
            return makeError(tempPath + ": cannot create: " + std::strerror(errno));
        }
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        out.flush();
        if (!out) {
            std::error_code ignored;
            fs::remove(tempPath, ignored);
            return makeError(tempPath + ": write failed");
        }
    }
    std::error_code ec;
    fs::rename(tempPath, sidecarPath, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(tempPath, ignored);
        return makeError(sidecarPath + ": cannot replace: " + ec.message());
    }
    return Ok{};
}

Result<ReviewLoad> loadReviewForTrace(const std::string& tracePath) {
    ReviewLoad load;
    const std::string sidecar = reviewSidecarPath(tracePath);
    std::error_code ec;
    const std::string fileName = fs::path(tracePath).filename().string();
    const auto traceSize = fs::file_size(tracePath, ec);
    const std::int64_t sizeBytes = ec ? 0 : static_cast<std::int64_t>(traceSize);

    if (fs::exists(sidecar, ec)) {
        auto notes = readReviewSidecar(sidecar, &load.warnings);
        if (!notes) {
            return notes.error();
        }
        load.notes = std::move(notes.value());
        load.sidecarFound = true;
        if (!load.notes.traceFileName.empty() && load.notes.traceFileName != fileName) {
            load.warnings.push_back(sidecar + ": written for trace \"" + load.notes.traceFileName +
                                    "\", not \"" + fileName + "\"; bookmarks may not line up");
        } else if (load.notes.traceSizeBytes > 0 && sizeBytes > 0 && load.notes.traceSizeBytes != sizeBytes) {
            load.warnings.push_back(sidecar + ": written for a trace of " +
                                    std::to_string(load.notes.traceSizeBytes) + " bytes, this one has " +
                                    std::to_string(sizeBytes) + " bytes; bookmarks may not line up");
        }
    }
    load.notes.traceFileName = fileName;
    load.notes.traceSizeBytes = sizeBytes;
    return load;
}

namespace {

// Every writer owns one part of the sidecar (the bookmarks, the analysis settings, the track
// layout): it reads the file on disk, changes its part and writes the file back, so the other parts
// survive. A sidecar that exists but cannot be read is never overwritten (its bookmarks would be
// lost); with none on disk, `createIfMissing` says whether to start one.
Status updateSidecar(const std::string& tracePath, bool createIfMissing,
                     const std::function<void(ReviewNotes&)>& change, const std::string& whatIsLost) {
    const std::string sidecar = reviewSidecarPath(tracePath);
    std::error_code ec;
    const bool exists = fs::exists(sidecar, ec);
    if (!exists && !createIfMissing) {
        return Ok{};  // nothing to remember, and no file to update
    }
    ReviewNotes notes;
    if (exists) {
        auto onDisk = readReviewSidecar(sidecar);
        if (!onDisk) {
            return makeError(onDisk.error().message + " (" + whatIsLost + " not saved)");
        }
        notes = std::move(onDisk.value());
    }
    change(notes);
    notes.traceFileName = fs::path(tracePath).filename().string();
    const auto size = fs::file_size(tracePath, ec);
    if (!ec) {
        notes.traceSizeBytes = static_cast<std::int64_t>(size);
    }
    return writeReviewSidecar(sidecar, notes);
}

}  // namespace

Status saveReviewForTrace(const std::string& tracePath, ReviewNotes notes) {
    std::error_code ec;
    const bool exists = fs::exists(reviewSidecarPath(tracePath), ec);
    return updateSidecar(
        tracePath, true,
        [&notes, exists](ReviewNotes& onDisk) {
            // The bookmarks and the review's own fields are this writer's; the analysis settings
            // and the track layout of a sidecar on disk stay (a new sidecar takes those of `notes`).
            if (exists) {
                notes.analysisSettings = std::move(onDisk.analysisSettings);
                notes.trackLayout = std::move(onDisk.trackLayout);
            }
            onDisk = std::move(notes);
        },
        "the bookmarks were");
}

Status saveAnalysisSettingsForTrace(const std::string& tracePath, const AnalysisSettings& settings) {
    return updateSidecar(
        tracePath, !settings.isDefault(),
        [&settings](ReviewNotes& notes) { notes.analysisSettings = settings; }, "the analysis settings were");
}

Status saveTrackLayoutForTrace(const std::string& tracePath, const timeline::TrackLayout& layout) {
    return updateSidecar(
        tracePath, !layout.empty(), [&layout](ReviewNotes& notes) { notes.trackLayout = layout; },
        "the track layout was");
}

}  // namespace chokepoint::core
