#include "ui/base/charts/RooflineChart.h"

#include <qcustomplot.h>
#include <QEvent>

#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "ui/base/charts/PlotTheme.h"
#include "ui/base/theme/Theme.h"

namespace chokepoint::ui {
namespace {

class SiLogTicker : public QCPAxisTickerLog {
protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override { return siTickLabel(tick); }
};

double dotSizePx(double timeShare) {
    return 7.0 + 26.0 * std::sqrt(std::clamp(timeShare, 0.0, 1.0));
}

bool usable(double v) {
    return std::isfinite(v) && v > 0;
}

}  // namespace

QString siTickLabel(double value) {
    struct Prefix {
        double scale;
        const char* symbol;
    };
    static const Prefix kPrefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"},
                                       {1e3, "k"},  {1.0, ""},   {1e-3, "m"}};
    if (value <= 0 || !std::isfinite(value)) {
        return QStringLiteral("0");
    }
    for (const Prefix& p : kPrefixes) {
        if (value >= p.scale * 0.999) {
            const double scaled = value / p.scale;
            return QString::number(scaled, 'g', 3) +
                   (p.symbol[0] ? QStringLiteral(" ") + p.symbol : QString());
        }
    }
    return QString::number(value, 'g', 2);
}

RooflineChart::RooflineChart(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setStyleSheet(QStringLiteral("padding-left: 4px;"));
    useMutedText(m_note);
    layout->addWidget(m_note);
    layout->addWidget(m_plot, 1);
    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, &RooflineChart::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, &RooflineChart::onMousePress);
    connect(m_plot, &QCustomPlot::afterLayout, this, &RooflineChart::hideOverlappingLabels);
    setMinimumSize(320, 240);
    setAccessibleName(tr("Roofline chart"));
    setAccessibleDescription(
        tr("Achieved throughput against arithmetic intensity, under the device's "
           "memory and compute roofs; the table beside it lists the same points."));
    rebuild();
}

void RooflineChart::setData(RooflineChartData data) {
    m_data = std::move(data);
    m_highlighted = -1;
    rebuild();
}

void RooflineChart::setHighlightedDot(int index) {
    m_highlighted = (index >= 0 && index < static_cast<int>(m_data.dots.size())) ? index : -1;
    rebuild();
}

void RooflineChart::rebuild() {
    m_plot->clearGraphs();
    m_roofLabels.clear();  // the items go with clearItems
    m_roofLabelRidges.clear();
    m_plot->clearItems();
    m_plot->clearPlottables();
    m_plot->legend->clearItems();
    const ThemeColors colors = themeColors(palette());
    applyPlotTheme(m_plot, colors);
    m_plot->legend->setBorderPen(QPen(colors.border));

    for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        auto ticker = QSharedPointer<SiLogTicker>::create();
        ticker->setLogBase(10);
        ticker->setSubTickCount(8);
        axis->setTicker(ticker);
        axis->grid()->setSubGridVisible(true);
    }
    m_plot->xAxis->setLabel(QStringLiteral("Arithmetic intensity (FLOP/byte)"));
    m_plot->yAxis->setLabel(QStringLiteral("Achieved throughput (FLOP/s)"));

    // Axis ranges from everything drawn.
    double xMin = std::numeric_limits<double>::max(), xMax = 0, yMin = std::numeric_limits<double>::max(),
           yMax = 0;
    auto includeX = [&](double x) {
        if (usable(x)) {
            xMin = std::min(xMin, x);
            xMax = std::max(xMax, x);
        }
    };
    auto includeY = [&](double y) {
        if (usable(y)) {
            yMin = std::min(yMin, y);
            yMax = std::max(yMax, y);
        }
    };
    const double bw = m_data.bandwidthBytesPerSecond;
    double maxRidge = 0;
    for (const RooflineRoof& roof : m_data.roofs) {
        if (usable(roof.peakFlopsPerSecond) && usable(bw)) {
            maxRidge = std::max(maxRidge, roof.peakFlopsPerSecond / bw);
            includeY(roof.peakFlopsPerSecond);
            includeX(roof.peakFlopsPerSecond / bw);
        }
    }
    const double measuredBw = m_data.measuredBandwidthBytesPerSecond;
    for (const RooflineRoof& roof : m_data.measuredRoofs) {
        if (usable(roof.peakFlopsPerSecond) && usable(measuredBw)) {
            includeY(roof.peakFlopsPerSecond);
            includeX(roof.peakFlopsPerSecond / measuredBw);
        }
    }
    for (const RooflineDot& dot : m_data.dots) {
        if (usable(dot.intensityFlopsPerByte) && usable(dot.flopsPerSecond)) {
            includeX(dot.intensityFlopsPerByte);
            includeY(dot.flopsPerSecond);
        }
    }
    for (const RooflineMarker& marker : m_data.markers) {
        includeX(marker.intensityFlopsPerByte);
    }
    if (xMax <= 0) {
        xMin = 0.1;
        xMax = 1000;
    }
    if (yMax <= 0) {
        yMin = 1e9;
        yMax = 1e15;
    }
    xMin = std::pow(10.0, std::floor(std::log10(xMin / 2)));
    xMax = std::pow(10.0, std::ceil(std::log10(xMax * 4)));
    if (usable(bw)) {
        includeY(xMin * bw);
    }
    yMin = std::pow(10.0, std::floor(std::log10(yMin / 2)));
    yMax = std::pow(10.0, std::ceil(std::log10(yMax * 2)));
    m_plot->xAxis->setRange(xMin, xMax);
    m_plot->yAxis->setRange(yMin, yMax);

    // Reference intensities: faint dashed verticals with their names at the top.
    for (const RooflineMarker& marker : m_data.markers) {
        if (!usable(marker.intensityFlopsPerByte)) {
            continue;
        }
        auto* line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(marker.intensityFlopsPerByte, yMin);
        line->point2->setCoords(marker.intensityFlopsPerByte, yMax);
        line->setPen(QPen(colors.grid, 1, Qt::DashLine));
        line->setSelectable(false);
        auto* text = new QCPItemText(m_plot);
        text->position->setType(QCPItemPosition::ptPlotCoords);
        text->position->setCoords(marker.intensityFlopsPerByte, yMin);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        text->setRotation(-90);
        text->setText(marker.label);
        text->setColor(colors.mutedText);
        QFont f = font();
        f.setPointSizeF(f.pointSizeF() * 0.85);
        text->setFont(f);
        text->setPadding(QMargins(4, 2, 2, 2));
        text->setSelectable(false);
    }

    // Roofs.
    if (usable(bw) && maxRidge > 0) {
        QCPGraph* memory = m_plot->addGraph();
        memory->setName(QStringLiteral("Memory roof (%1B/s)").arg(siTickLabel(bw)));
        memory->setPen(QPen(colors.text, 2));
        memory->setData({xMin, maxRidge}, {xMin * bw, maxRidge * bw}, true);
        // Precisions with the same peak (FP64 tensor and FP32, BF16 and FP16, FP8 and INT8) share one
        // roof and one label, so labels never sit on top of each other.
        std::vector<RooflineRoof> roofs;
        for (const RooflineRoof& roof : m_data.roofs) {
            if (!usable(roof.peakFlopsPerSecond)) {
                continue;
            }
            auto same = std::find_if(roofs.begin(), roofs.end(), [&](const RooflineRoof& r) {
                return std::abs(r.peakFlopsPerSecond - roof.peakFlopsPerSecond) <=
                       0.01 * roof.peakFlopsPerSecond;
            });
            if (same != roofs.end()) {
                same->label += QStringLiteral(" / ") + roof.label;
            } else {
                roofs.push_back(roof);
            }
        }
        std::vector<QCPItemText*> roofLabels, ridgeLabels;
        for (const RooflineRoof& roof : roofs) {
            const double ridge = roof.peakFlopsPerSecond / bw;
            QCPGraph* g = m_plot->addGraph();
            const QColor color = roof.color.isValid() ? colors.ink(roof.color) : colors.text;
            g->setName(QStringLiteral("%1 peak").arg(roof.label));
            g->setPen(QPen(color, 2));
            g->setData({ridge, xMax}, {roof.peakFlopsPerSecond, roof.peakFlopsPerSecond}, true);
            g->removeFromLegend();
            auto* label = new QCPItemText(m_plot);
            label->position->setCoords(xMax, roof.peakFlopsPerSecond);
            label->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
            label->setText(
                QStringLiteral("%1  %2FLOP/s").arg(roof.label, siTickLabel(roof.peakFlopsPerSecond)));
            label->setColor(color);
            label->setPadding(QMargins(2, 0, 4, 2));
            // A backing of the plot's colour keeps the name readable where it crosses a point or a line.
            QColor backing = colors.background;
            backing.setAlpha(215);
            label->setBrush(QBrush(backing));
            roofLabels.push_back(label);
            m_roofLabelRidges.push_back(ridge);
            auto* ridgeLabel = new QCPItemText(m_plot);
            ridgeLabel->position->setCoords(ridge, roof.peakFlopsPerSecond);
            ridgeLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
            ridgeLabel->setText(
                QStringLiteral("ridge %1").arg(QString::number(ridge, 'f', ridge < 10 ? 1 : 0)));
            ridgeLabel->setColor(color);
            QFont f = font();
            f.setPointSizeF(f.pointSizeF() * 0.85);
            ridgeLabel->setFont(f);
            ridgeLabel->setPadding(QMargins(4, 3, 2, 2));
            ridgeLabels.push_back(ridgeLabel);
            QCPGraph* ridgeDot = m_plot->addGraph();
            ridgeDot->setLineStyle(QCPGraph::lsNone);
            ridgeDot->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, color, color, 8));
            ridgeDot->setData({ridge}, {roof.peakFlopsPerSecond}, true);
            ridgeDot->removeFromLegend();
        }
        m_roofLabels = roofLabels;
        m_roofLabels.insert(m_roofLabels.end(), ridgeLabels.begin(), ridgeLabels.end());
        // Labels are drawn over the points, so a point never hides part of a name.
        if (m_plot->layer(QStringLiteral("labels")) == nullptr) {
            m_plot->addLayer(QStringLiteral("labels"), m_plot->layer(QStringLiteral("main")),
                             QCustomPlot::limAbove);
        }
        for (QCPItemText* label : m_roofLabels) {
            label->setLayer(QStringLiteral("labels"));
        }
    }

    // Measured roofs: dashed, thinner, labelled under the line so they do not sit on the datasheet's.
    double maxMeasuredRidge = 0;
    for (const RooflineRoof& roof : m_data.measuredRoofs) {
        if (usable(roof.peakFlopsPerSecond) && usable(measuredBw)) {
            maxMeasuredRidge = std::max(maxMeasuredRidge, roof.peakFlopsPerSecond / measuredBw);
        }
    }
    if (usable(measuredBw) && maxMeasuredRidge > 0) {
        QCPGraph* memory = m_plot->addGraph();
        memory->setName(QStringLiteral("Measured memory roof (%1B/s)").arg(siTickLabel(measuredBw)));
        memory->setPen(QPen(colors.text, 1.5, Qt::DashLine));
        memory->setData({xMin, maxMeasuredRidge}, {xMin * measuredBw, maxMeasuredRidge * measuredBw}, true);
        for (const RooflineRoof& roof : m_data.measuredRoofs) {
            if (!usable(roof.peakFlopsPerSecond)) {
                continue;
            }
            const double ridge = roof.peakFlopsPerSecond / measuredBw;
            const QColor color = roof.color.isValid() ? colors.ink(roof.color) : colors.text;
            QCPGraph* g = m_plot->addGraph();
            g->setName(QStringLiteral("%1 measured").arg(roof.label));
            g->setPen(QPen(color, 1.5, Qt::DashLine));
            g->setData({ridge, xMax}, {roof.peakFlopsPerSecond, roof.peakFlopsPerSecond}, true);
            g->removeFromLegend();
            auto* label = new QCPItemText(m_plot);
            label->position->setCoords(xMax, roof.peakFlopsPerSecond);
            label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
            label->setText(QStringLiteral("%1 measured  %2FLOP/s")
                               .arg(roof.label, siTickLabel(roof.peakFlopsPerSecond)));
            label->setColor(color);
            QFont f = font();
            f.setPointSizeF(f.pointSizeF() * 0.85);
            f.setItalic(true);
            label->setFont(f);
            label->setPadding(QMargins(2, 2, 4, 0));
        }
    }

    // Points, one graph each so each can have its own size. Filled dots first, rings (aggregates)
    // on top and a little larger, so a ring stays visible around a dot at the same place. The
    // legend gets one fixed-size proxy entry per group instead of the variable-size dots.
    std::map<QString, QColor> groups;
    std::vector<QString> groupOrder;
    bool anyAboveRoof = false;
    for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t i = 0; i < m_data.dots.size(); ++i) {
            const RooflineDot& dot = m_data.dots[i];
            if (dot.hollow != (pass == 1)) {
                continue;
            }
            QCPGraph* g = m_plot->addGraph();
            g->setLineStyle(QCPGraph::lsNone);
            QColor fill = colors.fill(dot.color.isValid() ? dot.color : QColor(31, 119, 180));
            const QColor edge = colors.dark ? fill.lighter(140) : fill.darker(140);
            fill.setAlpha(dot.hollow ? 0 : 170);
            const double size = dotSizePx(dot.timeShare) + (dot.hollow ? 8.0 : 0.0);
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(edge, dot.hollow ? 2.0 : 1.0),
                                               QBrush(fill), size));
            if (usable(dot.intensityFlopsPerByte) && usable(dot.flopsPerSecond)) {
                g->setData({dot.intensityFlopsPerByte}, {dot.flopsPerSecond}, true);
            }
            g->setName(dot.group.isEmpty() ? dot.label : dot.group);
            g->removeFromLegend();
            if (groups.emplace(g->name(), colors.fill(dot.color.isValid() ? dot.color : QColor(31, 119, 180)))
                    .second) {
                groupOrder.push_back(g->name());
            }
            if (dot.aboveRoof && usable(dot.intensityFlopsPerByte) && usable(dot.flopsPerSecond)) {
                QCPGraph* mark = m_plot->addGraph();
                mark->setLineStyle(QCPGraph::lsNone);
                mark->setScatterStyle(
                    QCPScatterStyle(QCPScatterStyle::ssCross, QPen(colors.error, 2), Qt::NoBrush, size + 4));
                mark->setData({dot.intensityFlopsPerByte}, {dot.flopsPerSecond}, true);
                mark->removeFromLegend();
                anyAboveRoof = true;
            }
            if (static_cast<int>(i) == m_highlighted) {
                QCPGraph* ring = m_plot->addGraph();
                ring->setLineStyle(QCPGraph::lsNone);
                ring->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(colors.error, 3),
                                                      Qt::NoBrush, size + 10));
                ring->setData({dot.intensityFlopsPerByte}, {dot.flopsPerSecond}, true);
                ring->removeFromLegend();
            }
        }
    }
    for (const QString& name : groupOrder) {
        QCPGraph* proxy = m_plot->addGraph();  // no data: only its legend entry shows
        proxy->setLineStyle(QCPGraph::lsNone);
        QColor fill = groups[name];
        fill.setAlpha(170);
        proxy->setScatterStyle(QCPScatterStyle(
            QCPScatterStyle::ssCircle,
            QPen(colors.dark ? groups[name].lighter(140) : groups[name].darker(140)), QBrush(fill), 9));
        proxy->setName(name);
    }
    if (anyAboveRoof) {
        QCPGraph* proxy = m_plot->addGraph();
        proxy->setLineStyle(QCPGraph::lsNone);
        proxy->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssCross, QPen(colors.error, 2), Qt::NoBrush, 9));
        proxy->setName(tr("above its roof: estimate off (see tooltip)"));
    }

    if (m_data.dots.empty()) {
        auto* text = new QCPItemText(m_plot);
        text->position->setType(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(0.5, 0.5);
        text->setText(m_data.emptyMessage.isEmpty() ? QStringLiteral("No roofline points for this trace")
                                                    : m_data.emptyMessage);
        text->setColor(colors.mutedText);
        QFont f = font();
        f.setPointSizeF(f.pointSizeF() * 1.2);
        text->setFont(f);
        // Over the roofs, on the plot's colour: the memory roof would cross it.
        text->setBrush(QBrush(colors.background));
        text->setPadding(QMargins(6, 3, 6, 3));
        if (m_plot->layer(QStringLiteral("labels")) == nullptr) {
            m_plot->addLayer(QStringLiteral("labels"), m_plot->layer(QStringLiteral("main")),
                             QCustomPlot::limAbove);
        }
        text->setLayer(QStringLiteral("labels"));
    }
    // The device and where its figures come from, above the plot: inside it, a long note would
    // cross the legend or the reference labels.
    m_note->setText(m_data.note);
    m_note->setVisible(!m_data.note.isEmpty());

    m_plot->legend->setVisible(m_plot->legend->itemCount() > 0);
    // Top left is above the memory roof: unattainable, so never covers a point.
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignLeft | Qt::AlignTop);
    m_plot->axisRect()->insetLayout()->setMargins(QMargins(12, 12, 12, 12));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void RooflineChart::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        rebuildKeepingView(m_plot, [this] { rebuild(); });
    }
}

QPointF RooflineChart::dotPixel(int index) const {
    if (index < 0 || index >= static_cast<int>(m_data.dots.size())) {
        return {};
    }
    const RooflineDot& dot = m_data.dots[index];
    return {m_plot->xAxis->coordToPixel(dot.intensityFlopsPerByte),
            m_plot->yAxis->coordToPixel(dot.flopsPerSecond)};
}

int RooflineChart::dotAt(const QPoint& pos, double radiusPx) const {
    int best = -1;
    double bestDistance = std::numeric_limits<double>::max();
    for (int i = 0; i < static_cast<int>(m_data.dots.size()); ++i) {
        const RooflineDot& dot = m_data.dots[i];
        if (!usable(dot.intensityFlopsPerByte) || !usable(dot.flopsPerSecond)) {
            continue;
        }
        const QPointF p = dotPixel(i);
        const double d = std::hypot(p.x() - pos.x(), p.y() - pos.y());
        const double reach = std::max(radiusPx, dotSizePx(dot.timeShare) / 2 + 2);
        // Prefer the nearest centre; small dots on top of big ones stay reachable.
        if (d <= reach && d < bestDistance) {
            best = i;
            bestDistance = d;
        }
    }
    return best;
}

void RooflineChart::hideOverlappingLabels() {
    // The points are obstacles first: a label is never placed over one when another place is free.
    std::vector<QRectF> kept;
    for (int i = 0; i < static_cast<int>(m_data.dots.size()); ++i) {
        const RooflineDot& dot = m_data.dots[i];
        if (!usable(dot.intensityFlopsPerByte) || !usable(dot.flopsPerSecond)) {
            continue;
        }
        const double size = dotSizePx(dot.timeShare) + (dot.hollow ? 8.0 : 0.0);
        const QPointF centre = dotPixel(i);
        kept.emplace_back(centre.x() - size / 2, centre.y() - size / 2, size, size);
    }
    const auto rectOf = [](QCPItemText* label) {
        return QRectF(label->topLeft->pixelPosition(), label->bottomRight->pixelPosition()).normalized();
    };
    const auto free = [&](const QRectF& rect) {
        return std::none_of(kept.begin(), kept.end(), [&](const QRectF& k) { return k.intersects(rect); });
    };
    const double xMax = m_plot->xAxis->range().upper;
    for (std::size_t i = 0; i < m_roofLabels.size(); ++i) {
        QCPItemText* label = m_roofLabels[i];
        // A roof's label sits above its line at the right; where that is taken, below it, then at
        // the line's left end by the ridge, above then below; where all are taken, above at the
        // right all the same: a roof is never left unnamed. A ridge label that does not fit is
        // left out (the diamond marks the ridge, the table gives the intensities).
        const bool roofLabel = i < m_roofLabelRidges.size();
        if (roofLabel) {
            const double peak = label->position->value();
            const std::pair<double, Qt::Alignment> places[] = {
                {xMax, Qt::AlignRight | Qt::AlignBottom},
                {xMax, Qt::AlignRight | Qt::AlignTop},
                {m_roofLabelRidges[i], Qt::AlignLeft | Qt::AlignBottom},
                {m_roofLabelRidges[i], Qt::AlignLeft | Qt::AlignTop},
            };
            bool placed = false;
            for (const auto& [x, alignment] : places) {
                label->position->setCoords(x, peak);
                label->setPositionAlignment(alignment);
                if (free(rectOf(label))) {
                    placed = true;
                    break;
                }
            }
            if (!placed) {
                label->position->setCoords(xMax, peak);
                label->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
            }
        }
        const QRectF rect = rectOf(label);
        const bool fits = roofLabel || free(rect);
        label->setVisible(fits);
        if (fits) {
            kept.push_back(rect);
        }
    }
}

void RooflineChart::onMouseMove(QMouseEvent* event) {
    const int index = dotAt(event->pos());
    if (index >= 0) {
        const RooflineDot& dot = m_data.dots[index];
        QToolTip::showText(event->globalPosition().toPoint(), dot.tooltip.isEmpty() ? dot.label : dot.tooltip,
                           m_plot);
        m_plot->setCursor(Qt::PointingHandCursor);
    } else {
        QToolTip::hideText();
        m_plot->unsetCursor();
    }
}

void RooflineChart::onMousePress(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) {
        return;
    }
    const int index = dotAt(event->pos());
    if (index >= 0) {
        setHighlightedDot(index);
        emit pointClicked(index);
    }
}

}  // namespace chokepoint::ui
