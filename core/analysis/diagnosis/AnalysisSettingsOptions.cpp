#include "core/analysis/diagnosis/AnalysisSettingsOptions.h"

#include <cctype>
#include <sstream>

#include "core/analysis/metrics/OpCost.h"
#include "core/base/Format.h"
#include "core/base/ScaledNumber.h"
#include "core/base/Strings.h"

namespace chokepoint::analysis {

const std::vector<Precision>& selectablePrecisions() {
    static const std::vector<Precision> kPrecisions = {Precision::FP32, Precision::TF32, Precision::BF16,
                                                       Precision::FP16, Precision::FP8,  Precision::FP64};
    return kPrecisions;
}

std::string precisionName(Precision precision) {
    return core::toLower(toString(precision));
}

std::optional<Precision> precisionFromName(std::string_view name) {
    const std::string lower = core::toLower(name);
    for (Precision p : selectablePrecisions()) {
        if (lower == precisionName(p)) {
            return p;
        }
    }
    return std::nullopt;
}

std::vector<std::string> sanitizeAnalysisSettings(core::AnalysisSettings& settings,
                                                  const DeviceDatabase* devices,
                                                  std::string_view sourceName) {
    std::vector<std::string> warnings;
    const std::string prefix = std::string(sourceName) + ": analysisSettings.";
    if (!settings.deviceId.empty() && (devices == nullptr || devices->find(settings.deviceId) == nullptr)) {
        warnings.push_back(prefix + "device: unknown device '" + settings.deviceId +
                           "'; the device is matched from the trace instead");
        settings.deviceId.clear();
    }
    if (!settings.precision.empty() && !precisionFromName(settings.precision)) {
        warnings.push_back(prefix + "precision: unknown precision '" + settings.precision +
                           "' (fp32, tf32, bf16, fp16, fp8 or fp64); the automatic choice is used");
        settings.precision.clear();
    }
    if (settings.modelFlopsPerStep && (settings.parameterCount || settings.tokensPerStep)) {
        warnings.push_back(
            prefix + "parameterCount/tokensPerStep: given next to modelFlopsPerStep; FLOPs per step is used");
        settings.parameterCount.reset();
        settings.tokensPerStep.reset();
    } else if (settings.parameterCount.has_value() != settings.tokensPerStep.has_value()) {
        warnings.push_back(prefix + (settings.parameterCount ? "parameterCount" : "tokensPerStep") +
                           ": parameters and tokens per step go together; ignored");
        settings.parameterCount.reset();
        settings.tokensPerStep.reset();
    }
    for (auto it = settings.thresholds.begin(); it != settings.thresholds.end();) {
        const std::string problem = checkDiagnosisConfigValue(it->first, it->second);
        if (problem.empty()) {
            ++it;
            continue;
        }
        std::ostringstream value;
        value << it->second;
        warnings.push_back(prefix + "thresholds." + it->first + ": " + value.str() + " " + problem +
                           "; the default is used");
        it = settings.thresholds.erase(it);
    }
    return warnings;
}

void applyAnalysisSettings(const core::AnalysisSettings& settings, AnalysisOptions& options) {
    options.deviceName = settings.deviceId;
    options.modelFlopsPerStep = settings.modelFlopsPerStep;
    options.parameterCount = settings.parameterCount;
    options.tokensPerStep = settings.tokensPerStep;
    options.peakMemoryBytes = settings.peakMemoryBytes;
    options.outOfMemoryObserved = settings.outOfMemoryObserved;
    options.precision = settings.precision.empty() ? std::nullopt : precisionFromName(settings.precision);
    options.config = DiagnosisConfig{};
    for (const auto& [key, value] : settings.thresholds) {
        if (const DiagnosisConfigKey* k = findDiagnosisConfigKey(key)) {
            options.config.*(k->member) = value;
        }
    }
}

namespace {

std::string number(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

}  // namespace

std::vector<std::string> describeUserSettings(const AnalysisOptions& options, const DeviceSpec* device) {
    std::vector<std::string> lines;
    const bool deviceChosen = options.device
                                  ? (options.deviceMethod.empty() || options.deviceMethod == "override")
                                  : !options.deviceName.empty();
    if (deviceChosen) {
        const std::string name = device != nullptr ? device->name : options.deviceName;
        lines.push_back("device " + name + " (set by user)");
    }
    if (options.modelFlopsPerStep) {
        lines.push_back("model FLOPs per step " + core::formatScaledNumber(*options.modelFlopsPerStep) +
                        " (set by user)");
    } else if (options.parameterCount && options.tokensPerStep) {
        lines.push_back("parameters " + core::formatScaledNumber(*options.parameterCount) +
                        ", tokens per step " + core::formatScaledNumber(*options.tokensPerStep) +
                        " (set by user)");
    }
    if (options.precision) {
        lines.push_back("precision " + std::string(toString(*options.precision)) + " (set by user)");
    }
    if (options.peakMemoryBytes) {
        lines.push_back("peak memory " + core::formatBytes(*options.peakMemoryBytes) + " (set by user)");
    }
    if (options.outOfMemoryObserved) {
        lines.push_back("out-of-memory error observed (set by user)");
    }
    const DiagnosisConfig defaults;
    for (const DiagnosisConfigKey& k : diagnosisConfigKeys()) {
        const double value = options.config.*(k.member);
        const double fallback = defaults.*(k.member);
        if (value != fallback) {
            lines.push_back("threshold " + std::string(k.key) + " " + number(value) + " (default " +
                            number(fallback) + ")");
        }
    }
    return lines;
}

}  // namespace chokepoint::analysis
