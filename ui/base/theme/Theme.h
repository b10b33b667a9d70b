#pragma once
// Theme: run the application light, dark or as the system has it. applyTheme() switches the
// application style to Fusion and sets a light or dark QPalette (System restores the style and
// palette the application started with). Widgets that paint themselves read ThemeColors from
// their palette and repaint on QEvent::PaletteChange, so a switch at run time needs nothing else.
// Used by `chokepoint --palette dark|light|system` (also with --screenshot) and by Preferences.

#include <QPalette>
#include <QString>
#include <optional>

class QWidget;

namespace chokepoint::ui {

enum class Theme { System, Light, Dark };

// "system", "light", "dark" (case-insensitive); nullopt for anything else.
std::optional<Theme> themeFromName(const QString& name);
QString themeName(Theme theme);

// The palettes applyTheme sets (Fusion's roles, filled in full, disabled colours included).
QPalette lightPalette();
QPalette darkPalette();

// Sets the application's style and palette for `theme`. Needs a QApplication.
void applyTheme(Theme theme);
// The theme last applied (System until applyTheme is called).
Theme currentTheme();

// Draws `widget`'s text (a QLabel's, say) in ThemeColors::mutedText of its palette, and keeps
// doing so when the palette changes: secondary text that reads under light and dark alike.
void useMutedText(QWidget* widget);

}  // namespace chokepoint::ui
