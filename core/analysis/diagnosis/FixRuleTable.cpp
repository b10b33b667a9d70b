// The fix rule table (FixRules.h). The texts here are what docs/ANALYSIS.md lists (section 5);
// FixRuleTableTest fails when the two drift apart.

#include <algorithm>
#include <array>

#include "core/analysis/diagnosis/FixRules.h"

namespace chokepoint::analysis {

namespace {

using B = Bottleneck;

std::vector<FixRule> makeTable() {
    std::vector<FixRule> t;
    t.push_back({"R1",
                 "Data prefetching and pipeline overlap",
                 "data-bound active; idleDataWaitFraction, busyFraction, dataWaitFrames, sampledStacks, "
                 "hostWorkFraction, idleLaunchOverheadFraction, idleSyncFraction",
                 "data wait ≥ `dataWaitMinFraction` (10 %) and not compute-saturated (busy ≤ "
                 "`computeBoundMinBusy`) (L1091, L740)",
                 "max(step − data wait, host work): the critical-path model of the data fixes; overlapping "
                 "loading with compute turns the sum of the stages into their max",
                 {"r1_prefetch"},
                 {{B::Data, 0}},
                 {"R8", "R11"},
                 "aggressive prefetching vs a memory-constrained configuration",
                 FixRuleStage::Evaluate,
                 fixrules::prefetchData});
    t.push_back(
        {"R2",
         "Bypass Python serialization in the input pipeline",
         "data-bound active; idleDataWaitFraction, dataLoadingHostFraction, sampledMain (input work), "
         "hostWorkFraction",
         "data-bound (headline or secondary) with data wait ≥ `dataWaitMinFraction`",
         "at most max(step − data wait, host work): worker processes or GPU decoding remove the GIL "
         "serialization (PyTorch docs, multi-process data loading)",
         {"r2_parallel_preprocessing"},
         {{B::Data, 1}},
         {},
         "",
         FixRuleStage::Evaluate,
         fixrules::parallelPreprocessing});
    t.push_back({"R3",
                 "Faster storage, data format and locality",
                 "headline data-bound; idleDataWaitFraction, hostWorkFraction",
                 "headline data-bound with data wait ≥ 2 × `dataWaitMinFraction` (20 %)",
                 "at most max(step − data wait, host work): sequential shard formats recover a device's "
                 "sequential bandwidth (WebDataset documentation); storage throughput is not in the trace",
                 {"r3_sequential_shards"},
                 {{B::Data, 2}},
                 {},
                 "",
                 FixRuleStage::Evaluate,
                 fixrules::fasterStorage});
    t.push_back(
        {"R4",
         "Mixed precision (BF16/FP16 autocast)",
         "verdict classes; parameterCount, fp32MatmulShare, computeFraction, "
         "exposedCommunicationFraction, busyFraction, architecture, hostWorkFraction",
         "not communication-bound (L1989), params ≥ `mixedPrecisionMinParameters` (10M) when known "
         "(L1196), FP32 GEMM/conv ≥ `fp32MatmulMinShare` (10 %) of kernel time (or capacity-bound), "
         "not launch-bound, compute or memory-bw active",
         "FP32 GEMM time × (1 − 1/`mixedPrecisionSpeedup`), range 2–3× on tensor cores "
         "(Micikevicius et al., ICLR 2018); bounded by the host's launch path",
         {"r4_bf16", "r4_fp16", "r4_unknown_arch"},
         {{B::Compute, 0}, {B::MemoryBandwidth, 2}, {B::MemoryCapacity, 0}, {B::ComputeMemoryMixed, 1}},
         {},
         "",
         FixRuleStage::Evaluate,
         fixrules::mixedPrecision});
    t.push_back({"R5",
                 "FlashAttention (IO-aware attention)",
                 "verdict classes; fusedAttentionSeen, softmaxShare, convolutionSeen, attentionShare, "
                 "gemmShare, architecture, computeFraction, exposedCommunicationFraction, hostWorkFraction",
                 "softmax kernels ≥ `attentionMinShare` (5 %) and no fused attention seen; not a CNN; not "
                 "Volta/Turing/Pascal (L1381); memory-bw or compute active, or capacity-bound",
                 "softmax time × (1 − 1/`flashAttentionSpeedup`), range 2–4× (Dao et al., NeurIPS 2022); "
                 "bounded by the host's launch path",
                 {"r5_sdpa"},
                 {{B::Compute, 1}, {B::MemoryBandwidth, 1}, {B::ComputeMemoryMixed, 2}},
                 {},
                 "",
                 FixRuleStage::Evaluate,
                 fixrules::flashAttention});
    t.push_back(
        {"R6",
         "Operator/kernel fusion (torch.compile, CUDA graphs)",
         "verdict classes; elementwiseShare, fusableKernelNameCount, compiledCodeSeen, cudaGraphsSeen, "
         "idleLaunchOverheadFraction, idleSyncFraction, shortKernelCount, kernelCount, busyFraction",
         "launch overhead active with its dispatch part ≥ `secondaryMinFraction` (10 %), or memory-bw "
         "active with elementwise+norm+reduction ≥ "
         "`fusionMinShare` (10 %) from two or more kernel names; not when both compiled code and CUDA "
         "graphs are in the trace, and its code suggests only the one not in use",
         "at most step − launch idle, bounded by GPU busy (PyTorch docs, CUDA Graphs); or half "
         "the fusable kernel time, in a range from none to all of it (no published figure applies to an "
         "arbitrary kernel mix)",
         {"r6_compile_and_graphs", "r6_compile", "r6_cuda_graphs", "r6_keep_on_gpu"},
         {{B::MemoryBandwidth, 0}, {B::LaunchOverhead, 2}, {B::ComputeMemoryMixed, 0}},
         {},
         "",
         FixRuleStage::Evaluate,
         fixrules::fusion});
    t.push_back({"R7",
                 "Gradient accumulation",
                 "verdict classes; exposedCommunicationFraction, idleCollectiveFraction, hostWorkFraction",
                 "capacity-bound, or communication active (≥ `secondaryMinFraction`, 10 %)",
                 "comm × (1 − 1/k) − `accumulationOverheadFraction` (8 %); capacity: +8 % time; overhead "
                 "range 2–15 % (PyTorch docs, DistributedDataParallel.no_sync)",
                 {"r7_accumulation"},
                 {{B::MemoryCapacity, 1}, {B::Communication, 1}},
                 {},
                 "",
                 FixRuleStage::Evaluate,
                 fixrules::gradientAccumulation});
    t.push_back({"R8",
                 "Activation checkpointing",
                 "headline capacity-bound; computeFraction",
                 "capacity-bound only (§9.8)",
                 "+`checkpointRecomputeFraction` (33 %) of compute time, the job fits (Chen et al., 2016)",
                 {"r8_checkpoint"},
                 {{B::MemoryCapacity, 2}},
                 {},
                 "",
                 FixRuleStage::Evaluate,
                 fixrules::activationCheckpointing});
    t.push_back(
        {"R9",
         "Batch-size tuning and alignment",
         "headline class; idleLaunchOverheadFraction, idleSyncFraction",
         "headline launch-bound (amortize fixed overhead, L388) or compute-bound; not capacity- or "
         "memory-bw-bound (L853, L2114)",
         "launch-bound: per-sample time at 2× batch; compute-bound: not computable (batch not recorded; "
         "wave quantization, NVIDIA Deep Learning Performance Guide)",
         {"r9_batch"},
         {{B::Compute, 2}, {B::LaunchOverhead, 3}, {B::ComputeMemoryMixed, 3}},
         {},
         "",
         FixRuleStage::Evaluate,
         fixrules::batchSize});
    t.push_back({"R10",
                 "Learning-rate scaling with the batch",
                 "nothing",
                 "never from one trace (no batch change seen); listed as R9's companion",
                 "—",
                 {},
                 {},
                 {},
                 "",
                 FixRuleStage::Evaluate,
                 fixrules::learningRateScaling});
    t.push_back({"R11",
                 "Memory-efficient optimizer, sharding, offloading",
                 "headline capacity-bound",
                 "capacity-bound",
                 "memory only: 8-bit Adam cuts optimizer state ~4× (Dettmers et al., ICLR 2022); ZeRO/FSDP "
                 "shards it over N GPUs (Rajbhandari et al., SC 2020)",
                 {"r11_optimizer_memory"},
                 {{B::MemoryCapacity, 3}},
                 {},
                 "",
                 FixRuleStage::Evaluate,
                 fixrules::optimizerMemory});
    t.push_back({"R12",
                 "Communication overlap and parallelism layout",
                 "communication active; exposedCommunicationFraction, idleCollectiveFraction, worldSize, "
                 "hostWorkFraction",
                 "communication active (≥ `secondaryMinFraction`, 10 %); never scale-out from one trace "
                 "(L1842–1860)",
                 "at most step − exposed comm − collective waits (Li et al., PyTorch Distributed, VLDB 2020)",
                 {"r12_ddp_overlap"},
                 {{B::Communication, 0}},
                 {},
                 "",
                 FixRuleStage::Evaluate,
                 fixrules::communicationOverlap});
    t.push_back({"R13",
                 "Faster hardware / fewer operations",
                 "headline compute-bound; busyFraction, computeFraction, memoryBoundBusyShare, "
                 "compositionKnown, computeBoundKernelShare, hostWorkFraction",
                 "headline compute-bound only (L1999)",
                 "Amdahl over the compute-bound share with a `hardwareUpgradePeakRatio` (2×) peak (T04; "
                 "Amdahl, AFIPS 1967; Williams et al., Roofline, CACM 2009)",
                 {"r13_hardware"},
                 {{B::Compute, 3}, {B::ComputeMemoryMixed, 4}},
                 {},
                 "",
                 FixRuleStage::Evaluate,
                 fixrules::fasterHardware});
    t.push_back({"R14",
                 "Ordering and composition",
                 "the shown recommendations; verdict shares",
                 "always recorded, after every other rule",
                 "—",
                 {},
                 {},
                 {},
                 "",
                 FixRuleStage::Compose,
                 fixrules::orderAndCompose});
    t.push_back({"R15",
                 "Host work off the step's critical path",
                 "host-bound active; idle host-cause fractions (host work, compilation, housekeeping, GC), "
                 "hostWorkFrames, sampledStacks, busyFraction",
                 "host-bound active (headline or secondary); the text follows the largest host cause (not in "
                 "the seed)",
                 "at most step − that cause's idle, bounded by GPU busy (compilation: paid once, so "
                 "steady-state steps do not pay it)",
                 {"r15_code", "r15_compilation", "r15_housekeeping", "r15_gc"},
                 {{B::HostBound, 1}},
                 {},
                 "",
                 FixRuleStage::Evaluate,
                 fixrules::hostWorkOffPath});
    t.push_back(
        {"R16",
         "Launch enough blocks to fill the SMs",
         "smCount, underOccupiedKernel, underOccupiedBlocks, underOccupiedIdleSmShare, "
         "underOccupiedKernelShare, computeFraction, hostWorkFraction",
         "kernels with fewer blocks than SMs leave ≥ `underOccupancyMinIdleSmShare` (10 %) of the SM "
         "capacity idle over the kernel time, Σ t × (1 − blocks / SMs) / Σ t (SM count known)",
         "at most: kernel time × that idle share; memory-bound kernels stop scaling earlier (CUDA C++ "
         "Best Practices Guide, Occupancy)",
         {"r16_grid"},
         {},
         {},
         "",
         FixRuleStage::Evaluate,
         fixrules::fillTheSms});
    t.push_back({"R17",
                 "Pinned, asynchronous and fewer host-device copies",
                 "copy-bound active; exposedHostCopyFraction, pageableHostCopyShare, pcieActiveFraction, "
                 "hostWorkFraction",
                 "copy-bound (headline or secondary) with exposed copies ≥ `secondaryMinFraction` (10 %)",
                 "at most step − exposed host-device copy time (PyTorch docs, 'Use pinned memory buffers')",
                 {"r17_pinned_copies"},
                 {{B::CopyBound, 0}},
                 {},
                 "",
                 FixRuleStage::Evaluate,
                 fixrules::hostDeviceCopies});
    t.push_back(
        {"R18",
         "Fused or foreach optimizer",
         "host-bound or launch overhead active; sampledMain (optimizer share), idleFraction, "
         "busyFraction",
         "the main thread sampled in `torch.optim` during ≥ `secondaryMinFraction` (10 %) of the step "
         "(its share of the GPU idle × the idle share), from sampled stacks",
         "at most step − that optimizer idle, bounded by GPU busy (PyTorch docs, torch.optim foreach "
         "and fused implementations)",
         {"r18_fused_optimizer"},
         {{B::LaunchOverhead, 0}, {B::HostBound, 0}},
         {},
         "",
         FixRuleStage::Evaluate,
         fixrules::fusedOptimizer});
    t.push_back(
        {"R19",
         "Fewer host synchronizations in the step",
         "headline class; hostSyncFraction, idleAfterSyncFraction, afterSyncCalls, busyFraction, "
         "hostWorkFraction",
         "the host blocked in synchronizing calls and the GPU idle during or right after one both "
         "≥ `secondaryMinFraction` (10 %) of the step; launch overhead, host work or data loading active",
         "at most min(host time in those calls, the idle after them), bounded by GPU busy and the "
         "host's launch path (PyTorch docs, CUDA semantics: asynchronous execution)",
         {"r19_remove_syncs"},
         {{B::Data, 3}, {B::LaunchOverhead, 1}, {B::HostBound, 2}},
         {},
         "",
         FixRuleStage::Evaluate,
         fixrules::removeHostSyncs});
    return t;
}

// The headline classes in the order docs/ANALYSIS.md lists their per-class order.
constexpr std::array<Bottleneck, 9> kHeadlineClasses = {
    B::Data,           B::Compute,   B::MemoryBandwidth, B::MemoryCapacity,     B::Communication,
    B::LaunchOverhead, B::HostBound, B::CopyBound,       B::ComputeMemoryMixed,
};

std::vector<std::string_view> collectOrder(Bottleneck b) {
    std::vector<std::pair<int, std::string_view>> ranked;
    for (const FixRule& rule : fixRules()) {
        for (const HeadlineRank& rank : rule.order) {
            if (rank.bottleneck == b) {
                ranked.emplace_back(rank.position, rule.id);
            }
        }
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& c) { return a.first < c.first; });
    std::vector<std::string_view> ids;
    for (const auto& [position, id] : ranked) {
        ids.push_back(id);
    }
    return ids;
}

std::string joined(const std::vector<std::string_view>& items, std::string_view separator) {
    std::string out;
    for (const std::string_view item : items) {
        out += (out.empty() ? "" : std::string(separator)) + std::string(item);
    }
    return out;
}

}  // namespace

const std::vector<FixRule>& fixRules() {
    static const std::vector<FixRule> kTable = makeTable();
    return kTable;
}

const FixRule* findFixRule(std::string_view id) {
    for (const FixRule& rule : fixRules()) {
        if (rule.id == id) {
            return &rule;
        }
    }
    return nullptr;
}

const std::vector<std::string_view>& headlineOrder(Bottleneck b) {
    static const std::vector<std::vector<std::string_view>> kOrders = [] {
        std::vector<std::vector<std::string_view>> orders(kBottleneckCount);
        for (int i = 0; i < kBottleneckCount; ++i) {
            orders[static_cast<std::size_t>(i)] = collectOrder(static_cast<Bottleneck>(i));
        }
        return orders;
    }();
    return kOrders[static_cast<std::size_t>(b)];
}

std::string fixRulesMarkdown() {
    std::string out =
        "| rule | reads | shown when | expected gain from the trace (source) | code (`resources/fixes`) | "
        "headline order, conflicts |\n"
        "|---|---|---|---|---|---|\n";
    for (const FixRule& rule : fixRules()) {
        std::vector<std::string> fileNames;
        for (const std::string_view snippet : rule.snippets) {
            fileNames.push_back("`" + std::string(snippet) + ".py`");
        }
        std::string order;
        for (const HeadlineRank& rank : rule.order) {
            order += (order.empty() ? "" : ", ") + std::string(toString(rank.bottleneck)) + " #" +
                     std::to_string(rank.position + 1);
        }
        if (!rule.conflictsWith.empty()) {
            order += (order.empty() ? "" : "; ") + std::string("conflicts with ") +
                     joined(rule.conflictsWith, ", ") + ": " + std::string(rule.conflict);
        }
        std::string code;
        for (const std::string& name : fileNames) {
            code += (code.empty() ? "" : ", ") + name;
        }
        out += "| " + std::string(rule.id) + " " + std::string(rule.title) + " | " + std::string(rule.reads) +
               " | " + std::string(rule.shownWhen) + " | " + std::string(rule.gain) + " | " +
               (code.empty() ? "—" : code) + " | " + (order.empty() ? "—" : order) + " |\n";
    }
    out +=
        "\nPer-class order of the fixes when the class heads the verdict (R14):\n\n"
        "| headline | fixes in order |\n|---|---|\n";
    for (const Bottleneck b : kHeadlineClasses) {
        out += "| " + std::string(toString(b)) + " | " + joined(headlineOrder(b), ", ") + " |\n";
    }
    return out;
}

}  // namespace chokepoint::analysis
