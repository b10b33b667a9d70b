#include "core/analysis/diagnosis/JudgedIdleCause.h"

namespace chokepoint::analysis {

IdleCause judgedIdleCause(const AnalysisReport& report, const IdleInterval& interval) {
    const bool movable =
        interval.cause == IdleCause::LaunchOverhead || interval.cause == IdleCause::Synchronization;
    const bool analysedDevice =
        report.device.deviceIndex < 0 || interval.deviceIndex == report.device.deviceIndex;
    if (movable && analysedDevice && interval.streamId == -1 &&
        report.overallSignals.launchIdleReassignedFraction > 0) {
        return IdleCause::Collective;
    }
    return interval.cause;
}

}  // namespace chokepoint::analysis
