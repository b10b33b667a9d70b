// The host-side fix rules: host work off the critical path (R15) and the optimizer step (R18).

#include <algorithm>
#include <cmath>
#include <string>

#include "core/analysis/diagnosis/FixContext.h"
#include "core/analysis/diagnosis/FixRules.h"
#include "core/analysis/diagnosis/HostCauses.h"

namespace chokepoint::analysis::fixrules {

// --- R15 (outside the seed's R1-R14): host work that launches nothing -------------------------
// The fix follows the host cause that holds the idle (HostCauses.h): code named by its frames,
// compilation (a warm-up cost), checkpointing/logging/evaluation, garbage collection.
void hostWorkOffPath(FixContext& ctx) {
    const DiagnosisSignals& s = ctx.signals();
    const DiagnosisConfig& c = ctx.config();
    const double stepNs = ctx.stepNs();
    const double hostShare = s.hostBoundFraction();
    if (!ctx.active(Bottleneck::HostBound)) {
        ctx.skip("R15", "host work that launches nothing idles the GPU " + pct(hostShare) +
                            " of the step, below " + pct(c.hostWorkMinFraction));
        return;
    }
    const HostCause cause = dominantHostCause(s);
    const double causeShare = hostCauseShare(s, cause);
    Recommendation r;
    r.ruleId = "R15";
    r.target = Bottleneck::HostBound;
    r.term = IronLawTerm::Utilization;
    r.targetShare = hostShare;
    r.evidence = "the GPU idles " + pct(hostShare) + " of the step while the host works without launching (" +
                 hostSplitText(s) + ")";
    const std::string frames = hostFramesText(s);
    if (!frames.empty()) {
        r.evidence += "; " + frames;
    }
    if (const std::string stacks = sampledStacksText(s, isNotDataRole); !stacks.empty()) {
        r.evidence += "; " + stacks;
    }
    switch (cause) {
        case HostCause::Compilation:
            r.gain =
                ctx.hostIdleGain(causeShare * stepNs, true,
                                 "compilation is paid once per new shape or graph: steady-state steps do "
                                 "not pay it, so at most the compilation idle leaves the mean step");
            r.costs = "none for warm-up exclusion; a compile cache needs disk space";
            r.risks = "recompilation on changing shapes comes back every time a new shape appears";
            r.companions = {"profile steady-state steps: skip the first steps in the profiler schedule"};
            r.pytorchChange = FixContext::snippet("r15_compilation");
            break;
        case HostCause::Housekeeping:
            r.gain = ctx.hostIdleGain(causeShare * stepNs, true,
                                      "checkpoint saving, logging and evaluation off the training step's "
                                      "critical path: at most their idle disappears");
            r.costs = "host memory for an asynchronous checkpoint copy; fewer log points";
            r.risks = "asynchronous saves must finish before the next save or exit";
            r.pytorchChange = FixContext::snippet("r15_housekeeping");
            break;
        case HostCause::GarbageCollection:
            r.gain =
                ctx.hostIdleGain(causeShare * stepNs, true,
                                 "collections moved out of the step loop: at most their idle disappears");
            r.costs = "memory held by cyclic garbage until the next explicit collection";
            r.risks = "reference cycles grow between explicit collections";
            r.pytorchChange = FixContext::snippet("r15_gc");
            break;
        case HostCause::Code:
            r.gain = ctx.hostIdleGain(causeShare * stepNs, true,
                                      "the named host code moved off the step (DataLoader workers, fewer "
                                      "Python calls per step, or the GPU): at most its idle disappears");
            r.costs = "code changes where the frames point";
            r.risks = "per-step Python bookkeeping often hides a host synchronization";
            r.companions = {"look at the frames named in the evidence first: they take the time"};
            r.pytorchChange = FixContext::snippet("r15_code");
            break;
    }
    r.references = "docs/ANALYSIS.md (host causes)";
    ctx.show(std::move(r),
             "host work " + std::string(describe(cause)) + " " + pct(causeShare) + " of the step");
}

// --- R18: the optimizer step in Python, from sampled stacks ---------------------------------
// The main thread sampled in torch.optim's per-parameter loop while the GPU idles: a fused or
// foreach implementation does the update in a few kernels instead of several per parameter.
void fusedOptimizer(FixContext& ctx) {
    const DiagnosisSignals& s = ctx.signals();
    const DiagnosisConfig& c = ctx.config();
    const double stepNs = ctx.stepNs();
    const double idle = s.idleFraction;
    const double optimizer = s.sampledMain ? s.sampledMain->optimizerShare : 0.0;
    const double stepShare = optimizer * idle;  // share of idle -> share of the step
    if (!s.sampledMain) {
        ctx.skip("R18", "no sampled Python stacks of the main thread in the GPU idle");
        return;
    }
    if (!ctx.active(Bottleneck::HostBound) && !ctx.active(Bottleneck::LaunchOverhead)) {
        ctx.skip("R18", "neither host work nor launch overhead binds the step");
        return;
    }
    if (stepShare < c.secondaryMinFraction) {
        ctx.skip("R18", "the main thread is in the optimizer step during " + pct(optimizer) +
                            " of the GPU idle (" + pct(stepShare) + " of the step, below " +
                            pct(c.secondaryMinFraction) + ")");
        return;
    }
    Recommendation r;
    r.ruleId = "R18";
    r.target = ctx.active(Bottleneck::HostBound) ? Bottleneck::HostBound : Bottleneck::LaunchOverhead;
    r.term = IronLawTerm::Utilization;
    r.targetShare = stepShare;
    r.evidence =
        "the " + s.sampledMain->thread + " is in the optimizer step during " + pct(optimizer) +
        " of the GPU idle (" + pct(stepShare) + " of the step)" +
        (s.sampledMain->topOptimizerPath.empty() ? std::string() : ": " + s.sampledMain->topOptimizerPath);
    r.gain = ctx.hostIdleGain(stepShare * stepNs, true,
                              "a fused (one kernel per parameter group) or foreach (one kernel per operation "
                              "over all parameters) update replaces the Python loop over parameters: at most "
                              "the optimizer's share of the GPU idle disappears");
    r.costs = "none for foreach; fused needs the parameters on the GPU in a supported dtype";
    r.risks = "fused optimizers do not support every option (e.g. differentiable=True)";
    r.pytorchChange = FixContext::snippet("r18_fused_optimizer");
    r.references = "PyTorch documentation: torch.optim (foreach and fused implementations, Algorithms)";
    ctx.show(std::move(r), "optimizer step in Python " + pct(stepShare) + " of the step");
}

}  // namespace chokepoint::analysis::fixrules
