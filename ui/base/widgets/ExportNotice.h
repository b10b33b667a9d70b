#pragma once
// Says where an export went: the main window's status bar shows "Exported <what> to <path>"
// (native separators) for a while. Without a main window (a dialog alone, a test) nothing shows.

#include <QString>

class QWidget;

namespace chokepoint::ui {

// The text shown, for tests: "Exported the kernels table to /home/me/run-kernels.csv (12.3 KiB)".
QString exportNoticeText(const QString& what, const QString& path);
// Shows exportNoticeText() in the status bar of `from`'s main window.
void showExportNotice(QWidget* from, const QString& what, const QString& path);

}  // namespace chokepoint::ui
