#include "ui/views/timeline/TimelineWidget.h"

#include <QScrollBar>
#include <algorithm>
#include <cmath>

#include "core/base/KernelName.h"
#include "core/timeline/StreamSyncs.h"
#include "ui/views/timeline/TimelineMetrics.h"

namespace chokepoint::ui {

using timeline::EventKind;
using timeline::EventRef;

using namespace timelinemetrics;

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(400, 200);
    setAccessibleName(tr("Timeline"));
    setAccessibleDescription(
        tr("Tracks of GPU streams and host threads over time; steps and GPU idle "
           "time by cause are marked. Keys: W/S zoom, A/D pan, ? lists them all."));
    m_scrollBar = new QScrollBar(Qt::Vertical, this);
    m_scrollBar->setVisible(false);
    connect(m_scrollBar, &QScrollBar::valueChanged, this, [this](int value) {
        m_scrollY = value;
        update();
    });
}

TimelineWidget::~TimelineWidget() = default;

QString TimelineWidget::eventLabel(EventRef ref) const {
    if (ref.kind != EventKind::Kernel) {
        return QString::fromStdString(timeline::eventName(*m_model, ref));
    }
    // Kernels carry their short names (core::shortKernelName), computed once per name.
    const core::StringId name = timeline::eventNameId(*m_model, ref);
    auto it = m_shortKernelNames.find(name.index);
    if (it == m_shortKernelNames.end()) {
        it = m_shortKernelNames
                 .emplace(name.index, QString::fromStdString(core::shortKernelName(m_model->text(name))))
                 .first;
    }
    return it->second;
}

void TimelineWidget::setData(std::shared_ptr<const core::TraceModel> model,
                             std::shared_ptr<const timeline::TrackSet> tracks) {
    m_shortKernelNames.clear();
    m_model = std::move(model);
    m_tracks = std::move(tracks);
    m_streamSyncs = m_model && m_tracks ? timeline::streamSyncsByTrack(*m_model, *m_tracks)
                                        : std::vector<std::vector<core::TimeRange>>{};
    m_selected = {};
    m_flows.clear();
    m_highlights.clear();
    m_rangeSelection.reset();
    m_scrollY = 0;
    rebuildLayout();
    showAll();
}

void TimelineWidget::setOverlays(TimelineOverlays overlays) {
    m_overlays = std::move(overlays);
    rebuildLayout();
    update();
}

int TimelineWidget::plotWidth() const {
    const int scrollWidth = m_scrollBar->isVisible() ? m_scrollBar->width() : 0;
    return std::max(1, width() - m_labelWidth - scrollWidth);
}

int TimelineWidget::tracksTop() const {
    return kRulerHeight + (m_overlays.steps.empty() ? 0 : kStepStripHeight);
}

core::TimeRange TimelineWidget::visibleRange() const {
    const auto span = static_cast<core::DurationNs>(std::ceil(plotWidth() * m_nsPerPixel));
    return {m_viewStartNs, m_viewStartNs + std::max<core::DurationNs>(1, span)};
}

double TimelineWidget::xForTime(core::TimestampNs t) const {
    return m_labelWidth + static_cast<double>(t - m_viewStartNs) / m_nsPerPixel;
}

core::TimestampNs TimelineWidget::timeForX(double x) const {
    return m_viewStartNs + static_cast<core::TimestampNs>(std::floor((x - m_labelWidth) * m_nsPerPixel));
}

void TimelineWidget::showAll() {
    core::TimeRange span = m_tracks ? m_tracks->span : core::TimeRange{};
    if (span.empty()) {
        span = {0, core::kNsPerMs};
    }
    showRange(span, true);
}

void TimelineWidget::showRange(core::TimeRange range, bool margin) {
    if (range.empty()) {
        range.endNs = range.startNs + 1000;
    }
    core::DurationNs duration = range.durationNs();
    if (margin) {
        const core::DurationNs pad = std::max<core::DurationNs>(1, duration / 40);
        range.startNs -= pad;
        duration += 2 * pad;
    }
    m_nsPerPixel = std::max(kMinNsPerPixel, static_cast<double>(duration) / plotWidth());
    m_viewStartNs = range.startNs;
    clampView();
    update();
    emitViewChanged();
}

void TimelineWidget::clampView() {
    core::TimeRange span = m_tracks ? m_tracks->span : core::TimeRange{};
    if (span.empty()) {
        return;
    }
    // Zoom and pan stop at the trace: at most the whole trace with showAll()'s margin is visible,
    // and the view never leaves that margin.
    const core::DurationNs pad = std::max<core::DurationNs>(1, span.durationNs() / 40);
    const double fullNs = static_cast<double>(span.durationNs() + 2 * pad);
    const double maxNsPerPixel = std::max(1000.0, fullNs) / plotWidth();
    m_nsPerPixel = std::clamp(m_nsPerPixel, kMinNsPerPixel, std::max(kMinNsPerPixel, maxNsPerPixel));
    const auto visibleNs = static_cast<core::DurationNs>(plotWidth() * m_nsPerPixel);
    const core::TimestampNs minStart = span.startNs - pad;
    const core::TimestampNs maxStart = span.endNs + pad - visibleNs;
    if (maxStart < minStart) {
        m_viewStartNs = span.startNs + span.durationNs() / 2 - visibleNs / 2;  // wider than the trace
    } else {
        m_viewStartNs = std::clamp(m_viewStartNs, minStart, maxStart);
    }
}

void TimelineWidget::zoomBy(double factor, double anchorX) {
    if (!(factor > 0)) {
        return;
    }
    const core::TimestampNs anchorNs = timeForX(anchorX);
    m_nsPerPixel = std::max(kMinNsPerPixel, m_nsPerPixel / factor);
    clampView();
    m_viewStartNs = anchorNs - static_cast<core::TimestampNs>((anchorX - m_labelWidth) * m_nsPerPixel);
    clampView();
    update();
    emitViewChanged();
}

void TimelineWidget::panByFraction(double fraction) {
    m_viewStartNs += static_cast<core::TimestampNs>(fraction * plotWidth() * m_nsPerPixel);
    clampView();
    update();
    emitViewChanged();
}

void TimelineWidget::zoomToSelection() {
    if (m_rangeSelection && !m_rangeSelection->empty()) {
        showRange(*m_rangeSelection, true);
    } else if (m_model && m_selected.valid() && timeline::isValid(*m_model, m_selected)) {
        core::TimeRange r = timeline::eventTimes(*m_model, m_selected);
        // Show the event with its neighbourhood: it fills the middle third.
        const core::DurationNs d = std::max<core::DurationNs>(r.durationNs(), 100);
        showRange({r.startNs - d, r.endNs + d}, false);
    }
}

bool TimelineWidget::zoomToStep(int direction) {
    const auto& steps = m_overlays.steps;
    if (steps.empty()) {
        return false;
    }
    const core::TimeRange v = visibleRange();
    const core::TimestampNs centre = v.startNs + v.durationNs() / 2;
    // The step whose centre is nearest the view centre is "current".
    std::size_t current = 0;
    core::DurationNs bestDistance = -1;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const core::TimestampNs c = steps[i].range.startNs + steps[i].range.durationNs() / 2;
        const core::DurationNs distance = std::abs(c - centre);
        if (bestDistance < 0 || distance < bestDistance) {
            bestDistance = distance;
            current = i;
        }
    }
    // When the view is wider than the current step, go to it first rather than past it.
    const bool showingStep =
        std::abs(v.durationNs() - steps[current].range.durationNs()) < steps[current].range.durationNs() / 5;
    std::size_t target = current;
    if (showingStep) {
        if (direction > 0 && current + 1 < steps.size()) {
            target = current + 1;
        } else if (direction < 0 && current > 0) {
            target = current - 1;
        }
    }
    showRange(steps[target].range, true);
    return true;
}

void TimelineWidget::selectEvent(EventRef ref, bool reveal) {
    if (m_model && ref.valid() && !timeline::isValid(*m_model, ref)) {
        ref = {};
    }
    m_selected = ref;
    computeFlows();
    if (reveal && ref.valid() && m_model && m_tracks) {
        const core::TimeRange r = timeline::eventTimes(*m_model, ref);
        const core::TimeRange v = visibleRange();
        if (!v.overlaps({r.startNs, std::max(r.endNs, r.startNs + 1)}) ||
            r.durationNs() / m_nsPerPixel < 1.0) {
            const core::DurationNs d = std::max<core::DurationNs>(r.durationNs(), 1000);
            showRange({r.startNs - 4 * d, r.endNs + 4 * d}, false);
        }
        timeline::EventLocation where = timeline::locateEvent(*m_tracks, *m_model, ref);
        if (where.valid() && !m_geometry[static_cast<std::size_t>(where.track)].shown) {
            // Revealing an event in a collapsed group expands the group (hidden tracks stay hidden).
            const std::string& group = m_tracks->tracks[static_cast<std::size_t>(where.track)].group;
            if (timeline::isGroupCollapsed(m_layout, group)) {
                timeline::setGroupCollapsed(m_layout, group, false);
                layoutEdited();
            }
        }
        if (where.valid() && m_geometry[static_cast<std::size_t>(where.track)].shown &&
            static_cast<std::size_t>(where.lane) <
                m_geometry[static_cast<std::size_t>(where.track)].lanes.size()) {
            const TrackGeometry& g = m_geometry[static_cast<std::size_t>(where.track)];
            const LaneGeometry& lane = g.lanes[static_cast<std::size_t>(where.lane)];
            const int viewport = height() - tracksTop();
            if (lane.y < m_scrollY || lane.y + lane.height > m_scrollY + viewport) {
                m_scrollBar->setValue(std::max(0, g.y - viewport / 3));
                m_scrollY = m_scrollBar->isVisible() ? m_scrollBar->value() : 0;
            }
        }
    }
    update();
    emit selectionChanged(m_selected);
}

void TimelineWidget::setReferenceRange(std::optional<core::TimeRange> range) {
    m_referenceRange = range;
    update();
}

void TimelineWidget::setRangeSelection(std::optional<core::TimeRange> range) {
    m_rangeSelection = range;
    update();
    emit rangeSelectionChanged();
}

void TimelineWidget::emitViewChanged() {
    emit viewChanged(visibleRange());
}

}  // namespace chokepoint::ui
