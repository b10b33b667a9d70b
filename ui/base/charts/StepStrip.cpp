#include "ui/base/charts/StepStrip.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <map>

#include "ui/base/theme/ThemeColors.h"

namespace chokepoint::ui {

namespace {
constexpr double kStripHeight = 22.0;
}

StepStrip::StepStrip(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setAccessibleName(tr("Step verdicts"));
    setAccessibleDescription(
        tr("One cell per training step, coloured and patterned by the step's bottleneck "
           "class; the legend names the classes."));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setMinimumHeight(46);
}

void StepStrip::setCells(std::vector<StepStripCell> cells) {
    m_cells = std::move(cells);
    m_offsets.clear();
    m_totalWeight = 0;
    for (const StepStripCell& cell : m_cells) {
        m_offsets.push_back(m_totalWeight);
        m_totalWeight += std::max(0.0, cell.weight);
    }
    if (m_totalWeight <= 0) {
        // All weights zero: equal widths.
        for (std::size_t i = 0; i < m_offsets.size(); ++i) {
            m_offsets[i] = static_cast<double>(i);
        }
        m_totalWeight = static_cast<double>(m_cells.size());
    }
    m_selected = -1;
    update();
}

void StepStrip::setSelectedCell(int index) {
    m_selected = (index >= 0 && index < static_cast<int>(m_cells.size())) ? index : -1;
    update();
}

QRectF StepStrip::stripArea() const {
    return QRectF(4, 2, std::max(1, width() - 8), kStripHeight);
}

QRectF StepStrip::cellRect(int index) const {
    const QRectF area = stripArea();
    const bool equal = m_totalWeight == static_cast<double>(m_cells.size()) && m_cells[index].weight <= 0;
    const double weight = equal ? 1.0 : std::max(0.0, m_cells[index].weight);
    const double x0 = area.left() + area.width() * m_offsets[index] / m_totalWeight;
    const double w = area.width() * weight / m_totalWeight;
    return QRectF(x0, area.top(), std::max(1.0, w), area.height());
}

void StepStrip::setEmptyText(const QString& text) {
    m_emptyText = text;
    update();
}

int StepStrip::cellAt(const QPoint& pos) const {
    for (int i = 0; i < static_cast<int>(m_cells.size()); ++i) {
        const QRectF r = cellRect(i);
        if (pos.x() >= r.left() && pos.x() < r.right() + 0.5 && pos.y() >= r.top() && pos.y() <= r.bottom()) {
            return i;
        }
    }
    return -1;
}

void StepStrip::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    const QRectF area = stripArea();
    if (m_cells.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(area, Qt::AlignLeft | Qt::AlignVCenter, m_emptyText);
        return;
    }
    const ThemeColors colors = themeColors(palette());
    auto cellFill = [&](const StepStripCell& cell) {
        return colors.fill(cell.color.isValid() ? cell.color : colors.border);
    };
    const bool gaps = area.width() / static_cast<double>(m_cells.size()) >= 4.0;
    for (int i = 0; i < static_cast<int>(m_cells.size()); ++i) {
        QRectF r = cellRect(i);
        if (gaps) {
            r.adjust(0, 0, -1, 0);  // a 1 px separator between cells when there is room
        }
        fillPatterned(p, r, cellFill(m_cells[i]), m_cells[i].pattern);
    }
    if (m_selected >= 0) {
        p.setPen(QPen(palette().color(QPalette::Text), 2));
        p.drawRect(cellRect(m_selected).adjusted(1, 1, -1, -1));
    }
    // Legend: the classes present, in order of first appearance.
    std::vector<const StepStripCell*> legend;
    for (const StepStripCell& cell : m_cells) {
        if (std::none_of(legend.begin(), legend.end(),
                         [&](const StepStripCell* e) { return e->className == cell.className; })) {
            legend.push_back(&cell);
        }
    }
    double x = area.left();
    const double y = area.bottom() + 4;
    const QFontMetrics fm(font());
    p.setPen(palette().color(QPalette::Text));
    for (const StepStripCell* cell : legend) {
        const QRectF swatch(x, y + 2, 12, 12);
        fillPatterned(p, swatch, cellFill(*cell), cell->pattern);
        p.setPen(colors.border);
        p.drawRect(swatch.adjusted(0, 0, -1, -1));
        p.setPen(colors.text);
        x += 16;
        p.drawText(QPointF(x, y + 3 + fm.ascent() - 1), cell->className);
        x += fm.horizontalAdvance(cell->className) + 14;
    }
}

void StepStrip::mousePressEvent(QMouseEvent* event) {
    const int index = cellAt(event->pos());
    if (index >= 0 && event->button() == Qt::LeftButton) {
        setSelectedCell(index);
        emit stepClicked(index);
    }
}

bool StepStrip::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int index = cellAt(help->pos());
        if (index >= 0) {
            const StepStripCell& cell = m_cells[index];
            QToolTip::showText(help->globalPos(),
                               cell.tooltip.isEmpty() ? cell.label + ": " + cell.className : cell.tooltip,
                               this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

}  // namespace chokepoint::ui
