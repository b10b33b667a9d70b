#pragma once
// Application-wide preferences, kept in QSettings under "preferences/": the colour theme, the page
// a trace opens on, how many recent files File > Open Recent lists, and whether Chokepoint reopens
// the last trace when started without a file. The static accessors read and write QSettings; the
// setters emit the instance()'s signals when a value changes, so open windows follow at once.
//
// The theme is stored and announced here (themeChanged); ui/base/theme applies it (applyTheme), and the
// GUI's main() connects the two.

#include <QObject>
#include <QString>
#include <optional>

#include "ui/base/theme/Theme.h"

namespace chokepoint::ui {

class Preferences : public QObject {
    Q_OBJECT
public:
    using Theme = chokepoint::ui::Theme;

    static constexpr int kMinRecentFiles = 1;
    static constexpr int kMaxRecentFiles = 30;
    static constexpr int kDefaultRecentFiles = 10;

    // The one object whose signals announce changes (lives as long as the application).
    static Preferences* instance();

    static Theme theme();               // System when unset or unreadable
    static void setTheme(Theme theme);  // stored as themeName(theme)

    // The page id a newly opened trace shows first ("diagnosis" by default). The main window falls
    // back to the diagnosis page when the stored page does not exist.
    static QString defaultPage();
    static void setDefaultPage(const QString& pageId);

    // How many files Open Recent keeps, kMinRecentFiles..kMaxRecentFiles (kDefaultRecentFiles).
    static int recentFileCount();
    static void setRecentFileCount(int count);

    // Open the most recent trace when the application starts without a file (off by default).
    static bool reopenLastTrace();
    static void setReopenLastTrace(bool reopen);

signals:
    void themeChanged(chokepoint::ui::Theme theme);
    void defaultPageChanged(const QString& pageId);
    void recentFileCountChanged(int count);
    void reopenLastTraceChanged(bool reopen);

private:
    explicit Preferences(QObject* parent) : QObject(parent) {}
};

}  // namespace chokepoint::ui
