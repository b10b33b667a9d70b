#include "core/import/KinetoJsonImporter.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/base/HeapRelease.h"
#include "core/import/ByteSource.h"
#include "core/import/JsonScan.h"
#include "core/import/KinetoEventDecoder.h"
#include "core/import/KinetoModelBuilder.h"
#include "core/import/MicrosToNs.h"

namespace chokepoint::core {

namespace {

namespace od = simdjson::ondemand;

constexpr std::size_t kInitialBufferBytes = std::size_t{2} << 20;
constexpr std::size_t kPadding = std::max<std::size_t>(simdjson::SIMDJSON_PADDING, kJsonScanPadding);
// One top-level value other than traceEvents (or one event) may not exceed this; a larger one is
// not a profiler trace, and refusing it bounds memory on hostile input.
constexpr std::size_t kMaxValueBytes = std::size_t{1} << 30;
// Device lists are looked up linearly; real machines have at most a few dozen GPUs.
constexpr std::int32_t kMaxDevices = 1024;

std::string vendorFromName(std::string_view name) {
    auto has = [&](std::string_view s) { return name.find(s) != std::string_view::npos; };
    if (has("AMD") || has("Radeon") || has("Instinct")) {
        return "AMD";
    }
    if (has("NVIDIA") || has("Tesla") || has("GeForce") || has("Quadro") || has("TITAN") || has("Titan")) {
        return "NVIDIA";
    }
    return {};
}

// Streams a Kineto JSON document from a ByteSource through a bounded, refilled buffer. The top
// level object is walked with JsonScan; every other top-level value is parsed whole by simdjson,
// and "traceEvents" is parsed in batches of complete events, so memory stays bounded by the
// buffer (a few MB) plus the model, whatever the file size.
class KinetoJsonReader {
public:
    KinetoJsonReader(ByteSource& source, std::string name, const LoadOptions& options, TraceModel& model)
        : m_source(source), m_name(std::move(name)), m_options(options), m_model(model), m_builder(model) {
        // Small inputs get a buffer their size; large or compressed ones the full window.
        std::uint64_t hint = source.sizeHint();
        allocate(hint == 0 ? kInitialBufferBytes
                           : static_cast<std::size_t>(
                                 std::clamp<std::uint64_t>(hint + 1, 4096, kInitialBufferBytes)));
    }

    Status run() {
        m_model.metadata.sourceFormat = "kineto-json";
        if (auto st = skipSpace(); !st.ok()) {
            return st;
        }
        if (m_begin == m_end) {
            return fail("no JSON data (the input is empty or only whitespace)");
        }
        bool sawEvents = false;
        if (m_buf[m_begin] == '[') {
            // The Chrome "JSON array format": a bare array of events.
            if (auto st = readEventsArray(); !st.ok()) {
                return st;
            }
            sawEvents = true;
        } else if (m_buf[m_begin] == '{') {
            ++m_begin;
            if (auto st = readTopLevelObject(sawEvents); !st.ok()) {
                return st;
            }
        } else {
            return failAt(m_begin, "not a JSON object or array (a Kineto trace starts with '{')");
        }
        if (auto st = skipSpace(); !st.ok()) {
            return st;
        }
        if (m_begin != m_end) {
            return failAt(m_begin, "unexpected data after the end of the JSON document");
        }
        if (!sawEvents) {
            return fail("no \"traceEvents\" array: not a PyTorch profiler / Kineto trace");
        }
        if (!m_truncated) {
            if (std::string gz = m_source.truncation(); !gz.empty()) {
                m_builder.countIssue("import.truncated", Severity::Warning,
                                     gz + "; the JSON inside is whole");
            }
        }
        if (m_model.metadata.producer.empty()) {
            m_model.metadata.producer = "PyTorch Profiler (Kineto)";
        }
        m_builder.finish();
        m_model.finalize();
        return Ok{};
    }

private:
    // --- buffer -------------------------------------------------------------------------------
    // m_buf[0] is kept free so a batch of events can be wrapped in '[' ... ']' in place.
    void allocate(std::size_t capacity) {
        auto bigger = std::make_unique<char[]>(capacity + kPadding + 1);
        if (m_buf) {
            std::memcpy(bigger.get(), m_buf.get(), m_end);
        }
        std::memset(bigger.get() + m_end, ' ', kPadding);
        m_buf = std::move(bigger);
        m_capacity = capacity;
    }

    std::uint64_t streamOffset(std::size_t index) const { return m_bufferBase + index - 1; }

    // Moves unread data to the front and reads more. Grows the buffer when it is full.
    Status fill() {
        if (m_eof) {
            return Ok{};
        }
        if (m_begin > 1) {
            std::size_t shift = m_begin - 1;
            std::memmove(m_buf.get() + 1, m_buf.get() + m_begin, m_end - m_begin);
            m_bufferBase += shift;
            m_end -= shift;
            m_begin = 1;
        }
        if (m_end >= m_capacity + 1) {
            if (m_capacity >= kMaxValueBytes) {
                return failAt(m_begin, "a single JSON value is larger than " +
                                           std::to_string(kMaxValueBytes >> 20) + " MiB");
            }
            allocate(m_capacity * 2);
        }
        auto got = m_source.read(m_buf.get() + m_end, m_capacity + 1 - m_end);
        if (!got.ok()) {
            return got.error();
        }
        if (got.value() == 0) {
            m_eof = true;
        }
        m_end += got.value();
        // Scanner and simdjson read a little past the data; keep those bytes defined.
        std::memset(m_buf.get() + m_end, ' ', kPadding);
        return Ok{};
    }

    Status skipSpace() {
        while (true) {
            m_begin = skipJsonSpace(m_buf.get(), m_end, m_begin);
            if (m_begin < m_end || m_eof) {
                return Ok{};
            }
            if (auto st = fill(); !st.ok()) {
                return st;
            }
        }
    }

    // Makes sure the value at m_begin is complete in the buffer; returns its length.
    Result<std::size_t> completeValue(const char* what) {
        while (true) {
            ScanResult r = scanJsonValue(m_buf.get() + m_begin, m_end - m_begin);
            if (r.status == ScanStatus::Complete) {
                return r.length;
            }
            if (r.status == ScanStatus::Invalid) {
                return failAt(m_begin, std::string("expected a JSON value for ") + what).error();
            }
            if (m_eof) {
                // A scalar at the very end of the data ends there.
                char c = m_begin < m_end ? m_buf[m_begin] : '\0';
                if (m_begin < m_end && c != '{' && c != '[' && c != '"') {
                    return m_end - m_begin;
                }
                return failAt(m_begin, std::string("the data ends inside ") + what + " (truncated file?)")
                    .error();
            }
            if (auto st = fill(); !st.ok()) {
                return st.error();
            }
        }
    }

    Status expectChar(char c, const char* context) {
        if (auto st = skipSpace(); !st.ok()) {
            return st;
        }
        if (m_begin >= m_end) {
            return failAt(m_begin, std::string("the data ends where '") + c + "' was expected " + context +
                                       " (truncated file?)");
        }
        if (m_buf[m_begin] != c) {
            return failAt(m_begin, std::string("expected '") + c + "' " + context + ", found '" +
                                       printable(m_buf[m_begin]) + "'");
        }
        ++m_begin;
        return Ok{};
    }

    static std::string printable(char c) {
        if (c >= 0x20 && c < 0x7f) {
            return std::string(1, c);
        }
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
        return hex;
    }

    Status fail(const std::string& message) const { return makeError(m_name + ": " + message); }
    Status failAt(std::size_t index, const std::string& message) const {
        return makeError(m_name + ": byte " + std::to_string(streamOffset(index)) + ": " + message);
    }

    // The data ended inside the document after `m_eventIndex` whole events: keep them, as Perfetto
    // and chrome://tracing do, and say so in a warning the loader shows with the trace.
    void markTruncated(const std::string& where) {
        m_truncated = true;
        m_begin = m_end;
        std::string detail = "the file ends " + where + " after " + std::to_string(m_eventIndex) +
                             " whole events (byte " + std::to_string(streamOffset(m_end)) +
                             "): it was cut short (a profiler killed while writing?); loaded up to the last "
                             "whole event";
        if (std::string gz = m_source.truncation(); !gz.empty()) {
            detail += " (" + gz + ")";
        }
        m_builder.countIssue("import.truncated", Severity::Warning, detail);
    }

    // --- top level ----------------------------------------------------------------------------
    Status readTopLevelObject(bool& sawEvents) {
        if (auto st = skipSpace(); !st.ok()) {
            return st;
        }
        if (m_begin < m_end && m_buf[m_begin] == '}') {
            ++m_begin;
            return Ok{};
        }
        while (true) {
            if (auto st = skipSpace(); !st.ok()) {
                return st;
            }
            if (m_begin >= m_end) {
                if (sawEvents) {
                    markTruncated("inside the top-level object");
                    return Ok{};
                }
                return failAt(m_begin, "the data ends inside the top-level object (truncated file?)");
            }
            if (m_buf[m_begin] != '"') {
                return failAt(m_begin, std::string("expected a key string in the top-level object, found '") +
                                           printable(m_buf[m_begin]) + "'");
            }
            auto keyLength = completeValue("a top-level key");
            if (!keyLength.ok()) {
                if (sawEvents && m_eof) {
                    markTruncated("inside the top-level object");
                    return Ok{};
                }
                return keyLength.error();
            }
            std::string key(m_buf.get() + m_begin + 1, keyLength.value() - 2);
            m_begin += keyLength.value();
            if (auto st = expectChar(':', "after a top-level key"); !st.ok()) {
                if (sawEvents && m_eof && m_begin >= m_end) {
                    markTruncated("inside the top-level object");
                    return Ok{};
                }
                return st;
            }
            if (auto st = skipSpace(); !st.ok()) {
                return st;
            }
            if (key == "traceEvents") {
                if (m_begin >= m_end || m_buf[m_begin] != '[') {
                    return failAt(m_begin, "\"traceEvents\" is not an array");
                }
                if (auto st = readEventsArray(); !st.ok()) {
                    return st;
                }
                sawEvents = true;
                if (m_truncated) {
                    return Ok{};
                }
            } else {
                auto length = completeValue(("the value of \"" + key + "\"").c_str());
                if (!length.ok()) {
                    if (sawEvents && m_eof) {
                        markTruncated("inside the value of \"" + key + "\"");
                        return Ok{};
                    }
                    return length.error();
                }
                if (auto st = readTopLevelValue(key, m_begin, length.value()); !st.ok()) {
                    return st;
                }
                m_begin += length.value();
            }
            if (auto st = skipSpace(); !st.ok()) {
                return st;
            }
            if (m_begin >= m_end) {
                if (sawEvents) {
                    markTruncated("inside the top-level object");
                    return Ok{};
                }
                return failAt(m_begin, "the data ends inside the top-level object (truncated file?)");
            }
            char c = m_buf[m_begin++];
            if (c == '}') {
                return Ok{};
            }
            if (c != ',') {
                return failAt(
                    m_begin - 1,
                    std::string("expected ',' or '}' in the top-level object, found '") + printable(c) + "'");
            }
        }
    }

    // Parses one complete top-level value held in the buffer at [index, index + length).
    Status readTopLevelValue(const std::string& key, std::size_t index, std::size_t length) {
        const bool devices = key == "deviceProperties" || key == "computeProperties";
        const bool distributed = key == "distributedInfo";
        const char* data = m_buf.get() + index;
        od::document doc;
        auto view = simdjson::padded_string_view(data, length, m_capacity + kPadding + 1 - index);
        auto err = m_parser.iterate(view).get(doc);
        od::json_type type{};
        if (!err) {
            err = doc.type().get(type);
        }
        if (err) {
            return failAt(index, "invalid JSON in \"" + key + "\": " + simdjson::error_message(err));
        }
        if (devices) {
            return readDevices(doc, key, index);
        }
        if (distributed) {
            return readDistributed(doc, index);
        }
        // Other scalars become notes; "baseTimeNanoseconds" dates the trace clock.
        if (type == od::json_type::number) {
            std::string_view token;
            if ((err = doc.raw_json_token().get(token))) {
                return failAt(index, "invalid number in \"" + key + "\"");
            }
            while (!token.empty() && isJsonSpace(token.back())) {
                token.remove_suffix(1);
            }
            if (key == "baseTimeNanoseconds") {
                std::int64_t base = 0;
                if (parseInt64Token(token, base) == NumberParse::Ok) {
                    m_model.metadata.captureStartUnixNs = base;
                } else {
                    m_builder.countIssue("import.value_out_of_range", Severity::Warning,
                                         "\"baseTimeNanoseconds\" does not fit in int64; ignored");
                }
            }
            if (key == "schemaVersion") {
                m_model.metadata.producer = "PyTorch Profiler (Kineto), schema " + std::string(token);
            }
            m_model.metadata.notes.emplace_back(key, std::string(token));
        } else if (type == od::json_type::string) {
            std::string_view text;
            if ((err = doc.get_string().get(text))) {
                return failAt(index, "invalid string in \"" + key + "\": " + simdjson::error_message(err));
            }
            if (key == "host_name" || key == "hostname") {
                m_model.metadata.hostName.assign(text);
            }
            if (text.size() <= 256) {
                m_model.metadata.notes.emplace_back(key, std::string(text));
            }
        } else if (type == od::json_type::boolean) {
            bool b = false;
            if ((err = doc.get_bool().get(b))) {
                return failAt(index, "invalid literal in \"" + key + "\"");
            }
            m_model.metadata.notes.emplace_back(key, b ? "true" : "false");
        }
        // Objects and arrays we do not use (INFO logs, job metadata) are skipped, but simdjson has
        // validated their syntax only as far as it read; that is enough since nothing is taken.
        return Ok{};
    }

    Status readDevices(od::document& doc, const std::string& key, std::size_t index) {
        od::array array;
        if (doc.get_array().get(array)) {
            m_builder.countIssue("import.wrong_type", Severity::Warning,
                                 "\"" + key + "\" is not an array; ignored");
            return Ok{};
        }
        std::int32_t position = 0;
        for (auto element : array) {
            if (position >= kMaxDevices) {
                m_builder.countIssue("import.too_many_devices", Severity::DataLoss,
                                     "more than " + std::to_string(kMaxDevices) + " entries in \"" + key +
                                         "\"; the rest are ignored");
                break;
            }
            od::object object;
            auto err = element.get_object().get(object);
            if (err == simdjson::INCORRECT_TYPE) {
                m_builder.countIssue("import.wrong_type", Severity::Warning,
                                     "an entry of \"" + key + "\" is not an object; ignored");
                ++position;
                continue;
            }
            if (err) {
                return failAt(index, "invalid JSON in \"" + key + "\": " + simdjson::error_message(err));
            }
            DeviceInfo info;
            info.deviceIndex = position;
            bool hasId = false;
            for (auto fieldResult : object) {
                od::field field;
                std::string_view k;
                if ((err = fieldResult.error()) ||
                    (err = (field = std::move(fieldResult).value_unsafe()).unescaped_key().get(k))) {
                    return failAt(index, "invalid JSON in \"" + key + "\": " + simdjson::error_message(err));
                }
                od::value v = field.value();
                od::json_type t{};
                if ((err = v.type().get(t))) {
                    return failAt(index, "invalid JSON in \"" + key + "\": " + simdjson::error_message(err));
                }
                if (k == "name" && t == od::json_type::string) {
                    std::string_view name;
                    if (!v.get_string().get(name)) {
                        info.name.assign(name);
                    }
                    continue;
                }
                if (t != od::json_type::number) {
                    continue;
                }
                std::string_view token;
                std::int64_t n = 0;
                if ((token = v.raw_json_token()).empty() || parseInt64Token(token, n) != NumberParse::Ok) {
                    m_builder.countIssue("import.value_out_of_range", Severity::Warning,
                                         "a device property does not fit in int64; ignored");
                    continue;
                }
                auto i32 = [](std::int64_t x) {
                    return static_cast<std::int32_t>(std::clamp<std::int64_t>(x, INT32_MIN, INT32_MAX));
                };
                if (k == "id") {
                    info.deviceIndex = i32(n);
                    hasId = true;
                } else if (k == "totalGlobalMem") {
                    info.totalMemoryBytes = n;
                } else if (k == "computeMajor" || k == "major") {
                    info.computeMajor = i32(n);
                } else if (k == "computeMinor" || k == "minor") {
                    info.computeMinor = i32(n);
                } else if (k == "numSms" || k == "multiProcessorCount") {
                    info.smCount = i32(n);
                } else if (k == "maxThreadsPerBlock") {
                    info.maxThreadsPerBlock = i32(n);
                } else if (k == "maxThreadsPerMultiprocessor" || k == "maxThreadsPerMultiProcessor") {
                    info.maxThreadsPerSm = i32(n);
                } else if (k == "regsPerBlock") {
                    info.registersPerBlock = i32(n);
                } else if (k == "sharedMemPerBlock") {
                    info.sharedMemoryPerBlockBytes = n;
                } else if (k == "l2CacheSize") {
                    info.l2CacheBytes = n;
                } else if (k == "warpSize") {
                    info.warpSize = i32(n);
                } else if (k == "clockRate") {
                    info.coreClockKhz = n;
                } else if (k == "memoryClockRate") {
                    info.memoryClockKhz = n;
                } else if (k == "memoryBusWidth") {
                    info.memoryBusWidthBits = i32(n);
                }
            }
            (void)hasId;
            info.vendor = vendorFromName(info.name);
            DeviceInfo& slot = m_model.deviceOrAdd(info.deviceIndex);
            slot = std::move(info);
            ++position;
        }
        return Ok{};
    }

    Status readDistributed(od::document& doc, std::size_t index) {
        od::object object;
        if (doc.get_object().get(object)) {
            m_builder.countIssue("import.wrong_type", Severity::Warning,
                                 "\"distributedInfo\" is not an object; ignored");
            return Ok{};
        }
        DistributedInfo info;
        info.present = true;
        for (auto fieldResult : object) {
            od::field field;
            std::string_view k;
            simdjson::error_code err;
            if ((err = fieldResult.error()) ||
                (err = (field = std::move(fieldResult).value_unsafe()).unescaped_key().get(k))) {
                return failAt(index, std::string("invalid JSON in \"distributedInfo\": ") +
                                         simdjson::error_message(err));
            }
            od::value v = field.value();
            od::json_type t{};
            if ((err = v.type().get(t))) {
                return failAt(index, std::string("invalid JSON in \"distributedInfo\": ") +
                                         simdjson::error_message(err));
            }
            if (k == "backend" && t == od::json_type::string) {
                std::string_view text;
                if (!v.get_string().get(text)) {
                    info.backend.assign(text);
                }
            } else if ((k == "rank" || k == "world_size") && t == od::json_type::number) {
                std::string_view token;
                std::int64_t n = 0;
                if ((token = v.raw_json_token()).empty() || parseInt64Token(token, n) != NumberParse::Ok ||
                    n < 0 || n > INT32_MAX) {
                    m_builder.countIssue("import.value_out_of_range", Severity::Warning,
                                         "\"distributedInfo\" rank or world_size out of range; ignored");
                    continue;
                }
                (k == "rank" ? info.rank : info.worldSize) = static_cast<std::int32_t>(n);
            }
        }
        m_model.distributed = std::move(info);
        return Ok{};
    }

    // --- traceEvents ----------------------------------------------------------------------------
    // At entry m_buf[m_begin] == '['. Reads events in batches of complete elements.
    Status readEventsArray() {
        ++m_begin;
        bool first = true;
        while (true) {
            if (auto st = skipSpace(); !st.ok()) {
                return st;
            }
            if (m_begin >= m_end) {
                if (m_eventIndex > 0) {
                    markTruncated("inside \"traceEvents\"");
                    return Ok{};
                }
                return failAt(m_begin, "the data ends inside \"traceEvents\" after " +
                                           std::to_string(m_eventIndex) + " events (truncated file?)");
            }
            if (first && m_buf[m_begin] == ']') {
                ++m_begin;
                return Ok{};
            }
            first = false;
            // Collect complete elements: value (',' value)* up to what the buffer holds.
            m_elementStarts.clear();
            std::size_t pos = m_begin;
            std::size_t lastEnd = 0;
            bool arrayEnds = false;
            while (true) {
                pos = skipJsonSpace(m_buf.get(), m_end, pos);
                if (pos >= m_end) {
                    break;
                }
                ScanResult r = scanJsonValue(m_buf.get() + pos, m_end - pos);
                if (r.status == ScanStatus::Invalid) {
                    if (!m_elementStarts.empty()) {
                        break;  // parse what precedes; the error is reported on the next round
                    }
                    return failAt(pos, "expected an event in \"traceEvents\" (event #" +
                                           std::to_string(m_eventIndex) + "), found '" +
                                           printable(m_buf[pos]) + "'");
                }
                if (r.status == ScanStatus::Incomplete) {
                    break;
                }
                std::size_t valueEnd = pos + r.length;
                std::size_t after = skipJsonSpace(m_buf.get(), m_end, valueEnd);
                if (after >= m_end) {
                    if (m_eof) {  // the last whole event of a truncated file
                        m_elementStarts.push_back(pos);
                        lastEnd = valueEnd;
                        pos = after;
                    }
                    break;  // need to see what follows before taking this element
                }
                m_elementStarts.push_back(pos);
                lastEnd = valueEnd;
                if (m_buf[after] == ']') {
                    pos = after + 1;
                    arrayEnds = true;
                    break;
                }
                if (m_buf[after] != ',') {
                    return failAt(after, std::string("expected ',' or ']' after event #") +
                                             std::to_string(m_eventIndex + m_elementStarts.size() - 1) +
                                             ", found '" + printable(m_buf[after]) + "'");
                }
                pos = after + 1;
            }
            if (m_elementStarts.empty()) {
                if (m_eof) {
                    if (m_eventIndex > 0) {
                        markTruncated("inside \"traceEvents\"");
                        return Ok{};
                    }
                    return failAt(m_begin, "the data ends inside \"traceEvents\" at event #" +
                                               std::to_string(m_eventIndex) + " (truncated file?)");
                }
                if (auto st = fill(); !st.ok()) {
                    return st;
                }
                continue;
            }
            if (auto st = parseBatch(lastEnd); !st.ok()) {
                return st;
            }
            m_begin = pos;
            if (!reportProgress(m_options.progress, m_source.fractionConsumed())) {
                return makeError(kCancelledMessage);
            }
            if (arrayEnds) {
                return Ok{};
            }
        }
    }

    // Parses elements m_elementStarts[0..] ending at lastEnd as one document "[e0, e1, ...]".
    Status parseBatch(std::size_t lastEnd) {
        std::size_t firstStart = m_elementStarts.front();
        char* open = m_buf.get() + firstStart - 1;  // consumed byte (or the reserved m_buf[0])
        char saved = m_buf[lastEnd];
        *open = '[';
        m_buf[lastEnd] = ']';
        std::size_t length = lastEnd + 1 - (firstStart - 1);
        auto view = simdjson::padded_string_view(open, length, m_capacity + kPadding + 1 - (firstStart - 1));
        Status status = parseBatchDocument(view);
        m_buf[lastEnd] = saved;
        return status;
    }

    Status parseBatchDocument(simdjson::padded_string_view view) {
        od::document doc;
        od::array array;
        auto err = m_parser.iterate(view).get(doc);
        if (err) {
            // Stage 1 rejected the batch (bad UTF-8, control characters in strings...). Find the
            // event at fault by parsing the events one at a time (rare, so the cost is no issue).
            for (std::size_t i = 0; i < m_elementStarts.size(); ++i) {
                std::size_t start = m_elementStarts[i];
                ScanResult r = scanJsonValue(m_buf.get() + start, m_end - start);
                od::document single;
                auto view1 = simdjson::padded_string_view(m_buf.get() + start, r.length,
                                                          m_capacity + kPadding + 1 - start);
                auto singleErr = m_parser.iterate(view1).get(single);
                if (singleErr) {
                    m_eventIndex += i;
                    return batchError(nullptr, i, singleErr);
                }
            }
            return batchError(nullptr, 0, err);
        }
        if ((err = doc.get_array().get(array))) {
            return batchError(&doc, 0, err);
        }
        std::size_t i = 0;
        for (auto element : array) {
            od::object object;
            err = element.get_object().get(object);
            if (err == simdjson::INCORRECT_TYPE) {
                m_builder.countIssue("import.malformed_event", Severity::DataLoss,
                                     "event #" + std::to_string(m_eventIndex) + " is not an object; skipped");
            } else if (err) {
                return batchError(&doc, i, err);
            } else {
                if ((err = decodeKinetoEvent(object, m_event, m_builder))) {
                    return batchError(&doc, i, err);
                }
                m_builder.addEvent(m_event, m_eventIndex);
            }
            ++i;
            ++m_eventIndex;
        }
        return Ok{};
    }

    Status batchError(od::document* doc, std::size_t indexInBatch, simdjson::error_code err) {
        std::size_t where = m_elementStarts[std::min(indexInBatch, m_elementStarts.size() - 1)];
        const char* location = nullptr;
        if (doc != nullptr && !doc->current_location().get(location) && location != nullptr) {
            const char* base = m_buf.get();
            if (location >= base && location < base + m_end) {
                where = static_cast<std::size_t>(location - base);
            }
        }
        return failAt(where, "invalid JSON in event #" + std::to_string(m_eventIndex) +
                                 " of \"traceEvents\": " + simdjson::error_message(err));
    }

    ByteSource& m_source;
    std::string m_name;
    const LoadOptions& m_options;
    TraceModel& m_model;
    KinetoModelBuilder m_builder;
    od::parser m_parser;
    KinetoEvent m_event;

    std::unique_ptr<char[]> m_buf;
    std::size_t m_capacity = 0;      // data bytes the buffer holds, excluding m_buf[0] and padding
    std::size_t m_begin = 1;         // first unread byte
    std::size_t m_end = 1;           // one past the last byte read
    std::uint64_t m_bufferBase = 0;  // stream offset of m_buf[1]
    bool m_eof = false;
    bool m_truncated = false;  // the document was cut short after some whole events: loaded up to them
    std::uint64_t m_eventIndex = 0;
    std::vector<std::size_t> m_elementStarts;
};

Result<TraceModel> importFromSource(ByteSource& source, std::string name, std::string_view sourcePath,
                                    const LoadOptions& options) {
    TraceModel model;
    Status status = Ok{};
    {
        KinetoJsonReader reader(source, std::move(name), options, model);
        status = reader.run();
    }
    // The read window, the parser's index and the builder's scratch are freed now; glibc keeps
    // freed heap pages unless asked, which would count against the memory the trace costs.
    releaseFreedHeapMemory();
    if (!status.ok()) {
        return status.error();
    }
    model.metadata.sourcePath.assign(sourcePath);
    return model;
}

}  // namespace

Result<TraceModel> importKinetoJson(const std::string& path, const LoadOptions& options) {
    auto source = openFileByteSource(path);
    if (!source.ok()) {
        return source.error();
    }
    std::string name = path;
    if (source.value()->compressed()) {
        name += " (gzip; offsets in the decompressed JSON)";
    }
    return importFromSource(*source.value(), name, path, options);
}

Result<TraceModel> importKinetoJsonFromMemory(std::string_view json, std::string_view displayName,
                                              const LoadOptions& options) {
    auto source = makeMemoryByteSource(json);
    return importFromSource(*source, std::string(displayName), displayName, options);
}

}  // namespace chokepoint::core
