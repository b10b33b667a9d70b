#pragma once
// PlotTheme: QCustomPlot's background, axes, grid and legend in the colours of a palette
// (ThemeColors), so charts read under a dark palette as under a light one. Charts call it from
// their rebuild, and rebuild on QEvent::PaletteChange.

#include <functional>

#include "ui/base/theme/ThemeColors.h"

class QCustomPlot;

namespace chokepoint::ui {

void applyPlotTheme(QCustomPlot* plot, const ThemeColors& colors);

// On a palette change: runs the chart's `rebuild` (new colours) and puts back the axis ranges the
// plot had, so ranges set from outside (Compare shares its axes) are kept, then replots.
void rebuildKeepingView(QCustomPlot* plot, const std::function<void()>& rebuild);

}  // namespace chokepoint::ui
