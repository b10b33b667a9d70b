#include "ui/base/charts/PlotTheme.h"

#include <qcustomplot.h>

namespace chokepoint::ui {

void applyPlotTheme(QCustomPlot* plot, const ThemeColors& colors) {
    plot->setBackground(colors.background);
    for (QCPAxis* axis : plot->axisRect()->axes()) {
        axis->setBasePen(QPen(colors.border));
        axis->setTickPen(QPen(colors.border));
        axis->setSubTickPen(QPen(colors.border));
        axis->setTickLabelColor(colors.text);
        axis->setLabelColor(colors.text);
        axis->grid()->setPen(QPen(colors.grid, 0, Qt::SolidLine));
        axis->grid()->setSubGridPen(QPen(colors.subGrid, 0, Qt::SolidLine));
        axis->grid()->setZeroLinePen(Qt::NoPen);
    }
    QColor legendFill = colors.background;
    legendFill.setAlpha(220);
    plot->legend->setBrush(legendFill);
    plot->legend->setTextColor(colors.text);
    plot->legend->setSelectedTextColor(colors.text);
}

void rebuildKeepingView(QCustomPlot* plot, const std::function<void()>& rebuild) {
    const QCPRange x = plot->xAxis->range();
    const QCPRange y = plot->yAxis->range();
    rebuild();
    plot->xAxis->setRange(x);
    plot->yAxis->setRange(y);
    plot->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace chokepoint::ui
