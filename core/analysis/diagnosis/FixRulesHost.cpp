// The host-side fix rules: host work off the critical path (R15), the optimizer step (R18) and
// host synchronizations that drain the GPU's queue (R19).

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
            r.companions = {
                hostCodeUnnamed(s)
                    ? "the trace shows only that the thread was on a CPU, not what it ran: record "
                      "Python stacks (chokepoint-cli run samples them) or wrap the host phases in "
                      "NVTX ranges, then look at the frames"
                    : "look at the frames named in the evidence first: they take the time"};
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

// --- R19: host synchronizations that drain the queue -----------------------------------------
// A synchronizing call (.item(), .cpu(), torch.cuda.synchronize, a blocking copy) holds the host
// until the GPU has finished everything queued; the GPU then idles until the host, back from the
// call, has launched again. Without the call the host's next work overlaps the GPU's queued work.
// Saving: at most the host time blocked in those calls and at most the idle that followed them;
// the step stays at least the GPU's busy time and the host's launch-path work.
void removeHostSyncs(FixContext& ctx) {
    const DiagnosisSignals& s = ctx.signals();
    const DiagnosisConfig& c = ctx.config();
    const double stepNs = ctx.stepNs();
    const double saved = std::min(s.hostSyncFraction, s.idleAfterSyncFraction);
    if (saved < c.secondaryMinFraction) {
        ctx.skip("R19", "the host is blocked in synchronizing calls " + pct(s.hostSyncFraction) +
                            " of the step and the GPU idles " + pct(s.idleAfterSyncFraction) +
                            " right after them: the smaller is below " + pct(c.secondaryMinFraction));
        return;
    }
    // The idle after the calls must be the host's: launching, working or loading data. Where no
    // host activity explains it (code the trace does not record), nothing says what would overlap.
    Bottleneck target = Bottleneck::Undetermined;
    for (const Bottleneck b :
         {ctx.verdict().bottleneck, Bottleneck::LaunchOverhead, Bottleneck::HostBound, Bottleneck::Data}) {
        const bool hostSide =
            b == Bottleneck::LaunchOverhead || b == Bottleneck::HostBound || b == Bottleneck::Data;
        if (hostSide && ctx.active(b) && target == Bottleneck::Undetermined) {
            target = b;
        }
    }
    if (target == Bottleneck::Undetermined) {
        ctx.skip("R19", "the GPU idles " + pct(s.idleAfterSyncFraction) +
                            " after synchronizing calls, but neither launch overhead, host work nor data "
                            "loading binds the step: the trace does not show what the host does then");
        return;
    }
    Recommendation r;
    r.ruleId = "R19";
    r.target = target;
    r.term = IronLawTerm::Utilization;
    r.targetShare = saved;
    r.evidence = "the host waits in synchronizing calls " + pct(s.hostSyncFraction) +
                 " of the step, and the GPU idles " + pct(s.idleAfterSyncFraction) +
                 " of the step while the host is in one or right after it returns";
    std::string calls;
    for (std::size_t i = 0; i < s.afterSyncCalls.size() && i < 3; ++i) {
        const DiagnosisSignals::HostFrameShare& call = s.afterSyncCalls[i];
        calls += (calls.empty() ? "" : ", ") + call.name + " (" + pct(call.shareOfCause) + ")";
    }
    if (!calls.empty()) {
        r.evidence += ": after " + calls;
    }
    const double busyNs = s.busyFraction * stepNs;
    const double afterNs = std::max({stepNs - saved * stepNs, busyNs, ctx.hostPathNs()});
    r.gain = ctx.gainOf({afterNs, afterNs, stepNs}, true,
                        "without the synchronization the host's next work overlaps the GPU's queued work: "
                        "at most the time it waited there, and at most the idle that followed; the step "
                        "cannot get shorter than the GPU's busy time or the host's launch-path work",
                        "high end: no gain, when the value is needed at once on the host (a data-dependent "
                        "branch, nonzero or a boolean mask that sizes the next tensor)");
    r.costs = "logged values arrive a few steps late; accumulate them on the GPU";
    r.risks = "a removed synchronization can hide an asynchronous CUDA error until a later call";
    r.pytorchChange = FixContext::snippet("r19_remove_syncs");
    r.references =
        "PyTorch documentation: torch.cuda.set_sync_debug_mode, CUDA semantics (asynchronous "
        "execution); PyTorch Performance Tuning Guide (avoid unnecessary CPU-GPU synchronization)";
    ctx.show(std::move(r), "the GPU idles " + pct(s.idleAfterSyncFraction) + " after host synchronizations");
}

}  // namespace chokepoint::analysis::fixrules
