#include "ui/base/theme/Theme.h"

#include <QApplication>
#include <QEvent>
#include <QStyle>
#include <QStyleFactory>
#include <QWidget>
#include <memory>

#include "ui/base/theme/ThemeColors.h"

namespace chokepoint::ui {

namespace {

struct Original {
    bool saved = false;
    QString styleName;
    QPalette palette;
};

Original& original() {
    static Original o;
    return o;
}

// Sets a widget's WindowText to the muted colour of its (inherited) palette on every palette change.
class MutedText : public QObject {
public:
    using QObject::QObject;
    static void apply(QWidget* w) {
        const QColor muted = themeColors(w->palette()).mutedText;
        if (w->palette().color(QPalette::WindowText) == muted) {
            return;
        }
        // WindowText only: ThemeColors reads Text and Base, which stay inherited.
        QPalette p = w->palette();
        for (QPalette::ColorGroup group : {QPalette::Active, QPalette::Inactive}) {
            p.setColor(group, QPalette::WindowText, muted);
        }
        w->setPalette(p);
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::PaletteChange && watched->isWidgetType()) {
            apply(static_cast<QWidget*>(watched));
        }
        return false;
    }
};

Theme& current() {
    static Theme t = Theme::System;
    return t;
}

}  // namespace

std::optional<Theme> themeFromName(const QString& name) {
    const QString n = name.trimmed().toLower();
    if (n == QLatin1String("system")) {
        return Theme::System;
    }
    if (n == QLatin1String("light")) {
        return Theme::Light;
    }
    if (n == QLatin1String("dark")) {
        return Theme::Dark;
    }
    return std::nullopt;
}

QString themeName(Theme theme) {
    switch (theme) {
        case Theme::Light:
            return QStringLiteral("light");
        case Theme::Dark:
            return QStringLiteral("dark");
        case Theme::System:
            break;
    }
    return QStringLiteral("system");
}

QPalette lightPalette() {
    const std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
    QPalette p = fusion ? fusion->standardPalette() : QPalette();
    // Fusion's placeholder is half-transparent text: too faint for the hints drawn in it.
    p.setColor(QPalette::PlaceholderText, QColor(0x6b, 0x6f, 0x75));
    return p;
}

QPalette darkPalette() {
    const QColor window(0x2d, 0x2f, 0x33);
    const QColor base(0x1e, 0x20, 0x23);
    const QColor alternate(0x26, 0x28, 0x2c);
    const QColor text(0xe3, 0xe5, 0xe8);
    const QColor disabledText(0x7c, 0x80, 0x86);
    const QColor button(0x36, 0x39, 0x3e);
    const QColor highlight(0x2f, 0x7f, 0xd8);

    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, alternate);
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3d, 0x42));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9e, 0xa4));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Light, QColor(0x4a, 0x4e, 0x54));
    p.setColor(QPalette::Midlight, QColor(0x40, 0x44, 0x49));
    p.setColor(QPalette::Mid, QColor(0x2a, 0x2c, 0x30));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Shadow, QColor(0x0a, 0x0a, 0x0b));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    p.setColor(QPalette::LinkVisited, QColor(0xb4, 0x9c, 0xff));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
        p.setColor(QPalette::Disabled, role, disabledText);
    }
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x50, 0x54, 0x5a));
    p.setColor(QPalette::Disabled, QPalette::Base, window);
    return p;
}

void applyTheme(Theme theme) {
    Original& o = original();
    if (!o.saved) {
        o.saved = true;
        o.styleName = QApplication::style() != nullptr ? QApplication::style()->name() : QString();
        o.palette = QApplication::palette();
    }
    current() = theme;
    if (theme == Theme::System) {
        if (!o.styleName.isEmpty()) {
            QApplication::setStyle(o.styleName);
        }
        QApplication::setPalette(o.palette);
        return;
    }
    QApplication::setStyle(QStringLiteral("Fusion"));
    QApplication::setPalette(theme == Theme::Dark ? darkPalette() : lightPalette());
}

Theme currentTheme() {
    return current();
}

void useMutedText(QWidget* widget) {
    static MutedText* filter = new MutedText(qApp);
    widget->installEventFilter(filter);
    MutedText::apply(widget);
}

}  // namespace chokepoint::ui
