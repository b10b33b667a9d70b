#include "ui/shell/AppIcon.h"

#include <QPainter>
#include <QPixmap>
#include <QSvgRenderer>

// Q_INIT_RESOURCE must be used outside any namespace; resources in a static library are only
// registered when something references them.
static void initChokepointUiResources() {
    Q_INIT_RESOURCE(resources);
}

namespace chokepoint::ui {

void initUiResources() {
    static const bool done = [] {
        initChokepointUiResources();
        return true;
    }();
    (void)done;
}

QIcon appIcon() {
    initUiResources();
    QIcon icon;
    QSvgRenderer renderer(QStringLiteral(":/chokepoint/chokepoint.svg"));
    if (!renderer.isValid()) {
        return icon;
    }
    for (int size : {16, 24, 32, 48, 64, 128, 256}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter p(&pixmap);
        p.setRenderHint(QPainter::Antialiasing);
        renderer.render(&p);
        p.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

}  // namespace chokepoint::ui
