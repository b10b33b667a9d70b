#pragma once
// The plain numbers the D·A·M classifier and the fix engine decide on, for one window (a step, a
// phase or the whole run). Filled from the measurement engine's results by SignalsAdapter, or by
// hand in tests. Fractions are shares of `windowNs` (0..1) unless a comment says otherwise.
// std::optional marks a signal the trace may not carry; an empty optional is reported as missing.

#include <cstdint>
#include <optional>
#include <string>

namespace chokepoint::analysis {

struct DiagnosisSignals {
    std::string scope;  // "overall", "step ProfilerStep#3", "phase Backward"
    double windowNs = 0;
    bool hasGpuActivity = false;
    std::int64_t stepCount = 0;  // steps aggregated into this window (1 for a step)
    // Overall scope: warm-up and outlier steps left out of this window (StepTimes.h).
    std::int64_t excludedStepCount = 0;

    // --- GPU time accounting (shares of the window) ---
    double busyFraction = 0;  // union of kernels, copies, memsets on the device
    double computeFraction = 0;
    double communicationFraction = 0;
    double exposedCommunicationFraction = 0;  // communication not overlapped by compute
    double copyFraction = 0;
    double exposedCopyFraction = 0;
    double memsetFraction = 0;
    double idleFraction = 0;

    // --- Idle by cause (device idle; shares of the window) ---
    bool idleCausesKnown = false;  // false when the trace records no host activity at all
    double idleDataWaitFraction = 0;
    double idleLaunchOverheadFraction = 0;
    double idleSyncFraction = 0;
    double idleCollectiveFraction = 0;
    double idleUnexplainedFraction = 0;
    double streamWaitFraction = 0;  // busiest stream waiting on another stream (not device idle)
    std::int64_t idleIntervalCount = 0;
    // Host work on the launch path (GpuTimeBreakdown::hostWorkNs): launch threads in framework ops,
    // Python or runtime calls, outside data loading and blocking waits. Empty when no host activity
    // is recorded. The step cannot get shorter than this by fixing the GPU's idle.
    std::optional<double> hostWorkFraction;
    std::int64_t launchesDuringIdle = 0;  // kernel/copy launches issued while the device was idle
    // Share of the idle time during which some host thread was active ("CPU busy during gaps").
    std::optional<double> cpuBusyDuringIdleFraction;
    // Overall scope: share of steps whose data-wait idle reaches the data-bound threshold ("periodic").
    std::optional<double> stepsWithDataWaitFraction;
    // HTA's split of this device's busiest stream's idle: host_wait / (host_wait + other). Low
    // values mean the next kernel was already queued when the stream idled. Evidence only.
    std::optional<double> hostWaitShareOfStreamIdle;
    // Device idle in queued waits (the GPU op ending the gap had been launched before it began; see
    // GpuTimeAccounting.h), and the part of it inside the step's collective span, counted in
    // idleCollectiveFraction.
    double queuedWaitFraction = 0;
    double queuedCollectiveWaitFraction = 0;

    // --- Kernels (shares of summed kernel time unless noted) ---
    std::int64_t kernelCount = 0;
    std::int64_t shortKernelCount = 0;  // shorter than DiagnosisConfig::shortKernelNs
    double meanKernelNs = 0;
    double gemmShare = 0;        // GEMM + convolution
    double fp32MatmulShare = 0;  // GEMM + convolution without tensor cores
    double tensorCoreShare = 0;
    double attentionShare = 0;        // fused attention kernels (flash/fmha/sdpa)
    bool fusedAttentionSeen = false;  // flash / memory-efficient attention kernels present
    double softmaxShare = 0;          // reduction/softmax (materialized attention shows up here)
    double elementwiseShare = 0;      // elementwise + normalization + reduction (fusion candidates)
    bool convolutionSeen = false;     // CNN workload hint (R5 does not apply to CNNs)

    // --- Memory bandwidth ---
    std::optional<double> hbmBandwidthFraction;  // achieved / peak HBM bandwidth
    bool hbmMeasured = false;                    // from a counter (true) or estimated (false)
    // Share of GPU busy time in memory-bound work (kernels below the ridge or memory-bound classes).
    std::optional<double> memoryBoundBusyShare;

    // --- Memory capacity ---
    std::optional<double> peakMemoryBytes;
    std::optional<double> capacityBytes;
    bool outOfMemoryObserved = false;

    // --- Distributed ---
    int worldSize = 1;
    bool collectivesSeen = false;

    // --- Step and model ---
    double stepTimeNs = 0;      // mean step duration (== windowNs for one step)
    std::optional<double> mfu;  // model FLOPs utilization when model FLOPs are known
    std::optional<double> parameterCount;
    std::string architecture;            // "volta", "ampere", "hopper", "cdna", "" when unknown
    double dataLoadingHostFraction = 0;  // host time inside DataLoader ranges / window
};

}  // namespace chokepoint::analysis
