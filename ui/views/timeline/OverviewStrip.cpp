#include "ui/views/timeline/OverviewStrip.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

namespace chokepoint::ui {

OverviewStrip::OverviewStrip(QWidget* parent) : QWidget(parent) {
    setFixedHeight(30);
    setMouseTracking(false);
    setCursor(Qt::PointingHandCursor);
    setToolTip(
        tr("The whole trace: GPU busy (top) and host busy (bottom). Click or drag to move the "
           "timeline there."));
    setAccessibleName(tr("Trace overview"));
}

void OverviewStrip::setTracks(std::shared_ptr<const timeline::TrackSet> tracks) {
    m_tracks = std::move(tracks);
    m_view = m_tracks ? m_tracks->span : core::TimeRange{};
    recompute();
    update();
}

void OverviewStrip::setView(core::TimeRange view) {
    m_view = view;
    update();
}

QRect OverviewStrip::barRect() const {
    return rect().adjusted(m_leftMargin, 2, -m_rightMargin, -2);
}

void OverviewStrip::setPlotMargins(int left, int right) {
    left = std::max(2, left);
    right = std::max(2, right);
    if (left != m_leftMargin || right != m_rightMargin) {
        m_leftMargin = left;
        m_rightMargin = right;
        recompute();
        update();
    }
}

void OverviewStrip::recompute() {
    const int buckets = std::max(1, barRect().width());
    m_overview = m_tracks ? timeline::computeOverview(*m_tracks, static_cast<std::size_t>(buckets))
                          : timeline::Overview{};
}

void OverviewStrip::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (m_tracks && static_cast<int>(m_overview.gpuBusy.size()) != std::max(1, barRect().width())) {
        recompute();
    }
}

core::TimestampNs OverviewStrip::timeForX(double x) const {
    const QRect bar = barRect();
    const core::TimeRange span = m_overview.span;
    const double f = std::clamp((x - bar.left()) / std::max(1, bar.width()), 0.0, 1.0);
    return span.startNs + static_cast<core::DurationNs>(f * static_cast<double>(span.durationNs()));
}

double OverviewStrip::xForTime(core::TimestampNs t) const {
    const QRect bar = barRect();
    const core::TimeRange span = m_overview.span;
    if (span.durationNs() <= 0) {
        return bar.left();
    }
    return bar.left() +
           static_cast<double>(t - span.startNs) / static_cast<double>(span.durationNs()) * bar.width();
}

void OverviewStrip::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QPalette& pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Window));
    const QRect bar = barRect();
    p.fillRect(bar, pal.color(QPalette::Base));
    if (m_leftMargin > 40) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(QRect(8, 0, m_leftMargin - 12, height()), Qt::AlignLeft | Qt::AlignVCenter,
                   tr("Overview · GPU / host"));
    }
    if (!m_tracks || m_overview.gpuBusy.empty()) {
        return;
    }
    const int half = bar.height() / 2;
    const bool hasHost =
        std::any_of(m_overview.hostBusy.begin(), m_overview.hostBusy.end(), [](float v) { return v > 0; });
    const bool hasGpu =
        std::any_of(m_overview.gpuBusy.begin(), m_overview.gpuBusy.end(), [](float v) { return v > 0; });
    if (!hasGpu && !hasHost) {
        // A host-only capture (stack samples alone): an empty box read as a drawing fault.
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(bar, Qt::AlignCenter, tr("no GPU work or CPU ops to summarise"));
    }
    const int gpuHeight = hasHost ? half : bar.height();
    QColor gpu = pal.color(QPalette::Highlight);
    QColor host = pal.color(QPalette::Highlight);
    host.setAlpha(110);
    for (std::size_t i = 0; i < m_overview.gpuBusy.size(); ++i) {
        const int x = bar.left() + static_cast<int>(i);
        if (const float v = m_overview.gpuBusy[i]; v > 0) {
            const int h = std::max(1, static_cast<int>(v * gpuHeight));
            p.fillRect(QRect(x, bar.top() + gpuHeight - h, 1, h), gpu);
        }
        if (hasHost && i < m_overview.hostBusy.size()) {
            if (const float v = m_overview.hostBusy[i]; v > 0) {
                const int h = std::max(1, static_cast<int>(v * (bar.height() - gpuHeight)));
                p.fillRect(QRect(x, bar.bottom() + 1 - h, 1, h), host);
            }
        }
    }
    // The visible window: everything outside it is dimmed, the window is outlined.
    const double x0 = std::clamp(xForTime(m_view.startNs), double(bar.left()), double(bar.right()));
    const double x1 = std::clamp(xForTime(m_view.endNs), double(bar.left()), double(bar.right() + 1));
    QColor dim = pal.color(QPalette::Window);
    dim.setAlpha(150);
    p.fillRect(QRectF(bar.left(), bar.top(), x0 - bar.left(), bar.height()), dim);
    p.fillRect(QRectF(x1, bar.top(), bar.right() + 1 - x1, bar.height()), dim);
    p.setPen(QPen(pal.color(QPalette::Text), 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(x0, bar.top(), std::max(2.0, x1 - x0), bar.height() - 1));
}

void OverviewStrip::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton && m_tracks) {
        emit centreRequested(timeForX(event->position().x()));
    }
}

void OverviewStrip::mouseMoveEvent(QMouseEvent* event) {
    if ((event->buttons() & Qt::LeftButton) && m_tracks) {
        emit centreRequested(timeForX(event->position().x()));
    }
}

}  // namespace chokepoint::ui
