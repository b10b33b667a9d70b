#pragma once
// The D·A·M classifier: one Verdict per window from its DiagnosisSignals and the thresholds.
//
// Precedence (§2.3 reconstructed flowchart, §8.1, §8.2, §9.4; details in docs/ANALYSIS.md):
//   0. no GPU work                                 → no GPU activity
//   1. peak memory > capacity × (1 − headroom), OOM → Machine / memory-capacity-bound (precondition)
//   2. gap classes, each a share of the window; the largest one at or above its threshold wins:
//        data wait (recurring, CPU busy)           → Data-bound
//        exposed communication + collective waits  → communication-bound (also when T_comm > T_comp)
//        idle while the host launches/synchronizes → launch-overhead-bound
//        idle while the host works without launching (code, compilation, checkpointing/logging/
//        evaluation, GC)                           → host-bound
//        host-device copies no kernel overlaps     → copy-bound
//   3. busy ≥ 50 % and the trace shows what fills the busy time (measured GPU metrics, else the
//      kernels' place against the ridge): DRAM throughput high or memory-bound kernels ahead →
//      memory-bandwidth-bound; compute-bound kernels ahead → compute-bound; mostly kernels that
//      cannot be placed (no class, shapes or counters) → undetermined, naming what is missing.
//   4. aggregate input only (busy and HBM, the spec's T41-T44), Table 7's bands:
//      busy > 90 % → compute-bound even with high HBM; 80–90 %: high HBM → memory-bandwidth-bound,
//      else compute-bound (walkthrough 85 %); 50–80 %: high HBM → memory-bandwidth-bound; low HBM →
//      compute-bound (low confidence)
//   5. otherwise (busy < 50 % with no gap class): the largest idle cause; undetermined when the
//      idle time is unexplained (no host activity recorded).
// Compute-bound is the desired end state only with an MFU at or above DiagnosisConfig::lowMfu.
// Confidence starts at 0.9 and drops for missing or estimated signals and for small margins.
// Pure function, O(1).

#include "core/analysis/diagnosis/DiagnosisConfig.h"
#include "core/analysis/diagnosis/DiagnosisSignals.h"
#include "core/analysis/diagnosis/Verdict.h"

namespace chokepoint::analysis {

Verdict classifyWindow(const DiagnosisSignals& signals, const DiagnosisConfig& config = {});

// Shares of the window per constraint, as used by the scorecard and the fix ordering (R14.2):
//   Data = idle data wait; Communication = exposed comm + collective waits; LaunchOverhead = launch
//   + sync idle; CopyBound = exposed host-device copies; MemoryBandwidth = busy × memory-bound busy
//   share; Compute = compute − that part (with a measured composition: at most busy × the
//   compute-bound kernel share).
std::vector<ConstraintShare> constraintShares(const DiagnosisSignals& signals, const DiagnosisConfig& config);

}  // namespace chokepoint::analysis
