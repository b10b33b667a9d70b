#include "core/analysis/devices/DeviceDatabase.h"
#include "core/base/Strings.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace chokepoint::analysis {

// Defined in the BuiltinDevices.cpp that CMake generates from resources/devices/devices.json.
extern const unsigned char kBuiltinDevicesJson[];
extern const std::size_t kBuiltinDevicesJsonSize;

namespace {

using core::Error;
using core::makeError;
using core::Ok;
using core::Status;

constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Usable memory a trace reports vs the nominal capacity: ECC and driver reservations take a few
// percent (A100 40GB reports 39.4 GiB, L4 22.5 of 24 GiB).
constexpr double kMemoryLow = 0.90;
constexpr double kMemoryHigh = 1.02;

struct PrecisionName {
    const char* key;
    Precision precision;
};
constexpr PrecisionName kPrecisions[] = {
    {"fp64", Precision::FP64}, {"fp32", Precision::FP32}, {"tf32", Precision::TF32},
    {"bf16", Precision::BF16}, {"fp16", Precision::FP16}, {"fp8", Precision::FP8},
    {"int8", Precision::INT8},
};

std::optional<Precision> precisionFromKey(std::string_view key) {
    for (const PrecisionName& p : kPrecisions) {
        if (key == p.key) {
            return p.precision;
        }
    }
    return std::nullopt;
}

// An entry as a file describes it: every field optional, so a user file can override a few.
struct Patch {
    std::string id;
    std::string where;  // "devices[3] (id \"x\")" for messages
    std::optional<std::string> name, vendor, interconnect, source;
    std::optional<double> memoryGiB, bandwidthGBps, interconnectGBps, tdpWatts;
    std::optional<int> smCount;
    std::optional<bool> measured;
    std::map<Precision, double> peaksTflops;
    std::optional<std::vector<Precision>> tensorCore;
    std::optional<std::vector<std::string>> namePatterns;
    std::optional<std::string> family;
    std::optional<bool> preferred;
};

// Byte offset -> "line L, column C".
std::string lineColumn(std::string_view text, std::size_t offset) {
    std::size_t line = 1;
    std::size_t column = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// simdjson's DOM parser says what is wrong but not where; walking the text with On-Demand stops
// at the first bad token, whose position current_location() gives.
simdjson::error_code walk(simdjson::ondemand::value value, int depth) {
    if (depth > 64) {
        return simdjson::DEPTH_ERROR;
    }
    simdjson::ondemand::json_type type;
    if (auto error = value.type().get(type)) {
        return error;
    }
    switch (type) {
        case simdjson::ondemand::json_type::object: {
            simdjson::ondemand::object object;
            if (auto error = value.get_object().get(object)) {
                return error;
            }
            for (auto field : object) {
                simdjson::ondemand::value child;
                if (auto error = field.value().get(child)) {
                    return error;
                }
                if (auto error = walk(child, depth + 1)) {
                    return error;
                }
            }
            return simdjson::SUCCESS;
        }
        case simdjson::ondemand::json_type::array: {
            simdjson::ondemand::array array;
            if (auto error = value.get_array().get(array)) {
                return error;
            }
            for (auto element : array) {
                simdjson::ondemand::value child;
                if (auto error = element.get(child)) {
                    return error;
                }
                if (auto error = walk(child, depth + 1)) {
                    return error;
                }
            }
            return simdjson::SUCCESS;
        }
        case simdjson::ondemand::json_type::number:
            return value.get_double().error();
        case simdjson::ondemand::json_type::string:
            return value.get_string().error();
        case simdjson::ondemand::json_type::boolean:
            return value.get_bool().error();
        case simdjson::ondemand::json_type::null:
            return value.is_null().error();
    }
    return simdjson::SUCCESS;
}

std::string locateSyntaxError(const simdjson::padded_string& text) {
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    if (parser.iterate(text).get(doc)) {
        return {};
    }
    simdjson::ondemand::value root;
    simdjson::error_code error = doc.get_value().get(root);
    if (!error) {
        error = walk(root, 0);
    }
    const char* at = nullptr;
    if (error && !doc.current_location().get(at) && at) {
        return lineColumn(std::string_view(text.data(), text.size()),
                          static_cast<std::size_t>(at - text.data()));
    }
    return {};
}

class PatchReader {
public:
    explicit PatchReader(std::string sourceName) : m_source(std::move(sourceName)) {}

    core::Result<std::vector<Patch>> read(std::string_view json) {
        simdjson::padded_string text(json);
        simdjson::dom::parser parser;
        simdjson::dom::element root;
        if (auto error = parser.parse(text).get(root)) {
            std::string where = locateSyntaxError(text);
            return makeError(m_source + ": " + (where.empty() ? "" : where + ": ") +
                             "invalid JSON: " + simdjson::error_message(error));
        }
        simdjson::dom::object top;
        if (root.get_object().get(top)) {
            return makeError(m_source + ": the document must be a JSON object with a \"devices\" array");
        }
        for (auto field : top) {
            if (field.key != "schemaVersion" && field.key != "devices" && field.key != "comment") {
                return makeError(m_source + ": unknown top-level field \"" + std::string(field.key) + "\"");
            }
        }
        std::int64_t version = 1;
        if (simdjson::dom::element v; !top["schemaVersion"].get(v)) {
            if (v.get_int64().get(version) || version != 1) {
                return makeError(m_source + ": schemaVersion must be 1");
            }
        }
        simdjson::dom::array devices;
        if (top["devices"].get_array().get(devices)) {
            return makeError(m_source + ": field \"devices\" must be an array");
        }
        std::vector<Patch> patches;
        std::size_t index = 0;
        for (simdjson::dom::element element : devices) {
            Patch patch;
            std::string where = "devices[" + std::to_string(index) + "]";
            if (Status s = readEntry(element, where, patch); !s.ok()) {
                return s.error();
            }
            for (const Patch& other : patches) {
                if (other.id == patch.id) {
                    return makeError(m_source + ": " + patch.where + ": duplicate id (also " + other.where +
                                     ")");
                }
            }
            patches.push_back(std::move(patch));
            ++index;
        }
        return patches;
    }

private:
    Error fail(const std::string& where, const std::string& what) const {
        return makeError(m_source + ": " + where + ": " + what);
    }

    Status number(simdjson::dom::element value, const std::string& where, const std::string& field,
                  std::optional<double>& out) {
        double d = 0;
        if (!value.is_number() || value.get_double().get(d) || !std::isfinite(d) || d < 0) {
            return fail(where, "field \"" + field + "\" must be a non-negative number");
        }
        out = d;
        return Ok{};
    }

    Status text(simdjson::dom::element value, const std::string& where, const std::string& field,
                std::optional<std::string>& out) {
        std::string_view s;
        if (value.get_string().get(s)) {
            return fail(where, "field \"" + field + "\" must be a string");
        }
        out = std::string(s);
        return Ok{};
    }

    Status readEntry(simdjson::dom::element element, std::string& where, Patch& patch) {
        simdjson::dom::object object;
        if (element.get_object().get(object)) {
            return fail(where, "each device must be a JSON object");
        }
        std::string_view id;
        if (object["id"].get_string().get(id) || id.empty()) {
            return fail(where, "field \"id\" (a non-empty string) is required");
        }
        for (char c : id) {
            bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
            if (!ok) {
                return fail(where, "id \"" + std::string(id) + "\" may use only a-z, 0-9, '-', '_' and '.'");
            }
        }
        patch.id = std::string(id);
        where += " (id \"" + patch.id + "\")";
        patch.where = where;
        for (auto field : object) {
            std::string key(field.key);
            simdjson::dom::element value = field.value;
            Status s = Ok{};
            if (key == "id" || key == "architecture" || key == "crossCheck" || key == "notes") {
                // documentation only (architecture, seed figures, notes)
                if (!value.is_string()) {
                    s = fail(where, "field \"" + key + "\" must be a string");
                }
            } else if (key == "name") {
                s = text(value, where, key, patch.name);
            } else if (key == "vendor") {
                s = text(value, where, key, patch.vendor);
            } else if (key == "interconnect") {
                s = text(value, where, key, patch.interconnect);
            } else if (key == "source") {
                s = text(value, where, key, patch.source);
            } else if (key == "memoryGiB") {
                s = number(value, where, key, patch.memoryGiB);
            } else if (key == "memoryBandwidthGBps") {
                s = number(value, where, key, patch.bandwidthGBps);
            } else if (key == "interconnectGBps") {
                s = number(value, where, key, patch.interconnectGBps);
            } else if (key == "tdpWatts") {
                s = number(value, where, key, patch.tdpWatts);
            } else if (key == "smCount") {
                std::int64_t n = 0;
                if (value.get_int64().get(n) || n < 0 || n > 1'000'000) {
                    s = fail(where, "field \"smCount\" must be a whole number between 0 and 1000000");
                } else {
                    patch.smCount = static_cast<int>(n);
                }
            } else if (key == "measured") {
                bool b = false;
                if (value.get_bool().get(b)) {
                    s = fail(where, "field \"measured\" must be true or false");
                } else {
                    patch.measured = b;
                }
            } else if (key == "peakTflops") {
                s = readPeaks(value, where, patch);
            } else if (key == "tensorCore") {
                s = readTensorCore(value, where, patch);
            } else if (key == "match") {
                s = readMatch(value, where, patch);
            } else {
                s = fail(where, "unknown field \"" + key + "\"");
            }
            if (!s.ok()) {
                return s;
            }
        }
        return Ok{};
    }

    Status readPeaks(simdjson::dom::element value, const std::string& where, Patch& patch) {
        simdjson::dom::object peaks;
        if (value.get_object().get(peaks)) {
            return fail(where, "field \"peakTflops\" must be an object of precision: TFLOP/s");
        }
        for (auto field : peaks) {
            std::optional<Precision> precision = precisionFromKey(field.key);
            if (!precision) {
                return fail(where, "peakTflops: unknown precision \"" + std::string(field.key) +
                                       "\" (use fp64, fp32, tf32, bf16, fp16, fp8, int8)");
            }
            std::optional<double> tflops;
            if (Status s = number(field.value, where, "peakTflops." + std::string(field.key), tflops);
                !s.ok()) {
                return s;
            }
            patch.peaksTflops[*precision] = *tflops;
        }
        return Ok{};
    }

    Status readTensorCore(simdjson::dom::element value, const std::string& where, Patch& patch) {
        simdjson::dom::array list;
        if (value.get_array().get(list)) {
            return fail(where, "field \"tensorCore\" must be an array of precision names");
        }
        std::vector<Precision> precisions;
        for (simdjson::dom::element item : list) {
            std::string_view key;
            std::optional<Precision> precision;
            if (!item.get_string().get(key)) {
                precision = precisionFromKey(key);
            }
            if (!precision) {
                return fail(where,
                            "tensorCore: entries must be precision names (fp64, fp32, tf32, bf16, fp16, "
                            "fp8, int8)");
            }
            precisions.push_back(*precision);
        }
        patch.tensorCore = std::move(precisions);
        return Ok{};
    }

    Status readMatch(simdjson::dom::element value, const std::string& where, Patch& patch) {
        simdjson::dom::object match;
        if (value.get_object().get(match)) {
            return fail(where, "field \"match\" must be an object");
        }
        for (auto field : match) {
            std::string key(field.key);
            if (key == "names") {
                simdjson::dom::array names;
                if (field.value.get_array().get(names)) {
                    return fail(where, "match.names must be an array of strings");
                }
                std::vector<std::string> patterns;
                for (simdjson::dom::element item : names) {
                    std::string_view s;
                    if (item.get_string().get(s)) {
                        return fail(where, "match.names must be an array of strings");
                    }
                    std::string normalised = normaliseDeviceName(s);
                    if (normalised.size() <= 2) {
                        return fail(where, "match.names: empty pattern");
                    }
                    patterns.push_back(std::move(normalised));
                }
                patch.namePatterns = std::move(patterns);
            } else if (key == "family") {
                std::string_view s;
                if (field.value.get_string().get(s)) {
                    return fail(where, "match.family must be a string");
                }
                patch.family = normaliseDeviceName(s);
            } else if (key == "preferred") {
                bool b = false;
                if (field.value.get_bool().get(b)) {
                    return fail(where, "match.preferred must be true or false");
                }
                patch.preferred = b;
            } else {
                return fail(where, "match: unknown field \"" + key + "\"");
            }
        }
        return Ok{};
    }

    std::string m_source;
};

bool contains(const std::string& haystack, const std::string& needle) {
    return !needle.empty() && haystack.find(needle) != std::string::npos;
}

std::string formatGiB(double bytes) {
    std::ostringstream out;
    out.precision(3);
    out << bytes / kGiB << " GiB";
    return out.str();
}

}  // namespace

std::string normaliseDeviceName(std::string_view name) {
    std::string out = " ";
    for (char c : name) {
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (alnum) {
            out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
        } else if (out.back() != ' ') {
            out.push_back(' ');
        }
    }
    if (out.back() != ' ') {
        out.push_back(' ');
    }
    return out;
}

std::string_view DeviceDatabase::builtinJson() {
    return {reinterpret_cast<const char*>(kBuiltinDevicesJson), kBuiltinDevicesJsonSize};
}

core::Result<DeviceDatabase> DeviceDatabase::loadBuiltin() {
    DeviceDatabase db;
    if (Status s = db.loadJson(builtinJson(), "built-in devices.json"); !s.ok()) {
        return s.error();
    }
    return db;
}

core::Result<DeviceDatabase> DeviceDatabase::loadDefault() {
    core::Result<DeviceDatabase> db = loadBuiltin();
    if (!db.ok()) {
        return db;
    }
    std::vector<std::string> files;
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
        files.push_back(std::string(xdg) + "/chokepoint/devices.json");
    } else if (const char* home = std::getenv("HOME"); home && *home) {
        files.push_back(std::string(home) + "/.config/chokepoint/devices.json");
    }
    for (const std::string& file : files) {
        std::error_code ec;
        if (!std::filesystem::exists(file, ec)) {
            continue;
        }
        if (Status s = db->loadFile(file); !s.ok()) {
            return s.error();
        }
    }
    // $CHOKEPOINT_DEVICES names a file the user asked for explicitly: it must exist.
    if (const char* env = std::getenv("CHOKEPOINT_DEVICES"); env && *env) {
        if (Status s = db->loadFile(env); !s.ok()) {
            return makeError(s.error().message + " (from $CHOKEPOINT_DEVICES)");
        }
    }
    return db;
}

Status DeviceDatabase::loadFile(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        return makeError(path + ": is a directory, not a devices JSON file");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return makeError(path + ": cannot open file");
    }
    std::ostringstream content;
    content << in.rdbuf();
    if (in.bad()) {
        return makeError(path + ": cannot read file");
    }
    return loadJson(content.str(), path);
}

DeviceDatabase::Entry* DeviceDatabase::findEntry(std::string_view id) {
    for (Entry& entry : m_entries) {
        if (entry.spec.id == id) {
            return &entry;
        }
    }
    return nullptr;
}

Status DeviceDatabase::loadJson(std::string_view json, const std::string& sourceName) {
    core::Result<std::vector<Patch>> patches = PatchReader(sourceName).read(json);
    if (!patches.ok()) {
        return patches.error();
    }
    // Validate everything before changing anything.
    for (const Patch& patch : *patches) {
        if (!findEntry(patch.id) && (!patch.name || patch.name->empty())) {
            return makeError(sourceName + ": " + patch.where + ": a new device needs a \"name\"");
        }
    }
    for (const Patch& patch : *patches) {
        Entry* entry = findEntry(patch.id);
        if (!entry) {
            m_entries.push_back(Entry{});
            entry = &m_entries.back();
            entry->spec.id = patch.id;
        }
        DeviceSpec& spec = entry->spec;
        if (patch.name)
            spec.name = *patch.name;
        if (patch.vendor)
            spec.vendor = *patch.vendor;
        if (patch.interconnect)
            spec.interconnect = *patch.interconnect;
        if (patch.source)
            spec.source = *patch.source;
        if (patch.memoryGiB)
            spec.memoryCapacityBytes = *patch.memoryGiB * kGiB;
        if (patch.bandwidthGBps)
            spec.memoryBandwidthBytesPerSecond = *patch.bandwidthGBps * kGiga;
        if (patch.interconnectGBps)
            spec.interconnectBytesPerSecond = *patch.interconnectGBps * kGiga;
        if (patch.tdpWatts)
            spec.tdpWatts = *patch.tdpWatts;
        if (patch.smCount)
            spec.smCount = *patch.smCount;
        if (patch.measured)
            spec.measured = *patch.measured;
        for (const auto& peakEntry : patch.peaksTflops) {
            // Plain locals, not structured bindings: clang before 16 cannot capture those.
            const Precision precision = peakEntry.first;
            const double tflops = peakEntry.second;
            auto it = std::find_if(spec.peaks.begin(), spec.peaks.end(),
                                   [precision](const PeakFlops& p) { return p.precision == precision; });
            if (it == spec.peaks.end()) {
                spec.peaks.push_back(PeakFlops{precision, tflops * kTera, false});
            } else {
                it->flopsPerSecond = tflops * kTera;
            }
        }
        if (patch.tensorCore) {
            for (PeakFlops& peak : spec.peaks) {
                peak.tensorCore = std::find(patch.tensorCore->begin(), patch.tensorCore->end(),
                                            peak.precision) != patch.tensorCore->end();
            }
        }
        std::sort(spec.peaks.begin(), spec.peaks.end(),
                  [](const PeakFlops& a, const PeakFlops& b) { return a.precision < b.precision; });
        if (patch.namePatterns)
            entry->rules.namePatterns = *patch.namePatterns;
        if (patch.family)
            entry->rules.family = *patch.family;
        if (patch.preferred)
            entry->rules.preferred = *patch.preferred;
    }
    return Ok{};
}

std::vector<const DeviceSpec*> DeviceDatabase::all() const {
    std::vector<const DeviceSpec*> out;
    for (const Entry& entry : m_entries) {
        out.push_back(&entry.spec);
    }
    return out;
}

const DeviceDatabase::MatchRules* DeviceDatabase::rules(const std::string& id) const {
    for (const Entry& entry : m_entries) {
        if (entry.spec.id == id) {
            return &entry.rules;
        }
    }
    return nullptr;
}

const DeviceSpec* DeviceDatabase::find(std::string_view idOrName) const {
    for (const Entry& entry : m_entries) {
        if (entry.spec.id == idOrName) {
            return &entry.spec;
        }
    }
    std::string wanted = core::toLower(idOrName);
    for (const Entry& entry : m_entries) {
        if (core::toLower(entry.spec.name) == wanted) {
            return &entry.spec;
        }
    }
    core::DeviceInfo byName;
    byName.name = std::string(idOrName);
    return matchDevice(byName).spec;
}

const DeviceSpec* DeviceDatabase::findMeasured(const core::DeviceInfo& device) const {
    const std::string name = normaliseDeviceName(device.name);
    if (name.find_first_not_of(' ') == std::string::npos) {
        return nullptr;
    }
    static const std::string kSuffix = " measured ";
    const DeviceSpec* found = nullptr;
    for (const Entry& entry : m_entries) {
        if (!entry.spec.measured) {
            continue;
        }
        std::string entryName = normaliseDeviceName(entry.spec.name);
        if (entryName.size() > kSuffix.size() &&
            entryName.compare(entryName.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0) {
            entryName.resize(entryName.size() - kSuffix.size() + 1);  // keep the trailing space
        }
        bool named = entryName == name;
        for (const std::string& pattern : entry.rules.namePatterns) {
            named = named || contains(name, pattern);
        }
        const bool smAgrees =
            device.smCount <= 0 || entry.spec.smCount <= 0 || device.smCount == entry.spec.smCount;
        if (named && smAgrees) {
            found = &entry.spec;  // later files override earlier ones
        }
    }
    return found;
}

std::string_view toString(DeviceMatch::Kind kind) {
    switch (kind) {
        case DeviceMatch::Kind::Name:
            return "name";
        case DeviceMatch::Kind::FamilyFallback:
            return "family fallback";
        case DeviceMatch::Kind::HardwareFallback:
            return "hardware fallback";
        case DeviceMatch::Kind::None:
            break;
    }
    return "none";
}

DeviceMatch DeviceDatabase::matchDevice(const core::DeviceInfo& device) const {
    const std::string name = normaliseDeviceName(device.name);
    const double memory = static_cast<double>(device.totalMemoryBytes);
    std::string vendor = core::toLower(device.vendor);
    if (vendor.empty()) {
        if (contains(name, " amd ") || contains(name, " radeon ") || contains(name, " instinct ")) {
            vendor = "amd";
        } else if (contains(name, " nvidia ") || contains(name, " tesla ") || contains(name, " geforce ")) {
            vendor = "nvidia";
        }
    }
    auto vendorOk = [&](const Entry& e) { return vendor.empty() || core::toLower(e.spec.vendor) == vendor; };
    auto smOk = [&](const Entry& e) {
        return device.smCount <= 0 || e.spec.smCount <= 0 || e.spec.smCount == device.smCount;
    };
    auto memoryOk = [&](const Entry& e) {
        return memory <= 0 || e.spec.memoryCapacityBytes <= 0 ||
               (memory >= kMemoryLow * e.spec.memoryCapacityBytes &&
                memory <= kMemoryHigh * e.spec.memoryCapacityBytes);
    };
    auto hardwareOk = [&](const Entry& e) { return vendorOk(e) && smOk(e) && memoryOk(e); };
    auto hardwareText = [&]() {
        std::string text;
        if (device.smCount > 0) {
            text += std::to_string(device.smCount) + (vendor == "amd" ? " CUs" : " SMs");
        }
        if (memory > 0) {
            text += (text.empty() ? "" : ", ") + formatGiB(memory);
        }
        return text.empty() ? std::string("no SM count or memory recorded") : text;
    };
    // Among several fitting entries: the preferred one, else the first. Returns nullptr when
    // several are preferred (a real ambiguity).
    auto pick = [](const std::vector<const Entry*>& fits) -> const Entry* {
        if (fits.size() == 1) {
            return fits[0];
        }
        const Entry* preferred = nullptr;
        for (const Entry* e : fits) {
            if (e->rules.preferred) {
                if (preferred) {
                    return nullptr;
                }
                preferred = e;
            }
        }
        return preferred;
    };
    auto ids = [](const std::vector<const Entry*>& fits) {
        std::string text;
        for (const Entry* e : fits) {
            text += (text.empty() ? "" : ", ") + e->spec.id;
        }
        return text;
    };

    // 1. Name patterns, longest first.
    std::size_t bestLength = 0;
    std::vector<const Entry*> best;
    std::vector<const Entry*> contradicted;
    for (const Entry& entry : m_entries) {
        std::size_t length = 0;
        for (const std::string& pattern : entry.rules.namePatterns) {
            if (contains(name, pattern)) {
                length = std::max(length, pattern.size());
            }
        }
        if (length == 0) {
            continue;
        }
        if (!hardwareOk(entry)) {
            contradicted.push_back(&entry);
            continue;
        }
        if (length > bestLength) {
            bestLength = length;
            best.clear();
        }
        if (length == bestLength) {
            best.push_back(&entry);
        }
    }
    if (!best.empty()) {
        if (const Entry* e = pick(best)) {
            return {&e->spec,
                    "name \"" + device.name + "\" matches " + e->spec.id + " (" + e->spec.name + ")",
                    DeviceMatch::Kind::Name};
        }
        return {nullptr, "name \"" + device.name + "\" matches several entries equally: " + ids(best)};
    }

    // 2. Family word, variant chosen by hardware.
    std::vector<const Entry*> family;
    for (const Entry& entry : m_entries) {
        if (!entry.rules.family.empty() && contains(name, entry.rules.family) && hardwareOk(entry)) {
            family.push_back(&entry);
        }
    }
    if (!family.empty()) {
        if (const Entry* e = pick(family)) {
            return {&e->spec,
                    "name \"" + device.name + "\" is of family \"" +
                        e->rules.family.substr(1, e->rules.family.size() - 2) + "\"; " + hardwareText() +
                        " fits " + e->spec.id +
                        (family.size() > 1 ? " (preferred of " + ids(family) + ")" : "") +
                        "; a family fallback, not an exact model match",
                    DeviceMatch::Kind::FamilyFallback};
        }
        return {nullptr, "name \"" + device.name + "\" fits several variants: " + ids(family) +
                             "; add the memory size or SM count to decide"};
    }
    if (!contradicted.empty()) {
        return {nullptr, "name \"" + device.name + "\" suggests " + ids(contradicted) +
                             " but the trace's hardware (" + hardwareText() + ") differs; not matched"};
    }

    // 3. Hardware signature: exact SM/CU count, memory within tolerance.
    if (device.smCount > 0) {
        std::vector<const Entry*> fits;
        for (const Entry& entry : m_entries) {
            if (entry.spec.smCount == device.smCount && vendorOk(entry) && memoryOk(entry)) {
                fits.push_back(&entry);
            }
        }
        if (!fits.empty()) {
            if (const Entry* e = pick(fits)) {
                return {&e->spec,
                        "name \"" + device.name + "\" is not specific; " + hardwareText() + " fits " +
                            e->spec.id + (fits.size() > 1 ? " (preferred of " + ids(fits) + ")" : "") +
                            "; a hardware fallback, not an exact model match",
                        DeviceMatch::Kind::HardwareFallback};
            }
            return {nullptr, "name \"" + device.name + "\" is not specific and " + hardwareText() +
                                 " fits several entries: " + ids(fits)};
        }
    }
    return {nullptr, "no entry for \"" + device.name + "\" (" + hardwareText() +
                         "); add one to ~/.config/chokepoint/devices.json"};
}

const DeviceSpec* DeviceDatabase::match(const core::DeviceInfo& device, std::string* reason) const {
    DeviceMatch result = matchDevice(device);
    if (reason) {
        *reason = std::move(result.reason);
    }
    return result.spec;
}

}  // namespace chokepoint::analysis
