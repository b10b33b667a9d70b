#pragma once
// GPU time accounting per step and per device, and attribution of every idle interval.
//
// Definitions (our own accounting; HTA's is in HtaBreakdown.h, differences in README.md):
//   busy          |union of kernels, memcpys and memsets over all streams of the device| in the window
//   compute       |union of non-communication kernels|
//   communication |union of NCCL/RCCL collective kernels|
//   copy          |union of memcpys| (also split by direction), memset |union of memsets|
//   exposed communication / copy: the part not overlapped by compute
//   idle          window - busy
// Window: the step's stretched range (StepsResult) for per-step rows; for the per-device total, the
// union span of all steps. Durations that are negative in the model count as zero length.
//
// Idle attribution. A device idle interval (a gap in the busy union inside the analysed span) whose
// ending GPU op had already been launched when the gap began is a queued wait: the host was not the
// limiter, whatever it was doing. It is Collective when it lies inside its step's collective span
// (from the step's first collective kernel to its last on this device: queued work waiting on
// communication), else Unexplained (the trace does not show what the device waited on), with the
// queued kernel as evidence. Any other gap is
// explained by what the host threads that launch this device's work were doing during the gap.
// Coverage of the gap by each kind of host activity is measured; the first cause in this
// precedence whose coverage reaches AccountingOptions::minCoverage wins. Names are read by the
// one name table, core/names/NameRules.h:
//   DataWait          data loading and input preparation in this process: DataLoader ranges,
//                     decode / transforms / image ops / tokenization / collate / numpy conversion /
//                     dataset frames, and blocking host-to-device copy calls (the batch upload;
//                     blocking = cudaMemcpy without Async, pageable host memory, or a call >=
//                     blockingCopyCallNs)
//   Collective        host-side collectives (c10d::, nccl:, gloo, record_param_comms)
//   Compilation       torch.compile (dynamo frame conversion, inductor lowering/codegen/autotuning),
//                     Triton compilation, nvFuser lowering/scheduling, TorchScript, cuDNN algorithm
//                     search
//   GarbageCollection the Python garbage collector (gc.collect, GC ranges)
//   Housekeeping      checkpoint saving, logging / experiment tracking, evaluation loops
//   Synchronization   sync records, cudaStreamSynchronize / cudaDeviceSynchronize / cudaEventSynchronize
//                     / cudaFree / blocking cudaMemcpy (and hip*/cu* forms), other blocking copy calls (as
//                     above), aten::item / _local_scalar_dense / nonzero ops, Tensor.item()/.cpu() frames
//   LaunchOverhead    any other host activity while the host keeps dispatching: stretches of the
//                     gap longer than launchSilenceNs in which neither a launch call nor a framework
//                     op (aten::..., autograd nodes: the eager op stream) runs cover less than half
//                     of it (launchCount says how many launches)
//   HostWork          any other host activity that dispatches nothing for most of the gap (Python
//                     code, user ranges); hostWorkFrames names the frames by exclusive time
//   Sampled call stacks (TraceModel::stackSamples, SampledStacks.h) of the launching threads are
//   host activity too: each sample covers the time it stands for, in the category of what its
//   stack was doing (NameRules' stackRoleOf: DataLoader / dataset / transform frames are DataWait,
//   dynamo and inductor compilation Compilation, torch.save / logging / evaluation Housekeeping,
//   .item() / cuda synchronize Synchronization, torch.distributed Collective) and in any case as
//   host activity (HostWork or LaunchOverhead above), named by its leaf frame's function.
//   Samples do not count as dispatch and not in hostWorkNs (a sampled thread may be blocked).
//   (then, where no recorded host activity explains the gap, the threads' CPU use: the agent's
//   "CPU %" counter tracks, one per thread, a sample covering the interval since the previous one)
//   HostWork / LaunchOverhead  a launching thread (the main thread) is on the CPU (at least
//                     AccountingOptions::onCpuMinPercent) for the gap: host time on that thread,
//                     split as above by its launch density; the evidence and hostWorkFrames name
//                     the thread (core/model/ThreadLabels.h)
//   DataWait          a DataLoader worker or the pin-memory thread is on the CPU while no
//                     launching thread is: the loop waits for the input pipeline
//   Unexplained       none reaches the threshold (no recorded host activity)
// Each gap is listed once (gaps are computed over the span of all steps) and belongs to the step
// whose stretched range contains its start; per-step idleByCauseNs sums the listed gaps' overlap
// with the step window, so it adds up to that row's idleNs.
// Stream idle intervals (streamId >= 0) are produced for the busiest stream of each device where
// the device is not idle: that stream waits while another stream works; cause OtherStream, or
// Collective when the other stream runs collective kernels. They are not part of idleNs.
// Pure function; O(n log n) in events.

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/analysis/metrics/KernelClassifier.h"
#include "core/analysis/metrics/StepDetection.h"
#include "core/base/Ids.h"
#include "core/base/Time.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

enum class IdleCause : std::uint8_t {
    DataWait = 0,
    LaunchOverhead,
    Synchronization,
    OtherStream,  // this stream idles while another stream of the device works
    Collective,   // waiting on a collective (host-side collective call or collective kernel elsewhere)
    Unexplained,
    // Appended so the values above keep their numbers.
    HostWork,           // the host runs code that launches nothing (Python, framework logic)
    Compilation,        // torch.compile / Triton / nvFuser compilation and autotuning, JIT
    Housekeeping,       // checkpoint saving, logging, evaluation
    GarbageCollection,  // the Python garbage collector
};
inline constexpr std::size_t kIdleCauseCount = 10;

std::string_view toString(IdleCause cause);

// The host (or GPU) activity that explains an idle interval.
struct IdleEvidence {
    // Thread: a host thread on the CPU (its "CPU %" samples) with no recorded frame; row is its
    // index in TraceModel::threads.
    // StackSample: a sampled call stack; row is its index in TraceModel::stackSamples.
    enum class Kind : std::uint8_t { None = 0, ApiCall, CpuOp, Range, Sync, Kernel, Thread, StackSample };
    Kind kind = Kind::None;
    std::uint32_t row = 0xFFFFFFFFu;  // row in the table named by kind
    core::StringId name;              // its name (empty for Sync rows)
    core::DurationNs overlapNs = 0;   // how much of the interval it covers
};

// Exclusive host time of one frame (op, Python function, runtime call) inside the GPU gaps whose
// cause is HostWork (or DataWait, for dataWaitFrames): the innermost frame at sampled points of each gap (at
// most AccountingOptions::frameSamplesPerGap points, evenly spaced).
// A thread on the CPU with no recorded frame (known from its CPU-use samples only) has `thread`
// set and no name: the time is that thread's, whatever it ran.
struct HostFrameTime {
    std::int16_t deviceIndex = 0;
    core::StringId name;
    core::DurationNs exclusiveNs = 0;
    core::ThreadIndex thread = core::kNoThread;
    // The whole these frames were sampled in: the device's gap time of that cause counted for
    // frames (the same gaps, the same steps). exclusiveNs <= wholeNs, and the frames of one device
    // sum to at most wholeNs: a frame's share of its cause is exclusiveNs / wholeNs.
    core::DurationNs wholeNs = 0;
};

struct IdleInterval {
    std::int16_t deviceIndex = 0;
    std::int32_t streamId = -1;  // -1: the whole device is idle; else the one stream that waits
    std::int32_t stepIndex = -1;
    core::TimeRange range;
    IdleCause cause = IdleCause::Unexplained;
    double coverage = 0;           // fraction of the interval covered by the cause's activity, 0..1
    std::int32_t launchCount = 0;  // kernel/copy launch calls the host issued during the interval
    // A queued wait: the GPU op that ends the gap had been launched before the gap began (see the
    // attribution rules above).
    bool queued = false;
    IdleEvidence evidence;
    // The gap's cause is Synchronization, or the host was inside a synchronizing call
    // (cudaStreamSynchronize, .item(), a blocking copy) when the GPU ran out of work: the call waited
    // for the queue to drain, and the GPU idles until the host, back from it, launches again.
    // Whatever the gap's cause, that wait emptied the queue. afterSyncName: the outermost framework
    // op among the calls (aten::item), else the call itself.
    bool afterSync = false;
    core::StringId afterSyncName;
};

// Directions for the copy split (index = core::MemcpyKind value).
inline constexpr std::size_t kCopyKindCount = 6;

struct GpuTimeBreakdown {
    std::int32_t stepIndex = -1;    // -1: all steps together
    std::int16_t deviceIndex = -1;  // the device
    core::TimeRange window;
    core::DurationNs windowNs = 0;
    core::DurationNs busyNs = 0;
    core::DurationNs computeNs = 0;
    core::DurationNs communicationNs = 0;
    core::DurationNs copyNs = 0;
    std::array<core::DurationNs, kCopyKindCount> copyByKindNs{};  // index = core::MemcpyKind
    core::DurationNs memsetNs = 0;
    core::DurationNs exposedCommunicationNs = 0;  // communication not overlapped by compute
    core::DurationNs exposedCopyNs = 0;           // copies not overlapped by compute
    core::DurationNs exposedHostCopyNs = 0;       // H2D/D2H copies not overlapped by compute (copy-bound)
    core::DurationNs pageableHostCopyNs = 0;      // H2D/D2H copies whose host side is pageable memory
    core::DurationNs idleNs = 0;                  // windowNs - busyNs
    std::array<core::DurationNs, kIdleCauseCount> idleByCauseNs{};  // device-level idle only
    // Device-level idle during a synchronization or whose gap began while the host was in one
    // (IdleInterval::afterSync): a part of idleNs across causes.
    core::DurationNs idleAfterSyncNs = 0;
    // The time the threads that launch this device's work spend inside synchronizing calls in the
    // window (their union): host time blocked on the GPU, which host work could otherwise overlap.
    core::DurationNs hostSyncNs = 0;
    // Host work on the launch path: for each thread that launches this device's work, the time in
    // the window during which it runs a framework op, Python function or runtime call, less its data
    // loading (and the batch upload) and blocking waits (synchronizations, blocking copies); the
    // longest of these threads. A thread's work is serial, so the step cannot get shorter than this
    // by removing GPU idle; it is the work a fix to the input pipeline leaves on the host's critical
    // path. 0 when no host activity is recorded.
    core::DurationNs hostWorkNs = 0;
    std::int64_t kernelCount = 0;
    std::int64_t memcpyCount = 0;
    std::int64_t memsetCount = 0;
    std::int64_t shortKernelCount = 0;  // kernels shorter than AccountingOptions::shortKernelNs
    std::int64_t idleIntervalCount = 0;

    // part / windowNs, 0 for an empty window.
    double share(core::DurationNs part) const {
        return windowNs > 0 ? static_cast<double>(part) / static_cast<double>(windowNs) : 0.0;
    }
    double busyFraction() const { return share(busyNs); }
};

struct AccountingOptions {
    double minCoverage = 0.5;                 // share of a gap a cause must cover to explain it
    core::DurationNs shortKernelNs = 10'000;  // "short kernel" for launch-overhead evidence (10 us)
    core::DurationNs minIdleNs = 0;           // shorter gaps are still counted but not listed
    // A copy call at least this long blocked the host (an enqueue takes a few us): 50 us.
    core::DurationNs blockingCopyCallNs = 50'000;
    // A gap is dispatch (LaunchOverhead) unless stretches without any launch call longer than this
    // cover at least half of it (then HostWork). An eager PyTorch op costs the host roughly
    // 5-30 us of dispatch and launch, so 100 us without a launch is several ops' worth of time
    // spent on something else.
    core::DurationNs launchSilenceNs = 100'000;
    // A gap follows a synchronization when a synchronizing call started before the gap and ended
    // no earlier than this before it: host and GPU timestamps of one trace can differ by a few us.
    core::DurationNs syncDrainToleranceNs = 10'000;
    int frameSamplesPerGap = 64;  // sampled points per HostWork gap for hostWorkFrames
    // A thread's "CPU %" sample at least this high (100 = one core) puts it on the CPU for the
    // sample's interval: half a core, so a thread that mostly waits (a blocked DataLoader
    // __next__, a cudaStreamSynchronize that yields) is not counted.
    double onCpuMinPercent = 50;
};

struct GpuTimeAccountingResult {
    std::vector<GpuTimeBreakdown> perStep;    // one row per (step, device), step-major
    std::vector<GpuTimeBreakdown> perDevice;  // one row per device over all steps' span
    // One row per device over its own GPU span (first GPU op start to last GPU op end), without the
    // idle split: the plain "GPU busy %" of a trace.
    std::vector<GpuTimeBreakdown> perDeviceGpuSpan;
    // Per device (ascending): its device-level intervals sorted by start, then its stream-level ones.
    std::vector<IdleInterval> idleIntervals;
    std::vector<std::int16_t> devices;  // devices with GPU work, ascending
    // Per device (ascending): the frames that took the HostWork idle, by exclusive time descending
    // (at most 20 per device).
    std::vector<HostFrameTime> hostWorkFrames;
    // Per device (ascending): the frames that took the DataWait idle (the input pipeline's data
    // ranges and the frames nested in them: transforms, collate, copies), by exclusive time
    // descending (at most 20 per device). A data range's own exclusive time is its code that the
    // profiler recorded no frames for (Python without with_stack, or a wait on worker processes).
    std::vector<HostFrameTime> dataWaitFrames;
    // Per device (ascending): the synchronizing calls the idle after a synchronization followed
    // (IdleInterval::afterSyncName), by that gap time descending (at most 20 per device); wholeNs is
    // the device's idle after synchronizations in the gaps counted.
    std::vector<HostFrameTime> afterSyncCalls;
};

class SampledStacks;

// `steadySteps` (StepTimeSummary::steady): when given, hostWorkFrames and dataWaitFrames count only
// the gaps of steady steps, the window the overall signals share them of (warm-up steps left out).
// `stacks`: the model's sampled stacks, when the caller prepared them (else prepared here when the
// model has samples).
GpuTimeAccountingResult computeGpuTimeAccounting(const core::TraceModel& model, const StepsResult& steps,
                                                 const KernelStatsResult& kernels,
                                                 const AccountingOptions& options = {},
                                                 const std::vector<bool>& steadySteps = {},
                                                 const SampledStacks* stacks = nullptr);

}  // namespace chokepoint::analysis
