#include "ui/base/theme/ThemeColors.h"

#include <QGuiApplication>
#include <QPainter>
#include <QPixmap>
#include <algorithm>
#include <cmath>

namespace chokepoint::ui {

namespace {

double relativeLuminance(const QColor& c) {
    auto linear = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
}

}  // namespace

QColor blend(const QColor& a, const QColor& b, double t) {
    auto channel = [t](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * t)); };
    return QColor(channel(a.red(), b.red()), channel(a.green(), b.green()), channel(a.blue(), b.blue()));
}

bool isDarkPalette(const QPalette& palette) {
    const QColor base = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    return relativeLuminance(base) < relativeLuminance(text);
}

double contrastRatio(const QColor& a, const QColor& b) {
    const double la = relativeLuminance(a);
    const double lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QString cssColor(const QColor& color) {
    return color.name(QColor::HexRgb);
}

namespace {

bool plain(Qt::BrushStyle pattern) {
    return pattern == Qt::SolidPattern || pattern == Qt::NoBrush;
}

QColor patternInk(const QColor& fill) {
    const bool lightFill = relativeLuminance(fill) > 0.3;
    return lightFill ? QColor(0, 0, 0, 120) : QColor(255, 255, 255, 150);
}

}  // namespace

QBrush patternedBrush(const QColor& fill, Qt::BrushStyle pattern) {
    if (plain(pattern)) {
        return QBrush(fill);
    }
    // A 16 px tile: Qt's patterns repeat every 8 px, so the tile joins without seams.
    QPixmap tile(16, 16);
    tile.fill(fill);
    QPainter p(&tile);
    p.fillRect(tile.rect(), QBrush(patternInk(fill), pattern));
    p.end();
    return QBrush(tile);
}

void fillPatterned(QPainter& painter, const QRectF& rect, const QColor& fill, Qt::BrushStyle pattern) {
    painter.fillRect(rect, fill);
    if (!plain(pattern) && rect.width() >= 3 && rect.height() >= 3) {
        painter.fillRect(rect, QBrush(patternInk(fill), pattern));
    }
}

ThemeColors themeColors(const QPalette& palette) {
    ThemeColors c;
    c.dark = isDarkPalette(palette);
    c.background = palette.color(QPalette::Base);
    c.text = palette.color(QPalette::Text);
    c.surface = blend(c.background, c.text, c.dark ? 0.07 : 0.05);
    c.header = blend(c.background, c.text, c.dark ? 0.15 : 0.11);
    c.mutedText = blend(c.text, c.background, 0.38);
    c.grid = blend(c.background, c.text, 0.12);
    c.subGrid = blend(c.background, c.text, 0.06);
    c.border = blend(c.background, c.text, 0.25);
    c.selection = QColor(0xff, 0x8c, 0x00);
    c.accent = palette.color(QPalette::Highlight);
    c.accentText = palette.color(QPalette::HighlightedText);
    c.error = c.dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xb3, 0x26, 0x1e);
    c.warning = c.dark ? QColor(0xff, 0xc2, 0x66) : QColor(0x8a, 0x5a, 0x00);
    c.good = c.dark ? QColor(0x7f, 0xd1, 0x8b) : QColor(0x1e, 0x7b, 0x34);
    c.flow = c.dark ? QColor(0xff, 0x6b, 0x6b) : QColor(0xd0, 0x30, 0x30);
    return c;
}

ThemeColors themeColors() {
    return themeColors(QGuiApplication::palette());
}

QColor ThemeColors::fill(const QColor& category) const {
    if (!dark || !category.isValid()) {
        return category;
    }
    float h = 0;
    float s = 0;
    float l = 0;
    float a = 0;
    category.getHslF(&h, &s, &l, &a);
    return QColor::fromHslF(h, s * 0.9f, l * 0.8f, a);
}

QColor ThemeColors::ink(const QColor& category) const {
    if (!category.isValid()) {
        return text;
    }
    QColor c = category;
    for (int i = 0; i < 12 && contrastRatio(c, background) < 4.5; ++i) {
        c = dark ? c.lighter(115) : c.darker(115);
    }
    return c;
}

}  // namespace chokepoint::ui
