// MainWindow: pages by id, recent files, samples lookup, welcome page state, and the chokepoint
// executable's --screenshot option end to end.
#include <gtest/gtest.h>

#include <QDirIterator>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "core/format/CptraceWriter.h"
#include "core/import/TraceLoader.h"
#include "tests/testutils/SharedTraces.h"
#include "tests/ui/PageTestSupport.h"
#include "tests/ui/UiTestModels.h"
#include "ui/base/Page.h"
#include "ui/base/settings/RecentFiles.h"
#include "ui/base/widgets/SearchBar.h"
#include "ui/shell/ExportActions.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/WelcomePage.h"
#include "ui/views/pages/ReviewPage.h"
#include "ui/views/review/PresenterView.h"
#include "ui/views/timeline/TimelinePage.h"
#include "ui/views/timeline/TimelineWidget.h"

namespace chokepoint::ui {
namespace {

using testutils::isolateSettings;

TEST(MainWindowTest, HostsPagesByIdAndStartsOnTheWelcomePage) {
    isolateSettings();
    MainWindow window;
    EXPECT_TRUE(window.welcomeVisible());
    const QImage welcome = testutils::renderWidget(window, {1200, 800});
    testutils::saveIfRequested(welcome, QStringLiteral("welcome"));
    EXPECT_GT(testutils::inkFraction(welcome), 0.02);
    EXPECT_TRUE(window.pageIds().contains(QStringLiteral("timeline")));
    EXPECT_NE(window.page(QStringLiteral("timeline")), nullptr);
    EXPECT_EQ(window.page(QStringLiteral("nope")), nullptr);
    EXPECT_FALSE(window.showPage(QStringLiteral("nope")));
    EXPECT_TRUE(window.showPage(QStringLiteral("timeline")));
    EXPECT_FALSE(window.welcomeVisible());
    EXPECT_EQ(window.currentPageId(), QStringLiteral("timeline"));
    for (auto id : {MainWindow::MenuId::File, MainWindow::MenuId::Export, MainWindow::MenuId::View,
                    MainWindow::MenuId::Go, MainWindow::MenuId::Review, MainWindow::MenuId::Help}) {
        EXPECT_NE(window.menu(id), nullptr);
    }
    const QImage image = testutils::renderWidget(window, {1200, 800});
    EXPECT_GT(testutils::distinctColours(image), 10);
}

TEST(MainWindowTest, NavigationRequestsSwitchToTheTimeline) {
    isolateSettings();
    MainWindow window;
    window.document()->setModel(testutils::timelineTestModel(), QStringLiteral("test"));
    window.showWelcome(true);
    window.document()->selectKernel(core::KernelId{2});
    EXPECT_EQ(window.currentPageId(), QStringLiteral("timeline"));
    window.showWelcome(true);
    window.document()->showPage(QStringLiteral("timeline"));
    EXPECT_EQ(window.currentPageId(), QStringLiteral("timeline"));
    QTest::qWait(50);
}

// A page that counts how often it refreshed from its document, through Page's deferral.
class CountingPage : public Page {
public:
    QString pageId() const override { return QStringLiteral("counting"); }
    QString title() const override { return QStringLiteral("Counting"); }
    void setDocument(TraceDocument* document) override {
        Page::setDocument(document);
        if (document != nullptr) {
            connect(document, &TraceDocument::modelAvailable, this,
                    [this] { refreshNowOrWhenShown(0, [this] { ++modelRefreshes; }); });
            connect(document, &TraceDocument::analysisAvailable, this, [this] {
                refreshNowOrWhenShown(1, [this] {
                    ++reportRefreshes;
                    reportSeenAfterModel = modelRefreshes > 0;
                });
            });
        }
    }
    int modelRefreshes = 0;
    int reportRefreshes = 0;
    bool reportSeenAfterModel = false;
};

TEST(MainWindowTest, HiddenPagesRefreshWhenShownAndVisibleOnesAtOnce) {
    isolateSettings();
    MainWindow window;
    window.setAttribute(Qt::WA_DontShowOnScreen);
    auto* counting = new CountingPage;
    window.addPage(counting);
    window.show();
    window.showPage(QStringLiteral("diagnosis"));
    QSignalSpy analysed(window.document(), &TraceDocument::analysisAvailable);
    window.document()->setModel(testutils::timelineTestModel(), QStringLiteral("test"));
    ASSERT_TRUE(analysed.count() > 0 || analysed.wait(10000));
    // A hidden tab of a window on screen waits...
    EXPECT_EQ(counting->modelRefreshes, 0);
    EXPECT_EQ(counting->reportRefreshes, 0);
    // ...and catches up once, in slot order, when shown.
    ASSERT_TRUE(window.showPage(QStringLiteral("counting")));
    EXPECT_EQ(counting->modelRefreshes, 1);
    EXPECT_EQ(counting->reportRefreshes, 1);
    EXPECT_TRUE(counting->reportSeenAfterModel);
    // A new trace opens on the diagnosis page; shown again, the page catches up with the model and
    // then, being looked at, takes the report at once when it arrives.
    window.document()->setModel(testutils::timelineTestModel(), QStringLiteral("again"));
    EXPECT_EQ(window.currentPageId(), QStringLiteral("diagnosis"));
    ASSERT_TRUE(window.showPage(QStringLiteral("counting")));
    EXPECT_EQ(counting->modelRefreshes, 2);
    ASSERT_TRUE(analysed.wait(10000));
    EXPECT_EQ(counting->reportRefreshes, 2);
    // Two documents while hidden: one catch-up refresh per slot, not two.
    window.showPage(QStringLiteral("diagnosis"));
    window.document()->setModel(testutils::timelineTestModel(), QStringLiteral("third"));
    window.document()->setModel(testutils::timelineTestModel(), QStringLiteral("fourth"));
    ASSERT_TRUE(analysed.wait(10000));
    window.showPage(QStringLiteral("counting"));
    EXPECT_EQ(counting->modelRefreshes, 3);
}

TEST(MainWindowTest, PagesOutsideAShownWindowRefreshAtOnce) {
    isolateSettings();
    TraceDocument document;
    CountingPage page;  // on its own, as the page tests use them
    page.setDocument(&document);
    QSignalSpy analysed(&document, &TraceDocument::analysisAvailable);
    document.setModel(testutils::timelineTestModel(), QStringLiteral("test"));
    EXPECT_EQ(page.modelRefreshes, 1);
    ASSERT_TRUE(analysed.wait(10000));
    EXPECT_EQ(page.reportRefreshes, 1);
}

TEST(MainWindowTest, ExportMenuWritesTheReportTablesAndTrace) {
    isolateSettings();
    MainWindow window;
    ExportActions* exports = window.exportActions();
    ASSERT_NE(exports, nullptr);
    ASSERT_FALSE(window.menu(MainWindow::MenuId::Export)->actions().isEmpty());
    // Nothing open: every item is disabled and a direct call explains why.
    EXPECT_FALSE(exports->action(ExportActions::Kind::ReportHtml)->isEnabled());
    EXPECT_FALSE(exports->action(ExportActions::Kind::TraceCptrace)->isEnabled());
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    QString error;
    EXPECT_FALSE(exports->exportTo(ExportActions::Kind::ReportHtml, dir.filePath("early.html"), &error));
    EXPECT_TRUE(error.contains("early.html")) << error.toStdString();

    QSignalSpy analysed(window.document(), &TraceDocument::analysisAvailable);
    window.document()->setModel(testutils::timelineTestModel(), QStringLiteral("test"));
    // The trace can be saved before its analysis ends; the report only after.
    EXPECT_TRUE(exports->action(ExportActions::Kind::TraceCptrace)->isEnabled());
    ASSERT_TRUE(analysed.count() > 0 || analysed.wait(10000));
    EXPECT_TRUE(exports->action(ExportActions::Kind::ReportPdf)->isEnabled());

    auto fileStarts = [](const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.read(16) : QByteArray();
    };
    struct Case {
        ExportActions::Kind kind;
        const char* name;
        QByteArray head;
    };
    const Case cases[] = {
        {ExportActions::Kind::ReportHtml, "r.html", "<!DOCTYPE html>"},
        {ExportActions::Kind::ReportPdf, "r.pdf", "%PDF"},
        {ExportActions::Kind::ReportMarkdown, "r.md", "# "},
        {ExportActions::Kind::ReportJson, "r.json", "{"},
        {ExportActions::Kind::TopKernelsCsv, "k.csv", "name,class,tens"},
        {ExportActions::Kind::TopOpsCsv, "o.csv", "name,class,calls"},
        {ExportActions::Kind::TraceChromeJson, "t.json", "{"},
    };
    for (const Case& c : cases) {
        const QString path = dir.filePath(QString::fromLatin1(c.name));
        ASSERT_TRUE(exports->exportTo(c.kind, path, &error)) << c.name << ": " << error.toStdString();
        EXPECT_TRUE(fileStarts(path).startsWith(c.head)) << c.name << ": " << fileStarts(path).toStdString();
    }
    // The saved .cptrace opens again with the same events.
    const QString saved = dir.filePath("t.cptrace");
    ASSERT_TRUE(exports->exportTo(ExportActions::Kind::TraceCptrace, saved, &error)) << error.toStdString();
    auto reopened = core::loadTrace(saved.toStdString());
    ASSERT_TRUE(reopened.ok()) << reopened.error().message;
    EXPECT_EQ(reopened->kernels.size(), window.document()->model()->kernels.size());
    // A place that cannot be written is an error naming it, not a crash.
    const QString bad = dir.filePath("no/such/dir/r.md");
    EXPECT_FALSE(exports->exportTo(ExportActions::Kind::ReportMarkdown, bad, &error));
    EXPECT_TRUE(error.contains(bad)) << error.toStdString();
    EXPECT_FALSE(
        exports->exportTo(ExportActions::Kind::TraceCptrace, dir.filePath("no/such/t.cptrace"), &error));
    EXPECT_TRUE(error.contains("no/such/t.cptrace")) << error.toStdString();
}

TEST(MainWindowTest, EveryMenuHasItemsAndTheReviewMenuPresentsFromAnyPage) {
    isolateSettings();
    MainWindow window;
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.show();
    for (auto id : {MainWindow::MenuId::File, MainWindow::MenuId::Export, MainWindow::MenuId::View,
                    MainWindow::MenuId::Go, MainWindow::MenuId::Review, MainWindow::MenuId::Help}) {
        EXPECT_FALSE(window.menu(id)->actions().isEmpty()) << window.menu(id)->title().toStdString();
    }
    QAction* present = nullptr;
    for (QAction* a : window.menu(MainWindow::MenuId::Review)->actions()) {
        present = a->shortcut() == QKeySequence(Qt::Key_F5) ? a : present;
    }
    ASSERT_NE(present, nullptr);
    EXPECT_FALSE(present->isEnabled());  // nothing to present yet
    QSignalSpy analysed(window.document(), &TraceDocument::analysisAvailable);
    window.document()->setModel(testutils::timelineTestModel(), QStringLiteral("test"));
    ASSERT_TRUE(analysed.count() > 0 || analysed.wait(10000));
    EXPECT_TRUE(present->isEnabled());
    window.showPage(QStringLiteral("timeline"));
    present->trigger();  // from the timeline: switches to review mode and presents
    EXPECT_EQ(window.currentPageId(), QStringLiteral("review"));
    auto* review = window.findChild<ReviewPage*>();
    ASSERT_NE(review, nullptr);
    ASSERT_NE(review->presenter(), nullptr);
    EXPECT_TRUE(review->presenter()->isVisible());
    EXPECT_GE(review->presenter()->slideCount(), 3);
    review->presenter()->close();
}

TEST(MainWindowTest, RecentFilesAreRememberedMostRecentFirstWithoutDuplicates) {
    isolateSettings();
    for (int i = 0; i < 12; ++i) {
        RecentFiles::add(QStringLiteral("/traces/t%1.json").arg(i));
    }
    RecentFiles::add(QStringLiteral("/traces/t5.json"));
    const QStringList recent = RecentFiles::files();
    ASSERT_EQ(recent.size(), 10);
    EXPECT_EQ(recent.first(), QStringLiteral("/traces/t5.json"));
    EXPECT_EQ(recent.count(QStringLiteral("/traces/t5.json")), 1);
    MainWindow window;
    auto* welcome = window.findChild<WelcomePage*>();
    ASSERT_NE(welcome, nullptr);
    EXPECT_EQ(welcome->recentList()->count(), 10);
    QSettings().clear();
}

TEST(MainWindowTest, SamplesComeFromTheEnvironmentVariableFirst) {
    isolateSettings();
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    QFile sample(dir.filePath(QStringLiteral("b-sample.cptrace")));
    ASSERT_TRUE(sample.open(QIODevice::WriteOnly));
    sample.close();
    QFile other(dir.filePath(QStringLiteral("a-sample.json")));
    ASSERT_TRUE(other.open(QIODevice::WriteOnly));
    other.close();
    qputenv("CHOKEPOINT_SAMPLES_DIR", dir.path().toLocal8Bit());
    EXPECT_EQ(MainWindow::samplesDirectory(), QDir(dir.path()).absolutePath());
    const QStringList files = MainWindow::sampleFiles();
    ASSERT_EQ(files.size(), 2);
    EXPECT_TRUE(files[0].endsWith(QStringLiteral("a-sample.json")));
    MainWindow window;
    auto* welcome = window.findChild<WelcomePage*>();
    ASSERT_NE(welcome, nullptr);
    EXPECT_TRUE(welcome->sampleButton()->isEnabled());
    qunsetenv("CHOKEPOINT_SAMPLES_DIR");
}

TEST(MainWindowTest, LoadFailureReturnsToTheWelcomePage) {
    isolateSettings();
    MainWindow window;
    window.setInteractive(false);  // no modal dialog in tests
    QSignalSpy failed(window.document(), &TraceDocument::loadFailed);
    window.openFile(QStringLiteral("/nonexistent/trace.json"));
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10'000);
    EXPECT_TRUE(window.welcomeVisible());
    EXPECT_TRUE(RecentFiles::files().isEmpty());  // failures are not remembered
}

TEST(MainWindowTest, SearchShortcutsWorkWithTheTimelineFocused) {
    isolateSettings();
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    window.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
    QSignalSpy analysed(window.document(), &TraceDocument::analysisAvailable);
    window.document()->setModel(testutils::timelineTestModel(), QStringLiteral("test"));
    ASSERT_TRUE(analysed.count() > 0 || analysed.wait(10000));
    ASSERT_TRUE(window.showPage(QStringLiteral("timeline")));
    auto* page = qobject_cast<TimelinePage*>(window.page(QStringLiteral("timeline")));
    ASSERT_NE(page, nullptr);
    window.activateWindow();
    page->timeline()->setFocus();
    QApplication::processEvents();
    // Ctrl+F, registered once (the Go menu), moves the focus to the search field.
    QTest::keyClick(page->timeline(), Qt::Key_F, Qt::ControlModifier);
    auto* edit = page->searchBar()->findChild<QLineEdit*>();
    ASSERT_NE(edit, nullptr);
    EXPECT_TRUE(edit->hasFocus());
    page->search(QStringLiteral("SGEMM"));
    const timeline::SearchResults& hits = page->searchResults();
    ASSERT_GE(hits.size(), 3u);
    EXPECT_EQ(page->timeline()->selectedEvent(), hits[0].ref);
    page->timeline()->setFocus();
    QTest::keyClick(page->timeline(), Qt::Key_F3);
    EXPECT_EQ(page->timeline()->selectedEvent(), hits[1].ref);
    QTest::keyClick(page->timeline(), Qt::Key_F3, Qt::ShiftModifier);
    EXPECT_EQ(page->timeline()->selectedEvent(), hits[0].ref);
}

TEST(MainWindowTest, AFailedOpenLeavesTheOpenTraceUntouched) {
    isolateSettings();
    MainWindow window;
    window.setInteractive(false);
    QSignalSpy analysed(window.document(), &TraceDocument::analysisAvailable);
    const auto model = testutils::timelineTestModel();
    window.document()->setModel(model, QStringLiteral("open trace"));
    ASSERT_TRUE(analysed.count() > 0 || analysed.wait(10000));
    const auto report = window.document()->report();
    ASSERT_TRUE(report);
    QSignalSpy failed(window.document(), &TraceDocument::loadFailed);
    window.openFile(QStringLiteral("/nonexistent/trace.json"));
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10'000);
    EXPECT_EQ(window.document()->model(), model);
    EXPECT_EQ(window.document()->report(), report);
    EXPECT_EQ(window.document()->displayName(), QStringLiteral("open trace"));
    EXPECT_FALSE(window.welcomeVisible());
}

TEST(MainWindowTest, ANewTraceStartsOnTheDiagnosisPageWithAFreshSearch) {
    isolateSettings();
    MainWindow window;
    QSignalSpy analysed(window.document(), &TraceDocument::analysisAvailable);
    window.document()->setModel(testutils::timelineTestModel(), QStringLiteral("first"));
    ASSERT_TRUE(analysed.count() > 0 || analysed.wait(10000));
    ASSERT_TRUE(window.showPage(QStringLiteral("timeline")));
    auto* page = qobject_cast<TimelinePage*>(window.page(QStringLiteral("timeline")));
    ASSERT_NE(page, nullptr);
    page->search(QStringLiteral("SGEMM"));
    EXPECT_FALSE(page->searchResults().empty());
    window.document()->setModel(testutils::timelineTestModel(), QStringLiteral("second"));
    EXPECT_EQ(window.currentPageId(), QStringLiteral("diagnosis"));
    ASSERT_TRUE(analysed.wait(10000));
    window.showPage(QStringLiteral("timeline"));
    EXPECT_TRUE(page->searchBar()->text().isEmpty());
    EXPECT_TRUE(page->searchResults().empty());
}

// --- The executable -------------------------------------------------------------------------

QString guiBinary() {
    return QStringLiteral(CHOKEPOINT_BINARY_DIR "/bin/chokepoint");
}

// Runs the GUI executable; `display` false runs it as on a machine without one (no DISPLAY, no
// WAYLAND_DISPLAY, no QT_QPA_PLATFORM), where it must not abort.
int runGui(const QStringList& args, QString* errors = nullptr, bool display = true, QString* output = nullptr,
           const QString& configHome = QString()) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!configHome.isEmpty()) {
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome);
    }
    if (display) {
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    } else {
        for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}) {
            env.remove(QString::fromLatin1(name));
        }
    }
    process.setProcessEnvironment(env);
    process.start(guiBinary(), args);
    if (!process.waitForFinished(60'000)) {
        process.kill();
        return -1;
    }
    if (errors) {
        *errors = QString::fromLocal8Bit(process.readAllStandardError());
    }
    if (output) {
        *output = QString::fromLocal8Bit(process.readAllStandardOutput());
    }
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
}

// A --screenshot run renders a file without opening it for the user: the user's recent files stay
// as they were (test runs of it filled the Welcome page with temporary files).
TEST(MainWindowTest, AScreenshotLeavesTheRecentFilesAlone) {
    ASSERT_TRUE(QFile::exists(guiBinary()))
        << "chokepoint executable not built: " << guiBinary().toStdString();
    testutils::guiApp();
    QTemporaryDir config;
    QTemporaryDir dir;
    const std::string trace = dir.filePath(QStringLiteral("t.cptrace")).toStdString();
    ASSERT_TRUE(core::writeCptrace(*testutils::timelineTestModel(), trace).ok());
    const QString out = dir.filePath(QStringLiteral("t.png"));
    QString errors;
    ASSERT_EQ(runGui({QStringLiteral("--screenshot"), out, QString::fromStdString(trace)}, &errors, true,
                     nullptr, config.path()),
              0)
        << errors.toStdString();
    ASSERT_TRUE(QFile::exists(out));
    QDirIterator files(config.path(), QDir::Files, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        QFile f(files.next());
        ASSERT_TRUE(f.open(QIODevice::ReadOnly));
        EXPECT_FALSE(f.readAll().contains("t.cptrace")) << f.fileName().toStdString();
    }
}

TEST(MainWindowTest, ScreenshotRendersTheTimelineOfASharedTrace) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "hta-ns-resolution__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
    ASSERT_TRUE(QFile::exists(guiBinary()))
        << "chokepoint executable not built: " << guiBinary().toStdString();
    testutils::guiApp();
    QTemporaryDir dir;
    for (const QString& size : {QStringLiteral("1280x800"), QStringLiteral("1920x1080")}) {
        const QString out = dir.filePath(QStringLiteral("timeline-%1.png").arg(size));
        QString errors;
        ASSERT_EQ(
            runGui({QStringLiteral("--screenshot"), out, QStringLiteral("--page"), QStringLiteral("timeline"),
                    QStringLiteral("--size"), size, QString::fromStdString(path)},
                   &errors),
            0)
            << errors.toStdString();
        QImage image(out);
        ASSERT_FALSE(image.isNull());
        EXPECT_EQ(QStringLiteral("%1x%2").arg(image.width()).arg(image.height()), size);
        EXPECT_GT(testutils::distinctColours(image), 40);
        EXPECT_GT(testutils::inkFraction(image), 0.1);
    }
}

TEST(MainWindowTest, ScreenshotFailsClearlyOnBadInput) {
    ASSERT_TRUE(QFile::exists(guiBinary()))
        << "chokepoint executable not built: " << guiBinary().toStdString();
    testutils::guiApp();
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("x.png"));
    QString errors;
    EXPECT_EQ(runGui({QStringLiteral("--screenshot"), out, QStringLiteral("--page"),
                      QStringLiteral("timeline"), QStringLiteral("/nonexistent/trace.json")},
                     &errors),
              1);
    EXPECT_TRUE(errors.contains(QStringLiteral("/nonexistent/trace.json"))) << errors.toStdString();
    EXPECT_FALSE(QFile::exists(out));
    EXPECT_EQ(runGui({QStringLiteral("--screenshot"), out, QStringLiteral("--page"),
                      QStringLiteral("no-such-page"), QStringLiteral("/nonexistent/trace.json")},
                     &errors),
              2);
    EXPECT_TRUE(errors.contains(QStringLiteral("no-such-page")));
    EXPECT_EQ(runGui({QStringLiteral("--screenshot"), out, QStringLiteral("--size"), QStringLiteral("huge"),
                      QStringLiteral("/nonexistent/trace.json")},
                     &errors),
              2);
}

TEST(MainWindowTest, WithoutADisplayHelpVersionAndScreenshotWork) {
    ASSERT_TRUE(QFile::exists(guiBinary()))
        << "chokepoint executable not built: " << guiBinary().toStdString();
    testutils::guiApp();
    QString errors, output;
    ASSERT_EQ(runGui({QStringLiteral("--help")}, &errors, false, &output), 0) << errors.toStdString();
    EXPECT_TRUE(output.contains(QStringLiteral("--screenshot"))) << output.toStdString();
    ASSERT_EQ(runGui({QStringLiteral("--version")}, &errors, false, &output), 0) << errors.toStdString();
    EXPECT_TRUE(output.contains(QStringLiteral("0.1.0"))) << output.toStdString();
    // The README's headless rendering: --screenshot picks the offscreen platform by itself.
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("t.cptrace"));
    ASSERT_TRUE(core::writeCptrace(*testutils::timelineTestModel(), trace.toStdString()).ok());
    const QString out = dir.filePath(QStringLiteral("d.png"));
    ASSERT_EQ(runGui({QStringLiteral("--screenshot"), out, QStringLiteral("--page"),
                      QStringLiteral("diagnosis"), trace},
                     &errors, false),
              0)
        << errors.toStdString();
    EXPECT_FALSE(QImage(out).isNull());
    // Plain start without a display: a clear message, not an abort.
    EXPECT_EQ(runGui({}, &errors, false), 3);
    EXPECT_TRUE(errors.contains(QStringLiteral("no display"))) << errors.toStdString();
}

}  // namespace
}  // namespace chokepoint::ui
