// The kernel-side fix rules: precision (R4), attention (R5), fusion (R6), hardware (R13), grids (R16).

#include <algorithm>
#include <cmath>
#include <string>

#include "core/analysis/diagnosis/ComputeFormulas.h"
#include "core/analysis/diagnosis/FixContext.h"
#include "core/analysis/diagnosis/FixRules.h"
#include "core/base/Format.h"

namespace chokepoint::analysis::fixrules {

// The peak an MFU is measured against after mixed precision: the device's 16-bit tensor-core one,
// many times the FP32 peak (V100: 125 against 15.7 TFLOP/s), so the MFU falls while the step shortens.
PeakChange halfPrecisionPeak(const DiagnosisSignals& s) {
    if (!(s.halfPrecisionPeakRatio > 1.0)) {
        return {};
    }
    const bool fp16 = s.architecture == "volta" || s.architecture == "turing" || s.architecture == "pascal";
    return {s.halfPrecisionPeakRatio, std::string(fp16 ? "the FP16" : "the BF16") + " tensor-core peak (" +
                                          core::formatFixed(s.halfPrecisionPeakRatio, 1) + "x today's)"};
}

// --- R4 ---
void mixedPrecision(FixContext& ctx) {
    const DiagnosisSignals& s = ctx.signals();
    const DiagnosisConfig& c = ctx.config();
    if (ctx.headline(Bottleneck::Communication)) {
        ctx.skip("R4",
                 "communication-bound: precision reduction for communication-bound workloads is a "
                 "misdiagnosis");
        return;
    }
    if (s.parameterCount && *s.parameterCount < c.mixedPrecisionMinParameters) {
        ctx.skip("R4", "model has " + core::formatFixed(*s.parameterCount / 1e6, 1) +
                           "M parameters: under 10M the cost of mixed precision may exceed its benefit");
        return;
    }
    const bool capacity = ctx.headline(Bottleneck::MemoryCapacity);
    const double fp32 = s.fp32MatmulShare;
    if (!capacity && fp32 < c.fp32MatmulMinShare) {
        ctx.skip("R4", "FP32 matmul/conv kernels are " + pct(fp32) + " of kernel time (< " +
                           pct(c.fp32MatmulMinShare) + "): the math already runs in reduced precision");
        return;
    }
    if (!capacity && ctx.headline(Bottleneck::LaunchOverhead)) {
        ctx.skip("R4", "launch-overhead-bound: faster kernels only lengthen the GPU's idle gaps");
        return;
    }
    if (!capacity && !ctx.active(Bottleneck::Compute) && !ctx.active(Bottleneck::MemoryBandwidth)) {
        ctx.skip("R4", "neither compute nor memory bandwidth is an active constraint");
        return;
    }
    Recommendation r;
    r.ruleId = "R4";
    r.target = capacity ? Bottleneck::MemoryCapacity
                        : (ctx.headline(Bottleneck::MemoryBandwidth) ? Bottleneck::MemoryBandwidth
                                                                     : Bottleneck::Compute);
    r.term = IronLawTerm::PeakThroughput;
    r.targetShare = capacity ? 1.0 : ctx.share(r.target);
    r.evidence = capacity ? "the job does not fit; mixed precision halves weight/activation bytes"
                          : pct(fp32) + " of kernel time is FP32 matmul/conv without tensor cores";
    const auto savedAt = [&](double speedup) { return fp32 * ctx.kernelTimeNs() * (1.0 - 1.0 / speedup); };
    r.gain = ctx.gpuGain(savedAt(std::min(2.0, c.mixedPrecisionSpeedup)), savedAt(c.mixedPrecisionSpeedup),
                         savedAt(std::max(3.0, c.mixedPrecisionSpeedup)), false,
                         "FP32 GEMM/conv time x (1 - 1/" + core::formatFixed(c.mixedPrecisionSpeedup, 1) +
                             "): tensor-core matmuls are typically 2-3x faster than FP32 ones; weights and "
                             "activations take half the memory",
                         "the tensor-core speedup depends on shapes and alignment: the range assumes 2x to "
                         "3x on the FP32 matmul/conv time; idle time and other kernels are unchanged",
                         halfPrecisionPeak(s));
    r.costs = "validation of convergence on a representative run; FP32 master weights add 4 B/param";
    // The dtype the device supports: BF16 from Ampere (and CDNA) on, FP16 with loss scaling before
    // (V100 has no BF16); unknown architectures get both, labelled.
    const std::string& arch = s.architecture;
    const bool bf16 =
        arch == "ampere" || arch == "ada" || arch == "hopper" || arch == "blackwell" || arch == "cdna";
    const bool fp16 = arch == "volta" || arch == "turing" || arch == "pascal";
    if (fp16) {
        r.risks = "FP16 range is +-65,504: overflow/underflow and NaNs without loss scaling; " + arch +
                  " has no BF16, so GradScaler is required";
        r.companions = {"dynamic loss scaling (GradScaler)", "FP32 master weights",
                        "keep LayerNorm, softmax and loss accumulation in FP32"};
        r.pytorchChange = FixContext::snippet("r4_fp16", {{"arch", arch}});
    } else if (bf16) {
        r.risks =
            "BF16 keeps FP32's range (no loss scaling needed) but has fewer mantissa bits: validate "
            "convergence";
        r.companions = {"FP32 master weights", "keep LayerNorm, softmax and loss accumulation in FP32"};
        r.pytorchChange = FixContext::snippet("r4_bf16", {{"arch", arch}});
    } else {
        r.risks =
            "FP16 range is +-65,504: overflow/underflow and NaNs without loss scaling; BF16 "
            "avoids most of it on Ampere+";
        r.companions = {"dynamic loss scaling (GradScaler) for FP16", "FP32 master weights",
                        "keep LayerNorm, softmax and loss accumulation in FP32"};
        r.pytorchChange = FixContext::snippet("r4_unknown_arch");
    }
    r.references =
        "Micikevicius et al., Mixed Precision Training, ICLR 2018; PyTorch documentation: torch.amp "
        "(autocast, GradScaler)";
    ctx.show(std::move(r), capacity ? "memory-capacity-bound: first of the single-machine steps"
                                    : "FP32 matmul share " + pct(fp32) + " >= " + pct(c.fp32MatmulMinShare));
}

// --- R5 ---
void flashAttention(FixContext& ctx) {
    const DiagnosisSignals& s = ctx.signals();
    const DiagnosisConfig& c = ctx.config();
    if (s.fusedAttentionSeen) {
        ctx.skip("R5", "fused attention kernels (flash / memory-efficient) are already in use");
        return;
    }
    const double softmax = s.softmaxShare;
    if (softmax < c.attentionMinShare) {
        ctx.skip("R5", "no materialized attention: softmax/reduction kernels are " + pct(softmax) +
                           " of kernel time (< " + pct(c.attentionMinShare) + ")");
        return;
    }
    if (s.convolutionSeen && s.attentionShare == 0 && s.gemmShare > 0 && softmax < 2 * c.attentionMinShare) {
        ctx.skip("R5", "convolutional workload: FlashAttention does not apply to CNNs and MLPs");
        return;
    }
    if (s.architecture == "volta" || s.architecture == "turing" || s.architecture == "pascal") {
        ctx.skip("R5", "older GPU architecture (" + s.architecture +
                           ") without comparable SRAM bandwidth: low return");
        return;
    }
    if (!ctx.active(Bottleneck::MemoryBandwidth) && !ctx.active(Bottleneck::Compute) &&
        !ctx.headline(Bottleneck::MemoryCapacity)) {
        ctx.skip("R5", "neither memory bandwidth nor compute is an active constraint");
        return;
    }
    Recommendation r;
    r.ruleId = "R5";
    r.target =
        ctx.headline(Bottleneck::MemoryCapacity)
            ? Bottleneck::MemoryCapacity
            : (ctx.active(Bottleneck::MemoryBandwidth) ? Bottleneck::MemoryBandwidth : Bottleneck::Compute);
    r.term = IronLawTerm::MemoryTraffic;
    r.targetShare = ctx.share(r.target);
    r.evidence = pct(softmax) +
                 " of kernel time in softmax/reduction kernels of a materialized S x S "
                 "attention (no flash kernels seen)";
    const auto savedAt = [&](double speedup) { return softmax * ctx.kernelTimeNs() * (1.0 - 1.0 / speedup); };
    r.gain = ctx.gpuGain(savedAt(std::min(2.0, c.flashAttentionSpeedup)), savedAt(c.flashAttentionSpeedup),
                         savedAt(std::max(4.0, c.flashAttentionSpeedup)), false,
                         "attention-path time x (1 - 1/" + core::formatFixed(c.flashAttentionSpeedup, 1) +
                             "): FlashAttention is 2-4x faster than materialized attention and needs O(S) "
                             "memory (Dao et al., 2022)",
                         "the range assumes 2x to 4x on the softmax/reduction time; short sequences gain "
                         "least");
    r.costs = "backward recomputation adds some FLOPs (excluded from MFU)";
    r.risks = "short sequences gain little (tiling overhead); needs FP16/BF16 and contiguous layouts";
    r.companions = {"FP16/BF16 inputs (R4)", "combine with checkpointing when memory binds"};
    r.pytorchChange = FixContext::snippet("r5_sdpa");
    r.references =
        "Dao et al., FlashAttention, NeurIPS 2022; PyTorch documentation: "
        "torch.nn.functional.scaled_dot_product_attention";
    ctx.show(std::move(r), "materialized attention " + pct(softmax) + " of kernel time");
}

// --- R6 ---
void fusion(FixContext& ctx) {
    const DiagnosisSignals& s = ctx.signals();
    const DiagnosisConfig& c = ctx.config();
    const double stepNs = ctx.stepNs();
    // The launch-overhead class holds synchronization idle too; fusion and CUDA graphs remove only
    // the dispatch part, so that part must matter (the synchronizations are R19's).
    const bool overhead =
        (ctx.headline(Bottleneck::LaunchOverhead) || ctx.active(Bottleneck::LaunchOverhead)) &&
        s.idleLaunchOverheadFraction >= c.secondaryMinFraction;
    const double fusable = s.elementwiseShare;
    const bool oneKernelRepeated = s.fusableKernelNameCount >= 0 && s.fusableKernelNameCount < 2;
    const bool memory =
        ctx.active(Bottleneck::MemoryBandwidth) && fusable >= c.fusionMinShare && !oneKernelRepeated;
    if (s.compiledCodeSeen && s.cudaGraphsSeen) {
        ctx.skip("R6",
                 "torch.compile (Triton kernels / compiled regions) and CUDA graphs are already in use");
        return;
    }
    if (!overhead && ctx.active(Bottleneck::MemoryBandwidth) && fusable >= c.fusionMinShare &&
        oneKernelRepeated) {
        ctx.skip("R6", "the memory-bound kernel time is one kernel repeated (" + pct(fusable) +
                           " of kernel time): fusion needs two or more different ops to merge");
        return;
    }
    if (!overhead && !memory) {
        ctx.skip("R6", "neither launch overhead (dispatch " + pct(s.idleLaunchOverheadFraction) +
                           " of the step) nor memory-bound elementwise work is significant (elementwise/"
                           "norm/reduction " +
                           pct(fusable) + " of kernel time); fusion does not help compute-bound matmuls");
        return;
    }
    Recommendation r;
    r.ruleId = "R6";
    r.term = IronLawTerm::Utilization;
    double savedNs = 0;
    if (overhead && (ctx.headline(Bottleneck::LaunchOverhead) || !memory)) {
        r.target = Bottleneck::LaunchOverhead;
        const double gap = s.idleLaunchOverheadFraction + s.idleSyncFraction;
        r.targetShare = gap;
        r.evidence = "GPU idle " + pct(s.idleLaunchOverheadFraction) + " while the host dispatches and " +
                     pct(s.idleSyncFraction) + " in synchronization; " + std::to_string(s.shortKernelCount) +
                     " of " + std::to_string(s.kernelCount) + " kernels are short";
        savedNs = s.idleLaunchOverheadFraction * stepNs;
        const double busy = s.busyFraction * stepNs;
        // CUDA graphs and fusion take launch work off the host as well, so the host's launch path
        // is no bound here; the GPU's busy time is.
        r.gain = ctx.gainOf(
            {std::max(stepNs - savedNs, busy), std::max(stepNs - savedNs - s.idleSyncFraction * stepNs, busy),
             stepNs},
            true,
            "fewer, larger kernels and CUDA graphs remove the dispatch gaps: at most the launch-overhead "
            "idle disappears, and the step cannot get shorter than the GPU's busy time",
            "low end: the synchronization idle goes too (no host syncs inside a captured graph); high "
            "end: "
            "no gain, when the host work per step is not launch work (Python, data handling) and stays");
    } else {
        r.target = Bottleneck::MemoryBandwidth;
        r.targetShare = ctx.share(Bottleneck::MemoryBandwidth);
        r.evidence = pct(fusable) +
                     " of kernel time in elementwise/normalization/reduction kernels that "
                     "round-trip HBM";
        savedNs = fusable * ctx.kernelTimeNs() * 0.5;
        // Half is the point estimate, not a bound: the range runs to all of that kernel time.
        r.gain = ctx.gpuGain(0, savedNs, fusable * ctx.kernelTimeNs(), false,
                             "fusing chains of memory-bound kernels removes intermediate HBM round trips; "
                             "assumed: half of that kernel time disappears",
                             "no published figure applies to an arbitrary kernel mix: the range runs from no "
                             "gain to all of the elementwise/normalization/reduction time");
    }
    r.costs = "compile time at start-up; graph breaks on dynamic Python code";
    r.risks = "CUDA graphs need static shapes and no host synchronization inside the captured region";
    r.companions = {"remove host synchronizations (.item(), .cpu(), print of tensors) from the hot loop"};
    // Suggest only what the trace does not show in use already.
    if (s.compiledCodeSeen) {
        r.evidence += "; torch.compile is already in use (Triton kernels / compiled regions)";
        r.pytorchChange = FixContext::snippet("r6_cuda_graphs");
    } else if (s.cudaGraphsSeen) {
        r.evidence += "; CUDA graphs are already in use";
        r.pytorchChange = FixContext::snippet("r6_compile");
    } else {
        r.pytorchChange = FixContext::snippet("r6_compile_and_graphs");
    }
    r.pytorchChange += FixContext::snippet("r6_keep_on_gpu");
    r.references =
        "PyTorch documentation: torch.compile, CUDA Graphs (torch.cuda.graphs); PyTorch Performance "
        "Tuning Guide";
    ctx.show(std::move(r), r.target == Bottleneck::LaunchOverhead
                               ? "launch/sync idle is an active constraint"
                               : "memory-bound elementwise share " + pct(fusable));
}

// --- R13 ---
void fasterHardware(FixContext& ctx) {
    const Verdict& v = ctx.verdict();
    const DiagnosisSignals& s = ctx.signals();
    const DiagnosisConfig& c = ctx.config();
    const double stepNs = ctx.stepNs();
    if (!ctx.headline(Bottleneck::Compute)) {
        ctx.skip("R13", "a faster accelerator helps only compute-bound time; this job is " +
                            std::string(toString(v.bottleneck)) +
                            " (hardware upgrades for non-compute bottlenecks buy a larger invoice)");
        return;
    }
    Recommendation r;
    r.ruleId = "R13";
    r.target = Bottleneck::Compute;
    r.term = IronLawTerm::PeakThroughput;
    r.targetShare = ctx.share(Bottleneck::Compute);
    // Only compute-bound time scales with the peak: memory-bound kernel time is taken out.
    const double memoryBound = s.busyFraction * std::clamp(s.memoryBoundBusyShare.value_or(0.0), 0.0, 1.0);
    double computeShare = std::clamp(s.computeFraction - memoryBound, 0.0, 1.0);
    if (s.compositionKnown) {
        computeShare = std::min(computeShare, s.busyFraction * s.computeBoundKernelShare);
    }
    const double speedup = formulas::peakUpgradeSpeedup(computeShare, c.hardwareUpgradePeakRatio);
    r.evidence =
        std::string(v.desiredEndState ? "compute-bound at the desired end state: "
                    : v.bottleneck == Bottleneck::ComputeMemoryMixed ? "mixed compute- and memory-bound: "
                                                                     : "compute-bound: ") +
        "compute-bound kernel time " + pct(computeShare) + " of the step";
    // Memory-bound kernel time is already taken out of computeShare; the low end scales only
    // half of what is left (kernels near the ridge gain less than the peak ratio).
    const double slowSpeedup = formulas::peakUpgradeSpeedup(computeShare / 2, c.hardwareUpgradePeakRatio);
    r.gain = ctx.gpuGain(
        stepNs - stepNs / slowSpeedup, stepNs - stepNs / speedup, stepNs - stepNs / speedup, false,
        "Amdahl over the compute-bound kernel time with a " +
            core::formatFixed(c.hardwareUpgradePeakRatio, 1) + "x peak: only compute-bound time scales",
        "low end: only half of that time scales (kernels near the ridge become memory-bound "
        "on a faster part)",
        {c.hardwareUpgradePeakRatio,
         "the faster part's " + core::formatFixed(c.hardwareUpgradePeakRatio, 1) + "x peak"});
    r.costs = "hardware cost; or reduce O: fewer tokens, pruning, distillation";
    r.risks = "memory-bound kernels do not speed up with peak FLOP/s";
    r.pytorchChange = FixContext::snippet("r13_hardware");
    r.references =
        "Amdahl, Validity of the single processor approach, AFIPS 1967; Williams et al., Roofline, CACM "
        "2009";
    ctx.show(std::move(r), v.bottleneck == Bottleneck::ComputeMemoryMixed
                               ? "compute-bound kernels hold " + pct(computeShare) +
                                     " of the step: a faster peak shortens that part"
                               : "compute-bound: only the peak or the operation count is left");
}

// --- R16: kernels with fewer blocks than SMs ---
void fillTheSms(FixContext& ctx) {
    const Verdict& v = ctx.verdict();
    const DiagnosisSignals& s = ctx.signals();
    const DiagnosisConfig& c = ctx.config();
    const double stepNs = ctx.stepNs();
    const double idle = s.underOccupiedIdleSmShare;
    if (s.smCount <= 0 || s.underOccupiedKernel.empty() || idle < c.underOccupancyMinIdleSmShare) {
        ctx.skip("R16", s.smCount <= 0 ? std::string("the device's SM count is unknown")
                                       : "kernels with fewer blocks than SMs leave " + pct(idle) +
                                             " of the SM capacity idle over the kernel time (< " +
                                             pct(c.underOccupancyMinIdleSmShare) + ")");
        return;
    }
    Recommendation r;
    r.ruleId = "R16";
    r.target =
        v.bottleneck == Bottleneck::MemoryBandwidth ? Bottleneck::MemoryBandwidth : Bottleneck::Compute;
    r.term = IronLawTerm::Utilization;
    // Kernel time is the compute union (kernels, not copies) of the step.
    const double kernelShare = std::clamp(s.computeFraction, 0.0, 1.0);
    r.targetShare = idle * kernelShare;
    const double blocks = static_cast<double>(s.underOccupiedBlocks);
    const double sms = static_cast<double>(s.smCount);
    r.evidence = pct(s.underOccupiedKernelShare) +
                 " of kernel time is in kernels whose grid has fewer blocks "
                 "than the " +
                 std::to_string(s.smCount) + " SMs, leaving " + pct(idle) +
                 " of the SM capacity idle over the kernel time; the largest, " +
                 evidenceName(s.underOccupiedKernel) + ", runs " + std::to_string(s.underOccupiedBlocks) +
                 " block" + (s.underOccupiedBlocks == 1 ? "" : "s") + " (at most " +
                 pct(std::min(1.0, blocks / sms)) + " of the SMs busy)";
    // Upper bound: each such kernel shrinks to blocks / SMs of its time when the same work is spread
    // over every SM (memory-bound kernels saturate DRAM earlier, so the real gain is smaller).
    r.gain =
        ctx.occupancyGain(idle * kernelShare * stepNs, true,
                          "each under-occupied kernel shrinks to blocks / SMs of its time if the same work "
                          "is spread over all SMs; memory-bound kernels stop scaling once DRAM bandwidth "
                          "saturates, so this is an upper bound");
    r.costs = "a launch configuration change (grid-stride loop) or a library call instead of a hand kernel";
    r.risks = "more blocks than the work can fill adds scheduling overhead; check the occupancy calculator";
    r.pytorchChange = FixContext::snippet("r16_grid");
    r.references = "CUDA C++ Best Practices Guide, 'Occupancy' and 'Thread and Block Heuristics'";
    ctx.show(std::move(r), "under-occupied kernels leave " + pct(idle) + " of the SM capacity idle");
}

}  // namespace chokepoint::analysis::fixrules
