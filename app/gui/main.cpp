// chokepoint: the desktop application.
//
//   chokepoint [FILE]
//   chokepoint --screenshot OUT.png --page diagnosis|timeline|roofline|fixes|review [--size WxH] FILE
//   chokepoint --screenshot OUT.png --compare OTHER [--size WxH] FILE
//   chokepoint --screenshot OUT.png --page welcome [--size WxH]
//   chokepoint --version
//   chokepoint --list-samples     the bundled samples it finds (real first), one path a line
//
// --compare renders the Compare page of FILE against OTHER once both are analysed.
// --screenshot loads FILE, waits for the analysis, renders the window with the page shown
// (QWidget::grab, works with QT_QPA_PLATFORM=offscreen) and exits 0; it exits non-zero with a
// message on stderr when the file cannot be opened or the page does not exist. With
// CHOKEPOINT_TIMING set it prints milestones from start to the page drawn (see bench/gui-startup.sh).

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QImage>
#include <QPixmap>
#include <QTimer>
#include <cstdio>
#include <cstdlib>

#include "chokepoint/Version.h"
#include "ui/AppIcon.h"
#include "ui/MainWindow.h"
#include "ui/controller/StartupTiming.h"
#include "ui/controller/TracePrefetch.h"
#include "ui/pages/ComparePage.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitInput = 1;
constexpr int kExitUsage = 2;
constexpr int kExitFailure = 3;

bool parseSize(const QString& text, QSize& size) {
    const QStringList parts = text.toLower().split(QLatin1Char('x'));
    if (parts.size() != 2) {
        return false;
    }
    bool okW = false;
    bool okH = false;
    const int w = parts[0].toInt(&okW);
    const int h = parts[1].toInt(&okH);
    if (!okW || !okH || w < 200 || h < 150 || w > 10000 || h > 10000) {
        return false;
    }
    size = {w, h};
    return true;
}

int runScreenshot(chokepoint::ui::MainWindow& window, const QString& out, const QString& pageId, QSize size,
                  const QString& file, const QString& compareFile) {
    if (!window.page(pageId)) {
        std::fprintf(stderr, "chokepoint: page '%s' is not available (available: %s)\n", qPrintable(pageId),
                     qPrintable(window.pageIds().join(QStringLiteral(", "))));
        return kExitUsage;
    }
    window.setInteractive(false);
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.resize(size);
    window.show();
    int exitCode = kExitFailure;
    auto* document = window.document();
    QObject::connect(document, &chokepoint::ui::TraceDocument::loadFailed, &window, [&](const QString&) {
        // MainWindow already printed the message naming the file.
        exitCode = kExitInput;
        QApplication::exit(exitCode);
    });
    QObject::connect(document, &chokepoint::ui::TraceDocument::cancelled, &window, [&] {
        exitCode = kExitFailure;
        QApplication::exit(exitCode);
    });
    auto render = [&] {
        window.showPage(pageId);
        // Let layouts settle and pending updates run before grabbing.
        QTimer::singleShot(0, &window, [&] {
            QApplication::processEvents();
            const QPixmap pixmap = window.grab();
            chokepoint::ui::noteStartupMilestone("page drawn");  // before the PNG is encoded
            if (pixmap.isNull() || !pixmap.save(out)) {
                std::fprintf(stderr, "chokepoint: could not write the screenshot to %s\n", qPrintable(out));
                exitCode = kExitFailure;
            } else {
                std::fprintf(stderr, "chokepoint: wrote %s (%dx%d, page %s)\n", qPrintable(out),
                             pixmap.width(), pixmap.height(), qPrintable(pageId));
                exitCode = kExitOk;
            }
            QApplication::exit(exitCode);
        });
    };
    if (compareFile.isEmpty()) {
        QObject::connect(document, &chokepoint::ui::TraceDocument::analysisAvailable, &window, render);
    } else {
        // Both traces load in parallel; draw once the Compare page holds their comparison.
        auto* compare = qobject_cast<chokepoint::ui::ComparePage*>(window.page(QStringLiteral("compare")));
        if (compare == nullptr) {
            std::fprintf(stderr, "chokepoint: no compare page\n");
            return kExitFailure;
        }
        auto* poll = new QTimer(&window);
        QObject::connect(poll, &QTimer::timeout, &window, [&, compare, poll] {
            if (compare->comparison() != nullptr) {
                poll->stop();
                render();
            } else if (compare->summaryText().contains(QStringLiteral("Could not compare"))) {
                poll->stop();
                std::fprintf(stderr, "chokepoint: %s\n", qPrintable(compare->summaryText()));
                exitCode = kExitInput;
                QApplication::exit(exitCode);
            }
        });
        poll->start(50);
    }
    // Without a report the pages still draw what they can (the timeline, the trace's warnings).
    QObject::connect(document, &chokepoint::ui::TraceDocument::analysisFailed, &window,
                     [&](const QString& message) {
                         std::fprintf(stderr, "chokepoint: analysis failed: %s\n", qPrintable(message));
                         render();
                     });
    window.openFile(file);
    if (!compareFile.isEmpty()) {
        // The Compare page is shown while both load: a hidden page would defer its refresh.
        if (auto* compare =
                qobject_cast<chokepoint::ui::ComparePage*>(window.page(QStringLiteral("compare")))) {
            compare->compareWith(compareFile);
        }
        window.showPage(QStringLiteral("compare"));
    }
    QApplication::exec();
    return exitCode;
}

// The welcome page, as a new user sees it with no trace open.
int runWelcomeScreenshot(chokepoint::ui::MainWindow& window, const QString& out, QSize size) {
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.resize(size);
    window.show();
    QApplication::processEvents();
    const QPixmap pixmap = window.grab();
    if (pixmap.isNull() || !pixmap.save(out)) {
        std::fprintf(stderr, "chokepoint: could not write the screenshot to %s\n", qPrintable(out));
        return kExitFailure;
    }
    std::fprintf(stderr, "chokepoint: wrote %s (%dx%d, page welcome)\n", qPrintable(out), pixmap.width(),
                 pixmap.height());
    return kExitOk;
}

// With CHOKEPOINT_TIMING set, notes when the diagnosis page is first painted with an analysis, and
// with CHOKEPOINT_EXIT_WHEN_DRAWN also set exits right then (bench/gui-startup.sh times the whole
// process that way, the same way it times `chokepoint-cli analyze`).
class DiagnosisDrawnProbe : public QObject {
public:
    explicit DiagnosisDrawnProbe(chokepoint::ui::MainWindow& window) : QObject(&window) {
        QObject::connect(window.document(), &chokepoint::ui::TraceDocument::analysisAvailable, this,
                         [this] { m_analyzed = true; });
        if (QWidget* page = window.page(QStringLiteral("diagnosis"))) {
            page->installEventFilter(this);
        }
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (m_analyzed && event->type() == QEvent::Paint) {
            m_analyzed = false;
            // The filter runs before the page paints: note the time once this paint has finished.
            QTimer::singleShot(0, this, [] {
                chokepoint::ui::noteStartupMilestone("diagnosis drawn");
                if (qEnvironmentVariableIsSet("CHOKEPOINT_EXIT_WHEN_DRAWN")) {
                    std::fflush(stderr);
                    std::_Exit(0);
                }
            });
        }
        return QObject::eventFilter(watched, event);
    }

private:
    bool m_analyzed = false;
};

// The first FILE argument, found before Qt is up so that reading it can start at once. Options that
// take a value are skipped with it; QCommandLineParser still does the real parsing (a guess that
// turns out wrong only costs a read that is never used).
QString firstFileArgument(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const QString arg = QString::fromLocal8Bit(argv[i]);
        if (arg == QLatin1String("--")) {
            return i + 1 < argc ? QString::fromLocal8Bit(argv[i + 1]) : QString();
        }
        if (arg == QLatin1String("--screenshot") || arg == QLatin1String("--page") ||
            arg == QLatin1String("--size") || arg == QLatin1String("--compare")) {
            ++i;
            continue;
        }
        if (!arg.startsWith(QLatin1Char('-'))) {
            return arg;
        }
    }
    return {};
}

}  // namespace

int main(int argc, char** argv) {
    chokepoint::ui::startStartupClock();
    // Read the first trace on the other core while Qt starts and the window is built.
    if (const QString first = firstFileArgument(argc, argv); !first.isEmpty()) {
        chokepoint::ui::prefetchTrace(QFileInfo(first).absoluteFilePath());
    }
    QApplication app(argc, argv);
    chokepoint::ui::noteStartupMilestone("QApplication");
    QApplication::setOrganizationName(QStringLiteral("Chokepoint"));
    QApplication::setApplicationName(QStringLiteral("Chokepoint"));
    QApplication::setApplicationVersion(QString::fromLatin1(chokepoint::kVersion));
    QApplication::setDesktopFileName(QStringLiteral("chokepoint"));
    chokepoint::ui::initUiResources();
    QApplication::setWindowIcon(chokepoint::ui::appIcon());

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Tells you why your GPU training job is slow and what to change."));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                  QStringLiteral("Render a page of FILE to the PNG OUT and exit."),
                                  QStringLiteral("OUT"));
    QCommandLineOption page(
        QStringLiteral("page"),
        QStringLiteral(
            "Page for --screenshot: diagnosis, timeline, roofline, fixes, review, compare; welcome "
            "without FILE."),
        QStringLiteral("ID"), QStringLiteral("diagnosis"));
    QCommandLineOption sizeOption(QStringLiteral("size"),
                                  QStringLiteral("Window size for --screenshot (default 1600x1000)."),
                                  QStringLiteral("WxH"), QStringLiteral("1600x1000"));
    QCommandLineOption compareOption(
        QStringLiteral("compare"),
        QStringLiteral("With --screenshot: render the Compare page of FILE against OTHER."),
        QStringLiteral("OTHER"));
    parser.addOption(screenshot);
    parser.addOption(page);
    parser.addOption(compareOption);
    QCommandLineOption listSamples(
        QStringLiteral("list-samples"),
        QStringLiteral("Print the bundled sample traces found, one a line, and exit."));
    parser.addOption(listSamples);
    parser.addOption(sizeOption);
    parser.addPositionalArgument(QStringLiteral("FILE"),
                                 QStringLiteral("Trace to open (.json, .json.gz, .sqlite, .cptrace)."),
                                 QStringLiteral("[FILE...]"));
    parser.process(app);
    const QStringList files = parser.positionalArguments();
    if (parser.isSet(listSamples)) {
        for (const QString& sample : chokepoint::ui::MainWindow::sampleFiles()) {
            std::printf("%s\n", qPrintable(sample));
        }
        return kExitOk;
    }

    chokepoint::ui::MainWindow window;
    chokepoint::ui::noteStartupMilestone("window built");
    if (parser.isSet(screenshot)) {
        QSize size;
        if (!parseSize(parser.value(sizeOption), size)) {
            std::fprintf(stderr, "chokepoint: --size wants WxH between 200x150 and 10000x10000, not '%s'\n",
                         qPrintable(parser.value(sizeOption)));
            return kExitUsage;
        }
        if (files.isEmpty() && parser.value(page) == QLatin1String("welcome")) {
            return runWelcomeScreenshot(window, parser.value(screenshot), size);
        }
        if (files.size() != 1) {
            std::fprintf(stderr,
                         "chokepoint: --screenshot needs exactly one FILE (or --page welcome and none)\n");
            return kExitUsage;
        }
        const QString compareFile = parser.value(compareOption);
        const QString pageId = compareFile.isEmpty() ? parser.value(page) : QStringLiteral("compare");
        return runScreenshot(window, parser.value(screenshot), pageId, size, files.first(), compareFile);
    }
    if (qEnvironmentVariableIsSet("CHOKEPOINT_TIMING")) {
        new DiagnosisDrawnProbe(window);
    }
    window.show();
    if (!files.isEmpty()) {
        window.openFile(files.first());
        // One document per window: further files open in windows of their own.
        for (qsizetype i = 1; i < files.size(); ++i) {
            auto* extra = new chokepoint::ui::MainWindow;
            extra->setAttribute(Qt::WA_DeleteOnClose);
            extra->show();
            extra->openFile(files[i]);
        }
    }
    return QApplication::exec();
}
