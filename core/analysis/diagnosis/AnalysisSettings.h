#pragma once
// The analysis settings of one trace: what `chokepoint-cli analyze` takes as options (--device,
// --model-flops, --params, --tokens-per-step, --peak-memory, --oom, --precision, --config), kept in
// the trace's review sidecar so the GUI re-applies them when the trace is opened again. Plain data:
// names and numbers as the user gave them. Whether a device id, a precision or a threshold key is
// known is decided where they are applied (AnalysisSettingsOptions.h, next to this file: the
// settings live with the diagnosis they configure; core/review stores them in the sidecar).

#include <map>
#include <optional>
#include <string>

namespace chokepoint::core {

struct AnalysisSettings {
    std::string deviceId;  // device database id ("h100-sxm"); empty: matched from the trace
    // O_model per step: either FLOPs per step, or parameters and tokens per step (6·N·T).
    std::optional<double> modelFlopsPerStep;
    std::optional<double> parameterCount;
    std::optional<double> tokensPerStep;
    std::optional<double> peakMemoryBytes;  // peak device memory the job needs, when the trace has no counter
    bool outOfMemoryObserved = false;       // the job hit an out-of-memory error
    std::string precision;                  // "fp32", "tf32", "bf16", "fp16", "fp8", "fp64"; empty: automatic
    // DiagnosisConfig overrides by key ("lowMfu": 0.25); keys not listed keep their defaults.
    std::map<std::string, double> thresholds;

    bool operator==(const AnalysisSettings&) const = default;
    // True when nothing is set: the analysis runs exactly as without settings.
    bool isDefault() const { return *this == AnalysisSettings{}; }
};

}  // namespace chokepoint::core
