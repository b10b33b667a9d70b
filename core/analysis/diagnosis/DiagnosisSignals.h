#pragma once
// The plain numbers the D·A·M classifier and the fix engine decide on, for one window (a step, a
// phase or the whole run). Filled from the measurement engine's results by SignalsAdapter, or by
// hand in tests. Fractions are shares of `windowNs` (0..1) unless a comment says otherwise.
// std::optional marks a signal the trace may not carry; an empty optional is reported as missing.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
    // Host<->device copies (H2D, D2H) not overlapped by kernels: the copy-bound gap class.
    double exposedHostCopyFraction = 0;
    double pageableHostCopyShare = 0;  // share of host-device copy time from pageable host memory
    double memsetFraction = 0;
    double idleFraction = 0;

    // --- Idle by cause (device idle; shares of the window) ---
    bool idleCausesKnown = false;  // false when the trace records no host activity at all
    double idleDataWaitFraction = 0;
    double idleLaunchOverheadFraction = 0;
    double idleSyncFraction = 0;
    double idleCollectiveFraction = 0;
    double idleUnexplainedFraction = 0;
    // Host busy in work that launches nothing, by what it is (GpuTimeAccounting's host causes).
    double idleHostWorkFraction = 0;      // Python / framework code between launches
    double idleCompilationFraction = 0;   // torch.compile / Triton / nvFuser compilation, autotuning, JIT
    double idleHousekeepingFraction = 0;  // checkpoint saving, logging, evaluation
    double idleGcFraction = 0;            // Python garbage collector
    // The frames that took the host-work idle, by exclusive time (overall scope; share of the window).
    struct HostFrameShare {
        std::string name;
        // Share of the idle of its cause (host work, data wait) in which it was sampled: the whole
        // contains it, so the frames of one cause sum to at most 100 %.
        double shareOfCause = 0;
        // shareOfCause of that cause's share of the window (never above the cause's own share).
        double shareOfWindow = 0;
        // A thread known only from its CPU use (the agent's /proc samples, Nsight Systems' thread
        // scheduling): it was on a CPU, but what it ran is not recorded.
        bool cpuUseOnly = false;
    };
    std::vector<HostFrameShare> hostWorkFrames;
    // The frames that took the data-wait idle: the input pipeline's ranges and what runs inside them
    // (transforms, collate, copies), by exclusive time (overall scope; share of the window).
    std::vector<HostFrameShare> dataWaitFrames;
    // GPU idle during a synchronization or that began while the host was in a synchronizing call
    // (GpuTimeAccounting's afterSync), whatever its cause: the queue drained because the host
    // waited for it. And the
    // calls it followed, by that time (shareOfCause: of this idle; shareOfWindow: of the window).
    double idleAfterSyncFraction = 0;
    // The launching threads inside synchronizing calls (GpuTimeBreakdown::hostSyncNs), share of
    // the window: host time blocked on the GPU.
    double hostSyncFraction = 0;
    std::vector<HostFrameShare> afterSyncCalls;
    // Sampled call stacks (the Python sampler; overall scope): what the sampled threads ran while the
    // GPU idled. Shares are of the device's idle time in the steady steps (StackIdleProfile.h): each
    // is at most 1; entries of different threads may add up to more than 1.
    struct SampledStackShare {
        std::string thread;  // "main thread (python3, pid 523)"
        std::string role;    // what the stack does: "input preparation", "optimizer", "other", ...
        std::string path;    // "_BaseDataLoaderIter.__next__ → … → RandomResizedCrop.forward"
        double shareOfIdle = 0;
    };
    std::vector<SampledStackShare> sampledStacks;  // largest first, at most 5
    struct SampledFrameShare {
        std::string thread;
        std::string name;                 // "RandomResizedCrop.forward (transforms.py:980)"
        double inclusiveShareOfIdle = 0;  // the frame anywhere on the stack
        double exclusiveShareOfIdle = 0;  // the frame itself running (the leaf)
    };
    // By inclusive share, at most 8; frames on every sample of their thread that never run
    // themselves (main, the training loop) are left out.
    std::vector<SampledFrameShare> sampledFrames;
    // The main thread's samples (the thread that launches the GPU work) by what its stack was doing,
    // as shares of the idle. Empty optional: no samples of it in the idle.
    struct SampledMainThread {
        std::string thread;
        double sampledShare = 0;       // the idle its samples cover
        double inputWorkShare = 0;     // dataset / transforms / collate in this thread (num_workers=0)
        double loaderWaitShare = 0;    // inside DataLoader.__next__ without input work (waits on workers)
        double optimizerShare = 0;     // the optimizer step in Python (torch/optim)
        double compilationShare = 0;   // dynamo / inductor / Triton compilation
        double housekeepingShare = 0;  // checkpoint saving, logging, evaluation
        double syncShare = 0;          // .item(), .cpu(), torch.cuda.synchronize
        std::string topInputPath;      // the largest input-preparation stack (path), if any
        std::string topOptimizerPath;  // the largest optimizer stack (path), if any
    };
    std::optional<SampledMainThread> sampledMain;
    double hostBoundFraction() const {
        return idleHostWorkFraction + idleCompilationFraction + idleHousekeepingFraction + idleGcFraction;
    }
    // Communication that compute does not hide, as a share of the window (of each step): busy time
    // in collectives no compute overlaps plus device idle waiting on a collective. The one
    // definition every view uses: the verdict, the constraint shares, the headline and the job's
    // per-rank figure (RankSummary::exposedCommunicationShare).
    double exposedCommunicationShare() const { return exposedCommunicationFraction + idleCollectiveFraction; }
    double streamWaitFraction = 0;  // busiest stream waiting on another stream (not device idle)
    std::int64_t idleIntervalCount = 0;
    // Overall scope: the most host samples (CPU % from /proc, Python stack samples) any one thread
    // has inside the steady steps' span, and that span. -1: the trace has no host sampling. A span
    // of a few sampling periods (20 steps of a 1.7 ms CUDA-graph job) cannot show the host's work.
    std::int64_t hostSamplesInSteps = -1;
    double stepsSpanNs = 0;
    // Host work on the launch path (GpuTimeBreakdown::hostWorkNs): launch threads in framework ops,
    // Python or runtime calls, outside data loading and blocking waits. Empty when no host activity
    // is recorded. The step cannot get shorter than this by fixing the GPU's idle.
    std::optional<double> hostWorkFraction;
    std::int64_t launchesDuringIdle = 0;  // kernel/copy launches issued while the device was idle
    // Share of the idle time during which some host thread was active ("CPU busy during gaps").
    std::optional<double> cpuBusyDuringIdleFraction;
    // Overall scope: share of steps whose data-wait idle reaches the data-bound threshold ("periodic").
    std::optional<double> stepsWithDataWaitFraction;
    std::int64_t stepsWithDataWaitCount = 0;  // the number of those steps
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
    // Distinct names among those kernels in the trace: fusion needs at least two different ops to
    // merge (one kernel repeated, like a saxpy loop, has nothing to fuse with). -1: not known
    // (aggregate input without kernel names).
    std::int32_t fusableKernelNameCount = -1;
    bool convolutionSeen = false;  // CNN workload hint (R5 does not apply to CNNs)
    // Framework ops recorded and no backward pass among them: inference or evaluation, where
    // training-only advice (learning-rate scaling with the batch) does not apply.
    bool forwardOnly = false;
    // What the trace shows already in use (guards fixes that would suggest it again).
    bool cudaGraphsSeen = false;    // CUDA graph launches or graph-node kernels
    bool compiledCodeSeen = false;  // Triton/Inductor kernels or torch.compile regions

    // --- What fills the busy time (shares of summed kernel time) ---
    // True when the shares below were measured per kernel from a trace. Aggregate input (the spec's
    // T41-T44 cases: busy and HBM only) leaves it false, and the busy bands then follow Table 7.
    bool compositionKnown = false;
    double computeBoundKernelShare = 0;  // above the ridge: GEMM / convolution / attention, or costed AI
    double memoryBoundKernelShare = 0;   // below the ridge: elementwise / norm / reduction, or costed AI
    double unclassifiedKernelShare = 0;  // class unknown, no shapes, no counters: neither can be claimed
    std::string topUnclassifiedKernel;   // the one with the most time (evidence)

    // --- Measured GPU metrics (Nsight Systems GPU_METRICS / PM sampling), means over the window ---
    std::optional<double> smActiveFraction;      // SMs active, 0..1
    std::optional<double> tensorActiveFraction;  // tensor pipes active, 0..1
    std::optional<double> dramActiveFraction;    // DRAM read + write throughput, share of peak
    std::optional<double> pcieActiveFraction;    // PCIe RX + TX throughput, share of peak

    // --- Occupancy: kernels whose grid has fewer blocks than the device has SMs ---
    double underOccupiedKernelShare = 0;  // of summed kernel time
    // SM capacity those kernels leave idle: Σ time × (1 − blocks / SMs) / summed kernel time.
    double underOccupiedIdleSmShare = 0;
    std::string underOccupiedKernel;       // the one with the most time
    std::int64_t underOccupiedBlocks = 0;  // its grid size (blocks)
    std::int64_t smCount = 0;              // SMs of the device (0 when unknown)

    // --- Memory bandwidth ---
    std::optional<double> hbmBandwidthFraction;  // achieved / peak HBM bandwidth
    bool hbmMeasured = false;                    // from a counter (true) or estimated (false)
    // Memory-bound work: the share of kernel time in memory-bound kernels (below the ridge or of the
    // memory-bound classes), plus device-to-device copies as a share of busy time. A share of kernel
    // time, not of busy time: host-device copies are copy-bound, not in it (saxpy read "100 % of GPU
    // busy time in memory-bound kernels" beside copies filling 76 % of its busy time).
    std::optional<double> memoryBoundBusyShare;

    // --- Memory capacity ---
    // The device memory the job needs: user-given, else the peak of the device's memory-level
    // counter (torch.profiler's "Total Reserved" / "Total Allocated", core::isDeviceMemoryLevelTrack).
    std::optional<double> peakMemoryBytes;
    // Memory events without totals (older torch.profiler traces): the largest rise of allocated
    // memory within the trace, a lower bound of what the job holds; unset otherwise.
    std::optional<double> memoryRiseBytes;
    std::optional<double> capacityBytes;
    bool outOfMemoryObserved = false;

    // --- Distributed ---
    int worldSize = 1;
    bool collectivesSeen = false;

    // --- Step and model ---
    double stepTimeNs = 0;      // mean step duration (== windowNs for one step)
    std::optional<double> mfu;  // model FLOPs utilization when model FLOPs are known
    // The device's 16-bit tensor-core peak (BF16, else FP16) over the peak the MFU is measured
    // against: what mixed precision (R4) moves the MFU's denominator by. 1 when unknown or the same.
    double halfPrecisionPeakRatio = 1.0;
    std::optional<double> parameterCount;
    std::string architecture;            // "volta", "ampere", "hopper", "cdna", "" when unknown
    double dataLoadingHostFraction = 0;  // host time inside DataLoader ranges / window
};

}  // namespace chokepoint::analysis
