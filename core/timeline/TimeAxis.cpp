#include "core/timeline/TimeAxis.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace chokepoint::timeline {

core::DurationNs chooseTickStep(double nsPerPixel, double minSpacingPx) {
    const double wantNs = std::max(1.0, nsPerPixel * minSpacingPx);
    core::DurationNs power = 1;
    // Largest power of ten not above wantNs; int64 holds 10^18, far beyond any trace.
    while (power <= core::DurationNs{100'000'000'000'000'000} && static_cast<double>(power) * 10 <= wantNs) {
        power *= 10;
    }
    for (core::DurationNs multiple : {1, 2, 5, 10}) {
        if (static_cast<double>(power * multiple) >= wantNs) {
            return power * multiple;
        }
    }
    return power * 10;
}

std::string formatTickLabel(core::DurationNs offsetNs, core::DurationNs stepNs) {
    if (offsetNs == 0) {
        return "0";
    }
    struct Unit {
        core::DurationNs ns;
        const char* name;
    };
    static constexpr Unit kUnits[] = {
        {core::kNsPerSecond, "s"}, {core::kNsPerMs, "ms"}, {core::kNsPerUs, "µs"}, {1, "ns"}};
    // The unit suits the offset's magnitude; the decimals suit the step.
    const core::DurationNs magnitude = offsetNs < 0 ? -offsetNs : offsetNs;
    Unit unit = kUnits[3];
    for (const Unit& u : kUnits) {
        if (magnitude >= u.ns) {
            unit = u;
            break;
        }
    }
    // Decimals so that one step changes the last printed digit: step 250 µs in ms -> 2 decimals.
    int decimals = 0;
    core::DurationNs rest = stepNs % unit.ns;
    core::DurationNs scale = unit.ns;
    while (rest != 0 && decimals < 9) {
        scale /= 10;
        ++decimals;
        rest = scale > 0 ? stepNs % scale : 0;
    }
    char buffer[64];
    const double value = static_cast<double>(offsetNs) / static_cast<double>(unit.ns);
    std::snprintf(buffer, sizeof buffer, "%.*f %s", decimals, value, unit.name);
    return buffer;
}

AxisTicks computeTicks(core::TimeRange visible, double widthPx, core::TimestampNs originNs,
                       double minSpacingPx) {
    AxisTicks result;
    if (visible.empty() || !(widthPx > 0)) {
        return result;
    }
    const double nsPerPixel = static_cast<double>(visible.durationNs()) / widthPx;
    result.stepNs = chooseTickStep(nsPerPixel, minSpacingPx);
    const core::DurationNs minorNs = std::max<core::DurationNs>(1, result.stepNs / 5);
    // First minor tick at or after the visible start, aligned to the origin.
    const core::DurationNs fromOrigin = visible.startNs - originNs;
    core::DurationNs k = fromOrigin / minorNs;
    if (k * minorNs < fromOrigin) {
        ++k;
    }
    for (core::TimestampNs t = originNs + k * minorNs; t < visible.endNs; t += minorNs) {
        const core::DurationNs offset = t - originNs;
        const bool major = offset % result.stepNs == 0;
        result.ticks.push_back({t, major, major ? formatTickLabel(offset, result.stepNs) : std::string()});
        if (result.ticks.size() > 100'000) {
            break;  // defensive: never more than a pixel's worth
        }
    }
    return result;
}

}  // namespace chokepoint::timeline
