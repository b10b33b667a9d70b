#pragma once
// ThemeColors: the colours custom-painted widgets and rich text use, derived from a QPalette, so
// the timeline, charts, legends and HTML follow a light or a dark palette alike. One place for
// background, text, muted text, grid and status colours; category colours (kernel names,
// bottleneck classes, idle causes) keep their hue and are toned for the background they sit on.

#include <QBrush>
#include <QColor>
#include <QPalette>
#include <QString>

class QPainter;
class QRectF;

namespace chokepoint::ui {

struct ThemeColors {
    bool dark = false;
    QColor background;  // plot areas: timeline tracks, charts, heatmaps (QPalette::Base)
    QColor surface;     // label columns, rulers, legends: one step off the background
    QColor header;      // group headers: two steps off the background
    QColor text;        // QPalette::Text
    QColor mutedText;   // secondary text, still readable on background and surface (>= 4.5:1)
    QColor grid;        // faint lines between tracks, chart grids
    QColor subGrid;     // fainter chart sub-grid
    QColor border;      // separators and axis lines
    QColor selection;   // the selected event's outline
    QColor accent;      // range selection (QPalette::Highlight)
    QColor accentText;  // text on accent (QPalette::HighlightedText)
    QColor error;       // red text readable on background
    QColor warning;     // amber text readable on background
    QColor good;        // green text readable on background
    QColor flow;        // launch → GPU work arrows

    // A category fill toned for the background: unchanged on light, a little darker and less
    // glaring on dark (the hue, so the category, stays).
    QColor fill(const QColor& category) const;
    // A category colour used as text or a thin line: darkened on light, lightened on dark, until
    // it reads on the background (contrast >= 4.5:1 where the hue allows).
    QColor ink(const QColor& category) const;
};

// Colours for `palette` (a widget's palette(), so a widget given its own palette follows it).
ThemeColors themeColors(const QPalette& palette);
// Colours for the application palette.
ThemeColors themeColors();

// True when the palette's window and base are dark (text lighter than the background).
bool isDarkPalette(const QPalette& palette);
// WCAG contrast ratio of two colours, 1 (same) to 21 (black on white).
double contrastRatio(const QColor& a, const QColor& b);
// `a` moved towards `b` by `t` (0..1), channel by channel (opaque).
QColor blend(const QColor& a, const QColor& b, double t);
// "#rrggbb", for inline CSS in rich text.
QString cssColor(const QColor& color);

// Colour-coded classes (bottlenecks, idle time) also carry a pattern, so they are told apart
// without seeing colour: `fill` with `pattern` drawn over it in a contrasting ink. Solid (or
// NoBrush) patterns give a plain fill.
QBrush patternedBrush(const QColor& fill, Qt::BrushStyle pattern);
void fillPatterned(QPainter& painter, const QRectF& rect, const QColor& fill, Qt::BrushStyle pattern);

}  // namespace chokepoint::ui
