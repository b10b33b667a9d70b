// The input-side fix rules: the data pipeline (R1-R3) and host-device copies (R17).

#include <algorithm>
#include <cmath>
#include <string>

#include "core/analysis/diagnosis/FixContext.h"
#include "core/analysis/diagnosis/FixRules.h"
#include "core/analysis/diagnosis/HostCauses.h"

namespace chokepoint::analysis::fixrules {

// --- R1 ---
void prefetchData(FixContext& ctx) {
    const DiagnosisSignals& s = ctx.signals();
    const DiagnosisConfig& c = ctx.config();
    const double data = s.idleDataWaitFraction;
    if (!ctx.active(Bottleneck::Data) || data < c.dataWaitMinFraction) {
        ctx.skip("R1", "data wait " + pct(data) + " of the step is below " + pct(c.dataWaitMinFraction) +
                           ": the input pipeline already keeps up, so prefetching adds complexity without "
                           "measurable gain");
        return;
    }
    if (s.busyFraction > c.computeBoundMinBusy) {
        ctx.skip("R1", "the accelerator is already compute-saturated (busy " + pct(s.busyFraction) + ")");
        return;
    }
    Recommendation r;
    r.ruleId = "R1";
    r.target = Bottleneck::Data;
    r.term = IronLawTerm::Utilization;
    r.targetShare = data;
    r.evidence = "the GPU waits for the input pipeline " + pct(data) + " of each step";
    if (const std::string frames = dataFramesText(s); !frames.empty()) {
        r.evidence += " (" + frames + ")";
    }
    if (const std::string stacks = sampledStacksText(s, isDataRole); !stacks.empty()) {
        r.evidence += "; " + stacks;
    }
    {
        std::string basis, uncertainty;
        const FixContext::Prediction p = ctx.dataFix(basis, uncertainty);
        r.gain = ctx.gainOf(p, false,
                            "overlapping loading of batch n+1 with compute on batch n removes the data-wait "
                            "intervals (the step goes from the sum of the stages to their max); " +
                                basis,
                            uncertainty);
    }
    r.costs =
        "host memory for the prefetch window = num_workers x prefetch_factor x batch size; "
        "more worker processes contend for CPU cores";
    r.risks = "too small a buffer brings the stalls back; aggressive prefetching conflicts with tight memory";
    r.companions = {"pin_memory=True with non_blocking=True copies so the H2D transfer overlaps compute"};
    r.pytorchChange = FixContext::snippet("r1_prefetch");
    r.references =
        "PyTorch documentation: torch.utils.data.DataLoader (num_workers, pin_memory, prefetch_factor, "
        "persistent_workers); PyTorch Performance Tuning Guide: asynchronous data loading";
    ctx.show(std::move(r), "data wait " + pct(data) + " >= " + pct(c.dataWaitMinFraction));
}

// --- R2 ---
void parallelPreprocessing(FixContext& ctx) {
    const DiagnosisSignals& s = ctx.signals();
    const DiagnosisConfig& c = ctx.config();
    const double data = s.idleDataWaitFraction;
    if (!ctx.active(Bottleneck::Data) || data < c.dataWaitMinFraction) {
        ctx.skip("R2", "not data-bound (data wait " + pct(data) +
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
                 (s.dataLoadingHostFraction > 0
                      ? " (host inside DataLoader ranges " + pct(s.dataLoadingHostFraction) + " of the step)"
                      : std::string());
    // Sampled stacks say where the batches are made: the main thread running the Dataset's
    // __getitem__ and transforms itself is a DataLoader without worker processes.
    if (s.sampledMain && s.sampledMain->inputWorkShare >= c.dataWaitMinFraction) {
        const DiagnosisSignals::SampledMainThread& main = *s.sampledMain;
        r.evidence += "; the " + main.thread + " itself runs dataset and transform code during " +
                      pct(main.inputWorkShare) + " of the GPU idle (" + main.topInputPath +
                      "): the DataLoader makes the batches in the main process (num_workers=0), so "
                      "worker processes take that work off the training loop";
    }
    {
        std::string basis, uncertainty;
        const FixContext::Prediction p = ctx.dataFix(basis, uncertainty);
        r.gain = ctx.gainOf(p, true,
                            "if decoding and augmentation run in worker processes or on the GPU, the data "
                            "wait can at most disappear; " +
                                basis,
                            uncertainty);
    }
    r.costs = "worker processes need host memory and cores; GPU preprocessing (DALI) uses GPU time";
    r.risks = "per-worker random seeds and file handles must be set up in worker_init_fn";
    r.companions = {"R1 (prefetching) so the parallel workers run ahead of the GPU"};
    r.pytorchChange = FixContext::snippet("r2_parallel_preprocessing");
    r.references =
        "PyTorch documentation: torch.utils.data (multi-process data loading, worker_init_fn); "
        "torchvision.io.decode_jpeg on CUDA; NVIDIA DALI documentation";
    ctx.show(std::move(r), "data-bound: parallel or GPU-side preprocessing removes GIL serialization");
}

// --- R3 ---
void fasterStorage(FixContext& ctx) {
    const DiagnosisSignals& s = ctx.signals();
    const DiagnosisConfig& c = ctx.config();
    const double data = s.idleDataWaitFraction;
    if (!ctx.headline(Bottleneck::Data) || data < 2 * c.dataWaitMinFraction) {
        ctx.skip("R3", "storage is not shown to bind: data wait " + pct(data) + " < " +
                           pct(2 * c.dataWaitMinFraction) +
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
        const FixContext::Prediction p = ctx.dataFix(basis, uncertainty);
        r.gain =
            ctx.gainOf(p, true,
                       "small random reads get a fraction of a device's sequential bandwidth; sequential "
                       "shard formats recover it, so the data wait can at most disappear; " +
                           basis,
                       uncertainty + "; storage throughput itself is not in the trace");
    }
    r.costs = "converting the dataset (Parquet/Arrow/WebDataset shards), local NVMe copies";
    r.risks = "shard-level shuffling is coarser than per-sample shuffling";
    r.pytorchChange = FixContext::snippet("r3_sequential_shards");
    r.references = "WebDataset documentation; PyTorch documentation: torch.utils.data.IterableDataset";
    ctx.show(std::move(r), "data wait " + pct(data) + " is large enough that storage may bind");
}

// --- R17: exposed host-device copies ---
void hostDeviceCopies(FixContext& ctx) {
    const DiagnosisSignals& s = ctx.signals();
    const DiagnosisConfig& c = ctx.config();
    const double stepNs = ctx.stepNs();
    const double copies = s.exposedHostCopyFraction;
    if (!ctx.active(Bottleneck::CopyBound) || copies < c.secondaryMinFraction) {
        ctx.skip("R17", "host-device copies no kernel overlaps take " + pct(copies) +
                            " of the step: transfers are not a constraint");
        return;
    }
    Recommendation r;
    r.ruleId = "R17";
    r.target = Bottleneck::CopyBound;
    r.term = IronLawTerm::Utilization;
    r.targetShare = copies;
    r.evidence = "host-device copies that no kernel overlaps take " + pct(copies) + " of the step";
    if (s.pageableHostCopyShare > 0) {
        r.evidence += "; " + pct(s.pageableHostCopyShare) +
                      " of the copy time uses pageable host memory (synchronous, staged by the driver)";
    }
    if (s.pcieActiveFraction) {
        r.evidence += "; PCIe throughput " + pct(*s.pcieActiveFraction) + " of peak (measured)";
    }
    r.gain = ctx.copyGain(copies * stepNs, true,
                          "copies from pinned memory with non_blocking=True overlap kernels on another "
                          "stream, and data kept on the GPU is not copied at all: at most the exposed copy "
                          "time disappears (PyTorch docs, 'Use pinned memory buffers')");
    r.costs = "pinned host memory cannot be paged out; keeping data on the GPU uses device memory";
    r.risks = "a non_blocking copy must not be read on the host before a synchronization";
    r.companions = {"R1 when the copies move input batches: DataLoader(pin_memory=True) prefetches them"};
    r.pytorchChange = FixContext::snippet("r17_pinned_copies");
    r.references = "PyTorch docs: torch.utils.data (memory pinning), CUDA semantics (non_blocking)";
    ctx.show(std::move(r), "exposed host-device copies " + pct(copies) + " of the step");
}

}  // namespace chokepoint::analysis::fixrules
