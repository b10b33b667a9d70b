#pragma once
// RecentFiles: the traces opened lately, most recent first, kept in QSettings ("recentFiles") and
// cut to Preferences::recentFileCount(). The main window lists them (File > Open Recent, the
// welcome page); the job window starts its file dialogs in the folder of the latest.

#include <QStringList>

namespace chokepoint::ui {

class RecentFiles {
public:
    // Most recent first, at most Preferences::recentFileCount().
    static QStringList files();
    // Puts `path` first (once), dropping the oldest beyond the count.
    static void add(const QString& path);
    static void clear();
    // Off: add() records nothing (a --screenshot run renders a file; it does not open it for the
    // user, and test runs of it filled the user's list with temporary files).
    static void setRecording(bool on);
};

}  // namespace chokepoint::ui
