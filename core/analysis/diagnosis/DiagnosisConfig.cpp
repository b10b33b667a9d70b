#include "core/analysis/diagnosis/DiagnosisConfig.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <utility>

namespace chokepoint::analysis {

const std::vector<DiagnosisConfigKey>& diagnosisConfigKeys() {
    using C = DiagnosisConfig;
    static const std::vector<DiagnosisConfigKey> kKeys = {
        {"computeBoundMinBusy", &C::computeBoundMinBusy, "busy above this: Algorithm/compute-bound (90 %)"},
        {"upperBandMinBusy", &C::upperBandMinBusy, "80-90 % band: compute-bound unless HBM is high"},
        {"memoryBoundMinBusy", &C::memoryBoundMinBusy, "lower end of the memory-bound busy band (50 %)"},
        {"hbmHighFraction", &C::hbmHighFraction, "HBM bandwidth / peak counted as high"},
        {"hbmLowFraction", &C::hbmLowFraction, "HBM bandwidth / peak counted as low"},
        {"memoryBoundKernelShareHigh", &C::memoryBoundKernelShareHigh,
         "share of busy time in memory-bound kernel classes counted as high bandwidth (estimate)"},
        {"dataWaitMinFraction", &C::dataWaitMinFraction,
         "idle waiting for data, share of window: data-bound"},
        {"communicationMinFraction", &C::communicationMinFraction,
         "exposed communication + collective waits, share of window: communication-bound"},
        {"launchOverheadMinFraction", &C::launchOverheadMinFraction,
         "idle with the CPU launching/synchronizing, share of window: launch-overhead-bound"},
        {"hostWorkMinFraction", &C::hostWorkMinFraction,
         "idle with the host busy in work that launches nothing (Python, compilation, checkpointing, "
         "GC), share of window: host-bound"},
        {"copyBoundMinFraction", &C::copyBoundMinFraction,
         "host-device copies not overlapped by kernels, share of window: copy-bound"},
        {"unclassifiedKernelMaxShare", &C::unclassifiedKernelMaxShare,
         "busy GPU: share of kernel time in unclassifiable kernels that leaves compute vs memory open"},
        {"mixedBoundMargin", &C::mixedBoundMargin,
         "busy GPU without counters: compute- and memory-bound shares closer than this are mixed"},
        {"underOccupancyMinIdleSmShare", &C::underOccupancyMinIdleSmShare,
         "SM capacity left idle by kernels with fewer blocks than SMs, share of kernel time: R16"},
        {"periodicMinStepFraction", &C::periodicMinStepFraction,
         "share of steps with data gaps for 'periodic'"},
        {"periodicMinSteps", &C::periodicMinSteps,
         "or this many steady steps with data gaps: 'periodic' (a DataLoader stalling every N steps)"},
        {"cpuFullyBusyFraction", &C::cpuFullyBusyFraction,
         "host activity coverage of gaps for 'CPU fully busy'"},
        {"shortKernelNs", &C::shortKernelNs, "kernels shorter than this (ns) count as short"},
        {"shortKernelMinFraction", &C::shortKernelMinFraction,
         "share of short kernels for 'many short kernels'"},
        {"capacityHeadroomFraction", &C::capacityHeadroomFraction,
         "free memory kept before M-cap is declared"},
        {"secondaryMinFraction", &C::secondaryMinFraction,
         "share above which a secondary constraint is listed"},
        {"healthyBusyFraction", &C::healthyBusyFraction,
         "busy fraction that looks healthy (busy-vs-MFU warning)"},
        {"lowMfu", &C::lowMfu, "MFU below this is low"},
        {"mixedPrecisionMinParameters", &C::mixedPrecisionMinParameters, "R4 guard: fewest parameters (10M)"},
        {"fp32MatmulMinShare", &C::fp32MatmulMinShare, "R4 guard: FP32 GEMM/conv share of kernel time"},
        {"attentionMinShare", &C::attentionMinShare, "R5 guard: attention share of kernel time"},
        {"fusionMinShare", &C::fusionMinShare, "R6 guard: elementwise+norm+reduction share of kernel time"},
        {"accumulationSteps", &C::accumulationSteps, "R7: accumulation steps k for the estimate"},
        {"accumulationOverheadFraction", &C::accumulationOverheadFraction, "R7: slowdown for k = 4"},
        {"checkpointRecomputeFraction", &C::checkpointRecomputeFraction, "R8: extra compute"},
        {"mixedPrecisionSpeedup", &C::mixedPrecisionSpeedup, "R4: tensor-core matmul speedup used"},
        {"flashAttentionSpeedup", &C::flashAttentionSpeedup, "R5: attention speedup used"},
        {"hardwareUpgradePeakRatio", &C::hardwareUpgradePeakRatio, "R13: peak ratio of the faster device"},
    };
    return kKeys;
}

const DiagnosisConfigKey* findDiagnosisConfigKey(std::string_view key) {
    for (const DiagnosisConfigKey& k : diagnosisConfigKeys()) {
        if (key == k.key) {
            return &k;
        }
    }
    return nullptr;
}

ConfigUnit diagnosisConfigUnit(std::string_view key) {
    static constexpr std::pair<std::string_view, ConfigUnit> kNotFractions[] = {
        {"shortKernelNs", ConfigUnit::Nanoseconds},    {"mixedPrecisionMinParameters", ConfigUnit::Count},
        {"accumulationSteps", ConfigUnit::Count},      {"mixedPrecisionSpeedup", ConfigUnit::Factor},
        {"flashAttentionSpeedup", ConfigUnit::Factor}, {"hardwareUpgradePeakRatio", ConfigUnit::Factor},
        {"periodicMinSteps", ConfigUnit::Count},
    };
    for (const auto& [name, unit] : kNotFractions) {
        if (key == name) {
            return unit;
        }
    }
    return ConfigUnit::Fraction;
}

std::string_view toString(ConfigUnit unit) {
    switch (unit) {
        case ConfigUnit::Fraction:
            return "fraction 0-1";
        case ConfigUnit::Nanoseconds:
            return "ns";
        case ConfigUnit::Count:
            return "count";
        case ConfigUnit::Factor:
            return "factor";
    }
    return "";
}

std::string checkDiagnosisConfigValue(std::string_view key, double value) {
    if (findDiagnosisConfigKey(key) == nullptr) {
        return "unknown key";
    }
    if (!std::isfinite(value)) {
        return "must be a finite number";
    }
    switch (diagnosisConfigUnit(key)) {
        case ConfigUnit::Fraction:
            return value >= 0 && value <= 1 ? std::string() : std::string("must be between 0 and 1");
        case ConfigUnit::Nanoseconds:
            return value > 0 ? std::string() : std::string("must be a positive number of ns");
        case ConfigUnit::Count:
        case ConfigUnit::Factor:
            return value >= 1 ? std::string() : std::string("must be at least 1");
    }
    return {};
}

namespace {

const DiagnosisConfigKey* findKey(std::string_view key) {
    return findDiagnosisConfigKey(key);
}

std::string_view trim(std::string_view s) {
    const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!s.empty() && isSpace(s.front())) {
        s.remove_prefix(1);
    }
    while (!s.empty() && isSpace(s.back())) {
        s.remove_suffix(1);
    }
    return s;
}

core::Status setValue(DiagnosisConfig& config, std::string_view key, double value, const std::string& where) {
    const DiagnosisConfigKey* k = findKey(key);
    if (k == nullptr) {
        return core::makeError(where + ": unknown key '" + std::string(key) + "'");
    }
    if (!std::isfinite(value) || value < 0) {
        return core::makeError(where + ": key '" + std::string(key) +
                               "' needs a finite, non-negative number");
    }
    config.*(k->member) = value;
    return core::Ok{};
}

core::Status applyJson(DiagnosisConfig& config, std::string_view text, const std::string& source) {
    simdjson::dom::parser parser;
    simdjson::padded_string padded(text.data(), text.size());
    simdjson::dom::element root;
    if (auto error = parser.parse(padded).get(root); error) {
        return core::makeError(source + ": invalid JSON: " + simdjson::error_message(error));
    }
    simdjson::dom::object object;
    if (root.get_object().get(object)) {
        return core::makeError(source + ": the JSON config must be one object of key: number");
    }
    for (auto field : object) {
        const std::string key(field.key);
        double value = 0;
        if (field.value.get_double().get(value)) {
            return core::makeError(source + ": key '" + key + "': expected a number");
        }
        core::Status status = setValue(config, key, value, source);
        if (!status) {
            return status;
        }
    }
    return core::Ok{};
}

core::Status applyKeyValue(DiagnosisConfig& config, std::string_view text, const std::string& source) {
    std::size_t lineNumber = 0;
    while (!text.empty()) {
        ++lineNumber;
        const std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
            line = line.substr(0, hash);
        }
        line = trim(line);
        if (line.empty()) {
            continue;
        }
        const std::string where = source + ": line " + std::to_string(lineNumber);
        const std::size_t eq = line.find('=');
        if (eq == std::string_view::npos) {
            return core::makeError(where + ": expected key = value");
        }
        const std::string_view key = trim(line.substr(0, eq));
        const std::string_view valueText = trim(line.substr(eq + 1));
        double value = 0;
        const auto [ptr, ec] = std::from_chars(valueText.data(), valueText.data() + valueText.size(), value);
        if (ec != std::errc{} || ptr != valueText.data() + valueText.size()) {
            return core::makeError(where + ": value of '" + std::string(key) + "' is not a number");
        }
        core::Status status = setValue(config, key, value, where);
        if (!status) {
            return status;
        }
    }
    return core::Ok{};
}

}  // namespace

core::Status applyDiagnosisConfigText(DiagnosisConfig& config, std::string_view text,
                                      std::string_view sourceName) {
    const std::string source(sourceName);
    const std::string_view trimmed = trim(text);
    // Work on a copy so a failed file leaves the caller's config untouched.
    DiagnosisConfig updated = config;
    core::Status status = (!trimmed.empty() && trimmed.front() == '{') ? applyJson(updated, trimmed, source)
                                                                       : applyKeyValue(updated, text, source);
    if (status) {
        config = updated;
    }
    return status;
}

core::Result<DiagnosisConfig> loadDiagnosisConfig(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return core::makeError(path + ": cannot open the config file");
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) {
        return core::makeError(path + ": read error");
    }
    DiagnosisConfig config;
    core::Status status = applyDiagnosisConfigText(config, buffer.str(), path);
    if (!status) {
        return status.error();
    }
    return config;
}

std::string describeDiagnosisConfig(const DiagnosisConfig& config) {
    std::string out = "# Chokepoint diagnosis thresholds (fractions are 0..1)\n";
    for (const DiagnosisConfigKey& k : diagnosisConfigKeys()) {
        out += "# ";
        out += k.description;
        out += "\n";
        out += k.key;
        out += " = ";
        std::ostringstream value;
        value << config.*(k.member);
        out += value.str();
        out += "\n";
    }
    return out;
}

}  // namespace chokepoint::analysis
