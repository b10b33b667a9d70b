#include "core/analysis/metrics/TraceMetrics.h"

#include "core/analysis/metrics/StepCompilation.h"

namespace chokepoint::analysis {

core::Result<TraceMetrics> computeTraceMetrics(const core::TraceModel& model, const MetricsOptions& options,
                                               const DeviceSpec* device, const core::ProgressFn& progress) {
    TraceMetrics m;
    auto step = [&](double fraction) { return core::reportProgress(progress, fraction); };
    const core::Error cancelled = core::makeError(core::kCancelledMessage);

    m.hasGpuWork = model.gpuEventCount() > 0;
    m.traceSpan = model.timeSpan();
    if (!m.hasGpuWork) {
        m.notes.push_back("no GPU activity in the trace (no kernels, copies or memsets)");
    }
    m.steps = detectSteps(model, options.steps);
    m.stepTimes = summarizeStepTimes(m.steps, {}, compilationNsPerStep(model, m.steps),
                                     housekeepingNsPerStep(model, m.steps));
    m.notes.push_back("steps: " + m.steps.note);
    if (!step(0.15)) {
        return cancelled;
    }
    m.kernels = computeKernelStats(model);
    if (!step(0.3)) {
        return cancelled;
    }
    m.phases = detectPhases(model, m.steps);
    if (!m.phases.note.empty()) {
        m.notes.push_back("phases: " + m.phases.note);
    }
    if (!step(0.45)) {
        return cancelled;
    }
    {
        const SampledStacks stacks(model);
        m.accounting = computeGpuTimeAccounting(model, m.steps, m.kernels, options.accounting,
                                                m.stepTimes.steady, &stacks);
        m.stackIdle = computeStackIdleProfile(stacks, m.accounting, m.stepTimes.steady);
    }
    if (!step(0.65)) {
        return cancelled;
    }
    m.hta = computeHtaBreakdown(model, options.hta);
    if (options.tensorBoardOverview) {
        m.tbPlugin = computeTbPluginOverview(model);
    } else {
        m.tbPlugin.note = "not computed (a view table, turned off for this analysis)";
    }
    if (!step(0.75)) {
        return cancelled;
    }
    m.opCosts = attributeOpCosts(model, &m.kernels.kernelClass);
    if (!m.opCosts.shapesRecorded()) {
        // A torch.profiler user turns shapes on; a Chokepoint capture has none to record (CUPTI sees
        // kernels, not the framework's tensors): its FLOPs come from the helper or the user.
        m.notes.push_back(
            model.metadata.sourceFormat == "cptrace"
                ? "no input shapes (a Chokepoint capture records kernels, not tensor shapes): no "
                  "FLOP/byte estimates per op, no roofline points; FLOPs per step come from the "
                  "helper (cp.step(n, count_flops=True)) or --model-flops"
                : "no input shapes recorded (record_shapes=False): no FLOP/byte estimates, no "
                  "roofline points");
    }
    m.counters = summarizeCounters(model, m.steps);
    if (!step(0.9)) {
        return cancelled;
    }
    m.roofline = computeRoofline(model, m.kernels, m.opCosts, m.steps, m.counters, device, options.roofline);
    if (device == nullptr) {
        m.notes.push_back("no device spec: roofline without ceilings, no bandwidth fractions");
    }
    if (!step(1.0)) {
        return cancelled;
    }
    return m;
}

}  // namespace chokepoint::analysis
