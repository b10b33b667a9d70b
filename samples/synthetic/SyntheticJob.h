#pragma once
// Synthetic multi-rank training jobs: one trace per rank of a data-parallel (optionally also
// tensor-parallel) transformer training run, with NCCL collectives whose timing follows the
// physics of a real job, and optionally one late rank whose cause is visible in its own trace.
// They test the job analysis (core/job) at 8 to 1,024 ranks without a cluster. Every model is
// labelled synthetic in its CaptureMetadata.
//
// README (samples/synthetic):
// - Each rank is one process with one H100 (device 0): ProfilerStep#N ranges on the main thread,
//   aten:: ops with cudaLaunchKernel calls joined to their kernels by correlation id, compute
//   kernels on stream 7, NCCL kernels on stream 20 named like real ones
//   ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"), and for every
//   NCCL kernel a core::CollectiveCallRow (collective name, process group, ranks, dtype, sizes).
//   distributedInfo holds the rank, world size and backend "nccl"; metadata.hostName is
//   "node<k>" with ranksPerHost ranks per host.
// - A step: DataLoader wait, H2D copy, forward (per layer: attention and MLP; with tensor
//   parallelism an all-reduce in the TP group after each), backward (a TP all-reduce per layer),
//   data-parallel gradient all-reduce in two buckets (the first overlaps the rest of backward,
//   or reduce-scatter + all-gather with shardedDataParallel), optimizer, loss.item() sync.
// - Collectives: a rank's NCCL kernel starts when the rank arrives (its GPU work before the
//   collective is done, its NCCL stream is free and the launch call has run); every participant's
//   kernel ends at the last arrival plus the transfer time (ring bus-bandwidth factors over
//   150 GB/s inside a host, 45 GB/s across hosts) plus up to 2 us jitter.
// - Late rank causes (visible in that rank's trace, in every step unless said otherwise):
//   DataWait: a longer DataLoader __next__ range on the main thread, GPU idle.
//   HostPython: python_function frames (train.py(88): compute_metrics, ...) with no launches, GPU idle.
//   LongerKernels: the same compute kernels, uniformly longer (a slower or throttled GPU).
//   ExtraKernels: additional GEMM kernels at the start of the forward (imbalanced work).
//   BeforeWindow: a data wait in the first step only, and the rank's trace begins just before its
//   first (late) collective, as if its profiler started late: host events from before are missing,
//   GPU work that started after the window opened is kept (some without their launch call), and
//   the cause lies outside the window.
// - Clocks: after a rank is built, its clock offset (SyntheticJobTruth::clockOffsetsNs) is added to
//   every timestamp; job time = rank time - offset. Ranks on one host share an offset unless
//   perHostClock is false.
// - Balanced ranks differ by small jitter (well under 1 % of the step).
// Write a job with writeSyntheticJob (SyntheticJobWriter.h) or `chokepoint-make-job --help`.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/Result.h"
#include "core/model/TraceModel.h"

namespace chokepoint::samples {

enum class LateCause {
    None,
    DataWait,
    LongerKernels,
    ExtraKernels,
    HostPython,
    BeforeWindow,
};

std::string_view lateCauseName(LateCause cause);  // "none", "data", "longer-kernels", ...
std::optional<LateCause> parseLateCause(std::string_view name);

struct SyntheticJobOptions {
    int ranks = 8;  // world size, 1..4096
    int steps = 4;
    int ranksPerHost = 8;
    std::uint64_t seed = 1;
    int lateRank = -1;  // -1: no late rank
    LateCause cause = LateCause::None;
    std::int64_t lateByNs = 0;  // 0: 15 % of the nominal step
    // Clock offsets are drawn in [-clockSkewNsMax, +clockSkewNsMax], per host (or per rank).
    std::int64_t clockSkewNsMax = 200'000;
    bool perHostClock = true;
    int tensorParallelSize = 1;  // > 1: TP groups of consecutive ranks; must divide ranks
    // The first gradient bucket's collective overlaps the rest of backward (DDP); false: every
    // collective blocks the compute stream until it ends.
    bool overlapFirstBucket = true;
    bool shardedDataParallel = false;  // DP gradients as reduce-scatter + all-gather instead of all-reduce
    std::vector<int> missingRanks;     // simulated, but not returned (their files are "lost")
    bool unevenCollectives = false;    // unevenRank does not record the job's last collective
    int layers = 3;                    // 15 compute kernels per layer per step (~50 kernels a step)
};

// What a job was made with, for tests and for chokepoint-make-job's summary.
struct SyntheticJobTruth {
    int worldSize = 0;
    int lateRank = -1;
    LateCause cause = LateCause::None;
    std::int64_t lateByNs = 0;                 // resolved (the default replaced by its value)
    std::int64_t nominalStepNs = 0;            // the step of a balanced rank, from the cost model
    std::vector<std::int64_t> clockOffsetsNs;  // per rank: rank clock = job clock + offset
    int unevenRank = -1;                       // the rank that misses the last collective, or -1
    std::int32_t collectivesPerStep = 0;       // NCCL kernels per rank per step
};

// Checks the options; the error names the option.
core::Status validate(const SyntheticJobOptions& options);
// The truth of the job these options make (cheap: no traces are built).
SyntheticJobTruth syntheticJobTruth(const SyntheticJobOptions& options);

// Finalized models, one per generated rank, ordered by rank (missing ranks left out).
// `options` must pass validate().
std::vector<core::TraceModel> makeSyntheticJob(const SyntheticJobOptions& options);

}  // namespace chokepoint::samples
