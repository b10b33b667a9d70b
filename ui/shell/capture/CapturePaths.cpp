#include "ui/shell/capture/CapturePaths.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace chokepoint::ui {

QString chokepointCliPath() {
    const QString chosen = qEnvironmentVariable("CHOKEPOINT_CLI");
    if (!chosen.isEmpty() && QFileInfo(chosen).isExecutable()) {
        return QFileInfo(chosen).absoluteFilePath();
    }
    const QString dir = QCoreApplication::applicationDirPath();
    for (const QString& candidate :
         {dir + QStringLiteral("/chokepoint-cli"), dir + QStringLiteral("/../app/chokepoint-cli")}) {
        if (QFileInfo(candidate).isExecutable()) {
            return QFileInfo(candidate).absoluteFilePath();
        }
    }
    return QStandardPaths::findExecutable(QStringLiteral("chokepoint-cli"));
}

QString newCapturePath(const QString& kind) {
    QDir dir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation));
    dir.mkpath(QStringLiteral("captures"));
    return dir.filePath(
        QStringLiteral("captures/%1-%2.cptrace")
            .arg(kind, QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"))));
}

}  // namespace chokepoint::ui
