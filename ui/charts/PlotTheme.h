#pragma once
// PlotTheme: QCustomPlot's background, axes, grid and legend in the colours of a palette
// (ThemeColors), so charts read under a dark palette as under a light one. Charts call it from
// their rebuild, and rebuild on QEvent::PaletteChange.

#include "ui/theme/ThemeColors.h"

class QCustomPlot;

namespace chokepoint::ui {

void applyPlotTheme(QCustomPlot* plot, const ThemeColors& colors);

}  // namespace chokepoint::ui
