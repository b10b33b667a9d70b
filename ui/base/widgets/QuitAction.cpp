#include "ui/base/widgets/QuitAction.h"

#include <QAction>
#include <QApplication>
#include <QMenu>

namespace chokepoint::ui {

QAction* addQuitAction(QMenu* menu) {
    // Quits the application (every window, each asked to close), not only this window. Ctrl+Q on
    // every platform: QKeySequence::Quit is empty on Windows and with some platform themes.
    QAction* quit = menu->addAction(QObject::tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setObjectName(QStringLiteral("quitAction"));
    QList<QKeySequence> quitKeys = QKeySequence::keyBindings(QKeySequence::Quit);
    if (!quitKeys.contains(QKeySequence(Qt::CTRL | Qt::Key_Q))) {
        quitKeys.prepend(QKeySequence(Qt::CTRL | Qt::Key_Q));
    }
    quit->setShortcuts(quitKeys);
    return quit;
}

}  // namespace chokepoint::ui
