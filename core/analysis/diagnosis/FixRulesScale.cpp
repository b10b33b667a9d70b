// The fix rules for batch, memory capacity and communication (R7-R12).

#include <algorithm>
#include <cmath>
#include <string>

#include "core/analysis/diagnosis/FixContext.h"
#include "core/analysis/diagnosis/FixRules.h"
#include "core/base/Format.h"

namespace chokepoint::analysis::fixrules {

// --- R7 ---
void gradientAccumulation(FixContext& ctx) {
    const DiagnosisSignals& s = ctx.signals();
    const DiagnosisConfig& c = ctx.config();
    const double stepNs = ctx.stepNs();
    const bool capacity = ctx.headline(Bottleneck::MemoryCapacity);
    const double comm = s.exposedCommunicationShare();
    const bool communication = ctx.active(Bottleneck::Communication) && comm >= c.secondaryMinFraction;
    if (!capacity && !communication) {
        ctx.skip(
            "R7",
            "neither memory capacity nor communication binds (exposed communication and collective waits " +
                pct(comm) + "): accumulation adds complexity without a gain");
        return;
    }
    Recommendation r;
    r.ruleId = "R7";
    r.term = IronLawTerm::Utilization;
    const double k = std::max(2.0, c.accumulationSteps);
    if (capacity) {
        r.target = Bottleneck::MemoryCapacity;
        r.targetShare = 1.0;
        r.evidence = "the job does not fit; accumulation over k micro-batches cuts activation memory k-fold";
        const double overhead = c.accumulationOverheadFraction * stepNs;
        r.gain = ctx.gainOf({stepNs + overhead, stepNs + 0.02 * stepNs, stepNs + 0.15 * stepNs}, false,
                            "activation memory / k at about " + pct(c.accumulationOverheadFraction) +
                                " more time per sample (smaller micro-batches use the GPU less well)",
                            "the overhead of smaller micro-batches ranges from 2 % to 15 % of the step, "
                            "depending on how well they still fill the GPU");
    } else {
        r.target = Bottleneck::Communication;
        r.targetShare = comm;
        r.evidence = "exposed communication " + pct(s.exposedCommunicationFraction) +
                     " + waiting on collectives " + pct(s.idleCollectiveFraction) +
                     " of the step; syncing every k-th micro-batch";
        const double savedComm = comm * stepNs * (1.0 - 1.0 / k);
        const double saved = savedComm - c.accumulationOverheadFraction * stepNs;
        r.gain = ctx.gpuGain(savedComm - 0.15 * stepNs, saved, savedComm - 0.02 * stepNs, false,
                             "gradient sync every " + core::formatFixed(k, 0) +
                                 " micro-batches: exposed communication / k, minus about " +
                                 pct(c.accumulationOverheadFraction) + " accumulation overhead",
                             "the accumulation overhead ranges from 2 % to 15 % of the step");
    }
    r.costs = "2-15 % per-update overhead (the text quotes 2-5 %, ~8 %, 10-15 %)";
    r.risks = "BatchNorm, dropout and step-indexed schedules break exact equivalence";
    r.companions = {"divide the loss by k (or reduce the LR by k when summing)",
                    "use model.no_sync() on micro-batches 1..k-1"};
    r.pytorchChange = FixContext::snippet("r7_accumulation");
    r.references =
        "PyTorch documentation: DistributedDataParallel.no_sync; PyTorch AMP examples: gradient "
        "accumulation";
    ctx.show(std::move(r), capacity ? "memory-capacity-bound (second of the single-machine steps)"
                                    : "communication share " + pct(comm));
}

// --- R8 ---
void activationCheckpointing(FixContext& ctx) {
    const DiagnosisSignals& s = ctx.signals();
    const DiagnosisConfig& c = ctx.config();
    const double stepNs = ctx.stepNs();
    if (!ctx.headline(Bottleneck::MemoryCapacity)) {
        ctx.skip("R8",
                 "not memory-capacity-bound: checkpointing adds ~33 % compute and only pays when memory, not "
                 "compute, binds");
        return;
    }
    Recommendation r;
    r.ruleId = "R8";
    r.target = Bottleneck::MemoryCapacity;
    r.term = IronLawTerm::TotalOperations;
    r.targetShare = 1.0;
    r.evidence = "the job does not fit in device memory";
    const double recompute = c.checkpointRecomputeFraction * s.computeFraction * stepNs;
    r.gain =
        ctx.gainOf({stepNs + recompute, stepNs, stepNs + recompute}, false,
                   "activation memory falls to O(sqrt(N)) layers with sqrt(N) checkpoints at about one extra "
                   "forward pass (~33 % more compute; Chen et al., 2016): the step gets longer, the job fits",
                   "low end: only cheap layers are recomputed; high end: a full extra forward pass");
    r.costs = "~33 % extra compute; lowers MFU-visible efficiency (recompute is excluded from MFU)";
    r.risks = "checkpoint before attention, skip FFN and normalization; debugging complexity";
    r.companions = {"FlashAttention (4-8x larger models together)",
                    "gradient accumulation for the target batch"};
    r.pytorchChange = FixContext::snippet("r8_checkpoint");
    r.references =
        "Chen et al., Training Deep Nets with Sublinear Memory Cost, 2016; PyTorch documentation: "
        "torch.utils.checkpoint";
    ctx.show(std::move(r), "memory-capacity-bound");
}

// --- R9 ---
void batchSize(FixContext& ctx) {
    const Verdict& v = ctx.verdict();
    const DiagnosisSignals& s = ctx.signals();
    const double stepNs = ctx.stepNs();
    if (ctx.headline(Bottleneck::MemoryCapacity)) {
        ctx.skip("R9", "memory capacity caps the batch: a larger batch does not fit");
        return;
    }
    if (ctx.headline(Bottleneck::MemoryBandwidth)) {
        ctx.skip("R9",
                 "memory-bandwidth-bound: a larger batch does not raise the intensity of ops whose traffic "
                 "scales with the batch");
        return;
    }
    if (!ctx.headline(Bottleneck::LaunchOverhead) && !ctx.headline(Bottleneck::Compute)) {
        ctx.skip("R9", "batch size is not the lever for a " + std::string(toString(v.bottleneck)) + " job");
        return;
    }
    Recommendation r;
    r.ruleId = "R9";
    r.target = v.bottleneck;
    r.term = IronLawTerm::Utilization;
    r.targetShare = ctx.share(r.target);
    if (ctx.headline(Bottleneck::LaunchOverhead)) {
        const double overhead = s.idleLaunchOverheadFraction + s.idleSyncFraction;
        r.evidence = "fixed per-step overhead (launch, sync) is " + pct(overhead) + " of the step";
        // Doubling the batch doubles GPU work but not the fixed per-step host overhead.
        const double perSampleBefore = stepNs;
        const double perSampleAfter = (2.0 * (stepNs - overhead * stepNs) + overhead * stepNs) / 2.0;
        r.gain =
            ctx.gainOf({perSampleAfter, perSampleAfter, perSampleBefore}, false,
                       "per-sample time with a 2x batch: the fixed launch/sync overhead is amortized "
                       "over twice the samples",
                       "high end: no gain, when the host's per-step work grows with the batch (per-sample "
                       "Python, larger copies)");
        r.gain.summary = "per 'step' of the old batch size: " + r.gain.summary;
    } else {
        r.evidence = "compute-bound: batch and hidden sizes should be multiples of 8/32/64";
        r.gain.computed = false;
        r.gain.summary =
            "not computable from the trace (batch size is not recorded); a dimension one past a multiple "
            "of "
            "the tile size pays for a whole extra tile (wave quantization)";
        r.gain.basis = "wave quantization";
    }
    r.costs = "more activation memory per step";
    if (s.forwardOnly) {
        // Inference or evaluation (no backward pass): no learning rate to scale, latency to watch.
        r.risks = "a larger batch raises each request's latency while it raises throughput";
    } else {
        r.risks = "without LR scaling the run becomes throughput-healthy but optimization-starved";
        r.companions = {"R10: scale the learning rate linearly with the batch, with warmup"};
    }
    r.pytorchChange = FixContext::snippet("r9_batch");
    r.references =
        "NVIDIA Deep Learning Performance Guide: matrix multiplication background (tile and wave "
        "quantization); Goyal et al., Accurate, Large Minibatch SGD, 2017";
    ctx.show(std::move(r),
             std::string(toString(v.bottleneck)) + ": amortize fixed overhead / align the batch");
}

// --- R10 ---
void learningRateScaling(FixContext& ctx) {
    ctx.skip("R10",
             "a single trace shows no batch change; LR scaling is listed as the companion of R9 and checked "
             "when a batch change is known");
}

// --- R11 ---
void optimizerMemory(FixContext& ctx) {
    if (!ctx.headline(Bottleneck::MemoryCapacity)) {
        ctx.skip("R11",
                 "not memory-capacity-bound: optimizer-state sharding and offloading trade speed for memory");
        return;
    }
    Recommendation r;
    r.ruleId = "R11";
    r.target = Bottleneck::MemoryCapacity;
    r.term = IronLawTerm::Utilization;
    r.targetShare = 1.0;
    r.evidence = "the job does not fit; Adam state is 8 B/param, half of training memory";
    r.gain.computed = false;
    r.gain.summary = "memory: 8-bit Adam cuts optimizer state ~4x; ZeRO/FSDP shards state over N GPUs";
    r.gain.basis =
        "Adam keeps two FP32 moments per parameter; 8-bit states take a quarter of that, sharding "
        "divides it by the number of GPUs";
    r.costs = "extra communication (sharding) or PCIe traffic (offloading)";
    r.risks = "8-bit optimizers may need tuning; sharding needs several GPUs";
    r.companions = {"try mixed precision, accumulation and checkpointing first"};
    r.pytorchChange = FixContext::snippet("r11_optimizer_memory");
    r.references =
        "Rajbhandari et al., ZeRO, SC 2020; Dettmers et al., 8-bit Optimizers via Block-wise "
        "Quantization, ICLR 2022; PyTorch documentation: FSDP";
    ctx.show(std::move(r), "memory-capacity-bound");
}

// --- R12 ---
void communicationOverlap(FixContext& ctx) {
    const DiagnosisSignals& s = ctx.signals();
    const DiagnosisConfig& c = ctx.config();
    const double stepNs = ctx.stepNs();
    const double comm = s.exposedCommunicationShare();
    if (!ctx.active(Bottleneck::Communication) || comm < c.secondaryMinFraction) {
        ctx.skip("R12",
                 "exposed communication and collective waits (" + pct(comm) +
                     ") are not a constraint; scale-out is recommended only after mixed precision, "
                     "accumulation, checkpointing and the data pipeline, and only when memory, wall-clock or "
                     "dataset size binds, which one trace cannot show");
        return;
    }
    Recommendation r;
    r.ruleId = "R12";
    r.target = Bottleneck::Communication;
    r.term = IronLawTerm::Utilization;
    r.targetShare = comm;
    r.evidence = "exposed communication " + pct(s.exposedCommunicationFraction) +
                 " + waiting on collectives " + pct(s.idleCollectiveFraction) + " of the step (world size " +
                 std::to_string(s.worldSize) + ")";
    r.gain = ctx.gpuGain(0, comm * stepNs, comm * stepNs, true,
                         "gradient AllReduce hidden behind backward and the next forward (PyTorch DDP "
                         "bucketing): at most the exposed communication disappears",
                         "high end: no gain, when the collectives wait on other ranks (stragglers, "
                         "imbalance) rather than on the network");
    r.costs = "bucket tuning; keeping frequent collectives on NVLink constrains placement";
    r.risks = "gradient compression changes numerics: check convergence";
    r.companions = {"R7: gradient accumulation with no_sync() to sync less often"};
    r.pytorchChange = FixContext::snippet("r12_ddp_overlap");
    r.references =
        "Li et al., PyTorch Distributed: Experiences on Accelerating Data Parallel Training, VLDB 2020; "
        "PyTorch documentation: DistributedDataParallel";
    ctx.show(std::move(r), "communication share " + pct(comm));
}

}  // namespace chokepoint::analysis::fixrules
