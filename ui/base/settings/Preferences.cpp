#include "ui/base/settings/Preferences.h"

#include <QCoreApplication>
#include <QSettings>
#include <algorithm>

namespace chokepoint::ui {
namespace {

const char* const kThemeKey = "preferences/theme";
const char* const kDefaultPageKey = "preferences/defaultPage";
const char* const kRecentCountKey = "preferences/recentFileCount";
const char* const kReopenKey = "preferences/reopenLastTrace";

}  // namespace

Preferences* Preferences::instance() {
    static Preferences* preferences = new Preferences(QCoreApplication::instance());
    return preferences;
}

Preferences::Theme Preferences::theme() {
    return themeFromName(QSettings().value(QLatin1String(kThemeKey)).toString()).value_or(Theme::System);
}

void Preferences::setTheme(Theme theme) {
    if (theme == Preferences::theme()) {
        return;
    }
    QSettings().setValue(QLatin1String(kThemeKey), themeName(theme));
    emit instance()->themeChanged(theme);
}

QString Preferences::defaultPage() {
    const QString page = QSettings().value(QLatin1String(kDefaultPageKey)).toString();
    return page.isEmpty() ? QStringLiteral("diagnosis") : page;
}

void Preferences::setDefaultPage(const QString& pageId) {
    if (pageId == defaultPage()) {
        return;
    }
    QSettings().setValue(QLatin1String(kDefaultPageKey), pageId);
    emit instance()->defaultPageChanged(pageId);
}

int Preferences::recentFileCount() {
    bool ok = false;
    const int count = QSettings().value(QLatin1String(kRecentCountKey)).toInt(&ok);
    return ok ? std::clamp(count, kMinRecentFiles, kMaxRecentFiles) : kDefaultRecentFiles;
}

void Preferences::setRecentFileCount(int count) {
    count = std::clamp(count, kMinRecentFiles, kMaxRecentFiles);
    if (count == recentFileCount()) {
        return;
    }
    QSettings().setValue(QLatin1String(kRecentCountKey), count);
    emit instance()->recentFileCountChanged(count);
}

bool Preferences::reopenLastTrace() {
    return QSettings().value(QLatin1String(kReopenKey), false).toBool();
}

void Preferences::setReopenLastTrace(bool reopen) {
    if (reopen == reopenLastTrace()) {
        return;
    }
    QSettings().setValue(QLatin1String(kReopenKey), reopen);
    emit instance()->reopenLastTraceChanged(reopen);
}

}  // namespace chokepoint::ui
