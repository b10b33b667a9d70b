#include "ui/views/timeline/TimelineWidget.h"

#include <QResizeEvent>
#include <QScrollBar>
#include <algorithm>

#include "ui/views/timeline/TimelineMetrics.h"

namespace chokepoint::ui {

using timeline::EventRef;
using timeline::TrackKind;

using namespace timelinemetrics;

// --- Layout -----------------------------------------------------------------------------------

void TimelineWidget::rebuildLayout() {
    m_geometry.clear();
    m_groups.clear();
    int y = 0;
    if (m_tracks) {
        m_geometry.resize(m_tracks->tracks.size());
        m_groups = timeline::applyTrackLayout(*m_tracks, m_layout);
        for (std::size_t gi = 0; gi < m_groups.size(); ++gi) {
            const timeline::TrackGroupView& group = m_groups[gi];
            const timeline::Track& first = m_tracks->tracks[group.firstTrack];
            const bool gpu = first.kind == TrackKind::GpuStream;
            const bool hasIdle =
                gpu && std::any_of(m_overlays.idleGaps.begin(), m_overlays.idleGaps.end(),
                                   [&](const IdleGap& gap) { return gap.deviceIndex == first.deviceIndex; });
            // A collapsed (or fully hidden) group keeps its header, carried by its first track; a
            // collapsed GPU group shows one row with the work of all its streams.
            std::vector<std::size_t> carriers = group.tracks;
            const bool headerOnly = group.collapsed || carriers.empty();
            if (headerOnly) {
                carriers = {group.firstTrack};
            }
            for (std::size_t c = 0; c < carriers.size(); ++c) {
                const timeline::Track& track = m_tracks->tracks[carriers[c]];
                TrackGeometry& g = m_geometry[carriers[c]];
                g.shown = true;
                g.group = static_cast<int>(gi);
                g.groupHeader = c == 0;
                if (g.groupHeader) {
                    y += kGroupHeaderHeight;
                    if (hasIdle && (!headerOnly || group.collapsed)) {
                        g.idleStripY = y;
                        y += kIdleStripHeight + 2;
                    }
                }
                g.y = y;
                if (headerOnly) {
                    if (group.collapsed && gpu) {
                        g.summaryTracks = group.tracks;
                        y += kWorkLaneHeight;
                    }
                } else if (track.kind == TrackKind::Counter) {
                    g.lanes.push_back({y, kCounterHeight});
                    y += kCounterHeight;
                } else {
                    for (const timeline::TrackLane& lane : track.lanes) {
                        const int h = laneHeightFor(lane.role);
                        g.lanes.push_back({y, h});
                        y += h;
                    }
                }
                g.height = y - g.y;
                y += kTrackGap;
            }
        }
    }
    m_contentHeight = y;
    updateScrollBar();
}

void TimelineWidget::setTrackLayout(timeline::TrackLayout layout) {
    m_layout = std::move(layout);
    rebuildLayout();
    update();
}

void TimelineWidget::layoutEdited() {
    rebuildLayout();
    update();
    emit trackLayoutChanged();
}

std::vector<std::size_t> TimelineWidget::displayedTracks() const {
    std::vector<std::size_t> tracks;
    for (const timeline::TrackGroupView& group : m_groups) {
        if (!group.collapsed) {
            tracks.insert(tracks.end(), group.tracks.begin(), group.tracks.end());
        }
    }
    return tracks;
}

int TimelineWidget::trackAt(QPoint pos) const {
    if (!m_tracks || pos.y() < tracksTop()) {
        return -1;
    }
    const int contentY = pos.y() - tracksTop() + m_scrollY;
    for (std::size_t t = 0; t < m_geometry.size(); ++t) {
        const TrackGeometry& g = m_geometry[t];
        if (g.shown && !g.lanes.empty() && contentY >= g.y && contentY < g.y + std::max(g.height, 1)) {
            return static_cast<int>(t);
        }
    }
    return -1;
}

QRect TimelineWidget::groupHeaderRect(int group) const {
    for (const TrackGeometry& g : m_geometry) {
        if (g.shown && g.groupHeader && g.group == group) {
            const int top = tracksTop() - m_scrollY + (g.idleStripY >= 0 ? g.idleStripY : g.y);
            return {0, top - kGroupHeaderHeight, width(), kGroupHeaderHeight};
        }
    }
    return {};
}

int TimelineWidget::groupHeaderAt(QPoint pos) const {
    if (pos.y() < tracksTop()) {
        return -1;
    }
    for (std::size_t i = 0; i < m_groups.size(); ++i) {
        if (groupHeaderRect(static_cast<int>(i)).contains(pos)) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

void TimelineWidget::setGroupCollapsed(int group, bool collapsed) {
    if (group < 0 || group >= static_cast<int>(m_groups.size())) {
        return;
    }
    timeline::setGroupCollapsed(m_layout, m_groups[static_cast<std::size_t>(group)].key, collapsed);
    layoutEdited();
}

void TimelineWidget::setTrackHidden(std::size_t track, bool hidden) {
    if (!m_tracks || track >= m_tracks->tracks.size()) {
        return;
    }
    timeline::setTrackHidden(m_layout, m_tracks->tracks[track].key, hidden);
    layoutEdited();
}

void TimelineWidget::showAllTracks() {
    timeline::showAllTracks(m_layout);
    layoutEdited();
}

bool TimelineWidget::moveTrack(std::size_t track, int delta) {
    if (!m_tracks || track >= m_tracks->tracks.size() ||
        !timeline::moveTrack(m_layout, *m_tracks, m_tracks->tracks[track].key, delta)) {
        return false;
    }
    layoutEdited();
    return true;
}

bool TimelineWidget::moveGroup(int group, int delta) {
    if (!m_tracks || group < 0 || group >= static_cast<int>(m_groups.size()) ||
        !timeline::moveGroup(m_layout, *m_tracks, m_groups[static_cast<std::size_t>(group)].key, delta)) {
        return false;
    }
    layoutEdited();
    return true;
}

void TimelineWidget::setHighlights(std::vector<EventRef> events) {
    m_highlights = std::move(events);
    update();
}

void TimelineWidget::updateScrollBar() {
    const int viewport = height() - tracksTop();
    const bool needed = m_contentHeight > viewport;
    m_scrollBar->setVisible(needed);
    m_scrollBar->setGeometry(width() - 14, tracksTop(), 14, std::max(0, viewport));
    m_scrollBar->setRange(0, needed ? m_contentHeight - viewport : 0);
    m_scrollBar->setPageStep(std::max(1, viewport));
    m_scrollBar->setSingleStep(kLaneHeight * 2);
    m_scrollY = needed ? std::min(m_scrollY, m_scrollBar->maximum()) : 0;
}

void TimelineWidget::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // Keep the same time window across the new width.
    const core::TimeRange before{
        m_viewStartNs,
        m_viewStartNs + static_cast<core::DurationNs>(std::max(1, event->oldSize().width() - m_labelWidth) *
                                                      m_nsPerPixel)};
    m_labelWidth = std::clamp(width() / 5, 150, 260);
    updateScrollBar();
    if (event->oldSize().width() > 0 && m_tracks) {
        m_nsPerPixel = std::max(kMinNsPerPixel, static_cast<double>(before.durationNs()) / plotWidth());
        clampView();
        emitViewChanged();  // the plot's width changed (the overview strip lines up with it)
    } else {
        showAll();
    }
}

}  // namespace chokepoint::ui
