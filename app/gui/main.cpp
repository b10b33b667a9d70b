// chokepoint: the desktop application.
//
//   chokepoint [FILE]
//   chokepoint FILE FILE... | FOLDER                    (a job: one trace or .cpsum per rank)
//   chokepoint --screenshot OUT.png --page diagnosis|timeline|roofline|ops|fixes|review [--size WxH] FILE
//              [--select START:END|step:N]       (timeline: that range selected, its statistics shown)
//   chokepoint --screenshot OUT.png --compare OTHER [--size WxH] FILE
//   chokepoint --screenshot OUT.png --page welcome [--size WxH]
//   chokepoint --screenshot OUT.png --page job [--size WxH] FILE...|FOLDER
//   chokepoint --version
//   chokepoint --list-samples     the bundled samples it finds (real first), one path a line
//
// --compare renders the Compare page of FILE against OTHER once both are analysed.
// --help and --version work without a display; --screenshot uses the offscreen platform unless
// QT_QPA_PLATFORM is set; without a display and without --screenshot the program says so and exits 3.
// --screenshot loads FILE, waits for the analysis, renders the window with the page shown
// (QWidget::grab, works with QT_QPA_PLATFORM=offscreen) and exits 0; it exits non-zero with a
// message on stderr when the file cannot be opened or the page does not exist. With
// CHOKEPOINT_TIMING set it prints milestones from start to the page drawn (see bench/gui-startup.sh).

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QImage>
#include <QPixmap>
#include <QTimer>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>

#include "chokepoint/BuildId.h"
#include "chokepoint/Version.h"
#include "core/job/JobInputs.h"
#include "ui/base/document/AnalysisReportQt.h"
#include "ui/base/document/StartupTiming.h"
#include "ui/base/document/TraceDocument.h"
#include "ui/base/document/TracePrefetch.h"
#include "ui/base/settings/Preferences.h"
#include "ui/base/settings/RecentFiles.h"
#include "ui/base/theme/Theme.h"
#include "ui/shell/AppIcon.h"
#include "ui/shell/JobWindow.h"
#include "ui/shell/MainWindow.h"
#include "ui/views/job/JobDocument.h"
#include "ui/views/pages/ComparePage.h"

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

// --device-index: once FILE's analysis is in, shows that GPU alone (TraceDocument::selectDevice).
// A GPU without its own report (one GPU in the trace, or none with that index) is an error.
void showDeviceOnceAnalysed(chokepoint::ui::MainWindow& window, int deviceIndex, int* exitCode) {
    auto* document = window.document();
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection =
        QObject::connect(document, &chokepoint::ui::TraceDocument::analysisAvailable, &window,
                         [document, deviceIndex, exitCode, connection] {
                             QObject::disconnect(*connection);
                             if (document->devicesWithReports().contains(deviceIndex)) {
                                 document->selectDevice(deviceIndex);
                                 return;
                             }
                             QStringList devices;
                             for (int d : document->devicesWithReports()) {
                                 devices << QString::number(d);
                             }
                             std::fprintf(stderr, "chokepoint: --device-index %d: %s\n", deviceIndex,
                                          devices.isEmpty() ? "the trace has GPU work on one device at most"
                                                            : qPrintable(QStringLiteral("GPUs with work: ") +
                                                                         devices.join(QStringLiteral(", "))));
                             if (exitCode != nullptr) {
                                 *exitCode = kExitUsage;
                                 QApplication::exit(kExitUsage);
                             }
                         });
}

// --select: "START:END" in ms from the trace start, or "step:N" (the analysis's Nth step, from 0).
std::optional<chokepoint::core::TimeRange> selectionRange(const QString& text,
                                                          const chokepoint::ui::TraceDocument& document) {
    const auto model = document.model();
    if (model == nullptr) {
        return std::nullopt;
    }
    if (text.startsWith(QLatin1String("step:"))) {
        bool ok = false;
        const qulonglong index = text.mid(5).toULongLong(&ok);
        if (!ok || document.report() == nullptr || index >= document.report()->steps.size()) {
            return std::nullopt;
        }
        return document.report()->steps[index].range;
    }
    const QStringList parts = text.split(QLatin1Char(':'));
    bool okStart = false;
    bool okEnd = false;
    const double startMs = parts.size() == 2 ? parts[0].toDouble(&okStart) : 0;
    const double endMs = parts.size() == 2 ? parts[1].toDouble(&okEnd) : 0;
    if (!okStart || !okEnd || endMs <= startMs) {
        return std::nullopt;
    }
    const chokepoint::core::TimestampNs origin = model->timeSpan().startNs;
    return chokepoint::core::TimeRange{origin + static_cast<chokepoint::core::TimestampNs>(startMs * 1e6),
                                       origin + static_cast<chokepoint::core::TimestampNs>(endMs * 1e6)};
}

int runScreenshot(chokepoint::ui::MainWindow& window, const QString& out, const QString& pageId, QSize size,
                  const QString& file, const QString& compareFile, int deviceIndex,
                  const QString& selection) {
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
        if (!selection.isEmpty()) {
            const std::optional<chokepoint::core::TimeRange> range = selectionRange(selection, *document);
            if (!range) {
                std::fprintf(stderr,
                             "chokepoint: --select wants START:END (ms from the trace start) or step:N, "
                             "not '%s'\n",
                             qPrintable(selection));
                exitCode = kExitUsage;
                QApplication::exit(exitCode);
                return;
            }
            document->showRange(*range, QStringLiteral("--select"));
        }
        // Let layouts settle and pending updates (the range statistics follow a selection after a
        // short pause) run before grabbing.
        QTimer::singleShot(selection.isEmpty() ? 0 : 200, &window, [&] {
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
        if (deviceIndex >= 0) {
            // Drawn when the chosen GPU's report is in (selectDevice emits analysisAvailable again).
            showDeviceOnceAnalysed(window, deviceIndex, &exitCode);
            QObject::connect(document, &chokepoint::ui::TraceDocument::scopeChanged, &window, render);
        } else {
            QObject::connect(document, &chokepoint::ui::TraceDocument::analysisAvailable, &window, render);
        }
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

// --screenshot with --page job: loads the job's ranks, waits for the job analysis and renders the
// job window.
int runJobScreenshot(const QString& out, QSize size, const QStringList& inputs) {
    chokepoint::ui::JobWindow window;
    window.setInteractive(false);
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.resize(size);
    window.show();
    int exitCode = kExitFailure;
    auto* document = window.document();
    QObject::connect(document, &chokepoint::ui::JobDocument::loadFailed, &window, [&](const QString&) {
        // The window already printed the message naming the inputs.
        exitCode = kExitInput;
        QApplication::exit(exitCode);
    });
    QObject::connect(document, &chokepoint::ui::JobDocument::cancelled, &window, [&] {
        exitCode = kExitFailure;
        QApplication::exit(exitCode);
    });
    QObject::connect(document, &chokepoint::ui::JobDocument::reportAvailable, &window, [&] {
        QTimer::singleShot(0, &window, [&] {
            QApplication::processEvents();
            const QPixmap pixmap = window.grab();
            if (pixmap.isNull() || !pixmap.save(out)) {
                std::fprintf(stderr, "chokepoint: could not write the screenshot to %s\n", qPrintable(out));
                exitCode = kExitFailure;
            } else {
                std::fprintf(stderr, "chokepoint: wrote %s (%dx%d, page job, %zu ranks)\n", qPrintable(out),
                             pixmap.width(), pixmap.height(), document->report()->ranks.size());
                exitCode = kExitOk;
            }
            QApplication::exit(exitCode);
        });
    });
    window.openJob(inputs);
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

// The FILE arguments and the --page value, found before Qt is up so that reading a single trace
// can start at once. Options that take a value are skipped with it; QCommandLineParser still does
// the real parsing (a guess that turns out wrong only costs a read that is never used).
QStringList fileArguments(int argc, char** argv, QString* pageId) {
    QStringList files;
    for (int i = 1; i < argc; ++i) {
        const QString arg = QString::fromLocal8Bit(argv[i]);
        if (arg == QLatin1String("--")) {
            for (int j = i + 1; j < argc; ++j) {
                files << QString::fromLocal8Bit(argv[j]);
            }
            break;
        }
        if (arg == QLatin1String("--screenshot") || arg == QLatin1String("--page") ||
            arg == QLatin1String("--size") || arg == QLatin1String("--compare") ||
            arg == QLatin1String("--palette")) {
            if (arg == QLatin1String("--page") && i + 1 < argc) {
                *pageId = QString::fromLocal8Bit(argv[i + 1]);
            }
            ++i;
            continue;
        }
        if (!arg.startsWith(QLatin1Char('-'))) {
            files << arg;
        }
    }
    return files;
}

// Several files, a folder or a glob open a job; so does --page job.
bool isJob(const QStringList& files, const QString& pageId) {
    std::vector<std::string> arguments;
    for (const QString& f : files) {
        arguments.push_back(f.toStdString());
    }
    return pageId == QLatin1String("job") || chokepoint::job::looksLikeJob(arguments);
}

// The command line, on any QCoreApplication: --help and --version are answered before a
// QApplication (which needs a display) exists.
struct CommandLine {
    QCommandLineParser parser;
    QCommandLineOption screenshot{QStringLiteral("screenshot"),
                                  QStringLiteral("Render a page of FILE to the PNG OUT and exit (no display "
                                                 "needed: the offscreen platform is used unless "
                                                 "QT_QPA_PLATFORM says otherwise)."),
                                  QStringLiteral("OUT")};
    QCommandLineOption page{
        QStringLiteral("page"),
        QStringLiteral("Page for --screenshot: diagnosis, timeline, roofline, ops, fixes, review, compare; "
                       "welcome without FILE; job with FILE... (the ranks of one job) or their FOLDER."),
        QStringLiteral("ID"), QStringLiteral("diagnosis")};
    QCommandLineOption compare{
        QStringLiteral("compare"),
        QStringLiteral("With --screenshot: render the Compare page of FILE against OTHER."),
        QStringLiteral("OTHER")};
    QCommandLineOption listSamples{
        QStringLiteral("list-samples"),
        QStringLiteral("Print the bundled sample traces found, one a line, and exit.")};
    QCommandLineOption deviceIndex{
        QStringLiteral("device-index"),
        QStringLiteral("When several GPUs did work in FILE: show GPU N alone (its own accounting, verdict "
                       "and timeline)."),
        QStringLiteral("N")};
    QCommandLineOption select{
        QStringLiteral("select"),
        QStringLiteral("With --screenshot: select a time range first (the timeline shows its statistics): "
                       "START:END in ms from the trace start, or step:N (step N, from 0)."),
        QStringLiteral("RANGE")};
    QCommandLineOption paletteOption{
        QStringLiteral("palette"),
        QStringLiteral("Colours: light, dark (Fusion style with a light or dark palette) or system (the "
                       "default). Also for --screenshot."),
        QStringLiteral("THEME"), QStringLiteral("system")};
    QCommandLineOption sizeOption{QStringLiteral("size"),
                                  QStringLiteral("Window size for --screenshot (default 1600x1000)."),
                                  QStringLiteral("WxH"), QStringLiteral("1600x1000")};

    CommandLine() {
        parser.setApplicationDescription(
            QStringLiteral("Tells you why your GPU training job is slow and what to change."));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addOption(screenshot);
        parser.addOption(page);
        parser.addOption(compare);
        parser.addOption(listSamples);
        parser.addOption(sizeOption);
        parser.addOption(paletteOption);
        parser.addOption(deviceIndex);
        parser.addOption(select);
        parser.addPositionalArgument(
            QStringLiteral("FILE"),
            QStringLiteral("Trace to open (.json, .json.gz, .sqlite, .cptrace). Several "
                           "files or a folder open them as the ranks of one job."),
            QStringLiteral("[FILE...]"));
    }
};

void setApplicationNames() {
    QCoreApplication::setOrganizationName(QStringLiteral("Chokepoint"));
    QCoreApplication::setApplicationName(QStringLiteral("Chokepoint"));
    QCoreApplication::setApplicationVersion(
        QStringLiteral("%1 (build %2)")
            .arg(QString::fromLatin1(chokepoint::kVersion), QString::fromLatin1(chokepoint::buildId())));
}

bool hasArgument(int argc, char** argv, std::initializer_list<const char*> names) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--") == 0) {
            return false;
        }
        for (const char* name : names) {
            if (std::strcmp(argv[i], name) == 0 ||
                (std::strncmp(argv[i], name, std::strlen(name)) == 0 && argv[i][std::strlen(name)] == '=')) {
                return true;
            }
        }
    }
    return false;
}

// True when Qt would find no display: no platform chosen and, on Linux, neither X11 nor Wayland.
bool noDisplay() {
#if defined(Q_OS_LINUX)
    return !qEnvironmentVariableIsSet("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
           qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
#else
    return false;
#endif
}

}  // namespace

int main(int argc, char** argv) {
    // --help / --version (and bad options) need no display: answer them without a QApplication.
    if (hasArgument(argc, argv, {"--help", "-h", "-?", "--help-all", "--version", "-v"})) {
        QCoreApplication core(argc, argv);
        setApplicationNames();
        CommandLine cl;
        cl.parser.process(core);  // prints and exits
        return kExitOk;
    }
    // Headless rendering needs no display either: fall back to the offscreen platform.
    if (hasArgument(argc, argv, {"--screenshot", "--list-samples"}) &&
        !qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    } else if (noDisplay()) {
        std::fprintf(stderr,
                     "chokepoint: no display (DISPLAY and WAYLAND_DISPLAY are unset). Use chokepoint-cli, "
                     "--screenshot OUT.png FILE, or set QT_QPA_PLATFORM (offscreen, vnc, ...).\n");
        return kExitFailure;
    }
    chokepoint::ui::startStartupClock();
    // Read a single trace on the other core while Qt starts and the window is built (a job's
    // ranks are read by the job loader's workers instead).
    QString earlyPage;
    if (const QStringList early = fileArguments(argc, argv, &earlyPage);
        !early.isEmpty() && !isJob(early, earlyPage)) {
        chokepoint::ui::prefetchTrace(QFileInfo(early.first()).absoluteFilePath());
    }
    QApplication app(argc, argv);
    chokepoint::ui::noteStartupMilestone("QApplication");
    setApplicationNames();
    QApplication::setDesktopFileName(QStringLiteral("chokepoint"));
    chokepoint::ui::initUiResources();
    QApplication::setWindowIcon(chokepoint::ui::appIcon());

    CommandLine cl;
    QCommandLineParser& parser = cl.parser;
    const QCommandLineOption& screenshot = cl.screenshot;
    const QCommandLineOption& page = cl.page;
    const QCommandLineOption& sizeOption = cl.sizeOption;
    const QCommandLineOption& compareOption = cl.compare;
    parser.process(app);
    const QStringList files = parser.positionalArguments();
    const std::optional<chokepoint::ui::Theme> theme =
        chokepoint::ui::themeFromName(parser.value(cl.paletteOption));
    if (!theme) {
        std::fprintf(stderr, "chokepoint: --palette wants light, dark or system, not '%s'\n",
                     qPrintable(parser.value(cl.paletteOption)));
        return kExitUsage;
    }
    // --palette wins; otherwise the window follows Preferences (a screenshot keeps the system's, so
    // that it does not depend on this user's settings).
    if (parser.isSet(cl.paletteOption) || parser.isSet(screenshot)) {
        if (*theme != chokepoint::ui::Theme::System) {
            chokepoint::ui::applyTheme(*theme);  // before any window is built
        }
    } else {
        using chokepoint::ui::Preferences;
        if (Preferences::theme() != chokepoint::ui::Theme::System) {
            chokepoint::ui::applyTheme(Preferences::theme());
        }
        QObject::connect(Preferences::instance(), &Preferences::themeChanged, &app,
                         [](chokepoint::ui::Theme chosen) { chokepoint::ui::applyTheme(chosen); });
    }
    if (parser.isSet(cl.listSamples)) {
        for (const QString& sample : chokepoint::ui::MainWindow::sampleFiles()) {
            std::printf("%s\n", qPrintable(sample));
        }
        return kExitOk;
    }
    int deviceIndex = -1;
    if (parser.isSet(cl.deviceIndex)) {
        bool ok = false;
        deviceIndex = parser.value(cl.deviceIndex).toInt(&ok);
        if (!ok || deviceIndex < 0) {
            std::fprintf(stderr, "chokepoint: --device-index wants a GPU index (0, 1, ...), not '%s'\n",
                         qPrintable(parser.value(cl.deviceIndex)));
            return kExitUsage;
        }
    }
    QSize size;
    if (parser.isSet(screenshot)) {
        chokepoint::ui::RecentFiles::setRecording(false);  // rendering a file is not opening it
    }
    if (parser.isSet(screenshot) && !parseSize(parser.value(sizeOption), size)) {
        std::fprintf(stderr, "chokepoint: --size wants WxH between 200x150 and 10000x10000, not '%s'\n",
                     qPrintable(parser.value(sizeOption)));
        return kExitUsage;
    }
    if (isJob(files, parser.isSet(screenshot) ? parser.value(page) : QString())) {
        if (parser.isSet(screenshot)) {
            if (parser.value(page) != QLatin1String("job")) {
                std::fprintf(stderr, "chokepoint: several files or a folder open a job: use --page job\n");
                return kExitUsage;
            }
            if (files.isEmpty()) {
                std::fprintf(stderr, "chokepoint: --page job needs FILE... or a FOLDER\n");
                return kExitUsage;
            }
            return runJobScreenshot(parser.value(screenshot), size, files);
        }
        chokepoint::ui::JobWindow::showJob(files);
        return QApplication::exec();
    }

    chokepoint::ui::MainWindow window;
    chokepoint::ui::noteStartupMilestone("window built");
    if (parser.isSet(screenshot)) {
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
        return runScreenshot(window, parser.value(screenshot), pageId, size, files.first(), compareFile,
                             deviceIndex, parser.value(cl.select));
    }
    if (qEnvironmentVariableIsSet("CHOKEPOINT_TIMING")) {
        new DiagnosisDrawnProbe(window);
    }
    window.show();
    if (deviceIndex >= 0) {
        showDeviceOnceAnalysed(window, deviceIndex, nullptr);
    }
    if (!files.isEmpty()) {
        window.openFile(files.first());  // several files open a job (above)
    } else if (chokepoint::ui::Preferences::reopenLastTrace()) {
        const QStringList recent = chokepoint::ui::RecentFiles::files();
        if (!recent.isEmpty() && QFileInfo::exists(recent.first())) {
            window.openFile(recent.first());
        }
    }
    return QApplication::exec();
}
