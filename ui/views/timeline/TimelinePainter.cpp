#include "ui/views/timeline/TimelineWidget.h"

#include <QPainter>
#include <QPainterPath>
#include <algorithm>

#include "core/base/Format.h"
#include "core/timeline/ColumnCoverage.h"
#include "core/timeline/LaunchedWork.h"
#include "core/timeline/TimeAxis.h"
#include "ui/base/theme/ThemeColors.h"
#include "ui/base/theme/TimelineColors.h"
#include "ui/views/timeline/TimelineMetrics.h"

namespace chokepoint::ui {

using timeline::EventKind;
using timeline::EventRef;
using timeline::LaneRole;
using timeline::TrackKind;

using namespace timelinemetrics;

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
    // Group headers run the whole width (a GPU's or a process's name is longer than the label
    // column): the column's divider is not drawn across them.
    std::vector<std::pair<int, int>> headerRows;
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
        if (g.groupHeader) {
            const int headerBottom = top + headerTop + kGroupHeaderHeight;
            headerRows.emplace_back(std::max(plot.top(), headerBottom - kGroupHeaderHeight), headerBottom);
        }
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
    std::sort(headerRows.begin(), headerRows.end());  // tracks may be shown in another order
    int dividerFrom = 0;
    for (const auto& [headerTop, headerBottom] : headerRows) {
        if (headerTop > dividerFrom) {
            p.drawLine(m_labelWidth - 1, dividerFrom, m_labelWidth - 1, headerTop - 1);
        }
        dividerFrom = std::max(dividerFrom, headerBottom);
    }
    p.drawLine(m_labelWidth - 1, dividerFrom, m_labelWidth - 1, height());
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
        if (trackIndex < m_streamSyncs.size() && !m_streamSyncs[trackIndex].empty()) {
            paintStreamSyncs(p, m_streamSyncs[trackIndex],
                             QRect(plot.left(), top + g.y + g.height - kStreamSyncBandHeight, plot.width(),
                                   kStreamSyncBandHeight),
                             plot);
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
    const std::vector<timeline::CounterColumn> columns = timeline::counterColumns(counter, window);
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
    // The scale, in the counter's unit ("max 107 %": a thread over one core), on a backing so the
    // curve under it does not cross the text.
    const QString maxText =
        tr("max %1").arg(QString::fromStdString(core::formatCounterValue(*maxIt, counter.unit)));
    const QFontMetrics fm = p.fontMetrics();
    const QRect textRect(row.right() - 4 - fm.horizontalAdvance(maxText) - 4, row.top() + 1,
                         fm.horizontalAdvance(maxText) + 6, fm.height());
    QColor backing = palette().color(QPalette::Base);
    backing.setAlpha(210);
    p.fillRect(textRect, backing);
    p.setPen(colors.mutedText);
    p.drawText(textRect, Qt::AlignCenter, maxText);
}

void TimelineWidget::paintStreamSyncs(QPainter& p, const std::vector<core::TimeRange>& syncs,
                                      const QRect& band, const QRect& plot) {
    const core::TimeRange v = visibleRange();
    const QColor color = streamSyncColor();
    // Sorted by start: skip those that end before the view; stop at the first that starts after it.
    double lastX1 = -1;
    for (const core::TimeRange& sync : syncs) {
        if (sync.startNs > v.endNs) {
            break;
        }
        if (sync.endNs < v.startNs) {
            continue;
        }
        double x0 = std::max<double>(plot.left(), xForTime(sync.startNs));
        const double x1 = std::min<double>(plot.right(), xForTime(sync.endNs));
        if (x1 < lastX1 + 0.5 && x1 - x0 < 1) {
            continue;  // sub-pixel sync in a pixel already painted
        }
        x0 = std::min(x0, x1 - 1);
        const QRectF r(x0, band.top(), std::max(1.0, x1 - x0), band.height());
        p.fillRect(r, color);
        p.fillRect(r, QBrush(textColorOn(color), Qt::Dense4Pattern));
        lastX1 = std::max(lastX1, x1);
    }
}

void TimelineWidget::paintIdleStrip(QPainter& p, int deviceIndex, const QRect& row, const QRect& plot) {
    const ThemeColors colors = themeColors(palette());
    const core::TimeRange v = visibleRange();
    p.fillRect(row, colors.surface);
    // Each pixel column shows the cause that idles most of it, as opaque as the share of the
    // column's time that is idle: microsecond gaps between busy kernels stay faint.
    std::vector<QColor> causeColors;
    auto keyOf = [&causeColors](const QColor& color) {
        const auto it = std::find(causeColors.begin(), causeColors.end(), color);
        if (it != causeColors.end()) {
            return static_cast<int>(it - causeColors.begin());
        }
        causeColors.push_back(color);
        return static_cast<int>(causeColors.size()) - 1;
    };
    for (const IdleGap& gap : m_overlays.idleGaps) {
        if (gap.deviceIndex == deviceIndex && gap.range.overlaps(v)) {
            keyOf(gap.color);
        }
    }
    if (causeColors.empty() || plot.width() <= 0) {
        return;
    }
    const core::TimeRange columnsSpan{timeForX(plot.left()), timeForX(plot.left() + plot.width())};
    timeline::ColumnCoverage coverage(columnsSpan, plot.width(), static_cast<int>(causeColors.size()));
    for (const IdleGap& gap : m_overlays.idleGaps) {
        if (gap.deviceIndex == deviceIndex && gap.range.overlaps(v)) {
            coverage.add(gap.range, keyOf(gap.color));
        }
    }
    const std::vector<timeline::ColumnCover> columns = coverage.columns();
    constexpr int kAlphaSteps = 16;  // runs of columns with the same cause and step are one rectangle
    auto alphaStep = [](float share) {
        return share <= 0 ? 0 : std::max(1, static_cast<int>(share * kAlphaSteps + 0.5f));
    };
    std::size_t i = 0;
    while (i < columns.size()) {
        const int key = columns[i].key;
        const int step = alphaStep(columns[i].share);
        std::size_t end = i + 1;
        while (end < columns.size() && columns[end].key == key && alphaStep(columns[end].share) == step) {
            ++end;
        }
        if (key >= 0 && step > 0) {
            QColor color = colors.fill(causeColors[static_cast<std::size_t>(key)]);
            color.setAlphaF(color.alphaF() * std::min(1.0f, static_cast<float>(step) / kAlphaSteps));
            p.fillRect(
                QRect(plot.left() + static_cast<int>(i), row.top(), static_cast<int>(end - i), row.height()),
                color);
        }
        i = end;
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

}  // namespace chokepoint::ui
