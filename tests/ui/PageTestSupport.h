#pragma once
// Helpers for E2's offscreen GUI tests: a lazily created QApplication (gtest_main owns main()),
// a widget-to-image grab, and a "not blank" check.

#include <QApplication>
#include <QImage>
#include <QLayout>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QWidget>
#include <algorithm>
#include <map>
#include <set>

namespace chokepoint::testutils {

inline QApplication& guiApp() {
    static int argc = 1;
    static char name[] = "chokepoint-ui-tests";
    static char* argv[] = {name, nullptr};
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    static QApplication* app = new QApplication(argc, argv);
    return *app;
}

// Gives this test process settings of its own (recent files and the like) in a temporary folder.
// ctest runs tests in parallel processes: a shared settings file would let one test clear what
// another just wrote.
inline void isolateSettings() {
    guiApp();
    static QTemporaryDir settingsDir;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("ChokepointTests"));
    QCoreApplication::setApplicationName(QStringLiteral("ChokepointUiTests"));
    QSettings().clear();
}

// Lays out and renders `widget` at `size` into an image (no window needed offscreen).
inline QImage renderWidget(QWidget& widget, QSize size) {
    widget.resize(size);
    widget.ensurePolished();
    if (widget.layout() != nullptr) {
        widget.layout()->activate();
    }
    QApplication::processEvents();
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    widget.render(&image);
    return image;
}

// Saves `image` as NAME.png into $CHOKEPOINT_TEST_IMAGES_DIR when that is set, so a person can look
// at what the tests rendered. Does nothing otherwise.
inline void saveIfRequested(const QImage& image, const QString& name) {
    const QString dir = qEnvironmentVariable("CHOKEPOINT_TEST_IMAGES_DIR");
    if (!dir.isEmpty()) {
        image.save(dir + QStringLiteral("/") + name + QStringLiteral(".png"));
    }
}

// Number of distinct colours in a sampled grid: a blank or single-colour image has 1 or 2.
inline int distinctColours(const QImage& image, int step = 3) {
    std::set<QRgb> colours;
    for (int y = 0; y < image.height(); y += step) {
        for (int x = 0; x < image.width(); x += step) {
            colours.insert(image.pixel(x, y));
        }
    }
    return static_cast<int>(colours.size());
}

// Fraction of sampled pixels that differ from the image's most common colour.
inline double inkFraction(const QImage& image, int step = 2) {
    std::map<QRgb, int> counts;
    int total = 0;
    for (int y = 0; y < image.height(); y += step) {
        for (int x = 0; x < image.width(); x += step) {
            ++counts[image.pixel(x, y)];
            ++total;
        }
    }
    int most = 0;
    for (const auto& [colour, count] : counts) {
        most = std::max(most, count);
    }
    return total > 0 ? 1.0 - static_cast<double>(most) / total : 0.0;
}

}  // namespace chokepoint::testutils
