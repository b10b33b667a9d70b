#include "core/analysis/diagnosis/EvidenceRange.h"

#include <algorithm>
#include <optional>

namespace chokepoint::analysis {

namespace {

std::optional<IdleCause> idleCauseOf(Bottleneck target) {
    switch (target) {
        case Bottleneck::Data:
            return IdleCause::DataWait;
        case Bottleneck::LaunchOverhead:
            return IdleCause::LaunchOverhead;
        case Bottleneck::Communication:
            return IdleCause::Collective;
        case Bottleneck::HostBound:
            return IdleCause::HostWork;  // and the other host causes (countsAs)
        default:
            return std::nullopt;
    }
}

// The host-bound verdict counts every host cause (HostWork, Compilation, Housekeeping, GC).
bool countsAs(IdleCause cause, IdleCause wanted) {
    if (wanted == IdleCause::HostWork) {
        return cause == IdleCause::HostWork || cause == IdleCause::Compilation ||
               cause == IdleCause::Housekeeping || cause == IdleCause::GarbageCollection;
    }
    return cause == wanted;
}

core::TimeRange clampTo(core::TimeRange range, core::TimeRange bounds) {
    if (bounds.empty()) {
        return range;
    }
    range.startNs = std::clamp(range.startNs, bounds.startNs, bounds.endNs);
    range.endNs = std::clamp(range.endNs, range.startNs, bounds.endNs);
    return range;
}

}  // namespace

core::TimeRange evidenceRange(const AnalysisReport& report, Bottleneck target) {
    const core::TimeRange bounds = report.metrics.traceSpan;
    if (const std::optional<IdleCause> cause = idleCauseOf(target)) {
        const IdleInterval* longest = nullptr;
        for (const IdleInterval& idle : report.metrics.accounting.idleIntervals) {
            if (countsAs(idle.cause, *cause) && !idle.range.empty() &&
                (longest == nullptr || idle.range.durationNs() > longest->range.durationNs())) {
                longest = &idle;
            }
        }
        if (longest != nullptr) {
            // Some context either side so the gap is seen between the work around it.
            const core::DurationNs pad = std::max<core::DurationNs>(longest->range.durationNs() / 4, 1000);
            return clampTo({longest->range.startNs - pad, longest->range.endNs + pad}, bounds);
        }
    }
    const StepDiagnosis* best = nullptr;
    double bestShare = -1;
    for (const StepDiagnosis& step : report.steps) {
        const double share = step.verdict.shareOf(target);
        if (share > bestShare) {
            bestShare = share;
            best = &step;
        }
    }
    if (best != nullptr && !best->range.empty()) {
        return clampTo(best->range, bounds);
    }
    const core::TimeRange span = report.metrics.steps.span();
    return span.empty() ? bounds : clampTo(span, bounds);
}

}  // namespace chokepoint::analysis
