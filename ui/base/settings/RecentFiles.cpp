#include "ui/base/settings/RecentFiles.h"

#include <QSettings>

#include "ui/base/settings/Preferences.h"

namespace chokepoint::ui {

namespace {

const char* const kRecentKey = "recentFiles";
bool g_recording = true;

}  // namespace

QStringList RecentFiles::files() {
    QStringList files = QSettings().value(QLatin1String(kRecentKey)).toStringList();
    files.removeAll(QString());
    return files.mid(0, Preferences::recentFileCount());
}

void RecentFiles::setRecording(bool on) {
    g_recording = on;
}

void RecentFiles::add(const QString& path) {
    if (!g_recording) {
        return;
    }
    QStringList files = RecentFiles::files();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > Preferences::recentFileCount()) {
        files.removeLast();
    }
    QSettings().setValue(QLatin1String(kRecentKey), files);
}

void RecentFiles::clear() {
    QSettings().remove(QLatin1String(kRecentKey));
}

}  // namespace chokepoint::ui
