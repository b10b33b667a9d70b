#pragma once
// The analysis report: everything Chokepoint concludes about one trace, as one immutable value
// shared as std::shared_ptr<const AnalysisReport> (CLI writers, GUI pages, compare).
//
// Contents: the measurement engine's TraceMetrics, the matched DeviceSpec and how it matched, MFU /
// HFU / busy with the seed's bands, D·A·M verdicts per step, per phase and overall (each with its
// evidence, confidence and missing signals), the headline sentence, recommended fixes with
// expected gains, and warnings. Display strings (kernel names, step names) are resolved into the
// report, so writers do not need the TraceModel. StringIds and row ids inside `metrics` refer to
// the model the report was computed from; `model` holds it when analyzeTrace received a shared_ptr.
//
// Units: ns for times, fractions 0..1 for shares, FLOPs and FLOP/s, bytes. This header only grows
// (new fields at the end of structs); the JSON writer's schema is docs/REPORT_JSON.md.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/DeviceSpec.h"
#include "core/analysis/diagnosis/ComputeFormulas.h"
#include "core/analysis/diagnosis/DiagnosisConfig.h"
#include "core/analysis/diagnosis/DiagnosisSignals.h"
#include "core/analysis/diagnosis/FixEngine.h"
#include "core/analysis/diagnosis/Verdict.h"
#include "core/analysis/metrics/TraceMetrics.h"
#include "core/model/Enums.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

inline constexpr int kReportSchemaVersion = 1;

// Which datasheet the analysis used and why.
struct ReportDevice {
    bool matched = false;
    DeviceSpec spec;                // valid when matched
    std::string method;             // "override", "name", "family fallback", "hardware fallback", "none"
    std::string traceDeviceName;    // as the trace recorded it ("NVIDIA A100-SXM4-80GB")
    std::int32_t deviceIndex = -1;  // the device the verdicts are about (busiest)
    std::string note;               // "matched 'a100-sxm-80gb' by name", "no device in the trace"
};

// Where O_model came from.
enum class ModelFlopsSource {
    None = 0,          // unknown: MFU not computed
    UserFlopsPerStep,  // --model-flops
    UserParamsTokens,  // 6 · N · T from --params / --tokens-per-step (2 · N · T without a backward pass)
    ShapeEstimate,     // FLOPs of the ops that ran, from recorded shapes (no extra factor), an estimate
    RecordedInTrace,   // 6 · N · T from model.parameter_count and model.tokens_per_step, recorded in
                       // the trace's metadata notes (Python helper; HelperFacts.h)
    RecordedFlopCounter,  // model.flops_per_step: the FLOPs of one training step the helper counted
                          // with PyTorch's FlopCounterMode (preferred over 6 · N · T)
};
std::string_view toString(ModelFlopsSource source);

// Why a computed MFU is not shown as a result (MfuReport::impossibleMfu keeps the figure).
enum class MfuWithheld {
    No = 0,
    AtOrAbovePeak,           // 100 % or more of the peak: a wrong precision or FLOPs count
    SixNtOnAConvolutionNet,  // the helper's 6 · N · T on a convolutional network: far too low
    ShapesCoverTooLittle,    // FLOPs from shapes that cover under half the kernel time: far too low
};
std::string_view toString(MfuWithheld withheld);  // "", "at-or-above-peak", "6NT-on-a-convnet", ...
// A few words for a figure's place ("not shown (≥ 100 % of peak)"); empty for No.
std::string_view shortLabel(MfuWithheld withheld);

// MFU and friends (§1.2, §9.1, §9.2).
struct MfuReport {
    ModelFlopsSource source = ModelFlopsSource::None;
    bool estimate = false;                  // O_model from shapes rather than from the user
    double modelFlopsPerStep = 0;           // O_model
    double hardwareFlopsPerStep = 0;        // counted FLOPs per step from shapes (incl. recompute), 0 if none
    Precision precision = Precision::BF16;  // precision of the peak used
    std::string precisionReason;            // "dominant op precision BF16", "--precision", "default"
    double peakFlopsPerSecond = 0;          // R_peak at that precision, 0 when unknown
    double stepTimeNs = 0;                  // mean T_step over the steps
    std::optional<double> mfu;              // O_model / (R_peak · T_step)
    std::optional<double> hfu;              // counted FLOPs / (R_peak · T_step)
    double busyFraction = 0;                // time-based accelerator busy (Table 7 uses this)
    formulas::MfuBand band = formulas::MfuBand::Unknown;
    std::string bandLabel;
    std::vector<std::string> warnings;  // ordering violations, busy-healthy-but-MFU-low, ...
    // Share of the device's kernel time whose FLOPs the shapes account for (HFU covers only that).
    double countedKernelTimeShare = 0;
    // The same share of its GEMM, convolution and attention kernels' time, which holds nearly all
    // the FLOPs; empty when the steps ran none.
    std::optional<double> countedMatmulTimeShare;
    // How much of the work the shapes count: the matmul-class share where there is one (the rest of
    // the kernel time is memory-bound work whose FLOPs hardly count), else the kernel-time share.
    double shapeCoverage() const { return countedMatmulTimeShare.value_or(countedKernelTimeShare); }
    // A backward pass ran (PhaseDetection): the 6·N·T training factor applies only then.
    bool backwardPassSeen = false;
    std::string sourceNote;  // where O_model came from, in one sentence every output uses
    // Where the peak's precision came from (PrecisionInference.h): "requested", "recorded-dtypes",
    // "helper-op-dtypes", "helper-autocast", "kernel-names", "helper-default", "tensor-core-share",
    // "default".
    std::string precisionSource;
    // An MFU of 100 % or more is never a result, nor 6 · N · T on a convolutional network: `mfu`
    // stays empty, the figure computed is kept here, `withheld` says which case, and
    // impossibleReason says why in full and what to give instead.
    std::optional<double> impossibleMfu;
    MfuWithheld withheld = MfuWithheld::No;
    std::string impossibleReason;
};

// The mean step decomposed with the iron law's three terms (§1.1 general form, §9.3):
// T ≈ D_vol/BW + O/(R_peak·η_hw) + L_lat. Shares of the step add up to 1.
struct IronLawReport {
    double stepTimeNs = 0;
    double dataShare = 0;     // data movement: data-wait idle + copies not hidden by compute
    double computeShare = 0;  // compute: busy time minus exposed copies and exposed communication
    double latencyShare = 0;  // fixed latency: launch/sync/collective/unexplained idle + exposed comm
    // The simplified form T = O / (R_peak·η_hw) holds only when data movement and communication are
    // overlapped (L97) and launch overhead does not bind (L100): exposed data movement, exposed
    // communication, launch/sync overhead, host work and unexplained idle each below 5 % of the step.
    bool simplifiedLawValid = false;
    std::string note;
};

// Verdict of one step.
struct StepDiagnosis {
    std::int32_t stepIndex = 0;
    std::string name;  // "ProfilerStep#12"
    core::TimeRange range;
    DiagnosisSignals signals;
    Verdict verdict;
    // A warm-up or outlier step (StepTimes.h): its own verdict is shown, but it is left out of the
    // step time, the MFU and the overall verdict; excludedReason says why.
    bool excluded = false;
    std::string excludedReason;
};

// Verdict of one phase kind (all steps together).
struct PhaseDiagnosis {
    PhaseKind kind = PhaseKind::Forward;
    std::int64_t occurrences = 0;  // steps in which the phase was seen
    double cpuTimeNs = 0;          // summed over steps
    double gpuTimeNs = 0;          // summed over steps
    double shareOfStepTime = 0;    // host time / total step time
    DiagnosisSignals signals;
    Verdict verdict;
};

// One row of the top-kernels table, with the name resolved.
struct TopKernel {
    std::string name;
    KernelClass kernelClass = KernelClass::Other;
    bool tensorCore = false;
    std::int64_t count = 0;
    double totalNs = 0;
    double meanNs = 0;
    double shareOfKernelTime = 0;
    // The calls and time inside the steady steps (StepTimeSummary::steady: the steps the step time
    // is over), for figures per step that leave out warm-up autotuning as the step time does.
    std::int64_t steadyCount = 0;
    double steadyTotalNs = 0;
};

// A CPU op that launched GPU work, name resolved (metrics.kernels.ops without the trace model).
struct TopOp {
    std::string name;
    KernelClass kernelClass = KernelClass::Other;  // class with most GPU time among its kernels
    std::int64_t count = 0;                        // calls that launched GPU work
    std::int64_t kernelCount = 0;
    core::DurationNs gpuTimeNs = 0;
    core::DurationNs meanGpuTimeNs = 0;
    core::DurationNs maxGpuTimeNs = 0;
    double shareOfKernelTime = 0;
};

// A function of the sampled host stacks (TraceModel::stackSamples), wall-clock time over every
// sampled thread (core/calltree/SampledCallTree.h; a sample stands for the time to its thread's next).
struct SampledFunction {
    std::string function;
    std::string file;
    core::DurationNs selfNs = 0;    // time of those samples
    core::DurationNs totalNs = 0;   // time of the samples with it anywhere on the stack
    double shareOfSampledTime = 0;  // selfNs / all sampled time
};

struct ReportWarning {
    core::Severity severity = core::Severity::Warning;
    std::string code;     // stable, dotted: "mfu.ordering_violated", "steps.whole_trace"
    std::string message;  // human-readable
};

struct AnalysisReport {
    int schemaVersion = kReportSchemaVersion;
    // Source
    std::string sourcePath;
    std::string sourceFormat;
    bool synthetic = false;
    std::shared_ptr<const core::TraceModel> model;  // may be null (see the file comment)
    // Measurements
    TraceMetrics metrics;
    ReportDevice device;
    core::DistributedInfo distributed;  // rank, world size, backend as the trace recorded them
    MfuReport mfu;
    // Diagnosis
    DiagnosisConfig config;
    DiagnosisSignals overallSignals;
    Verdict overall;
    std::vector<StepDiagnosis> steps;
    std::vector<PhaseDiagnosis> phases;
    FixPlan fixes;         // for the overall verdict
    std::string headline;  // "Data-bound: the GPU waits 38 % of each step for the input pipeline"
    std::vector<ReportWarning> warnings;
    // Every kernel name by total time, not a top N (compare matches kernels by name).
    std::vector<TopKernel> kernelsByName;
    // Every op that launched GPU work, by the GPU time it launched.
    std::vector<TopOp> opsByGpuTime;
    // The sampled host stacks' functions by self time (empty without stack samples).
    std::vector<SampledFunction> sampledFunctions;
    std::int64_t stackSampleCount = 0;
    std::int32_t sampledThreadCount = 0;
    core::DurationNs sampledTimeNs = 0;  // wall-clock time the samples stand for, all threads
    IronLawReport ironLaw;
    // Scope: -1 for the whole trace; else the one GPU this report is about (AnalysisOptions::
    // deviceIndex): its kernels, copies and memsets and the host threads that launch on it
    // (core/model/DeviceSlice.h). `model` then holds that slice.
    std::int32_t scopeDeviceIndex = -1;
    // With GPU work on several devices (one process driving several GPUs): each device's own
    // report, scoped as above, by device index. Empty otherwise, and inside a scoped report.
    std::vector<std::shared_ptr<const AnalysisReport>> deviceReports;
    // The settings that differ from the defaults, one phrase each ("device NVIDIA H100 SXM5 80GB
    // (set by user)", "threshold lowMfu 0.25 (default 0.3)"); empty with the defaults.
    std::vector<std::string> userSettings;
    // The window holds only start-up (process start, model build, autotuning, the first step): no
    // steady-state verdict is given and startUpReason says what the window holds (SteadyState.h).
    bool startUpOnly = false;
    std::string startUpReason;
};

// True when the verdict's rationale says nothing the headline does not (the headline holds it: a
// start-up window's "no steady-state verdict: …", "Data-bound: the GPU waits …"), so a page or
// report shows the sentence once.
bool rationaleRepeatsHeadline(const AnalysisReport& report);

// The overall verdict's name as every output shows it: "No GPU timeline" for a counter-mode trace
// (kernels ran, the profiler recorded counters only), where the class is NoGpuActivity.
std::string verdictDisplayName(const AnalysisReport& report);

}  // namespace chokepoint::analysis
