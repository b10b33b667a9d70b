#include "ui/base/charts/StepBarsChart.h"

#include <qcustomplot.h>
#include <QEvent>

#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "ui/base/charts/PlotTheme.h"
#include "ui/base/theme/ReportPalette.h"

namespace chokepoint::ui {

StepBarsChart::StepBarsChart(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mousePress, this, &StepBarsChart::onMousePress);
    connect(m_plot, &QCustomPlot::mouseMove, this, &StepBarsChart::onMouseMove);
    setMinimumSize(300, 180);
    setAccessibleName(tr("Step time breakdown"));
    setAccessibleDescription(
        tr("One stacked bar per step: compute, exposed communication and copies, and "
           "GPU idle time by cause (hatched). Click a bar to select the step."));
    // The legend sits in its own row above the bars so it never hides the tallest one.
    m_plot->plotLayout()->insertRow(0);
    auto* legendRow = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(0, 0, legendRow);
    legendRow->setMargins(QMargins(5, 0, 5, 5));
    legendRow->addElement(0, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    m_plot->legend->setBorderPen(Qt::NoPen);
    rebuild();
}

void StepBarsChart::setData(StepBarsData data) {
    m_data = std::move(data);
    rebuild();
}

void StepBarsChart::rebuild() {
    m_plot->clearPlottables();
    m_plot->clearItems();
    const ThemeColors colors = themeColors(palette());
    applyPlotTheme(m_plot, colors);
    const int steps = static_cast<int>(m_data.stepLabels.size());

    QVector<double> keys(steps);
    for (int i = 0; i < steps; ++i) {
        keys[i] = i;
    }
    QCPBars* below = nullptr;
    double maxTotal = 0;
    std::vector<double> totals(static_cast<std::size_t>(steps), 0.0);
    for (const StackedSeries& series : m_data.series) {
        QVector<double> values(steps, 0.0);
        bool any = false;
        for (int i = 0; i < steps && i < static_cast<int>(series.valuesMs.size()); ++i) {
            const double v = std::isfinite(series.valuesMs[i]) ? std::max(0.0, series.valuesMs[i]) : 0.0;
            values[i] = v;
            totals[static_cast<std::size_t>(i)] += v;
            any = any || v > 0;
        }
        auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(series.name);
        bars->setPen(Qt::NoPen);
        bars->setBrush(series.pattern == Qt::SolidPattern
                           ? QBrush(colors.fill(series.color))
                           : patternedBrush(colors.fill(series.color), series.pattern));
        bars->setWidth(0.75);
        bars->setStackingGap(0);
        bars->setData(keys, values, true);
        if (below != nullptr) {
            bars->moveAbove(below);
        }
        below = bars;
        if (!any && !m_data.alwaysInLegend.contains(series.name)) {
            bars->removeFromLegend();  // keep the legend to what is present
        }
    }
    // The axis follows the steps that count: a step left out of the figures (a 6 s warm-up among
    // 56 ms steps) never sets the scale, or the real bars shrink to nothing. With every step left
    // out, all of them do.
    const auto leftOut = [&](int i) {
        return i < m_data.excludedReasons.size() && !m_data.excludedReasons[i].isEmpty();
    };
    for (int i = 0; i < steps; ++i) {
        if (!leftOut(i)) {
            maxTotal = std::max(maxTotal, totals[static_cast<std::size_t>(i)]);
        }
    }
    if (maxTotal <= 0) {
        for (double t : totals) {
            maxTotal = std::max(maxTotal, t);
        }
    }
    const double axisTop = maxTotal > 0 ? maxTotal * 1.12 : 1.0;  // room for the "left out" marks
    // Steps left out of the means and the verdict: a label over the bar (and a tooltip line), so a
    // tall warm-up bar is not read as the typical step; a bar taller than the axis is cut at its top
    // and the label gives its height.
    for (int i = 0; i < steps; ++i) {
        if (!leftOut(i)) {
            continue;
        }
        const double total = totals[static_cast<std::size_t>(i)];
        const bool offScale = total > axisTop;
        auto* mark = new QCPItemText(m_plot);
        mark->position->setType(QCPItemPosition::ptPlotCoords);
        mark->position->setCoords(i, offScale ? axisTop : total);
        mark->setPositionAlignment(Qt::AlignHCenter | (offScale ? Qt::AlignTop : Qt::AlignBottom));
        // The same duration text as every other page ("14.6 s", not "14559 ms").
        mark->setText(offScale ? tr("left out\n%1 ↑").arg(durationText(total * 1e6)) : tr("left out"));
        mark->setColor(offScale ? colors.text : palette().color(QPalette::PlaceholderText));
        if (offScale) {  // drawn over the cut bar: on a plate of the plot's background
            mark->setBrush(colors.background);
            mark->setPadding(QMargins(3, 1, 3, 1));
        }
    }

    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    // Label at most ~25 bars so the ticks stay readable on long traces.
    const int every = std::max(1, (steps + 24) / 25);
    for (int i = 0; i < steps; i += every) {
        ticker->addTick(i, m_data.stepLabels[i]);
    }
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setLabel(QStringLiteral("Step"));
    m_plot->xAxis->grid()->setVisible(false);
    m_plot->xAxis->setRange(-0.6, std::max(0, steps - 1) + 0.6);
    m_plot->yAxis->setLabel(QStringLiteral("Time (ms)"));
    m_plot->yAxis->setRange(0, axisTop);

    m_plot->legend->setVisible(steps > 0);
    m_plot->legend->setWrap(legendColumns());
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst, true);  // re-flows the entries

    if (steps == 0) {
        auto* text = new QCPItemText(m_plot);
        text->position->setType(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(0.5, 0.5);
        text->setText(m_data.emptyMessage.isEmpty() ? QStringLiteral("No steps") : m_data.emptyMessage);
        text->setColor(colors.mutedText);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void StepBarsChart::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        rebuildKeepingView(m_plot, [this] { rebuild(); });
    }
}

int StepBarsChart::stepAt(const QPoint& pos) const {
    const int steps = static_cast<int>(m_data.stepLabels.size());
    if (steps == 0 || !m_plot->axisRect()->rect().contains(pos)) {
        return -1;
    }
    const double key = m_plot->xAxis->pixelToCoord(pos.x());
    const int index = static_cast<int>(std::lround(key));
    if (index < 0 || index >= steps || std::abs(key - index) > 0.4) {
        return -1;
    }
    return index;
}

int StepBarsChart::legendColumns() const {
    // About 200 px per entry, so names are not cut on narrow charts (two side by side in Compare).
    return std::clamp(width() / 200, 1, 5);
}

void StepBarsChart::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (m_plot->legend->wrap() != legendColumns()) {
        m_plot->legend->setWrap(legendColumns());
        m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst, true);
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

void StepBarsChart::onMousePress(QMouseEvent* event) {
    const int index = stepAt(event->pos());
    if (index >= 0 && event->button() == Qt::LeftButton) {
        emit stepClicked(index);
    }
}

void StepBarsChart::onMouseMove(QMouseEvent* event) {
    const int index = stepAt(event->pos());
    if (index < 0) {
        QToolTip::hideText();
        return;
    }
    QString text = QStringLiteral("Step %1").arg(m_data.stepLabels[index]);
    if (index < m_data.excludedReasons.size() && !m_data.excludedReasons[index].isEmpty()) {
        text += tr("\nLeft out of the step time and the verdict: %1").arg(m_data.excludedReasons[index]);
    }
    for (const StackedSeries& series : m_data.series) {
        if (index < static_cast<int>(series.valuesMs.size()) && series.valuesMs[index] > 0) {
            text += QStringLiteral("\n%1: %2 ms").arg(series.name).arg(series.valuesMs[index], 0, 'f', 2);
        }
    }
    QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
}

}  // namespace chokepoint::ui
