#pragma once
// What the timeline draws on top of the trace's events, in plain values so the widget does not
// depend on the analyzer: step bands coloured by verdict and GPU idle intervals coloured by their
// attributed cause. TimelinePage fills it from the analysis report.

#include <QBrush>
#include <QColor>
#include <QString>
#include <vector>

#include "core/base/Time.h"

namespace chokepoint::ui {

struct StepBand {
    core::TimeRange range;
    QString label;                              // "Step 12"
    QString verdict;                            // "Data-bound" or empty when not classified
    QColor color;                               // verdict colour; invalid = neutral
    Qt::BrushStyle pattern = Qt::SolidPattern;  // verdict pattern (bottleneckPattern)
};

struct IdleGap {
    core::TimeRange range;
    int deviceIndex = 0;
    QString cause;  // "Data loader", "Host launch overhead", ...
    QColor color;
};

// One entry of the legend for overlay colours.
struct LegendEntry {
    QString label;
    QColor color;
    Qt::BrushStyle pattern = Qt::SolidPattern;  // drawn over the swatch, as on the timeline
};

struct TimelineOverlays {
    std::vector<StepBand> steps;      // sorted by start
    std::vector<IdleGap> idleGaps;    // sorted by device, then start
    std::vector<LegendEntry> legend;  // causes and verdicts in use
    bool empty() const { return steps.empty() && idleGaps.empty(); }
};

}  // namespace chokepoint::ui
