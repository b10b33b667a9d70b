#include "ui/capture/CliLocation.h"

#include <QCoreApplication>
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

}  // namespace chokepoint::ui
