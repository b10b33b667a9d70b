#include "ui/views/timeline/TimelineWidget.h"

#include <QHelpEvent>
#include <QToolTip>

#include "core/base/Format.h"
#include "ui/views/timeline/TimelineMetrics.h"

namespace chokepoint::ui {

using timeline::EventKind;
using timeline::EventRef;

using namespace timelinemetrics;

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

}  // namespace chokepoint::ui
