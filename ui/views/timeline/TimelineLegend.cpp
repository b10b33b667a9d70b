#include "ui/views/timeline/TimelineLegend.h"

#include <QPainter>

#include "ui/base/theme/ThemeColors.h"
#include "ui/base/theme/TimelineColors.h"

namespace chokepoint::ui {

TimelineLegend::TimelineLegend(QWidget* parent) : QWidget(parent) {
    using timeline::EventKind;
    m_fixed = {
        {tr("Kernel (colour by name)"), eventColor(EventKind::Kernel, core::StringId{3})},
        {tr("Copy H→D"), eventColor(EventKind::Memcpy, {}, core::MemcpyKind::HostToDevice)},
        {tr("Copy D→H"), eventColor(EventKind::Memcpy, {}, core::MemcpyKind::DeviceToHost)},
        {tr("Copy D→D / P2P"), eventColor(EventKind::Memcpy, {}, core::MemcpyKind::DeviceToDevice)},
        {tr("Memset"), eventColor(EventKind::Memset, {})},
        {tr("Runtime call"), eventColor(EventKind::ApiCall, {})},
        // A blue sample of the function colours: the olive one matched "Idle: host work".
        {tr("Stack sample (tick, colour by function)"),
         eventColor(EventKind::StackSample, core::StringId{1})},
        {tr("Many short events (hatched)"), QColor(0x55, 0x60, 0x6b), Qt::BDiagPattern},
        {tr("Stream sync (band under a stream: the host waits on it)"), streamSyncColor(), Qt::Dense4Pattern},
    };
    setAccessibleName(tr("Timeline legend"));
    setAccessibleDescription(tr("What the timeline's colours and patterns mean"));
    m_entries = m_fixed;
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    setFixedHeight(heightForWidth(1400));
}

void TimelineLegend::setOverlayEntries(std::vector<LegendEntry> entries) {
    m_entries = m_fixed;
    m_entries.insert(m_entries.end(), entries.begin(), entries.end());
    setFixedHeight(heightForWidth(width()));
    update();
}

int TimelineLegend::heightForWidth(int width) const {
    // Entries wrap onto as many lines as the width needs.
    const QFontMetrics fm(font());
    const int available = std::max(200, width);
    int x = 8;
    int lines = 1;
    for (const LegendEntry& e : m_entries) {
        const int w = 18 + fm.horizontalAdvance(e.label) + 16;
        if (x + w > available && x > 8) {
            ++lines;
            x = 8;
        }
        x += w;
    }
    return lines * (fm.height() + 6) + 6;
}

QSize TimelineLegend::sizeHint() const {
    return {600, heightForWidth(width())};
}

void TimelineLegend::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // A fixed height that fits the entries at this width, so the legend never takes spare space.
    const int h = heightForWidth(width());
    if (h != height()) {
        setFixedHeight(h);
    }
}

void TimelineLegend::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const ThemeColors colors = themeColors(palette());
    p.fillRect(rect(), colors.surface);
    const QFontMetrics fm(font());
    const int lineHeight = fm.height() + 6;
    int x = 8;
    int y = 4;
    for (const LegendEntry& e : m_entries) {
        const int w = 18 + fm.horizontalAdvance(e.label) + 16;
        if (x + w > width() && x > 8) {
            x = 8;
            y += lineHeight;
        }
        const QRect swatch(x, y + (lineHeight - 12) / 2, 12, 12);
        const QColor fill = colors.fill(e.color);
        fillPatterned(p, swatch, fill, e.pattern);
        p.setPen(colors.dark ? fill.lighter(150) : fill.darker(150));
        p.drawRect(swatch.adjusted(0, 0, -1, -1));
        p.setPen(colors.text);
        p.drawText(QRect(x + 18, y, w, lineHeight), Qt::AlignLeft | Qt::AlignVCenter, e.label);
        x += w;
    }
}

}  // namespace chokepoint::ui
