#include "ui/base/widgets/ExportNotice.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QMainWindow>
#include <QStatusBar>
#include <QWidget>

#include "core/base/Format.h"

namespace chokepoint::ui {
namespace {

constexpr int kNoticeMs = 20'000;  // long enough to read, or to copy the path by hand

}  // namespace

QString exportNoticeText(const QString& what, const QString& path) {
    const QFileInfo file(path);
    const QString where = QDir::toNativeSeparators(file.absoluteFilePath());
    if (!file.exists()) {
        return QCoreApplication::translate("ExportNotice", "Exported %1 to %2").arg(what, where);
    }
    return QCoreApplication::translate("ExportNotice", "Exported %1 to %2 (%3)")
        .arg(what, where, QString::fromStdString(core::formatBytes(static_cast<double>(file.size()))));
}

void showExportNotice(QWidget* from, const QString& what, const QString& path) {
    auto* window = from != nullptr ? qobject_cast<QMainWindow*>(from->window()) : nullptr;
    if (window != nullptr) {
        window->statusBar()->showMessage(exportNoticeText(what, path), kNoticeMs);
    }
}

}  // namespace chokepoint::ui
