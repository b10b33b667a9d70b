#include "ui/views/timeline/TimelineWidget.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "ui/views/timeline/TimelineMetrics.h"

namespace chokepoint::ui {

using timeline::EventRef;

using namespace timelinemetrics;

// --- Input ------------------------------------------------------------------------------------

void TimelineWidget::wheelEvent(QWheelEvent* event) {
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & (Qt::ShiftModifier | Qt::AltModifier)) {
        // Scroll the tracks vertically: three lanes per wheel notch (120 eighths of a degree).
        // Touchpads and hi-res wheels send a fraction of a notch (or pixels) per event; the
        // remainder is kept so that many small deltas scroll as much as one notch.
        const QPoint pixels = event->pixelDelta();
        double scrollPx = 0;
        if (!pixels.isNull()) {
            scrollPx = pixels.y() != 0 ? pixels.y() : pixels.x();
        } else {
            scrollPx = (delta.y() != 0 ? delta.y() : delta.x()) / 120.0 * kLaneHeight * 3;
        }
        m_wheelScrollRemainderPx += scrollPx;
        const int whole = static_cast<int>(m_wheelScrollRemainderPx);  // towards zero
        m_wheelScrollRemainderPx -= whole;
        m_scrollBar->setValue(m_scrollBar->value() - whole);
        event->accept();
        return;
    }
    if (delta.y() == 0) {
        panByFraction(-static_cast<double>(delta.x()) / 1200.0);
        event->accept();
        return;
    }
    const double factor = std::pow(1.25, static_cast<double>(delta.y()) / 120.0);
    zoomBy(factor, std::max<double>(m_labelWidth, event->position().x()));
    event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event) {
    setFocus(Qt::MouseFocusReason);
    if (event->button() != Qt::LeftButton) {
        return;
    }
    m_pressPos = m_lastPos = event->position().toPoint();
    m_moved = false;
    m_reorderGroup = -1;
    m_reorderTrack = -1;
    if ((event->modifiers() & Qt::ShiftModifier) && m_pressPos.x() >= m_labelWidth) {
        m_drag = Drag::Select;
        m_selectAnchorNs = timeForX(m_pressPos.x());
        setRangeSelection(core::TimeRange{m_selectAnchorNs, m_selectAnchorNs});
    } else if (m_pressPos.x() < m_labelWidth && ((m_reorderGroup = groupHeaderAt(m_pressPos)) >= 0 ||
                                                 (m_reorderTrack = trackAt(m_pressPos)) >= 0)) {
        m_drag = Drag::Reorder;  // a click (no move) still collapses a group on release
    } else {
        m_drag = Drag::Pan;
        setCursor(Qt::ClosedHandCursor);
    }
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
    const QPoint pos = event->position().toPoint();
    if (m_drag == Drag::None) {
        return;
    }
    if ((pos - m_pressPos).manhattanLength() > 3) {
        m_moved = true;
    }
    if (m_drag == Drag::Pan && m_moved) {
        const QPoint delta = pos - m_lastPos;
        m_viewStartNs -= static_cast<core::TimestampNs>(delta.x() * m_nsPerPixel);
        clampView();
        if (m_scrollBar->isVisible()) {
            m_scrollBar->setValue(m_scrollBar->value() - delta.y());
        }
        update();
        emitViewChanged();
    } else if (m_drag == Drag::Select) {
        const core::TimestampNs t = timeForX(std::max(pos.x(), m_labelWidth));
        setRangeSelection(core::TimeRange{std::min(t, m_selectAnchorNs), std::max(t, m_selectAnchorNs)});
    } else if (m_drag == Drag::Reorder && m_moved) {
        setCursor(reorderTargetAt(pos) >= 0 ? Qt::DragMoveCursor : Qt::ForbiddenCursor);
    }
    m_lastPos = pos;
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) {
        return;
    }
    unsetCursor();
    const Drag drag = m_drag;
    m_drag = Drag::None;
    if (drag == Drag::Select) {
        if (!m_moved) {
            setRangeSelection(std::nullopt);
        } else {
            emit rangeSelectionChanged();  // the range is final: the page may now make room for it
        }
        return;
    }
    if (drag == Drag::Reorder && m_moved) {
        finishReorder(event->position().toPoint());
        return;
    }
    if (!m_moved) {
        const QPoint pos = event->position().toPoint();
        if (const int group = groupHeaderAt(pos); group >= 0) {
            // A click on a group header collapses or expands the group.
            setGroupCollapsed(group, !m_groups[static_cast<std::size_t>(group)].collapsed);
            return;
        }
        if (const StepBand* step = stepAt(pos)) {
            setRangeSelection(step->range);  // a click on the steps strip selects the step's range
            return;
        }
        selectEvent(eventAt(pos));
    }
}

int TimelineWidget::reorderTargetAt(QPoint pos) const {
    if (m_reorderGroup >= 0) {
        // Any row of a group (its header or one of its tracks) stands for the group.
        if (const int header = groupHeaderAt(pos); header >= 0) {
            return header;
        }
        const int track = trackAt(pos);
        return track >= 0 ? m_geometry[static_cast<std::size_t>(track)].group : -1;
    }
    const int track = trackAt(pos);
    if (track < 0 || m_reorderTrack < 0 ||
        m_geometry[static_cast<std::size_t>(track)].group !=
            m_geometry[static_cast<std::size_t>(m_reorderTrack)].group) {
        return -1;  // tracks move within their group only
    }
    return track;
}

void TimelineWidget::finishReorder(QPoint pos) {
    const int target = reorderTargetAt(pos);
    if (target < 0) {
        return;
    }
    if (m_reorderGroup >= 0) {
        moveGroup(m_reorderGroup, target - m_reorderGroup);
        return;
    }
    // Positions among the group's visible tracks, as moveTrack counts them.
    const std::vector<std::size_t>& order =
        m_groups[static_cast<std::size_t>(m_geometry[static_cast<std::size_t>(target)].group)].tracks;
    const auto from = std::find(order.begin(), order.end(), static_cast<std::size_t>(m_reorderTrack));
    const auto to = std::find(order.begin(), order.end(), static_cast<std::size_t>(target));
    if (from != order.end() && to != order.end() && from != to) {
        moveTrack(static_cast<std::size_t>(m_reorderTrack), static_cast<int>(to - from));
    }
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent* event) {
    const EventRef ref = eventAt(event->position().toPoint());
    if (ref.valid()) {
        selectEvent(ref);
        zoomToSelection();
    }
}

void TimelineWidget::keyPressEvent(QKeyEvent* event) {
    const double centreX = m_labelWidth + plotWidth() / 2.0;
    switch (event->key()) {
        case Qt::Key_W:
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            zoomBy(1.5, centreX);
            break;
        case Qt::Key_S:
        case Qt::Key_Minus:
            zoomBy(1.0 / 1.5, centreX);
            break;
        case Qt::Key_A:
        case Qt::Key_Left:
            panByFraction(-0.15);
            break;
        case Qt::Key_D:
        case Qt::Key_Right:
            panByFraction(0.15);
            break;
        case Qt::Key_Z:
            zoomToSelection();
            break;
        case Qt::Key_0:
        case Qt::Key_Home:
            showAll();
            break;
        case Qt::Key_BracketRight:
            zoomToStep(+1);
            break;
        case Qt::Key_BracketLeft:
            zoomToStep(-1);
            break;
        case Qt::Key_Escape:
            setRangeSelection(std::nullopt);
            selectEvent({});
            break;
        default:
            QWidget::keyPressEvent(event);
            return;
    }
    event->accept();
}

}  // namespace chokepoint::ui
