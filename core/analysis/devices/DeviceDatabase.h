#pragma once
// The device database: datasheet peaks, memory bandwidth and capacity per accelerator model, and
// the rules that map a device as a trace recorded it (core::DeviceInfo) to one of them.
//
// Data: resources/devices/devices.json (schema in resources/devices/README.md), compiled into the
// library at build time so the CLI works from any directory. Users extend or override entries with
// their own files (loadFile); loadDefault() reads the built-in data, then
// ~/.config/chokepoint/devices.json and the file named by $CHOKEPOINT_DEVICES when they exist.
//
// Units in DeviceSpec are SI: FLOP/s, bytes/s, bytes, watts. The JSON uses TFLOP/s (1e12),
// GB/s (1e9) and GiB (2^30) for readability.
//
// Matching (match / matchDevice), in order:
//   1. name patterns: the trace's device name, normalised (lower case, punctuation as spaces),
//      contains an entry's pattern as whole words ("NVIDIA A100-SXM4-40GB" ~ "a100 sxm4 40gb");
//      the longest pattern wins. An entry whose SM count or memory contradicts the trace's is not
//      taken (a "RTX 3090 Ti" with 84 SMs is not an "rtx 3090").
//   2. family: the name contains an entry's family word ("a100", "h100"); SM count and memory
//      pick the variant; among equals the entry marked preferred wins.
//   3. hardware signature: no usable name ("AMD Radeon Graphics"); the SM/CU count must equal an
//      entry's, and the memory (when recorded) must be within -10 %/+2 % of its capacity (traces
//      report usable memory, a little under the nominal size). An MI250 trace sees one GCD
//      (104 CUs, 64 GiB), so it matches the per-GCD entry "mi250-gcd", whose figures are half the
//      package's.
// When nothing fits, the result is nullptr with the reason, and analyses must say peaks are unknown.

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/DeviceSpec.h"
#include "core/base/Result.h"
#include "core/model/Dimensions.h"

namespace chokepoint::analysis {

// The outcome of matching a trace device: the entry (or nullptr) and why, in one sentence.
struct DeviceMatch {
    // How the entry was found (the numbered rules above). A family or hardware match is a fallback:
    // the trace's device is not the entry's exact model (a "V100-DGXS" taken as a "V100 SXM2").
    enum class Kind { None = 0, Name, FamilyFallback, HardwareFallback };
    const DeviceSpec* spec = nullptr;
    std::string reason;
    Kind kind = Kind::None;
};

// "name", "family fallback", "hardware fallback", "none".
std::string_view toString(DeviceMatch::Kind kind);

class DeviceDatabase {
public:
    DeviceDatabase() = default;
    DeviceDatabase(const DeviceDatabase&) = delete;
    DeviceDatabase& operator=(const DeviceDatabase&) = delete;
    DeviceDatabase(DeviceDatabase&&) noexcept = default;
    DeviceDatabase& operator=(DeviceDatabase&&) noexcept = default;

    // The database compiled into the program.
    static core::Result<DeviceDatabase> loadBuiltin();
    // Built-in data, then ~/.config/chokepoint/devices.json, then $CHOKEPOINT_DEVICES (each when
    // present). A broken user file is an Error naming the file and the place.
    static core::Result<DeviceDatabase> loadDefault();
    // The text of the built-in resources/devices/devices.json.
    static std::string_view builtinJson();

    // Adds entries from a user file. An entry whose id already exists overrides the fields it
    // names (peaks per precision); a new id adds an entry (it needs "name"). On error nothing is
    // changed and the Error names the file and the place (line/column or devices[i].field).
    core::Status loadFile(const std::string& path);
    // The same from text; `sourceName` is used in errors.
    core::Status loadJson(std::string_view json, const std::string& sourceName);

    DeviceMatch matchDevice(const core::DeviceInfo& device) const;
    // The matching entry or nullptr; `reason` (optional) receives matchDevice's reason.
    const DeviceSpec* match(const core::DeviceInfo& device, std::string* reason = nullptr) const;
    // By id ("h100-sxm"), else by full name (case-insensitive), else by name pattern.
    const DeviceSpec* find(std::string_view idOrName) const;
    // The measured entry (written by `chokepoint-cli calibrate`, "measured": true) for the device
    // the trace recorded, or nullptr. Its name is the device's name as CUDA reports it, which is
    // what traces record, plus " (measured)"; names are compared normalised, and an SM count that
    // both know must agree. The last one loaded wins. Rooflines draw its roofs beside the datasheet's;
    // MFU stays against the datasheet peak.
    const DeviceSpec* findMeasured(const core::DeviceInfo& device) const;

    std::size_t size() const { return m_entries.size(); }
    std::vector<const DeviceSpec*> all() const;

    // How an entry is matched (exposed for the CLI's `devices` listing and for tests).
    struct MatchRules {
        std::vector<std::string> namePatterns;  // normalised
        std::string family;                     // normalised, may be empty
        bool preferred = false;
    };
    const MatchRules* rules(const std::string& id) const;

private:
    struct Entry {
        DeviceSpec spec;
        MatchRules rules;
    };
    Entry* findEntry(std::string_view id);
    std::deque<Entry> m_entries;  // deque: pointers handed out stay valid when files add entries
};

// Lower case, every run of non-alphanumeric characters as one space, with a leading and trailing
// space so that patterns match whole words: "NVIDIA A100-SXM4-40GB" -> " nvidia a100 sxm4 40gb ".
std::string normaliseDeviceName(std::string_view name);

}  // namespace chokepoint::analysis
