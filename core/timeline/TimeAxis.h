#pragma once
// Time ruler ticks: a 1-2-5 step sequence chosen so labels are at least `minSpacingPx` apart,
// labelled relative to an origin (normally the trace start) in ns, µs, ms or s with just enough
// decimals to tell neighbouring ticks apart.

#include <string>
#include <vector>

#include "core/base/Time.h"

namespace chokepoint::timeline {

struct AxisTick {
    core::TimestampNs timeNs = 0;
    bool major = false;  // labelled tick; minor ticks subdivide the step in five
    std::string label;   // empty for minor ticks
};

struct AxisTicks {
    core::DurationNs stepNs = 0;  // distance between labelled ticks
    std::vector<AxisTick> ticks;  // ascending, inside the visible range
};

// Chooses a step of 1, 2 or 5 times a power of ten nanoseconds (>= 1 ns).
core::DurationNs chooseTickStep(double nsPerPixel, double minSpacingPx);

// Ticks for `visible` drawn `widthPx` wide. Returns no ticks for an empty range or width.
AxisTicks computeTicks(core::TimeRange visible, double widthPx, core::TimestampNs originNs,
                       double minSpacingPx = 90);

// "0", "250 ns", "1.5 µs", "12.25 ms", "3 s": the offset from the origin in the unit that suits
// its magnitude, with the decimals needed to show a multiple of `stepNs` exactly.
std::string formatTickLabel(core::DurationNs offsetNs, core::DurationNs stepNs);

}  // namespace chokepoint::timeline
