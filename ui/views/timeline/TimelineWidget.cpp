#include "ui/views/timeline/TimelineWidget.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "core/base/Format.h"
#include "core/base/KernelName.h"
#include "core/timeline/LaunchedWork.h"
#include "core/timeline/TimeAxis.h"
#include "ui/base/theme/ThemeColors.h"
#include "ui/base/theme/TimelineColors.h"

namespace chokepoint::ui {

using timeline::EventKind;
using timeline::EventRef;
using timeline::LaneRole;
using timeline::TrackKind;

namespace {

constexpr int kRulerHeight = 28;
constexpr int kStepStripHeight = 18;
constexpr int kGroupHeaderHeight = 22;
constexpr int kLaneHeight = 17;
constexpr int kWorkLaneHeight = 22;
constexpr int kCounterHeight = 44;
constexpr int kIdleStripHeight = 12;
constexpr int kTrackGap = 5;
constexpr double kMinNsPerPixel = 0.01;
constexpr double kMinWidthPx = 2.0;  // narrower events fold into level-of-detail blocks

const QColor kHighlightColor(0xd0, 0x1c, 0x8b);  // search matches (magenta reads on light and dark)

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

int laneHeightFor(LaneRole role) {
    return role == LaneRole::GpuWork ? kWorkLaneHeight : kLaneHeight;
}

}  // namespace

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

// --- Painting ---------------------------------------------------------------------------------

void TimelineWidget::paintEvent(QPaintEvent*) {
    const ThemeColors colors = themeColors(palette());
    m_frameStats = {};
    QPainter p(this);
    p.fillRect(rect(), colors.background);
    const QRect plot(m_labelWidth, tracksTop(), plotWidth(), height() - tracksTop());

    if (!m_model || !m_tracks || m_tracks->tracks.empty()) {
        p.fillRect(QRect(0, 0, width(), kRulerHeight), colors.surface);
        p.setPen(colors.mutedText);
        QFont f = font();
        f.setPointSizeF(f.pointSizeF() * 1.15);
        p.setFont(f);
        p.drawText(rect(), Qt::AlignCenter,
                   m_model ? tr("This trace has no events to draw.")
                           : (m_noTraceMessage.isEmpty() ? tr("Open a trace to see its timeline.")
                                                         : m_noTraceMessage));
        return;
    }

    // Label column background.
    p.fillRect(QRect(0, plot.top(), m_labelWidth, plot.height()), colors.surface);
    paintSteps(p, plot);

    p.save();
    p.setClipRect(QRect(0, plot.top(), width(), plot.height()));
    const int top = plot.top() - m_scrollY;
    for (std::size_t i = 0; i < m_geometry.size(); ++i) {
        const TrackGeometry& g = m_geometry[i];
        if (!g.shown) {
            continue;
        }
        const int headerTop =
            g.y - (g.groupHeader ? kGroupHeaderHeight : 0) - (g.idleStripY >= 0 ? kIdleStripHeight + 2 : 0);
        if (top + g.y + g.height < plot.top() || top + headerTop > plot.bottom()) {
            continue;  // only visible tracks are painted
        }
        paintTrack(p, i, top, plot);
    }
    paintHighlights(p, plot);
    paintSelection(p, plot);
    paintFlowArrows(p, plot);
    p.restore();

    // Range A of a comparison: its edges dashed and an "A" tag on the ruler, under the selection.
    if (m_referenceRange) {
        const double x0 = std::max<double>(plot.left(), xForTime(m_referenceRange->startNs));
        const double x1 = std::min<double>(plot.right(), xForTime(m_referenceRange->endNs));
        if (x1 > x0) {
            QColor shade = colors.mutedText;
            shade.setAlpha(colors.dark ? 45 : 30);
            p.fillRect(QRectF(x0, 0, x1 - x0, height()), shade);
            p.setPen(QPen(colors.mutedText, 1, Qt::DashLine));
            p.drawLine(QPointF(x0, 0), QPointF(x0, height()));
            p.drawLine(QPointF(x1, 0), QPointF(x1, height()));
            QFontMetrics fm(font());
            const QRectF tag(x0 + 2, kRulerHeight - 2, fm.horizontalAdvance(QStringLiteral("A")) + 8,
                             fm.height() + 4);
            p.fillRect(tag, colors.mutedText);
            p.setPen(colors.background);
            p.drawText(tag, Qt::AlignCenter, QStringLiteral("A"));
        }
    }
    // Range selection overlay (over the tracks and the ruler).
    if (m_rangeSelection) {
        const double x0 = std::max<double>(plot.left(), xForTime(m_rangeSelection->startNs));
        const double x1 = std::min<double>(plot.right(), xForTime(m_rangeSelection->endNs));
        if (x1 > x0) {
            QRectF r(x0, 0, x1 - x0, height());
            QColor shade = colors.accent;
            shade.setAlpha(colors.dark ? 60 : 40);
            p.fillRect(r, shade);
            p.setPen(QPen(colors.accent, 1));
            p.drawLine(QPointF(x0, 0), QPointF(x0, height()));
            p.drawLine(QPointF(x1, 0), QPointF(x1, height()));
            const QString text = qs(core::formatDuration(m_rangeSelection->durationNs()));
            QFontMetrics fm(font());
            const int tw = fm.horizontalAdvance(text) + 10;
            QRectF label((x0 + x1) / 2 - tw / 2.0, kRulerHeight - 2, tw, fm.height() + 4);
            p.fillRect(label, colors.accent);
            p.setPen(colors.accentText);
            p.drawText(label, Qt::AlignCenter, text);
        }
    }
    paintRuler(p, QRect(0, 0, width(), kRulerHeight));
    p.setPen(colors.border);
    p.drawLine(m_labelWidth - 1, 0, m_labelWidth - 1, height());
}

void TimelineWidget::paintRuler(QPainter& p, const QRect& rect) {
    const ThemeColors colors = themeColors(palette());
    p.fillRect(rect, colors.surface);
    p.setPen(colors.border);
    p.drawLine(rect.left(), rect.bottom(), rect.right(), rect.bottom());
    const core::TimeRange v = visibleRange();
    const timeline::AxisTicks ticks =
        timeline::computeTicks(v, plotWidth(), m_tracks ? m_tracks->span.startNs : 0, 100);
    QFont small = font();
    small.setPointSizeF(std::max(7.0, small.pointSizeF() * 0.9));
    p.setFont(small);
    for (const timeline::AxisTick& tick : ticks.ticks) {
        const double x = xForTime(tick.timeNs);
        if (x < m_labelWidth) {
            continue;
        }
        p.setPen(colors.mutedText);
        p.drawLine(QPointF(x, rect.bottom() - (tick.major ? 8 : 4)), QPointF(x, rect.bottom()));
        if (tick.major) {
            const QString label = qs(tick.label);
            if (x + 3 + p.fontMetrics().horizontalAdvance(label) > m_labelWidth + plotWidth()) {
                continue;  // would be cut at the right edge
            }
            p.setPen(colors.text);
            p.drawText(QRectF(x + 3, rect.top() + 2, 200, rect.height() - 10),
                       Qt::AlignLeft | Qt::AlignVCenter, label);
        }
    }
    // Scale and window width in the label column.
    p.setPen(colors.mutedText);
    p.drawText(QRect(8, rect.top(), m_labelWidth - 12, rect.height()), Qt::AlignLeft | Qt::AlignVCenter,
               tr("window %1").arg(qs(core::formatDuration(v.durationNs()))));
}

void TimelineWidget::paintSteps(QPainter& p, const QRect& plot) {
    if (m_overlays.steps.empty()) {
        return;
    }
    const ThemeColors colors = themeColors(palette());
    const core::TimeRange v = visibleRange();
    const QRect strip(plot.left(), kRulerHeight, plot.width(), kStepStripHeight);
    p.fillRect(QRect(0, kRulerHeight, m_labelWidth, kStepStripHeight), colors.surface);
    p.setPen(colors.mutedText);
    p.drawText(QRect(8, kRulerHeight, m_labelWidth - 12, kStepStripHeight), Qt::AlignLeft | Qt::AlignVCenter,
               tr("Steps"));
    QFontMetrics fm(font());
    for (std::size_t i = 0; i < m_overlays.steps.size(); ++i) {
        const StepBand& step = m_overlays.steps[i];
        if (!step.range.overlaps(v)) {
            continue;
        }
        const double x0 = std::max<double>(plot.left(), xForTime(step.range.startNs));
        const double x1 = std::min<double>(plot.right() + 1, xForTime(step.range.endNs));
        const QColor color = colors.fill(step.color.isValid() ? step.color : colors.border);
        QRectF band(x0, strip.top() + 1, std::max(1.0, x1 - x0 - 1), strip.height() - 2);
        fillPatterned(p, band, color, step.pattern);
        // Faint alternating background bands across the tracks make step boundaries visible.
        if (i % 2 == 0) {
            QColor stripe = colors.text;
            stripe.setAlpha(colors.dark ? 10 : 8);
            p.fillRect(QRectF(x0, plot.top(), x1 - x0, plot.height()), stripe);
        }
        const QString text =
            step.verdict.isEmpty() ? step.label : step.label + QStringLiteral(" · ") + step.verdict;
        if (band.width() > 40) {
            p.setPen(textColorOn(color));
            p.drawText(band.adjusted(4, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(text, Qt::ElideRight, static_cast<int>(band.width()) - 6));
        }
    }
}

void TimelineWidget::paintTrack(QPainter& p, std::size_t trackIndex, int top, const QRect& plot) {
    const ThemeColors colors = themeColors(palette());
    const timeline::Track& track = m_tracks->tracks[trackIndex];
    const TrackGeometry& g = m_geometry[trackIndex];
    QFontMetrics fm(font());
    int headerY = top + g.y;
    if (g.idleStripY >= 0) {
        headerY = top + g.idleStripY;
    }
    if (g.groupHeader) {
        const QRect header(0, headerY - kGroupHeaderHeight, width(), kGroupHeaderHeight);
        p.fillRect(header, colors.header);
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(colors.text);
        const timeline::TrackGroupView* group =
            g.group >= 0 ? &m_groups[static_cast<std::size_t>(g.group)] : nullptr;
        const bool collapsed = group && group->collapsed;
        QString title = (collapsed ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + qs(track.group);
        p.drawText(header.adjusted(8, 0, -8, 0), Qt::AlignLeft | Qt::AlignVCenter, title);
        if (group && (collapsed || group->hiddenCount > 0)) {
            const QString note = collapsed
                                     ? tr("%n track(s) collapsed", "", static_cast<int>(group->tracks.size()))
                                     : tr("%n hidden", "", static_cast<int>(group->hiddenCount));
            p.setFont(font());
            p.setPen(colors.mutedText);
            p.drawText(header.adjusted(8 + QFontMetrics(bold).horizontalAdvance(title) + 12, 0, -8, 0),
                       Qt::AlignLeft | Qt::AlignVCenter, note);
        }
        p.setFont(font());
    }
    if (g.idleStripY >= 0) {
        const QRect row(plot.left(), top + g.idleStripY, plot.width(), kIdleStripHeight);
        p.setPen(colors.mutedText);
        QFont small = font();
        small.setPointSizeF(std::max(7.0, small.pointSizeF() * 0.85));
        p.setFont(small);
        p.drawText(QRect(14, row.top() - 1, m_labelWidth - 18, kIdleStripHeight + 2),
                   Qt::AlignLeft | Qt::AlignVCenter, tr("GPU idle, by cause"));
        p.setFont(font());
        paintIdleStrip(p, track.deviceIndex, row, plot);
    }
    if (!g.summaryTracks.empty()) {
        // A collapsed GPU group: the work of all its streams in one row.
        const QRect row(plot.left(), top + g.y, plot.width(), g.height);
        p.setPen(colors.mutedText);
        p.drawText(QRect(14, row.top(), m_labelWidth - 18, row.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   tr("all %n stream(s)", "", static_cast<int>(g.summaryTracks.size())));
        p.save();
        p.setClipRect(plot.intersected(row));
        for (std::size_t t : g.summaryTracks) {
            for (const timeline::TrackLane& lane : m_tracks->tracks[t].lanes) {
                if (lane.role == LaneRole::GpuWork) {
                    paintLane(p, lane.lane, row, plot);
                }
            }
        }
        p.restore();
    }
    if (g.lanes.empty()) {
        p.setPen(colors.grid);
        p.drawLine(0, top + g.y + g.height + kTrackGap / 2, width(), top + g.y + g.height + kTrackGap / 2);
        return;
    }
    // Track label beside its first row.
    p.setPen(colors.text);
    const QRect labelRect(14, top + g.y, m_labelWidth - 18,
                          g.lanes.empty() ? kLaneHeight : g.lanes.front().height);
    p.drawText(labelRect, Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(qs(track.label), Qt::ElideRight, labelRect.width()));
    if (track.kind == TrackKind::HostThread && g.lanes.size() > 1) {
        // Name the lane groups under the track label.
        p.setPen(colors.mutedText);
        QFont small = font();
        small.setPointSizeF(std::max(7.0, small.pointSizeF() * 0.85));
        p.setFont(small);
        LaneRole previous = track.lanes.front().role;
        for (std::size_t l = 1; l < track.lanes.size(); ++l) {
            if (track.lanes[l].role != previous) {
                const LaneRole role = track.lanes[l].role;
                const QString name = role == LaneRole::CpuOp         ? tr("CPU ops")
                                     : role == LaneRole::ApiCall     ? tr("runtime calls")
                                     : role == LaneRole::StackSample ? tr("stack samples")
                                                                     : tr("ranges");
                p.drawText(QRect(26, top + g.lanes[l].y, m_labelWidth - 30, g.lanes[l].height),
                           Qt::AlignLeft | Qt::AlignVCenter, name);
                previous = track.lanes[l].role;
            }
        }
        p.setFont(font());
    }

    p.save();
    p.setClipRect(plot.intersected(QRect(plot.left(), top + g.y, plot.width(), g.height)));
    if (track.kind == TrackKind::Counter) {
        paintCounter(p, track,
                     QRect(plot.left(), top + g.lanes.front().y, plot.width(), g.lanes.front().height), plot);
    } else {
        for (std::size_t l = 0; l < track.lanes.size(); ++l) {
            const LaneGeometry& lg = g.lanes[l];
            const QRect row(plot.left(), top + lg.y, plot.width(), lg.height);
            if (row.bottom() < plot.top() || row.top() > plot.bottom()) {
                continue;
            }
            paintLane(p, track.lanes[l].lane, row, plot);
        }
    }
    p.restore();
    p.setPen(colors.grid);
    p.drawLine(0, top + g.y + g.height + kTrackGap / 2, width(), top + g.y + g.height + kTrackGap / 2);
}

void TimelineWidget::paintLane(QPainter& p, const timeline::Lane& lane, const QRect& row, const QRect& plot) {
    const ThemeColors colors = themeColors(palette());
    m_items.clear();
    const timeline::QueryWindow window{visibleRange(), m_nsPerPixel, kMinWidthPx};
    timeline::collect(lane, window, m_items);
    ++m_frameStats.lanesPainted;
    m_frameStats.itemsPainted += m_items.size();
    const QFontMetrics fm(font());
    const int textMinWidth = fm.horizontalAdvance(QStringLiteral("abc…")) + 6;
    const double rowTop = row.top() + 1;
    const double rowHeight = row.height() - 2;
    for (const timeline::DrawItem& item : m_items) {
        m_frameStats.eventsCovered += item.count;
        double x0 = xForTime(item.startNs);
        double x1 = xForTime(item.endNs);
        x0 = std::max(x0, static_cast<double>(plot.left()) - 2);
        x1 = std::min(x1, static_cast<double>(plot.right()) + 2);
        if (x1 - x0 < 1.0) {
            x1 = x0 + 1.0;
        }
        const EventRef ref = lane.ref(item.dominant);
        const core::MemcpyKind copyKind =
            ref.kind == EventKind::Memcpy ? m_model->memcpys.kind[ref.row] : core::MemcpyKind::Unknown;
        QColor fill = colors.fill(eventColor(ref.kind, timeline::eventNameId(*m_model, ref), copyKind));
        const QRectF r(x0, rowTop, x1 - x0, rowHeight);
        if (item.folded()) {
            ++m_frameStats.foldedItems;
            // Level-of-detail block: the dominant member's colour, darker, with a fine hatch.
            fill = fill.darker(125);
            p.fillRect(r, fill);
            if (r.width() > 6) {
                p.fillRect(r, QBrush(fill.darker(130), Qt::BDiagPattern));
            }
        } else {
            p.fillRect(r, fill);
            if (r.width() > 4) {
                p.setPen(QPen(fill.darker(140), 0));
                p.drawRect(r.adjusted(0, 0, -0.5, -0.5));
            }
        }
        if (r.width() >= textMinWidth) {
            QString text = eventLabel(ref);
            if (item.folded()) {
                text = tr("%1 events · %2").arg(item.count).arg(text);
            }
            const QRectF visibleR = r.intersected(QRectF(plot.left(), rowTop, plot.width(), rowHeight));
            p.setPen(textColorOn(fill));
            p.drawText(visibleR.adjusted(3, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(text, Qt::ElideRight, static_cast<int>(visibleR.width()) - 5));
        }
    }
}

void TimelineWidget::paintCounter(QPainter& p, const timeline::Track& track, const QRect& row,
                                  const QRect& plot) {
    const ThemeColors colors = themeColors(palette());
    const core::CounterTrack& counter = m_model->counters[static_cast<std::size_t>(track.counterIndex)];
    if (counter.values.empty()) {
        return;
    }
    const auto [minIt, maxIt] = std::minmax_element(counter.values.begin(), counter.values.end());
    const double lo = std::min(0.0, *minIt);
    const double hi = *maxIt > lo ? *maxIt : lo + 1.0;
    const timeline::QueryWindow window{visibleRange(), m_nsPerPixel, kMinWidthPx};
    const std::vector<timeline::CounterColumn> columns =
        timeline::counterColumns(counter.timesNs, counter.values, window);
    const double h = row.height() - 4;
    auto yFor = [&](double v) { return row.bottom() - 2 - (v - lo) / (hi - lo) * h; };
    const QColor color(0x2f, 0x80, 0xed);
    QColor area = color;
    area.setAlpha(70);
    for (const timeline::CounterColumn& c : columns) {
        const double x = plot.left() + c.x;
        p.fillRect(QRectF(x, yFor(c.maxValue), 1.0, row.bottom() - 2 - yFor(c.maxValue)), area);
        p.fillRect(QRectF(x, yFor(c.maxValue), 1.0, std::max(1.0, yFor(c.minValue) - yFor(c.maxValue))),
                   color);
    }
    p.setPen(colors.mutedText);
    p.drawText(row.adjusted(4, 1, -4, 0), Qt::AlignRight | Qt::AlignTop,
               tr("max %1").arg(core::formatFixed(*maxIt, 1).c_str()));
}

void TimelineWidget::paintIdleStrip(QPainter& p, int deviceIndex, const QRect& row, const QRect& plot) {
    const ThemeColors colors = themeColors(palette());
    const core::TimeRange v = visibleRange();
    p.fillRect(row, colors.surface);
    double lastX1 = -1;
    for (const IdleGap& gap : m_overlays.idleGaps) {
        if (gap.deviceIndex != deviceIndex || !gap.range.overlaps(v)) {
            continue;
        }
        double x0 = std::max<double>(plot.left(), xForTime(gap.range.startNs));
        const double x1 = std::min<double>(plot.right(), xForTime(gap.range.endNs));
        if (x1 < lastX1 + 0.5 && x1 - x0 < 1) {
            continue;  // sub-pixel gap in a pixel already painted
        }
        x0 = std::min(x0, x1 - 1);
        p.fillRect(QRectF(x0, row.top(), std::max(1.0, x1 - x0), row.height()), colors.fill(gap.color));
        lastX1 = x1;
    }
}

QRect TimelineWidget::eventRect(const timeline::EventLocation& where) const {
    if (!where.valid() || !m_model) {
        return {};
    }
    const timeline::Track& track = m_tracks->tracks[static_cast<std::size_t>(where.track)];
    const timeline::Lane& lane = track.lanes[static_cast<std::size_t>(where.lane)].lane;
    const TrackGeometry& g = m_geometry[static_cast<std::size_t>(where.track)];
    if (!g.shown || static_cast<std::size_t>(where.lane) >= g.lanes.size()) {
        return {};  // hidden, or in a collapsed group
    }
    const LaneGeometry& lg = g.lanes[static_cast<std::size_t>(where.lane)];
    const double x0 = xForTime(lane.startNs(where.index));
    const double x1 = std::max(x0 + 2, xForTime(lane.endNs(where.index)));
    const int y = tracksTop() - m_scrollY + lg.y;
    return QRectF(x0, y, x1 - x0, lg.height).toAlignedRect();
}

QRect TimelineWidget::laneRectOf(EventRef ref) const {
    if (!m_model || !m_tracks || !ref.valid()) {
        return {};
    }
    const timeline::EventLocation where = timeline::locateEvent(*m_tracks, *m_model, ref);
    if (!where.valid()) {
        return {};
    }
    const TrackGeometry& g = m_geometry[static_cast<std::size_t>(where.track)];
    if (!g.shown || static_cast<std::size_t>(where.lane) >= g.lanes.size()) {
        return {};
    }
    const LaneGeometry& lg = g.lanes[static_cast<std::size_t>(where.lane)];
    return QRect(plotLeft(), tracksTop() - m_scrollY + lg.y, plotWidth(), lg.height);
}

void TimelineWidget::paintSelection(QPainter& p, const QRect& plot) {
    if (!m_selected.valid() || !m_model) {
        return;
    }
    const QRect r = eventRect(timeline::locateEvent(*m_tracks, *m_model, m_selected));
    if (r.isNull()) {
        return;
    }
    const QRect clipped = r.intersected(plot.adjusted(-3, 0, 3, 0));
    p.setPen(QPen(themeColors(palette()).selection, 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(clipped.isEmpty() ? r : clipped.adjusted(-1, -1, 1, 1));
}

void TimelineWidget::paintHighlights(QPainter& p, const QRect& plot) {
    if (m_highlights.empty() || !m_model || !m_tracks) {
        return;
    }
    // Only the matches in view are located (each lookup is O(tracks + log n)); at most a few
    // thousand are outlined so a broad search stays responsive.
    constexpr std::size_t kMaxOutlined = 4000;
    const core::TimeRange v = visibleRange();
    p.setPen(QPen(kHighlightColor, 1.5));
    p.setBrush(Qt::NoBrush);
    std::size_t drawn = 0;
    for (const EventRef ref : m_highlights) {
        const core::TimeRange r = timeline::eventTimes(*m_model, ref);
        if (!v.overlaps({r.startNs, std::max(r.endNs, r.startNs + 1)}) || ref == m_selected) {
            continue;
        }
        const QRect rect = eventRect(timeline::locateEvent(*m_tracks, *m_model, ref));
        if (rect.isNull() || rect.bottom() < plot.top() || rect.top() > plot.bottom()) {
            continue;
        }
        p.drawRect(rect.intersected(plot.adjusted(-2, 0, 2, 0)).adjusted(0, 0, -1, -1));
        if (++drawn >= kMaxOutlined) {
            break;
        }
    }
}

void TimelineWidget::computeFlows() {
    m_flows.clear();
    if (!m_selected.valid() || !m_model) {
        return;
    }
    // Both ways: from selected work back to its launch call, or from a selected call or CPU op to
    // the work it launched (core/timeline/LaunchedWork.h). An op can launch thousands of kernels;
    // the first few hundred arrows say enough.
    constexpr std::size_t kMaxArrows = 500;
    if (m_selected.kind == EventKind::ApiCall || m_selected.kind == EventKind::CpuOp) {
        for (const EventRef work : timeline::launchedWork(*m_model, m_selected)) {
            const EventRef from =
                m_selected.kind == EventKind::ApiCall ? m_selected : timeline::launchCallOf(*m_model, work);
            m_flows.push_back({from.valid() ? from : m_selected, work});
            if (m_flows.size() >= kMaxArrows) {
                break;
            }
        }
    } else if (const EventRef call = timeline::launchCallOf(*m_model, m_selected); call.valid()) {
        m_flows.push_back({call, m_selected});
    }
}

void TimelineWidget::paintFlowArrows(QPainter& p, const QRect& plot) {
    if (m_flows.empty()) {
        return;
    }
    const auto& flows = m_flows;
    const QColor arrow = themeColors(palette()).flow;
    p.setRenderHint(QPainter::Antialiasing, true);
    for (const auto& [from, to] : flows) {
        const QRect a = eventRect(timeline::locateEvent(*m_tracks, *m_model, from));
        const QRect b = eventRect(timeline::locateEvent(*m_tracks, *m_model, to));
        if (a.isNull() || b.isNull()) {
            continue;
        }
        const QPointF start(std::clamp<double>(a.left(), plot.left(), plot.right()), a.center().y());
        const QPointF end(std::clamp<double>(b.left(), plot.left(), plot.right()), b.center().y());
        QPainterPath path(start);
        const double dy = (end.y() - start.y()) / 2;
        path.cubicTo(start + QPointF(0, dy), end - QPointF(0, dy), end);
        p.setPen(QPen(arrow, 1.6));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        // Arrow head pointing down (or up) into the work.
        const double dir = end.y() >= start.y() ? -1.0 : 1.0;
        QPolygonF head;
        head << end << end + QPointF(-4, 7 * dir) << end + QPointF(4, 7 * dir);
        p.setBrush(arrow);
        p.drawPolygon(head);
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

// --- Hit testing and tooltips -------------------------------------------------------------------

EventRef TimelineWidget::eventAt(QPoint pos) const {
    if (!m_model || !m_tracks || pos.x() < m_labelWidth || pos.y() < tracksTop()) {
        return {};
    }
    const int contentY = pos.y() - tracksTop() + m_scrollY;
    for (std::size_t t = 0; t < m_geometry.size(); ++t) {
        const TrackGeometry& g = m_geometry[t];
        if (!g.shown || contentY < g.y || contentY >= g.y + g.height) {
            continue;
        }
        const timeline::Track& track = m_tracks->tracks[t];
        for (std::size_t l = 0; l < track.lanes.size() && l < g.lanes.size(); ++l) {
            if (contentY >= g.lanes[l].y && contentY < g.lanes[l].y + g.lanes[l].height) {
                const timeline::Lane& lane = track.lanes[l].lane;
                const auto tolerance = static_cast<core::DurationNs>(3 * m_nsPerPixel);
                const std::size_t i = timeline::hitTest(lane, timeForX(pos.x()), tolerance);
                return i < lane.size() ? lane.ref(i) : EventRef{};
            }
        }
    }
    return {};
}

QString TimelineWidget::tooltipAt(QPoint pos) const {
    const EventRef ref = eventAt(pos);
    if (ref.valid() && ref.kind == EventKind::StackSample) {
        // A sampled stack: its time and frames, leaf first.
        QString frames;
        const std::vector<std::string> stack = timeline::stackSampleFrames(*m_model, ref);
        constexpr std::size_t kShown = 14;
        for (std::size_t i = 0; i < stack.size() && i < kShown; ++i) {
            frames += QStringLiteral("<br>") + qs(stack[i]).toHtmlEscaped();
        }
        if (stack.size() > kShown) {
            frames += tr("<br>… %n more frame(s)", "", static_cast<int>(stack.size() - kShown));
        }
        return tr("<b>%1</b><br>stack sample at %2<small>%3</small>")
            .arg(QString::fromStdString(timeline::eventName(*m_model, ref)).toHtmlEscaped(),
                 qs(core::formatDuration(timeline::eventTimes(*m_model, ref).startNs -
                                         m_tracks->span.startNs)),
                 frames);
    }
    if (ref.valid()) {
        const core::TimeRange r = timeline::eventTimes(*m_model, ref);
        // A kernel's short name as on its block, then the full name.
        const QString label = eventLabel(ref);
        const QString full = QString::fromStdString(timeline::eventName(*m_model, ref));
        return QStringLiteral("<b>%1</b><br>%2 · %3%4")
            .arg(label.toHtmlEscaped())
            .arg(QString::fromUtf8(timeline::toString(ref.kind).data()))
            .arg(qs(core::formatDuration(r.durationNs())))
            .arg(label != full ? QStringLiteral("<br><small>%1</small>").arg(full.toHtmlEscaped())
                               : QString());
    }
    // Idle strip and steps strip.
    const core::TimestampNs t = timeForX(pos.x());
    if (pos.y() >= kRulerHeight && pos.y() < kRulerHeight + kStepStripHeight) {
        for (const StepBand& step : m_overlays.steps) {
            if (step.range.contains(t)) {
                return QStringLiteral("<b>%1</b><br>%2%3")
                    .arg(step.label.toHtmlEscaped(), qs(core::formatDuration(step.range.durationNs())),
                         step.verdict.isEmpty() ? QString()
                                                : QStringLiteral(" · ") + step.verdict.toHtmlEscaped());
            }
        }
    }
    const int contentY = pos.y() - tracksTop() + m_scrollY;
    for (std::size_t i = 0; i < m_geometry.size(); ++i) {
        const TrackGeometry& g = m_geometry[i];
        if (g.idleStripY >= 0 && contentY >= g.idleStripY && contentY < g.idleStripY + kIdleStripHeight) {
            const auto tolerance = static_cast<core::DurationNs>(2 * m_nsPerPixel);
            for (const IdleGap& gap : m_overlays.idleGaps) {
                if (gap.deviceIndex == m_tracks->tracks[i].deviceIndex &&
                    gap.range.startNs - tolerance <= t && t < gap.range.endNs + tolerance) {
                    return tr("<b>GPU idle</b>: %1<br>%2")
                        .arg(gap.cause.toHtmlEscaped(), qs(core::formatDuration(gap.range.durationNs())));
                }
            }
        }
    }
    return {};
}

bool TimelineWidget::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString text = tooltipAt(help->pos());
        if (text.isEmpty()) {
            QToolTip::hideText();
            e->ignore();
        } else {
            QToolTip::showText(help->globalPos(), text, this);
        }
        return true;
    }
    return QWidget::event(e);
}

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

const StepBand* TimelineWidget::stepAt(QPoint pos) const {
    if (m_overlays.steps.empty() || pos.x() < m_labelWidth || pos.y() < kRulerHeight ||
        pos.y() >= kRulerHeight + kStepStripHeight) {
        return nullptr;
    }
    const core::TimestampNs t = timeForX(pos.x());
    for (const StepBand& step : m_overlays.steps) {
        if (step.range.contains(t)) {
            return &step;
        }
    }
    return nullptr;
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
