#include "core/analysis/diagnosis/FixEngine.h"

#include <algorithm>
#include <cmath>

#include "core/analysis/diagnosis/ComputeFormulas.h"
#include "core/analysis/diagnosis/HostCauses.h"
#include "core/base/Format.h"

namespace chokepoint::analysis {

std::string_view toString(IronLawTerm term) {
    switch (term) {
        case IronLawTerm::Utilization:
            return "utilization (eta_hw) up";
        case IronLawTerm::PeakThroughput:
            return "peak throughput (R_peak) up";
        case IronLawTerm::TotalOperations:
            return "total operations (O) up";
        case IronLawTerm::MemoryTraffic:
            return "memory traffic down, utilization up";
    }
    return "utilization (eta_hw) up";
}

const Recommendation* FixPlan::find(std::string_view ruleId) const {
    for (const Recommendation& r : recommendations) {
        if (r.ruleId == ruleId) {
            return &r;
        }
    }
    return nullptr;
}

const RuleDecision* FixPlan::decision(std::string_view ruleId) const {
    for (const RuleDecision& d : decisions) {
        if (d.ruleId == ruleId) {
            return &d;
        }
    }
    return nullptr;
}

namespace {

std::string pct(double f) {
    return core::formatPercent(f);
}

std::string duration(double ns) {
    return core::formatDuration(static_cast<core::DurationNs>(std::llround(ns)));
}

// Per-class order of rules for the headline (R14.3; Table 7 lists; L1842 for capacity).
const std::vector<std::string>& classOrder(Bottleneck b) {
    static const std::vector<std::string> kData = {"R1", "R2", "R3"};
    static const std::vector<std::string> kCompute = {"R4", "R5", "R9", "R13"};
    static const std::vector<std::string> kMemoryBw = {"R6", "R5", "R4"};
    static const std::vector<std::string> kCapacity = {"R4", "R7", "R8", "R11"};
    static const std::vector<std::string> kComm = {"R12", "R7"};
    static const std::vector<std::string> kOverhead = {"R18", "R6", "R9"};
    static const std::vector<std::string> kHost = {"R18", "R15"};
    static const std::vector<std::string> kCopy = {"R17"};
    // Both sides of the ridge: fusion for the memory-bound half first (it is the cheaper change),
    // then the compute side's fixes.
    static const std::vector<std::string> kMixed = {"R6", "R4", "R5", "R9", "R13"};
    static const std::vector<std::string> kNone = {};
    switch (b) {
        case Bottleneck::Data:
            return kData;
        case Bottleneck::Compute:
            return kCompute;
        case Bottleneck::MemoryBandwidth:
            return kMemoryBw;
        case Bottleneck::MemoryCapacity:
            return kCapacity;
        case Bottleneck::Communication:
            return kComm;
        case Bottleneck::LaunchOverhead:
            return kOverhead;
        case Bottleneck::HostBound:
            return kHost;
        case Bottleneck::CopyBound:
            return kCopy;
        case Bottleneck::ComputeMemoryMixed:
            return kMixed;
        case Bottleneck::Undetermined:
        case Bottleneck::NoGpuActivity:
            break;
    }
    return kNone;
}

class Engine {
public:
    Engine(const Verdict& v, const DiagnosisSignals& s, const DiagnosisConfig& c) : m_v(v), m_s(s), m_c(c) {
        m_stepNs = s.stepTimeNs > 0 ? s.stepTimeNs : s.windowNs;
    }

    FixPlan run() {
        if (m_v.bottleneck == Bottleneck::NoGpuActivity) {
            for (const auto& [id, title] : ruleTitles()) {
                m_plan.decisions.push_back(
                    {id, title, false, "no GPU activity in the trace: nothing to speed up"});
            }
            m_plan.nextStep = "Profile a window where the training loop runs on the GPU.";
            return m_plan;
        }
        r1();
        r2();
        r3();
        r4();
        r5();
        r6();
        r7();
        r8();
        r9();
        r10();
        r11();
        r12();
        r13();
        r15();
        r16();
        r17();
        r18();
        order();
        r14();
        m_plan.nextStep = nextStep();
        return m_plan;
    }

private:
    static const std::vector<std::pair<std::string, std::string>>& ruleTitles() {
        static const std::vector<std::pair<std::string, std::string>> kTitles = {
            {"R1", "Data prefetching and pipeline overlap"},
            {"R2", "Bypass Python serialization in the input pipeline"},
            {"R3", "Faster storage, data format and locality"},
            {"R4", "Mixed precision (BF16/FP16 autocast)"},
            {"R5", "FlashAttention (IO-aware attention)"},
            {"R6", "Operator/kernel fusion (torch.compile, CUDA graphs)"},
            {"R7", "Gradient accumulation"},
            {"R8", "Activation checkpointing"},
            {"R9", "Batch-size tuning and alignment"},
            {"R10", "Learning-rate scaling with the batch"},
            {"R11", "Memory-efficient optimizer, sharding, offloading"},
            {"R12", "Communication overlap and parallelism layout"},
            {"R13", "Faster hardware / fewer operations"},
            {"R14", "Ordering and composition"},
            {"R15", "Host work off the step's critical path"},
            {"R16", "Launch enough blocks to fill the SMs"},
            {"R17", "Pinned, asynchronous and fewer host-device copies"},
            {"R18", "Fused or foreach optimizer"},
        };
        return kTitles;
    }

    static std::string titleOf(const std::string& id) {
        for (const auto& [rid, title] : ruleTitles()) {
            if (rid == id) {
                return title;
            }
        }
        return id;
    }

    void skip(const std::string& id, std::string reason) {
        m_plan.decisions.push_back({id, titleOf(id), false, std::move(reason)});
    }

    void show(Recommendation r, std::string reason) {
        r.title = titleOf(r.ruleId);
        m_plan.decisions.push_back({r.ruleId, r.title, true, std::move(reason)});
        m_plan.recommendations.push_back(std::move(r));
    }

    // A prediction: the step after the fix and the range it may fall in.
    struct Prediction {
        double afterNs = 0;
        double lowNs = 0;
        double highNs = 0;
    };

    // The host's critical path per step: the work the launching threads do outside data loading and
    // blocking waits (0 when the trace records no host activity).
    double hostPathNs() const { return m_s.hostWorkFraction.value_or(0.0) * m_stepNs; }

    // A fix that shortens the GPU's path by `savedNs` (between savedLowNs and savedHighNs; negative
    // lengthens it): the step cannot get shorter than the host's launch path.
    Prediction gpuSideFix(double savedLowNs, double savedNs, double savedHighNs) const {
        const double host = hostPathNs();
        return {std::max(m_stepNs - savedNs, host), std::max(m_stepNs - savedHighNs, host),
                std::max(m_stepNs - savedLowNs, host)};
    }

    // "; the host's launch path (40 ms of work per step) binds: ..." when it does.
    std::string hostBoundNote(double savedNs) const {
        const double host = hostPathNs();
        if (host <= m_stepNs - savedNs) {
            return "";
        }
        return "; the host's launch path binds: the busiest launching thread works " + duration(host) +
               " per step outside data loading and waits, so the step cannot get shorter than that";
    }

    // The step after a fix that removes the data-wait idle (R1-R3), on the step's critical path:
    // the longer of the GPU's path (busy time plus the idle the fix leaves) and the host's (its
    // launch-path work, which stays on the training thread).
    Prediction dataFix(std::string& basis, std::string& uncertainty) const {
        const double dataWait = m_s.idleDataWaitFraction * m_stepNs;
        const double busy = m_s.busyFraction * m_stepNs;
        const double hostGaps = (m_s.idleLaunchOverheadFraction + m_s.idleSyncFraction) * m_stepNs;
        const double gpuPath = m_stepNs - dataWait;
        const double host = hostPathNs();
        basis = "critical path: the step after the fix is the longer of the GPU's path, busy " +
                duration(busy) + " + the idle this fix leaves " + duration(std::max(0.0, gpuPath - busy)) +
                " = " + duration(gpuPath) + ", and the host's launch path, " +
                (m_s.hostWorkFraction ? duration(host) +
                                            " of framework, Python and launch work per step outside data "
                                            "loading and waits on the busiest launching thread"
                                      : std::string("not recorded in this trace")) +
                "; the " + (host > gpuPath ? "host's" : "GPU's") + " path binds";
        uncertainty = "low end: the idle the host still causes (launch " +
                      duration(m_s.idleLaunchOverheadFraction * m_stepNs) + ", synchronization " +
                      duration(m_s.idleSyncFraction * m_stepNs) +
                      " per step) disappears as well, leaving the longer of GPU busy and the host's path; "
                      "high end: that idle doubles, as when loader worker processes compete with the "
                      "training thread for CPU cores";
        return {std::max(gpuPath, host), std::max(busy, host), std::max(gpuPath + hostGaps, host)};
    }

    ExpectedGain gainOf(Prediction p, bool upperBound, std::string basis, std::string uncertainty) const {
        ExpectedGain g;
        g.computed = m_stepNs > 0;
        g.upperBound = upperBound;
        g.stepTimeBeforeNs = m_stepNs;
        const double floorNs = m_stepNs * 0.01;
        g.stepTimeAfterNs = std::max(p.afterNs, floorNs);
        g.stepTimeLowNs = std::min(std::max(p.lowNs, floorNs), g.stepTimeAfterNs);
        g.stepTimeHighNs = std::max(std::max(p.highNs, floorNs), g.stepTimeAfterNs);
        g.speedup = g.stepTimeAfterNs > 0 ? g.stepTimeBeforeNs / g.stepTimeAfterNs : 1.0;
        if (m_s.mfu) {
            g.mfuBefore = *m_s.mfu;
            g.mfuAfter = *m_s.mfu * g.speedup;  // same model FLOPs in a shorter step
        }
        const bool mfuImpossible = g.mfuAfter && *g.mfuAfter >= 1.0;
        g.summary = std::string(upperBound ? "at most: " : "") + "step time " + duration(g.stepTimeBeforeNs) +
                    " -> " + duration(g.stepTimeAfterNs);
        if (g.stepTimeHighNs - g.stepTimeLowNs >= 1.0) {
            g.summary += " (range " + duration(g.stepTimeLowNs) + " - " + duration(g.stepTimeHighNs) + ")";
        }
        if (mfuImpossible) {
            // The model FLOPs given cannot fit the shorter step on this peak: do not print an MFU
            // above 100 %, say what is inconsistent instead.
            g.mfuAfter.reset();
            g.summary +=
                ", MFU " + pct(*g.mfuBefore) + " -> over 100 % (the model FLOPs or the peak are off)";
        } else if (g.mfuBefore) {
            g.summary += ", MFU " + pct(*g.mfuBefore) + " -> " + pct(*g.mfuAfter);
        }
        g.summary += " (" + core::formatFixed(g.speedup, 2) + "x)";
        g.basis = std::move(basis);
        g.uncertainty = std::move(uncertainty);
        return g;
    }

    // Host work that launches nothing moved off the step (R15): the host's path shortens with it,
    // so only the GPU's busy time bounds the step.
    ExpectedGain hostIdleGain(double savedNs, bool upperBound, const std::string& basis) const {
        const double busy = m_s.busyFraction * m_stepNs;
        const double after = std::max(m_stepNs - savedNs, busy);
        return gainOf({after, after, m_stepNs}, upperBound,
                      basis + "; the step cannot get shorter than the GPU's busy time",
                      "high end: no gain, when the work still runs on the training thread between launches");
    }
    // Exposed host-device copies overlapped or removed (R17): a GPU-side saving.
    ExpectedGain copyGain(double savedNs, bool upperBound, const std::string& basis) const {
        return gpuGain(0, savedNs, savedNs, upperBound, basis,
                       "low end: no gain, when each copy's data is needed at once (a synchronization follows "
                       "it) and nothing can overlap it");
    }
    // Under-occupied kernels spread over every SM (R16): a GPU-side saving, an upper bound.
    ExpectedGain occupancyGain(double savedNs, bool upperBound, const std::string& basis) const {
        return gpuGain(0, savedNs, savedNs, upperBound, basis,
                       "low end: no gain, when the kernels are memory-bound and already saturate DRAM");
    }

    // A GPU-side fix saving savedNs (savedLowNs..savedHighNs) of the GPU's path, bounded by the host.
    ExpectedGain gpuGain(double savedLowNs, double savedNs, double savedHighNs, bool upperBound,
                         const std::string& basis, std::string uncertainty) const {
        return gainOf(gpuSideFix(savedLowNs, savedNs, savedHighNs), upperBound,
                      basis + hostBoundNote(savedNs), std::move(uncertainty));
    }

    double share(Bottleneck b) const { return m_v.shareOf(b); }
    // A mixed verdict heads both of its classes.
    bool headline(Bottleneck b) const {
        return m_v.bottleneck == b || (m_v.bottleneck == Bottleneck::ComputeMemoryMixed &&
                                       (b == Bottleneck::Compute || b == Bottleneck::MemoryBandwidth));
    }
    bool active(Bottleneck b) const {
        return headline(b) || std::find(m_v.secondary.begin(), m_v.secondary.end(), b) != m_v.secondary.end();
    }
    // Kernel time of the step (the kernel-mix shares are shares of it): busy time without copies
    // and memsets, i.e. compute plus the communication compute does not hide.
    double kernelTimeNs() const {
        const double kernels = m_s.computeFraction + m_s.exposedCommunicationFraction;
        return std::clamp(kernels > 0 ? kernels : m_s.busyFraction, 0.0, m_s.busyFraction) * m_stepNs;
    }

    // --- R1 ---
    void r1() {
        const double data = m_s.idleDataWaitFraction;
        if (!active(Bottleneck::Data) || data < m_c.dataWaitMinFraction) {
            skip("R1", "data wait " + pct(data) + " of the step is below " + pct(m_c.dataWaitMinFraction) +
                           ": the input pipeline already keeps up, so prefetching adds complexity without "
                           "measurable gain");
            return;
        }
        if (m_s.busyFraction > m_c.computeBoundMinBusy) {
            skip("R1", "the accelerator is already compute-saturated (busy " + pct(m_s.busyFraction) + ")");
            return;
        }
        Recommendation r;
        r.ruleId = "R1";
        r.target = Bottleneck::Data;
        r.term = IronLawTerm::Utilization;
        r.targetShare = data;
        r.evidence = "the GPU waits for the input pipeline " + pct(data) + " of each step";
        if (const std::string frames = dataFramesText(m_s); !frames.empty()) {
            r.evidence += " (" + frames + ")";
        }
        if (const std::string stacks = sampledStacksText(m_s, isDataRole); !stacks.empty()) {
            r.evidence += "; " + stacks;
        }
        {
            std::string basis, uncertainty;
            const Prediction p = dataFix(basis, uncertainty);
            r.gain = gainOf(p, false,
                            "overlapping loading of batch n+1 with compute on batch n removes the data-wait "
                            "intervals (the step goes from the sum of the stages to their max); " +
                                basis,
                            uncertainty);
        }
        r.costs =
            "host memory for the prefetch window = num_workers x prefetch_factor x batch size; "
            "more worker processes contend for CPU cores";
        r.risks =
            "too small a buffer brings the stalls back; aggressive prefetching conflicts with tight memory "
            "";
        r.companions = {"pin_memory=True with non_blocking=True copies so the H2D transfer overlaps compute"};
        r.pytorchChange =
            "loader = torch.utils.data.DataLoader(\n"
            "    dataset, batch_size=batch_size, shuffle=True,\n"
            "    num_workers=8,            # start at the number of CPU cores, then profile\n"
            "    pin_memory=True,          # page-locked buffers allow asynchronous H2D copies\n"
            "    prefetch_factor=2,        # batches buffered per worker\n"
            "    persistent_workers=True)\n"
            "for inputs, targets in loader:\n"
            "    inputs = inputs.cuda(non_blocking=True)\n"
            "    targets = targets.cuda(non_blocking=True)\n";
        r.references =
            "PyTorch documentation: torch.utils.data.DataLoader (num_workers, pin_memory, prefetch_factor, "
            "persistent_workers); PyTorch Performance Tuning Guide: asynchronous data loading";
        show(std::move(r), "data wait " + pct(data) + " >= " + pct(m_c.dataWaitMinFraction));
    }

    // --- R2 ---
    void r2() {
        const double data = m_s.idleDataWaitFraction;
        if (!active(Bottleneck::Data) || data < m_c.dataWaitMinFraction) {
            skip("R2", "not data-bound (data wait " + pct(data) +
                           "): serialization in the input pipeline is not "
                           "on the critical path");
            return;
        }
        Recommendation r;
        r.ruleId = "R2";
        r.target = Bottleneck::Data;
        r.term = IronLawTerm::Utilization;
        r.targetShare = data;
        r.evidence = "GPU idle " + pct(data) + " waiting for batches while the host runs the loader" +
                     (m_s.dataLoadingHostFraction > 0 ? " (host inside DataLoader ranges " +
                                                            pct(m_s.dataLoadingHostFraction) + " of the step)"
                                                      : std::string());
        // Sampled stacks say where the batches are made: the main thread running the Dataset's
        // __getitem__ and transforms itself is a DataLoader without worker processes.
        if (m_s.sampledMain && m_s.sampledMain->inputWorkShare >= m_c.dataWaitMinFraction) {
            const DiagnosisSignals::SampledMainThread& main = *m_s.sampledMain;
            r.evidence += "; the " + main.thread + " itself runs dataset and transform code during " +
                          pct(main.inputWorkShare) + " of the GPU idle (" + main.topInputPath +
                          "): the DataLoader makes the batches in the main process (num_workers=0), so "
                          "worker processes take that work off the training loop";
        }
        {
            std::string basis, uncertainty;
            const Prediction p = dataFix(basis, uncertainty);
            r.gain = gainOf(p, true,
                            "if decoding and augmentation run in worker processes or on the GPU, the data "
                            "wait can at most disappear; " +
                                basis,
                            uncertainty);
        }
        r.costs = "worker processes need host memory and cores; GPU preprocessing (DALI) uses GPU time";
        r.risks = "per-worker random seeds and file handles must be set up in worker_init_fn";
        r.companions = {"R1 (prefetching) so the parallel workers run ahead of the GPU"};
        r.pytorchChange =
            "# move decode/augment out of the main process (the GIL serializes it):\n"
            "loader = DataLoader(dataset, num_workers=os.cpu_count(), pin_memory=True,\n"
            "                    worker_init_fn=seed_worker)\n"
            "# or decode and augment on the GPU, e.g. torchvision.io.decode_jpeg(data, device='cuda')\n"
            "# or NVIDIA DALI's pipeline\n";
        r.references =
            "PyTorch documentation: torch.utils.data (multi-process data loading, worker_init_fn); "
            "torchvision.io.decode_jpeg on CUDA; NVIDIA DALI documentation";
        show(std::move(r), "data-bound: parallel or GPU-side preprocessing removes GIL serialization");
    }

    // --- R3 ---
    void r3() {
        const double data = m_s.idleDataWaitFraction;
        if (!headline(Bottleneck::Data) || data < 2 * m_c.dataWaitMinFraction) {
            skip("R3", "storage is not shown to bind: data wait " + pct(data) + " < " +
                           pct(2 * m_c.dataWaitMinFraction) +
                           " of the step (storage throughput is not in the trace; try R1/R2 first)");
            return;
        }
        Recommendation r;
        r.ruleId = "R3";
        r.target = Bottleneck::Data;
        r.term = IronLawTerm::Utilization;
        r.targetShare = data;
        r.evidence = "data wait " + pct(data) +
                     " of the step; if it persists with workers and prefetching, "
                     "storage throughput binds";
        {
            std::string basis, uncertainty;
            const Prediction p = dataFix(basis, uncertainty);
            r.gain =
                gainOf(p, true,
                       "small random reads get a fraction of a device's sequential bandwidth; sequential "
                       "shard formats recover it, so the data wait can at most disappear; " +
                           basis,
                       uncertainty + "; storage throughput itself is not in the trace");
        }
        r.costs = "converting the dataset (Parquet/Arrow/WebDataset shards), local NVMe copies";
        r.risks = "shard-level shuffling is coarser than per-sample shuffling";
        r.pytorchChange =
            "# read large sequential shards instead of many small random files, e.g. WebDataset:\n"
            "dataset = wds.WebDataset('data-{000000..000999}.tar').shuffle(1000).decode('torchrgb')\n"
            "loader = DataLoader(dataset, batch_size=batch_size, num_workers=8, pin_memory=True)\n";
        r.references = "WebDataset documentation; PyTorch documentation: torch.utils.data.IterableDataset";
        show(std::move(r), "data wait " + pct(data) + " is large enough that storage may bind");
    }

    // --- R4 ---
    void r4() {
        if (headline(Bottleneck::Communication)) {
            skip("R4",
                 "communication-bound: precision reduction for communication-bound workloads is a "
                 "misdiagnosis");
            return;
        }
        if (m_s.parameterCount && *m_s.parameterCount < m_c.mixedPrecisionMinParameters) {
            skip("R4", "model has " + core::formatFixed(*m_s.parameterCount / 1e6, 1) +
                           "M parameters: under 10M the cost of mixed precision may exceed its benefit");
            return;
        }
        const bool capacity = headline(Bottleneck::MemoryCapacity);
        const double fp32 = m_s.fp32MatmulShare;
        if (!capacity && fp32 < m_c.fp32MatmulMinShare) {
            skip("R4", "FP32 matmul/conv kernels are " + pct(fp32) + " of kernel time (< " +
                           pct(m_c.fp32MatmulMinShare) + "): the math already runs in reduced precision");
            return;
        }
        if (!capacity && headline(Bottleneck::LaunchOverhead)) {
            skip("R4", "launch-overhead-bound: faster kernels only lengthen the GPU's idle gaps");
            return;
        }
        if (!capacity && !active(Bottleneck::Compute) && !active(Bottleneck::MemoryBandwidth)) {
            skip("R4", "neither compute nor memory bandwidth is an active constraint");
            return;
        }
        Recommendation r;
        r.ruleId = "R4";
        r.target = capacity ? Bottleneck::MemoryCapacity
                            : (headline(Bottleneck::MemoryBandwidth) ? Bottleneck::MemoryBandwidth
                                                                     : Bottleneck::Compute);
        r.term = IronLawTerm::PeakThroughput;
        r.targetShare = capacity ? 1.0 : share(r.target);
        r.evidence = capacity ? "the job does not fit; mixed precision halves weight/activation bytes"
                              : pct(fp32) + " of kernel time is FP32 matmul/conv without tensor cores";
        const auto savedAt = [&](double speedup) { return fp32 * kernelTimeNs() * (1.0 - 1.0 / speedup); };
        r.gain =
            gpuGain(savedAt(std::min(2.0, m_c.mixedPrecisionSpeedup)), savedAt(m_c.mixedPrecisionSpeedup),
                    savedAt(std::max(3.0, m_c.mixedPrecisionSpeedup)), false,
                    "FP32 GEMM/conv time x (1 - 1/" + core::formatFixed(m_c.mixedPrecisionSpeedup, 1) +
                        "): tensor-core matmuls are typically 2-3x faster than FP32 ones; weights and "
                        "activations take half the memory",
                    "the tensor-core speedup depends on shapes and alignment: the range assumes 2x to "
                    "3x on the FP32 matmul/conv time; idle time and other kernels are unchanged");
        r.costs = "validation of convergence on a representative run; FP32 master weights add 4 B/param";
        // The dtype the device supports: BF16 from Ampere (and CDNA) on, FP16 with loss scaling before
        // (V100 has no BF16); unknown architectures get both, labelled.
        const std::string& arch = m_s.architecture;
        const bool bf16 =
            arch == "ampere" || arch == "ada" || arch == "hopper" || arch == "blackwell" || arch == "cdna";
        const bool fp16 = arch == "volta" || arch == "turing" || arch == "pascal";
        if (fp16) {
            r.risks = "FP16 range is +-65,504: overflow/underflow and NaNs without loss scaling; " + arch +
                      " has no BF16, so GradScaler is required";
            r.companions = {"dynamic loss scaling (GradScaler)", "FP32 master weights",
                            "keep LayerNorm, softmax and loss accumulation in FP32"};
            r.pytorchChange = "scaler = torch.cuda.amp.GradScaler()  # float16 needs loss scaling (" + arch +
                              ": no bfloat16)\n"
                              "for inputs, targets in loader:\n"
                              "    optimizer.zero_grad(set_to_none=True)\n"
                              "    with torch.autocast(device_type='cuda', dtype=torch.float16):\n"
                              "        loss = loss_fn(model(inputs), targets)\n"
                              "    scaler.scale(loss).backward()\n"
                              "    scaler.step(optimizer)\n"
                              "    scaler.update()\n";
        } else if (bf16) {
            r.risks =
                "BF16 keeps FP32's range (no loss scaling needed) but has fewer mantissa bits: validate "
                "convergence";
            r.companions = {"FP32 master weights", "keep LayerNorm, softmax and loss accumulation in FP32"};
            r.pytorchChange =
                "for inputs, targets in loader:\n"
                "    optimizer.zero_grad(set_to_none=True)\n"
                "    with torch.autocast(device_type='cuda', dtype=torch.bfloat16):  # " +
                arch +
                " supports bfloat16: no GradScaler\n"
                "        loss = loss_fn(model(inputs), targets)\n"
                "    loss.backward()\n"
                "    optimizer.step()\n"
                "# FP32 matmuls left over: torch.backends.cuda.matmul.allow_tf32 = True\n";
        } else {
            r.risks =
                "FP16 range is +-65,504: overflow/underflow and NaNs without loss scaling; BF16 "
                "avoids most of it on Ampere+";
            r.companions = {"dynamic loss scaling (GradScaler) for FP16", "FP32 master weights",
                            "keep LayerNorm, softmax and loss accumulation in FP32"};
            r.pytorchChange =
                "# the GPU's architecture is unknown: bfloat16 on Ampere or newer, float16 + GradScaler "
                "before\n"
                "scaler = torch.cuda.amp.GradScaler(enabled=USE_FP16)\n"
                "for inputs, targets in loader:\n"
                "    optimizer.zero_grad(set_to_none=True)\n"
                "    with torch.autocast(device_type='cuda', dtype=torch.float16 if USE_FP16 else "
                "torch.bfloat16):\n"
                "        loss = loss_fn(model(inputs), targets)\n"
                "    scaler.scale(loss).backward()\n"
                "    scaler.step(optimizer)\n"
                "    scaler.update()\n";
        }
        r.references =
            "Micikevicius et al., Mixed Precision Training, ICLR 2018; PyTorch documentation: torch.amp "
            "(autocast, GradScaler)";
        show(std::move(r), capacity
                               ? "memory-capacity-bound: first of the single-machine steps"
                               : "FP32 matmul share " + pct(fp32) + " >= " + pct(m_c.fp32MatmulMinShare));
    }

    // --- R5 ---
    void r5() {
        if (m_s.fusedAttentionSeen) {
            skip("R5", "fused attention kernels (flash / memory-efficient) are already in use");
            return;
        }
        const double softmax = m_s.softmaxShare;
        if (softmax < m_c.attentionMinShare) {
            skip("R5", "no materialized attention: softmax/reduction kernels are " + pct(softmax) +
                           " of kernel time (< " + pct(m_c.attentionMinShare) + ")");
            return;
        }
        if (m_s.convolutionSeen && m_s.attentionShare == 0 && m_s.gemmShare > 0 &&
            softmax < 2 * m_c.attentionMinShare) {
            skip("R5", "convolutional workload: FlashAttention does not apply to CNNs and MLPs");
            return;
        }
        if (m_s.architecture == "volta" || m_s.architecture == "turing" || m_s.architecture == "pascal") {
            skip("R5", "older GPU architecture (" + m_s.architecture +
                           ") without comparable SRAM bandwidth: low return");
            return;
        }
        if (!active(Bottleneck::MemoryBandwidth) && !active(Bottleneck::Compute) &&
            !headline(Bottleneck::MemoryCapacity)) {
            skip("R5", "neither memory bandwidth nor compute is an active constraint");
            return;
        }
        Recommendation r;
        r.ruleId = "R5";
        r.target =
            headline(Bottleneck::MemoryCapacity)
                ? Bottleneck::MemoryCapacity
                : (active(Bottleneck::MemoryBandwidth) ? Bottleneck::MemoryBandwidth : Bottleneck::Compute);
        r.term = IronLawTerm::MemoryTraffic;
        r.targetShare = share(r.target);
        r.evidence = pct(softmax) +
                     " of kernel time in softmax/reduction kernels of a materialized S x S "
                     "attention (no flash kernels seen)";
        const auto savedAt = [&](double speedup) { return softmax * kernelTimeNs() * (1.0 - 1.0 / speedup); };
        r.gain =
            gpuGain(savedAt(std::min(2.0, m_c.flashAttentionSpeedup)), savedAt(m_c.flashAttentionSpeedup),
                    savedAt(std::max(4.0, m_c.flashAttentionSpeedup)), false,
                    "attention-path time x (1 - 1/" + core::formatFixed(m_c.flashAttentionSpeedup, 1) +
                        "): FlashAttention is 2-4x faster than materialized attention and needs O(S) "
                        "memory (Dao et al., 2022)",
                    "the range assumes 2x to 4x on the softmax/reduction time; short sequences gain "
                    "least");
        r.costs = "backward recomputation adds some FLOPs (excluded from MFU)";
        r.risks = "short sequences gain little (tiling overhead); needs FP16/BF16 and contiguous layouts";
        r.companions = {"FP16/BF16 inputs (R4)", "combine with checkpointing when memory binds"};
        r.pytorchChange =
            "# replace softmax(q @ k.transpose(-2, -1) / sqrt(d)) @ v with the fused kernel:\n"
            "out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)\n"
            "# q, k, v: (batch, heads, seq, head_dim), contiguous, bfloat16/float16\n";
        r.references =
            "Dao et al., FlashAttention, NeurIPS 2022; PyTorch documentation: "
            "torch.nn.functional.scaled_dot_product_attention";
        show(std::move(r), "materialized attention " + pct(softmax) + " of kernel time");
    }

    // --- R6 ---
    void r6() {
        const bool overhead = headline(Bottleneck::LaunchOverhead) || active(Bottleneck::LaunchOverhead);
        const double fusable = m_s.elementwiseShare;
        const bool oneKernelRepeated = m_s.fusableKernelNameCount >= 0 && m_s.fusableKernelNameCount < 2;
        const bool memory =
            active(Bottleneck::MemoryBandwidth) && fusable >= m_c.fusionMinShare && !oneKernelRepeated;
        if (m_s.compiledCodeSeen && m_s.cudaGraphsSeen) {
            skip("R6",
                 "torch.compile (Triton kernels / compiled regions) and CUDA graphs are already in use");
            return;
        }
        if (!overhead && active(Bottleneck::MemoryBandwidth) && fusable >= m_c.fusionMinShare &&
            oneKernelRepeated) {
            skip("R6", "the memory-bound kernel time is one kernel repeated (" + pct(fusable) +
                           " of kernel time): fusion needs two or more different ops to merge");
            return;
        }
        if (!overhead && !memory) {
            skip("R6",
                 "neither launch overhead nor memory-bound elementwise work is significant (elementwise/"
                 "norm/reduction " +
                     pct(fusable) + " of kernel time); fusion does not help compute-bound matmuls");
            return;
        }
        Recommendation r;
        r.ruleId = "R6";
        r.term = IronLawTerm::Utilization;
        double savedNs = 0;
        if (overhead && (headline(Bottleneck::LaunchOverhead) || !memory)) {
            r.target = Bottleneck::LaunchOverhead;
            const double gap = m_s.idleLaunchOverheadFraction + m_s.idleSyncFraction;
            r.targetShare = gap;
            r.evidence = "GPU idle " + pct(m_s.idleLaunchOverheadFraction) +
                         " while the host dispatches and " + pct(m_s.idleSyncFraction) +
                         " in synchronization; " + std::to_string(m_s.shortKernelCount) + " of " +
                         std::to_string(m_s.kernelCount) + " kernels are short";
            savedNs = m_s.idleLaunchOverheadFraction * m_stepNs;
            const double busy = m_s.busyFraction * m_stepNs;
            // CUDA graphs and fusion take launch work off the host as well, so the host's launch path
            // is no bound here; the GPU's busy time is.
            r.gain = gainOf(
                {std::max(m_stepNs - savedNs, busy),
                 std::max(m_stepNs - savedNs - m_s.idleSyncFraction * m_stepNs, busy), m_stepNs},
                true,
                "fewer, larger kernels and CUDA graphs remove the dispatch gaps: at most the launch-overhead "
                "idle disappears, and the step cannot get shorter than the GPU's busy time",
                "low end: the synchronization idle goes too (no host syncs inside a captured graph); high "
                "end: "
                "no gain, when the host work per step is not launch work (Python, data handling) and stays");
        } else {
            r.target = Bottleneck::MemoryBandwidth;
            r.targetShare = share(Bottleneck::MemoryBandwidth);
            r.evidence = pct(fusable) +
                         " of kernel time in elementwise/normalization/reduction kernels that "
                         "round-trip HBM";
            savedNs = fusable * kernelTimeNs() * 0.5;
            r.gain = gpuGain(0, savedNs, fusable * kernelTimeNs(), true,
                             "fusing chains of memory-bound kernels removes intermediate HBM round trips; "
                             "assumed: at most half of that kernel time disappears",
                             "no published figure applies to an arbitrary kernel mix: the range runs from no "
                             "gain to all of the elementwise/normalization/reduction time");
        }
        r.costs = "compile time at start-up; graph breaks on dynamic Python code";
        r.risks = "CUDA graphs need static shapes and no host synchronization inside the captured region";
        r.companions = {"remove host synchronizations (.item(), .cpu(), print of tensors) from the hot loop"};
        // Suggest only what the trace does not show in use already.
        if (m_s.compiledCodeSeen) {
            r.evidence += "; torch.compile is already in use (Triton kernels / compiled regions)";
            r.pytorchChange =
                "# already compiled: capture the step in CUDA graphs to remove the launches\n"
                "model = torch.compile(model, mode='reduce-overhead')\n";
        } else if (m_s.cudaGraphsSeen) {
            r.evidence += "; CUDA graphs are already in use";
            r.pytorchChange =
                "model = torch.compile(model)                  # fuses elementwise/norm chains\n";
        } else {
            r.pytorchChange =
                "model = torch.compile(model)                  # fuses elementwise/norm chains\n"
                "# launch-bound loops: capture the step in CUDA graphs\n"
                "model = torch.compile(model, mode='reduce-overhead')\n";
        }
        r.pytorchChange +=
            "# and keep tensors on the GPU: log loss.detach() every N steps instead of loss.item()\n";
        r.references =
            "PyTorch documentation: torch.compile, CUDA Graphs (torch.cuda.graphs); PyTorch Performance "
            "Tuning Guide";
        show(std::move(r), r.target == Bottleneck::LaunchOverhead
                               ? "launch/sync idle is an active constraint"
                               : "memory-bound elementwise share " + pct(fusable));
    }

    // --- R7 ---
    void r7() {
        const bool capacity = headline(Bottleneck::MemoryCapacity);
        const double comm = m_s.exposedCommunicationFraction + m_s.idleCollectiveFraction;
        const bool communication = active(Bottleneck::Communication) && comm >= m_c.secondaryMinFraction;
        if (!capacity && !communication) {
            skip("R7", "neither memory capacity nor communication binds (exposed communication " + pct(comm) +
                           "): accumulation adds complexity without a gain");
            return;
        }
        Recommendation r;
        r.ruleId = "R7";
        r.term = IronLawTerm::Utilization;
        const double k = std::max(2.0, m_c.accumulationSteps);
        if (capacity) {
            r.target = Bottleneck::MemoryCapacity;
            r.targetShare = 1.0;
            r.evidence =
                "the job does not fit; accumulation over k micro-batches cuts activation memory k-fold";
            const double overhead = m_c.accumulationOverheadFraction * m_stepNs;
            r.gain =
                gainOf({m_stepNs + overhead, m_stepNs + 0.02 * m_stepNs, m_stepNs + 0.15 * m_stepNs}, false,
                       "activation memory / k at about " + pct(m_c.accumulationOverheadFraction) +
                           " more time per sample (smaller micro-batches use the GPU less well)",
                       "the overhead of smaller micro-batches ranges from 2 % to 15 % of the step, "
                       "depending on how well they still fill the GPU");
        } else {
            r.target = Bottleneck::Communication;
            r.targetShare = comm;
            r.evidence =
                "exposed communication " + pct(comm) + " of the step; syncing every k-th micro-batch";
            const double savedComm = comm * m_stepNs * (1.0 - 1.0 / k);
            const double saved = savedComm - m_c.accumulationOverheadFraction * m_stepNs;
            r.gain = gpuGain(savedComm - 0.15 * m_stepNs, saved, savedComm - 0.02 * m_stepNs, false,
                             "gradient sync every " + core::formatFixed(k, 0) +
                                 " micro-batches: exposed communication / k, minus about " +
                                 pct(m_c.accumulationOverheadFraction) + " accumulation overhead",
                             "the accumulation overhead ranges from 2 % to 15 % of the step");
        }
        r.costs = "2-15 % per-update overhead (the text quotes 2-5 %, ~8 %, 10-15 %)";
        r.risks = "BatchNorm, dropout and step-indexed schedules break exact equivalence";
        r.companions = {"divide the loss by k (or reduce the LR by k when summing)",
                        "use model.no_sync() on micro-batches 1..k-1"};
        r.pytorchChange =
            "k = 4\n"
            "for i, (inputs, targets) in enumerate(loader):\n"
            "    sync = (i + 1) % k == 0\n"
            "    ctx = contextlib.nullcontext() if sync else model.no_sync()  # DDP: skip AllReduce\n"
            "    with ctx:\n"
            "        loss = loss_fn(model(inputs), targets) / k\n"
            "        loss.backward()\n"
            "    if sync:\n"
            "        optimizer.step()\n"
            "        optimizer.zero_grad(set_to_none=True)\n";
        r.references =
            "PyTorch documentation: DistributedDataParallel.no_sync; PyTorch AMP examples: gradient "
            "accumulation";
        show(std::move(r), capacity ? "memory-capacity-bound (second of the single-machine steps)"
                                    : "communication share " + pct(comm));
    }

    // --- R8 ---
    void r8() {
        if (!headline(Bottleneck::MemoryCapacity)) {
            skip("R8",
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
        const double recompute = m_c.checkpointRecomputeFraction * m_s.computeFraction * m_stepNs;
        r.gain =
            gainOf({m_stepNs + recompute, m_stepNs, m_stepNs + recompute}, false,
                   "activation memory falls to O(sqrt(N)) layers with sqrt(N) checkpoints at about one extra "
                   "forward pass (~33 % more compute; Chen et al., 2016): the step gets longer, the job fits",
                   "low end: only cheap layers are recomputed; high end: a full extra forward pass");
        r.costs = "~33 % extra compute; lowers MFU-visible efficiency (recompute is excluded from MFU)";
        r.risks = "checkpoint before attention, skip FFN and normalization; debugging complexity";
        r.companions = {"FlashAttention (4-8x larger models together)",
                        "gradient accumulation for the target batch"};
        r.pytorchChange =
            "from torch.utils.checkpoint import checkpoint\n"
            "class Block(nn.Module):\n"
            "    def forward(self, x):\n"
            "        return checkpoint(self._forward, x, use_reentrant=False)\n";
        r.references =
            "Chen et al., Training Deep Nets with Sublinear Memory Cost, 2016; PyTorch documentation: "
            "torch.utils.checkpoint";
        show(std::move(r), "memory-capacity-bound");
    }

    // --- R9 ---
    void r9() {
        if (headline(Bottleneck::MemoryCapacity)) {
            skip("R9", "memory capacity caps the batch: a larger batch does not fit");
            return;
        }
        if (headline(Bottleneck::MemoryBandwidth)) {
            skip("R9",
                 "memory-bandwidth-bound: a larger batch does not raise the intensity of ops whose traffic "
                 "scales with the batch");
            return;
        }
        if (!headline(Bottleneck::LaunchOverhead) && !headline(Bottleneck::Compute)) {
            skip("R9", "batch size is not the lever for a " + std::string(toString(m_v.bottleneck)) + " job");
            return;
        }
        Recommendation r;
        r.ruleId = "R9";
        r.target = m_v.bottleneck;
        r.term = IronLawTerm::Utilization;
        r.targetShare = share(r.target);
        if (headline(Bottleneck::LaunchOverhead)) {
            const double overhead = m_s.idleLaunchOverheadFraction + m_s.idleSyncFraction;
            r.evidence = "fixed per-step overhead (launch, sync) is " + pct(overhead) + " of the step";
            // Doubling the batch doubles GPU work but not the fixed per-step host overhead.
            const double perSampleBefore = m_stepNs;
            const double perSampleAfter =
                (2.0 * (m_stepNs - overhead * m_stepNs) + overhead * m_stepNs) / 2.0;
            r.gain =
                gainOf({perSampleAfter, perSampleAfter, perSampleBefore}, false,
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
        r.risks = "without LR scaling the run becomes throughput-healthy but optimization-starved";
        r.companions = {"R10: scale the learning rate linearly with the batch, with warmup"};
        r.pytorchChange =
            "batch_size = 2 * batch_size              # keep it a multiple of 32/64\n"
            "for g in optimizer.param_groups:\n"
            "    g['lr'] = base_lr * batch_size / base_batch_size   # linear scaling rule\n";
        r.references =
            "NVIDIA Deep Learning Performance Guide: matrix multiplication background (tile and wave "
            "quantization); Goyal et al., Accurate, Large Minibatch SGD, 2017";
        show(std::move(r),
             std::string(toString(m_v.bottleneck)) + ": amortize fixed overhead / align the batch");
    }

    // --- R10 ---
    void r10() {
        skip("R10",
             "a single trace shows no batch change; LR scaling is listed as the companion of R9 and checked "
             "when a batch change is known");
    }

    // --- R11 ---
    void r11() {
        if (!headline(Bottleneck::MemoryCapacity)) {
            skip("R11",
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
        r.pytorchChange =
            "import bitsandbytes as bnb\n"
            "optimizer = bnb.optim.Adam8bit(model.parameters(), lr=lr)\n"
            "# or shard parameters, gradients and optimizer state:\n"
            "model = torch.distributed.fsdp.FullyShardedDataParallel(model)\n";
        r.references =
            "Rajbhandari et al., ZeRO, SC 2020; Dettmers et al., 8-bit Optimizers via Block-wise "
            "Quantization, ICLR 2022; PyTorch documentation: FSDP";
        show(std::move(r), "memory-capacity-bound");
    }

    // --- R12 ---
    void r12() {
        const double comm = m_s.exposedCommunicationFraction + m_s.idleCollectiveFraction;
        if (!active(Bottleneck::Communication) || comm < m_c.secondaryMinFraction) {
            skip("R12",
                 "exposed communication " + pct(comm) +
                     " is not a constraint; scale-out is recommended only after mixed precision, "
                     "accumulation, checkpointing and the data pipeline, and only when memory, wall-clock or "
                     "dataset size binds, which one trace cannot show");
            return;
        }
        Recommendation r;
        r.ruleId = "R12";
        r.target = Bottleneck::Communication;
        r.term = IronLawTerm::Utilization;
        r.targetShare = comm;
        r.evidence = "exposed communication " + pct(m_s.exposedCommunicationFraction) +
                     " + waiting on collectives " + pct(m_s.idleCollectiveFraction) +
                     " of the step (world size " + std::to_string(m_s.worldSize) + ")";
        r.gain = gpuGain(0, comm * m_stepNs, comm * m_stepNs, true,
                         "gradient AllReduce hidden behind backward and the next forward (PyTorch DDP "
                         "bucketing): at most the exposed communication disappears",
                         "high end: no gain, when the collectives wait on other ranks (stragglers, "
                         "imbalance) rather than on the network");
        r.costs = "bucket tuning; keeping frequent collectives on NVLink constrains placement";
        r.risks = "gradient compression changes numerics: check convergence";
        r.companions = {"R7: gradient accumulation with no_sync() to sync less often"};
        r.pytorchChange =
            "model = torch.nn.parallel.DistributedDataParallel(\n"
            "    model, device_ids=[local_rank],\n"
            "    bucket_cap_mb=25,              # overlap AllReduce of early buckets with backward\n"
            "    gradient_as_bucket_view=True,\n"
            "    static_graph=True)\n"
            "# keep tensor parallelism inside a node (NVLink), data parallelism across nodes\n";
        r.references =
            "Li et al., PyTorch Distributed: Experiences on Accelerating Data Parallel Training, VLDB 2020; "
            "PyTorch documentation: DistributedDataParallel";
        show(std::move(r), "communication share " + pct(comm));
    }

    // --- R13 ---
    void r13() {
        if (!headline(Bottleneck::Compute)) {
            skip("R13", "a faster accelerator helps only compute-bound time; this job is " +
                            std::string(toString(m_v.bottleneck)) +
                            " (hardware upgrades for non-compute bottlenecks buy a larger invoice)");
            return;
        }
        Recommendation r;
        r.ruleId = "R13";
        r.target = Bottleneck::Compute;
        r.term = IronLawTerm::PeakThroughput;
        r.targetShare = share(Bottleneck::Compute);
        // Only compute-bound time scales with the peak: memory-bound kernel time is taken out.
        const double memoryBound =
            m_s.busyFraction * std::clamp(m_s.memoryBoundBusyShare.value_or(0.0), 0.0, 1.0);
        double computeShare = std::clamp(m_s.computeFraction - memoryBound, 0.0, 1.0);
        if (m_s.compositionKnown) {
            computeShare = std::min(computeShare, m_s.busyFraction * m_s.computeBoundKernelShare);
        }
        const double speedup = formulas::peakUpgradeSpeedup(computeShare, m_c.hardwareUpgradePeakRatio);
        r.evidence =
            std::string(m_v.desiredEndState ? "compute-bound at the desired end state" : "compute-bound") +
            ": compute-bound kernel time " + pct(computeShare) + " of the step";
        // Memory-bound kernel time is already taken out of computeShare; the low end scales only
        // half of what is left (kernels near the ridge gain less than the peak ratio).
        const double slowSpeedup =
            formulas::peakUpgradeSpeedup(computeShare / 2, m_c.hardwareUpgradePeakRatio);
        r.gain = gpuGain(m_stepNs - m_stepNs / slowSpeedup, m_stepNs - m_stepNs / speedup,
                         m_stepNs - m_stepNs / speedup, false,
                         "Amdahl over the compute-bound kernel time with a " +
                             core::formatFixed(m_c.hardwareUpgradePeakRatio, 1) +
                             "x peak: only compute-bound time scales",
                         "low end: only half of that time scales (kernels near the ridge become memory-bound "
                         "on a faster part)");
        r.costs = "hardware cost; or reduce O: fewer tokens, pruning, distillation";
        r.risks = "memory-bound kernels do not speed up with peak FLOP/s";
        r.pytorchChange = "# no code change: run on a device with a higher peak for the precision in use\n";
        r.references =
            "Amdahl, Validity of the single processor approach, AFIPS 1967; Williams et al., Roofline, CACM "
            "2009";
        show(std::move(r), "compute-bound: only the peak or the operation count is left");
    }

    // --- R15 (outside the seed's R1-R14): host work that launches nothing -------------------------
    // The fix follows the host cause that holds the idle (HostCauses.h): code named by its frames,
    // compilation (a warm-up cost), checkpointing/logging/evaluation, garbage collection.
    void r15() {
        const double hostShare = m_s.hostBoundFraction();
        if (!active(Bottleneck::HostBound)) {
            skip("R15", "host work that launches nothing idles the GPU " + pct(hostShare) +
                            " of the step, below " + pct(m_c.hostWorkMinFraction));
            return;
        }
        const HostCause cause = dominantHostCause(m_s);
        const double causeShare = hostCauseShare(m_s, cause);
        Recommendation r;
        r.ruleId = "R15";
        r.target = Bottleneck::HostBound;
        r.term = IronLawTerm::Utilization;
        r.targetShare = hostShare;
        r.evidence = "the GPU idles " + pct(hostShare) +
                     " of the step while the host works without launching (" + hostSplitText(m_s) + ")";
        const std::string frames = hostFramesText(m_s);
        if (!frames.empty()) {
            r.evidence += "; " + frames;
        }
        if (const std::string stacks = sampledStacksText(m_s, isNotDataRole); !stacks.empty()) {
            r.evidence += "; " + stacks;
        }
        switch (cause) {
            case HostCause::Compilation:
                r.gain =
                    hostIdleGain(causeShare * m_stepNs, true,
                                 "compilation is paid once per new shape or graph: steady-state steps do "
                                 "not pay it, so at most the compilation idle leaves the mean step");
                r.costs = "none for warm-up exclusion; a compile cache needs disk space";
                r.risks = "recompilation on changing shapes comes back every time a new shape appears";
                r.companions = {"profile steady-state steps: skip the first steps in the profiler schedule"};
                r.pytorchChange =
                    "# a warm-up cost: keep it out of the measurement\n"
                    "prof = torch.profiler.profile(schedule=torch.profiler.schedule(wait=2, warmup=3, "
                    "active=5))\n"
                    "# avoid recompiles on varying shapes, and reuse compiled artifacts across runs\n"
                    "model = torch.compile(model, dynamic=True)\n"
                    "# TORCHINDUCTOR_FX_GRAPH_CACHE=1 (on by default in recent PyTorch) caches compiled "
                    "graphs\n";
                break;
            case HostCause::Housekeeping:
                r.gain = hostIdleGain(causeShare * m_stepNs, true,
                                      "checkpoint saving, logging and evaluation off the training step's "
                                      "critical path: at most their idle disappears");
                r.costs = "host memory for an asynchronous checkpoint copy; fewer log points";
                r.risks = "asynchronous saves must finish before the next save or exit";
                r.pytorchChange =
                    "# save checkpoints asynchronously and less often\n"
                    "import torch.distributed.checkpoint as dcp\n"
                    "future = dcp.async_save(model.state_dict(), checkpoint_id=path)\n"
                    "# log every N steps from detached tensors, evaluate every M steps\n"
                    "if step % 100 == 0: logger.log({'loss': loss.detach()})\n";
                break;
            case HostCause::GarbageCollection:
                r.gain =
                    hostIdleGain(causeShare * m_stepNs, true,
                                 "collections moved out of the step loop: at most their idle disappears");
                r.costs = "memory held by cyclic garbage until the next explicit collection";
                r.risks = "reference cycles grow between explicit collections";
                r.pytorchChange =
                    "import gc\n"
                    "gc.freeze()          # after model and data set-up: long-lived objects leave the GC\n"
                    "gc.disable()\n"
                    "for step, batch in enumerate(loader):\n"
                    "    ...\n"
                    "    if step % 500 == 0: gc.collect()\n";
                break;
            case HostCause::Code:
                r.gain = hostIdleGain(causeShare * m_stepNs, true,
                                      "the named host code moved off the step (DataLoader workers, fewer "
                                      "Python calls per step, or the GPU): at most its idle disappears");
                r.costs = "code changes where the frames point";
                r.risks = "per-step Python bookkeeping often hides a host synchronization";
                r.companions = {"look at the frames named in the evidence first: they take the time"};
                r.pytorchChange =
                    "# move per-sample work into the Dataset (runs in DataLoader workers) or onto the GPU,\n"
                    "# and batch Python-level loops into tensor operations\n"
                    "loader = torch.utils.data.DataLoader(dataset, num_workers=8, pin_memory=True)\n";
                break;
        }
        r.references = "docs/ANALYSIS.md (host causes)";
        show(std::move(r),
             "host work " + std::string(describe(cause)) + " " + pct(causeShare) + " of the step");
    }

    // --- R18: the optimizer step in Python, from sampled stacks ---------------------------------
    // The main thread sampled in torch.optim's per-parameter loop while the GPU idles: a fused or
    // foreach implementation does the update in a few kernels instead of several per parameter.
    void r18() {
        const double idle = m_s.idleFraction;
        const double optimizer = m_s.sampledMain ? m_s.sampledMain->optimizerShare : 0.0;
        const double stepShare = optimizer * idle;  // share of idle -> share of the step
        if (!m_s.sampledMain) {
            skip("R18", "no sampled Python stacks of the main thread in the GPU idle");
            return;
        }
        if (!active(Bottleneck::HostBound) && !active(Bottleneck::LaunchOverhead)) {
            skip("R18", "neither host work nor launch overhead binds the step");
            return;
        }
        if (stepShare < m_c.secondaryMinFraction) {
            skip("R18", "the main thread is in the optimizer step during " + pct(optimizer) +
                            " of the GPU idle (" + pct(stepShare) + " of the step, below " +
                            pct(m_c.secondaryMinFraction) + ")");
            return;
        }
        Recommendation r;
        r.ruleId = "R18";
        r.target = active(Bottleneck::HostBound) ? Bottleneck::HostBound : Bottleneck::LaunchOverhead;
        r.term = IronLawTerm::Utilization;
        r.targetShare = stepShare;
        r.evidence = "the " + m_s.sampledMain->thread + " is in the optimizer step during " + pct(optimizer) +
                     " of the GPU idle (" + pct(stepShare) + " of the step)" +
                     (m_s.sampledMain->topOptimizerPath.empty() ? std::string()
                                                                : ": " + m_s.sampledMain->topOptimizerPath);
        r.gain = hostIdleGain(stepShare * m_stepNs, true,
                              "a fused (one kernel per parameter group) or foreach (one kernel per operation "
                              "over all parameters) update replaces the Python loop over parameters: at most "
                              "the optimizer's share of the GPU idle disappears");
        r.costs = "none for foreach; fused needs the parameters on the GPU in a supported dtype";
        r.risks = "fused optimizers do not support every option (e.g. differentiable=True)";
        r.pytorchChange =
            "optimizer = torch.optim.AdamW(model.parameters(), lr=lr, fused=True)\n"
            "# or foreach=True (the default when every parameter is on the GPU, unless turned off)\n";
        r.references = "PyTorch documentation: torch.optim (foreach and fused implementations, Algorithms)";
        show(std::move(r), "optimizer step in Python " + pct(stepShare) + " of the step");
    }

    // --- R17: exposed host-device copies ---
    void r17() {
        const double copies = m_s.exposedHostCopyFraction;
        if (!active(Bottleneck::CopyBound) || copies < m_c.secondaryMinFraction) {
            skip("R17", "host-device copies no kernel overlaps take " + pct(copies) +
                            " of the step: transfers are not a constraint");
            return;
        }
        Recommendation r;
        r.ruleId = "R17";
        r.target = Bottleneck::CopyBound;
        r.term = IronLawTerm::Utilization;
        r.targetShare = copies;
        r.evidence = "host-device copies that no kernel overlaps take " + pct(copies) + " of the step";
        if (m_s.pageableHostCopyShare > 0) {
            r.evidence += "; " + pct(m_s.pageableHostCopyShare) +
                          " of the copy time uses pageable host memory (synchronous, staged by the driver)";
        }
        if (m_s.pcieActiveFraction) {
            r.evidence += "; PCIe throughput " + pct(*m_s.pcieActiveFraction) + " of peak (measured)";
        }
        r.gain = copyGain(copies * m_stepNs, true,
                          "copies from pinned memory with non_blocking=True overlap kernels on another "
                          "stream, and data kept on the GPU is not copied at all: at most the exposed copy "
                          "time disappears (PyTorch docs, 'Use pinned memory buffers')");
        r.costs = "pinned host memory cannot be paged out; keeping data on the GPU uses device memory";
        r.risks = "a non_blocking copy must not be read on the host before a synchronization";
        r.companions = {"R1 when the copies move input batches: DataLoader(pin_memory=True) prefetches them"};
        r.pytorchChange =
            "# page-locked host buffers allow asynchronous H2D copies that overlap compute:\n"
            "loader = DataLoader(dataset, batch_size=batch_size, pin_memory=True, num_workers=4)\n"
            "x = x.to('cuda', non_blocking=True)\n"
            "# fewer, larger transfers: copy one contiguous batch instead of many small tensors\n"
            "batch = torch.stack(samples).pin_memory().to('cuda', non_blocking=True)\n"
            "# keep tensors on the GPU between steps instead of .cpu()/.item() round trips\n";
        r.references = "PyTorch docs: torch.utils.data (memory pinning), CUDA semantics (non_blocking)";
        show(std::move(r), "exposed host-device copies " + pct(copies) + " of the step");
    }

    // --- R16: kernels with fewer blocks than SMs ---
    void r16() {
        const double idle = m_s.underOccupiedIdleSmShare;
        if (m_s.smCount <= 0 || m_s.underOccupiedKernel.empty() || idle < m_c.underOccupancyMinIdleSmShare) {
            skip("R16", m_s.smCount <= 0 ? std::string("the device's SM count is unknown")
                                         : "kernels with fewer blocks than SMs leave " + pct(idle) +
                                               " of the SM capacity idle over the kernel time (< " +
                                               pct(m_c.underOccupancyMinIdleSmShare) + ")");
            return;
        }
        Recommendation r;
        r.ruleId = "R16";
        r.target =
            m_v.bottleneck == Bottleneck::MemoryBandwidth ? Bottleneck::MemoryBandwidth : Bottleneck::Compute;
        r.term = IronLawTerm::Utilization;
        // Kernel time is the compute union (kernels, not copies) of the step.
        const double kernelShare = std::clamp(m_s.computeFraction, 0.0, 1.0);
        r.targetShare = idle * kernelShare;
        const double blocks = static_cast<double>(m_s.underOccupiedBlocks);
        const double sms = static_cast<double>(m_s.smCount);
        r.evidence = pct(m_s.underOccupiedKernelShare) +
                     " of kernel time is in kernels whose grid has fewer blocks "
                     "than the " +
                     std::to_string(m_s.smCount) + " SMs, leaving " + pct(idle) +
                     " of the SM capacity idle over the kernel time; the largest, " +
                     evidenceName(m_s.underOccupiedKernel) + ", runs " +
                     std::to_string(m_s.underOccupiedBlocks) + " block" +
                     (m_s.underOccupiedBlocks == 1 ? "" : "s") + " (at most " +
                     pct(std::min(1.0, blocks / sms)) + " of the SMs busy)";
        // Upper bound: each such kernel shrinks to blocks / SMs of its time when the same work is spread
        // over every SM (memory-bound kernels saturate DRAM earlier, so the real gain is smaller).
        r.gain =
            occupancyGain(idle * kernelShare * m_stepNs, true,
                          "each under-occupied kernel shrinks to blocks / SMs of its time if the same work "
                          "is spread over all SMs; memory-bound kernels stop scaling once DRAM bandwidth "
                          "saturates, so this is an upper bound");
        r.costs =
            "a launch configuration change (grid-stride loop) or a library call instead of a hand kernel";
        r.risks =
            "more blocks than the work can fill adds scheduling overhead; check the occupancy calculator";
        r.pytorchChange =
            "# custom CUDA kernels: size the grid from the data and the SM count, e.g.\n"
            "#   blocks = max(num_sms * 4, (n + threads - 1) // threads)\n"
            "# and use a grid-stride loop inside the kernel; in PyTorch prefer the built-in ops\n"
            "# (torch.add / torch.addcmul) which size their grids to the device\n";
        r.references = "CUDA C++ Best Practices Guide, 'Occupancy' and 'Thread and Block Heuristics'";
        show(std::move(r), "under-occupied kernels leave " + pct(idle) + " of the SM capacity idle");
    }

    void order() {
        // Busy > 90 % makes the verdict compute-bound even when memory-bound kernels hold more of the
        // step (§2.3, Run A); the fixes still start with the constraint holding the largest share
        // (R14), then the verdict's own.
        std::vector<Bottleneck> leadClasses = {m_v.bottleneck};
        if (m_v.bottleneck == Bottleneck::Compute && !m_v.shares.empty() &&
            m_v.shares.front().bottleneck != m_v.bottleneck &&
            m_v.shares.front().shareOfWindow > m_v.shareOf(m_v.bottleneck)) {
            leadClasses.insert(leadClasses.begin(), m_v.shares.front().bottleneck);
        }
        const auto rank = [&](const Recommendation& r) {
            for (std::size_t lead = 0; lead < leadClasses.size(); ++lead) {
                const bool mixedLead =
                    leadClasses[lead] == Bottleneck::ComputeMemoryMixed &&
                    (r.target == Bottleneck::Compute || r.target == Bottleneck::MemoryBandwidth);
                if (r.target == leadClasses[lead] || mixedLead) {
                    const std::vector<std::string>& headlineOrder = classOrder(leadClasses[lead]);
                    const auto it = std::find(headlineOrder.begin(), headlineOrder.end(), r.ruleId);
                    return static_cast<int>(lead * 20) + static_cast<int>(it - headlineOrder.begin());
                }
            }
            return 100;
        };
        std::stable_sort(m_plan.recommendations.begin(), m_plan.recommendations.end(),
                         [&](const Recommendation& a, const Recommendation& b) {
                             const int ra = rank(a), rb = rank(b);
                             if (ra != rb) {
                                 return ra < rb;
                             }
                             if (a.targetShare != b.targetShare) {
                                 return a.targetShare > b.targetShare;  // dominant constraint first
                             }
                             return a.gain.speedup > b.gain.speedup;
                         });
    }

    void r14() {
        std::string order;
        for (const Recommendation& r : m_plan.recommendations) {
            order += (order.empty() ? "" : ", ") + r.ruleId;
        }
        RuleDecision d{"R14", titleOf("R14"), !m_plan.recommendations.empty(),
                       m_plan.recommendations.empty()
                           ? "nothing to order"
                           : "applied: " + order +
                                 " (headline first, then by share of the step; one fix at a time, "
                                 "then re-profile)"};
        const bool prefetch = m_plan.find("R1") != nullptr;
        if (prefetch && (m_plan.find("R8") != nullptr || m_plan.find("R11") != nullptr)) {
            d.reason += "; conflict: aggressive prefetching vs a memory-constrained configuration";
        }
        m_plan.decisions.push_back(std::move(d));
    }

    std::string nextStep() const {
        std::string first =
            m_plan.recommendations.empty() ? std::string("a fix") : m_plan.recommendations[0].ruleId;
        std::string next;
        switch (m_v.bottleneck) {
            case Bottleneck::Data:
                next = "memory-bandwidth-bound kernels or compute";
                break;
            case Bottleneck::Compute:
                next = "the data pipeline or memory-bandwidth-bound activation kernels";
                break;
            case Bottleneck::MemoryBandwidth:
                next = "compute-bound, the desired end state";
                break;
            case Bottleneck::MemoryCapacity:
                next = "the data pipeline";
                break;
            case Bottleneck::Communication:
                next = "compute or the data pipeline";
                break;
            case Bottleneck::LaunchOverhead:
                next = "compute-bound kernels";
                break;
            case Bottleneck::HostBound:
                next = "launch overhead or the kernels themselves";
                break;
            case Bottleneck::CopyBound:
                next = "the kernels themselves (compute or memory bandwidth) once the copies overlap them";
                break;
            case Bottleneck::ComputeMemoryMixed:
                next = "compute-bound once the memory-bound kernels are fused";
                break;
            case Bottleneck::Undetermined:
            case Bottleneck::NoGpuActivity:
                return "Record host activity (CPU ops, Python functions, DataLoader ranges) and re-profile.";
        }
        return "Apply " + first + ", then re-profile. Likely next bottleneck: " + next + ".";
    }

    const Verdict& m_v;
    const DiagnosisSignals& m_s;
    const DiagnosisConfig& m_c;
    double m_stepNs = 0;
    FixPlan m_plan;
};

}  // namespace

FixPlan recommendFixes(const Verdict& verdict, const DiagnosisSignals& signals,
                       const DiagnosisConfig& config) {
    return Engine(verdict, signals, config).run();
}

std::string explain(const FixPlan& plan) {
    std::string out;
    for (const RuleDecision& d : plan.decisions) {
        out += d.ruleId + " " + d.title + ": " + (d.shown ? "shown: " : "not shown: ") + d.reason + "\n";
    }
    return out;
}

}  // namespace chokepoint::analysis
