#include "ui/base/charts/MfuBands.h"

#include <QPainter>
#include <algorithm>

#include "ui/base/theme/ThemeColors.h"
#include "ui/base/theme/TimelineColors.h"

namespace chokepoint::ui {

MfuBands::MfuBands(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setMinimumHeight(54);
    setAccessibleName(tr("MFU reference bands"));
    setAccessibleDescription(tr("Where the model FLOPs utilisation sits among the reference bands"));
}

void MfuBands::setMfu(std::optional<double> mfu, bool estimate) {
    m_mfu = mfu;
    m_estimate = estimate;
    update();
}

void MfuBands::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const ThemeColors colors = themeColors(palette());
    const QRectF bar(6, 18, width() - 12, 14);
    const auto xAt = [&](double fraction) {
        return bar.left() + bar.width() * std::clamp(fraction, 0.0, 1.0);
    };
    struct Band {
        double from, to;
        QColor color;
        const char* label;
    };
    // Seed spec §9.1 reference bands; 50–55 % is left unnamed by the text.
    const Band bands[] = {{0.00, 0.30, QColor(244, 199, 195), "addressable"},
                          {0.30, 0.50, QColor(255, 236, 179), "typical"},
                          {0.50, 0.55, QColor(238, 238, 238), ""},
                          {0.55, 0.65, QColor(200, 230, 201), "ceiling"},
                          {0.65, 1.00, QColor(225, 225, 240), "suspicious"}};
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.8);
    p.setFont(small);
    const QFontMetricsF fm(small);
    for (const Band& b : bands) {
        const QRectF r(xAt(b.from), bar.top(), xAt(b.to) - xAt(b.from), bar.height());
        // Pastel on light; on dark the same hue, much darker, so the bar does not glare.
        const QColor fill = colors.dark ? b.color.darker(260) : b.color;
        p.fillRect(r, fill);
        const QString label = QString::fromLatin1(b.label);
        if (!label.isEmpty() && fm.horizontalAdvance(label) + 4 < r.width()) {
            p.setPen(textColorOn(fill));
            p.drawText(r, Qt::AlignCenter, label);
        }
    }
    p.setPen(colors.border);
    p.drawRect(bar);
    // Anchors: PaLM 46.2 %, GPT-3 ≈ 45 % (seed §9.1).
    p.setPen(QPen(colors.mutedText, 1, Qt::DotLine));
    p.drawLine(QPointF(xAt(0.462), bar.top() - 3), QPointF(xAt(0.462), bar.bottom() + 3));
    p.setPen(colors.mutedText);
    p.drawText(QPointF(xAt(0.462) + 2, bar.top() - 4), QStringLiteral("PaLM 46 %"));
    // Scale.
    for (int pct = 0; pct <= 100; pct += 25) {
        const double x = xAt(pct / 100.0);
        const QString t = QStringLiteral("%1 %").arg(pct);
        const double w = fm.horizontalAdvance(t);
        p.drawText(QPointF(std::clamp(x - w / 2, 0.0, width() - w), bar.bottom() + fm.ascent() + 3), t);
    }
    if (m_mfu) {
        const double x = xAt(*m_mfu);
        QPolygonF marker;
        marker << QPointF(x - 6, bar.top() - 8) << QPointF(x + 6, bar.top() - 8) << QPointF(x, bar.top() + 2);
        p.setBrush(colors.text);
        p.setPen(Qt::NoPen);
        p.drawPolygon(marker);
        p.setPen(QPen(colors.text, 2, m_estimate ? Qt::DashLine : Qt::SolidLine));
        p.drawLine(QPointF(x, bar.top()), QPointF(x, bar.bottom()));
    } else {
        p.setPen(colors.mutedText);
        p.drawText(QRectF(bar.left(), 0, bar.width(), bar.top() - 2), Qt::AlignLeft | Qt::AlignBottom,
                   tr("MFU unknown"));
    }
}

}  // namespace chokepoint::ui
