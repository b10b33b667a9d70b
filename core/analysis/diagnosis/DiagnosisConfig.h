#pragma once
// Every threshold the D·A·M classifier and the fix engine use, in one documented struct with the
// defaults described in docs/ANALYSIS.md. Fractions are 0..1 (0.9 = 90 %); times are ns.
//
// Sources: Table 7 (L963–967) gives the busy bands (> 90 % compute-bound, 50–80 % memory-bound);
// §2.3/§8.2 leave 80–90 %, < 50 % without zero-drops, "high/low HBM bandwidth" and "CPU fully busy"
// undefined, and §9.4 asks for them to be configurable. Those defaults are our [PROPOSAL]s.
//
// Overridable from a small file (loadDiagnosisConfig): either a flat JSON object
// {"computeBoundMinBusy": 0.92, ...} or key=value lines ('#' starts a comment). Unknown keys and
// values that are not finite numbers are errors naming the file and the line or key.

#include <string>
#include <string_view>
#include <vector>

#include "core/base/Result.h"

namespace chokepoint::analysis {

struct DiagnosisConfig {
    // --- Table 7 utilization bands (accelerator busy fraction of the window) ---
    double computeBoundMinBusy = 0.90;  // busy > this → Algorithm/compute-bound, even with high HBM (§8.1)
    double upperBandMinBusy = 0.80;  // 80–90 % (§8.2): compute-bound unless HBM is high (walkthrough 85 %)
    double memoryBoundMinBusy = 0.50;  // Table 7 memory-bound band 50–80 %
    // --- Memory bandwidth (fraction of the device's peak HBM bandwidth) ---
    double hbmHighFraction = 0.60;  // "high memory bandwidth usage" [PROPOSAL]
    double hbmLowFraction = 0.30;   // "low memory bandwidth usage" [PROPOSAL]
    // When no bandwidth counter exists: share of GPU busy time spent in memory-bound kernel classes
    // (elementwise, normalization, reduction/softmax, copies; Table 5) that counts as "high" (estimate).
    double memoryBoundKernelShareHigh = 0.50;
    // --- Gap classes (shares of the window), checked before the busy bands (§2.3 precedence) ---
    double dataWaitMinFraction = 0.10;        // idle waiting for the input pipeline → data-bound
    double communicationMinFraction = 0.25;   // exposed communication + waiting on collectives
    double launchOverheadMinFraction = 0.20;  // idle with the CPU dispatching (launch + sync)
    // Idle while the host runs work that launches nothing (Python / framework code, compilation,
    // checkpointing/logging/evaluation, garbage collection) → host-bound. [PROPOSAL] same bar as
    // launch overhead: both are host time on the step's critical path.
    double hostWorkMinFraction = 0.20;
    double copyBoundMinFraction = 0.25;  // exposed host<->device copies → copy-bound [PROPOSAL]
    // Busy windows: kernels we cannot place above or below the ridge (no class, shapes or counters)
    // holding at least this share of kernel time leave compute vs memory undetermined [PROPOSAL].
    double unclassifiedKernelMaxShare = 0.50;
    // Busy windows judged by kernel classes (no counters): compute-bound and memory-bound shares
    // closer than this are both reported as mixed compute- and memory-bound instead of a class that
    // flips with a few kernels [PROPOSAL]: the classes are an estimate (one kernel family read on the
    // other side of the ridge moves a share by 5-10 points: GPT on H100, capture 46/44, torch.profiler
    // trace 46/53 with the log-softmax placed by its op).
    double mixedBoundMargin = 0.10;
    // Under-occupancy finding: kernels with fewer blocks than SMs leave at least this share of the
    // SM capacity idle over the kernel time (Σ time × (1 − blocks / SMs) / kernel time) [PROPOSAL].
    double underOccupancyMinIdleSmShare = 0.10;
    double periodicMinStepFraction = 0.50;  // data gaps must recur in this share of steps ("periodic")
    // ... or in at least this many steady steps: a DataLoader with N workers that falls behind
    // stalls about once every N steps (under half of them from N = 3 on), and that is periodic too;
    // a single gap is the one-off the rule is for (docs/ANALYSIS.md, "Periodic data gaps").
    double periodicMinSteps = 2;
    double cpuFullyBusyFraction = 0.80;    // "CPU fully busy during gaps": host activity covers ≥ this
    double shortKernelNs = 10'000;         // "short kernel" for launch-overhead evidence (10 µs)
    double shortKernelMinFraction = 0.50;  // "many short kernels": at least this share of kernels
    // --- Machine / capacity ---
    double capacityHeadroomFraction = 0.05;  // peak allocation above capacity × (1 − headroom) → M-cap
    // --- Reporting ---
    double secondaryMinFraction = 0.10;  // list a non-headline constraint when its share ≥ this
    double healthyBusyFraction = 0.80;   // "busy looks healthy" for the busy-vs-MFU warning (L969)
    double lowMfu = 0.30;                // MFU below this is "low" (L957)
    // --- Fix-engine guards ---
    double mixedPrecisionMinParameters = 10e6;  // R4: under 10M params AMP may not pay off (L1196)
    double fp32MatmulMinShare = 0.10;           // R4: FP32 (non-tensor-core) GEMM/conv share of kernel time
    double attentionMinShare = 0.05;            // R5: attention-path share of kernel time
    double fusionMinShare = 0.10;  // R6: elementwise + normalization + reduction share of kernel time
    double accumulationSteps = 4;  // R7: k used for the gain estimate (GPT-2 example, L1497)
    double accumulationOverheadFraction = 0.08;  // R7: ~8 % slower for k = 4 (L1536)
    double checkpointRecomputeFraction = 0.33;   // R8: ~33 % extra compute (L1457)
    double mixedPrecisionSpeedup = 2.0;          // R4: low end of "2–3×" for tensor-core matmuls (L1136)
    double flashAttentionSpeedup = 2.0;          // R5: low end of "2–4×" (L656, L1274)
    double hardwareUpgradePeakRatio = 2.0;       // R13: "an accelerator with 2× TFLOP/s" (L2055)
};

// One entry of the config table: key, a pointer to the member, and its documentation.
struct DiagnosisConfigKey {
    const char* key;
    double DiagnosisConfig::*member;
    const char* description;
};
const std::vector<DiagnosisConfigKey>& diagnosisConfigKeys();
// The entry for `key`, or nullptr.
const DiagnosisConfigKey* findDiagnosisConfigKey(std::string_view key);

// What a threshold's number means, for editors and validation.
enum class ConfigUnit {
    Fraction,     // 0..1 (0.9 = 90 %)
    Nanoseconds,  // a duration, > 0
    Count,        // a number of things (parameters, steps), >= 1
    Factor,       // a speed-up or ratio, >= 1 (2 = twice as fast)
};
ConfigUnit diagnosisConfigUnit(std::string_view key);
// "fraction 0-1", "ns", "count", "factor".
std::string_view toString(ConfigUnit unit);
// Empty when `value` is acceptable for `key`; else why not, as a sentence fragment
// ("must be between 0 and 1", "unknown key"). Stricter than the config file's "finite and >= 0":
// used for values typed in the GUI and read from a review sidecar.
std::string checkDiagnosisConfigValue(std::string_view key, double value);

// Applies overrides from `text` (JSON object or key=value lines) onto `config`. `sourceName` is used
// in error messages ("thresholds.conf: line 3: unknown key 'foo'").
core::Status applyDiagnosisConfigText(DiagnosisConfig& config, std::string_view text,
                                      std::string_view sourceName);
// Reads `path` and applies it onto the defaults.
core::Result<DiagnosisConfig> loadDiagnosisConfig(const std::string& path);
// key = value lines of the whole config with descriptions as comments (a template file).
std::string describeDiagnosisConfig(const DiagnosisConfig& config);

}  // namespace chokepoint::analysis
