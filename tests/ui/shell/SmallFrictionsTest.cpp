// Small frictions (issue 15, item 7) and the small timeline conventions of item 4, each tried the
// way a user meets it: Ctrl+Q quits, Esc closes dialogs, Enter accepts the bookmark note,
// "Compare with…" sits with the opening actions above Quit, the Record dialog waits for nothing
// before Record, export says where it wrote, About links the docs and the licence, "?" shows the
// keys, alternative fixes are not "Next finding", and the presenter's picture fills the slide.
#include <gtest/gtest.h>

#include <QDialog>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <functional>

#include "tests/ui/PageReportFixture.h"
#include "tests/ui/PageTestSupport.h"
#include "tests/ui/UiTestModels.h"
#include "ui/base/document/TraceDocument.h"
#include "ui/base/widgets/BookmarkDialog.h"
#include "ui/base/widgets/ExportNotice.h"
#include "ui/shell/ExportActions.h"
#include "ui/shell/JobWindow.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/capture/AttachDialog.h"
#include "ui/shell/capture/LiveCaptureView.h"
#include "ui/shell/capture/RecordDialog.h"
#include "ui/views/review/PresenterView.h"

namespace chokepoint::ui {
namespace {

using testutils::isolateSettings;

// Runs `action` on the modal dialog that `open` brings up, as soon as it is up; returns whether a
// modal dialog appeared. `open` blocks (exec) until the dialog is closed.
bool onModalDialog(const std::function<void()>& open, const std::function<void(QWidget*)>& action) {
    bool seen = false;
    QTimer poll;
    poll.setInterval(10);
    QObject::connect(&poll, &QTimer::timeout, [&] {
        if (QWidget* modal = QApplication::activeModalWidget()) {
            poll.stop();
            seen = true;
            action(modal);
        }
    });
    poll.start();
    QTimer::singleShot(5000, [&] {  // never hang the suite: close whatever is open
        if (QWidget* modal = QApplication::activeModalWidget()) {
            modal->close();
        }
    });
    open();
    return seen;
}

void pressEscape(QWidget* w) {
    QWidget* target = w->focusWidget() != nullptr ? w->focusWidget() : w;
    QTest::keyClick(target, Qt::Key_Escape);
}

QStringList visibleTexts(QWidget& w) {
    QStringList texts;
    for (QLabel* label : w.findChildren<QLabel*>()) {
        texts << label->text();
    }
    return texts;
}

TEST(SmallFrictionsTest, CtrlQQuitsEveryWindow) {
    isolateSettings();
    testutils::guiApp();
    auto* first = new MainWindow;
    auto* second = new MainWindow;
    first->setAttribute(Qt::WA_DeleteOnClose);
    second->setAttribute(Qt::WA_DeleteOnClose);
    QPointer<MainWindow> a(first);
    QPointer<MainWindow> b(second);
    first->show();
    second->show();
    QAction* quit = first->findChild<QAction*>(QStringLiteral("quitAction"));
    ASSERT_NE(quit, nullptr);
    EXPECT_TRUE(quit->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::Key_Q)));
    // The key itself, pressed in the active window.
    first->activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(first));
    QTest::keyClick(first, Qt::Key_Q, Qt::ControlModifier);
    QTest::qWait(50);
    EXPECT_TRUE(a.isNull() || !a->isVisible());
    EXPECT_TRUE(b.isNull() || !b->isVisible()) << "Quit closes every window, not only the active one";
}

TEST(SmallFrictionsTest, TheJobWindowQuitsToo) {
    isolateSettings();
    testutils::guiApp();
    JobWindow job;
    QAction* quit = job.findChild<QAction*>(QStringLiteral("quitAction"));
    ASSERT_NE(quit, nullptr);
    EXPECT_TRUE(quit->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::Key_Q)));
}

TEST(SmallFrictionsTest, EscClosesTheDialogs) {
    isolateSettings();
    testutils::guiApp();
    MainWindow window;
    window.show();
    {
        BookmarkDialog dialog(QStringLiteral("step 1"), &window);
        EXPECT_TRUE(onModalDialog([&] { EXPECT_EQ(dialog.exec(), QDialog::Rejected); }, pressEscape));
    }
    {
        RecordDialog dialog(&window);
        EXPECT_TRUE(onModalDialog([&] { EXPECT_EQ(dialog.exec(), QDialog::Rejected); }, pressEscape));
    }
    {
        AttachDialog dialog(&window);
        EXPECT_TRUE(onModalDialog([&] { EXPECT_EQ(dialog.exec(), QDialog::Rejected); }, pressEscape));
    }
    // The message boxes of the Help menu.
    qputenv("CHOKEPOINT_DOCS_DIR", QByteArrayLiteral(CHOKEPOINT_SOURCE_DIR));
    const std::pair<const char*, const char*> boxes[] = {{"shortcutsAction", "shortcutsBox"},
                                                         {"aboutAction", "aboutBox"}};
    for (const auto& [actionName, boxName] : boxes) {
        QAction* action = window.findChild<QAction*>(QString::fromLatin1(actionName));
        ASSERT_NE(action, nullptr) << actionName;
        QString seenName;
        EXPECT_TRUE(onModalDialog([&] { action->trigger(); },
                                  [&](QWidget* w) {
                                      seenName = w->objectName();
                                      testutils::saveIfRequested(w->grab().toImage(),
                                                                 QString::fromLatin1(boxName));
                                      pressEscape(w);
                                  }))
            << actionName;
        EXPECT_EQ(seenName, QString::fromLatin1(boxName));
        EXPECT_EQ(QApplication::activeModalWidget(), nullptr) << actionName;
    }
    qunsetenv("CHOKEPOINT_DOCS_DIR");
}

TEST(SmallFrictionsTest, QuestionMarkShowsTheKeys) {
    isolateSettings();
    testutils::guiApp();
    MainWindow window;
    window.show();
    window.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
    QString seen;
    EXPECT_TRUE(onModalDialog([&] { QTest::keyClick(&window, Qt::Key_Question, Qt::ShiftModifier); },
                              [&](QWidget* w) {
                                  seen = w->objectName();
                                  pressEscape(w);
                              }));
    EXPECT_EQ(seen, QStringLiteral("shortcutsBox"));
    EXPECT_TRUE(MainWindow::shortcutsText().contains(QStringLiteral("Ctrl+Q")));
}

TEST(SmallFrictionsTest, EnterAcceptsTheBookmarkNoteShiftEnterStartsALine) {
    testutils::guiApp();
    BookmarkDialog dialog(QStringLiteral("step 1"));
    dialog.show();
    QTest::keyClicks(dialog.titleEdit(), QStringLiteral("Slow loader"));
    dialog.noteEdit()->setFocus();
    QTest::keyClicks(dialog.noteEdit(), QStringLiteral("first line"));
    QTest::keyClick(dialog.noteEdit(), Qt::Key_Return, Qt::ShiftModifier);
    QTest::keyClicks(dialog.noteEdit(), QStringLiteral("second line"));
    EXPECT_TRUE(dialog.isVisible()) << "Shift+Enter must not accept";
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    QTest::keyClick(dialog.noteEdit(), Qt::Key_Return);
    EXPECT_EQ(accepted.count(), 1);
    EXPECT_EQ(dialog.result(), QDialog::Accepted);
    testutils::saveIfRequested(dialog.grab().toImage(), QStringLiteral("bookmark-dialog"));
    EXPECT_EQ(dialog.title(), QStringLiteral("Slow loader"));
    EXPECT_EQ(dialog.note(), QStringLiteral("first line\nsecond line"));
    // Enter in the title accepts too (the dialog's default button).
    BookmarkDialog second(QStringLiteral("step 2"));
    second.show();
    QSignalSpy accepted2(&second, &QDialog::accepted);
    QTest::keyClick(second.titleEdit(), Qt::Key_Return);
    EXPECT_EQ(accepted2.count(), 1);
}

TEST(SmallFrictionsTest, CompareWithSitsWithTheOpeningActionsAboveQuit) {
    isolateSettings();
    testutils::guiApp();
    MainWindow window;
    window.show();
    const QList<QAction*> actions = window.menu(MainWindow::MenuId::File)->actions();
    auto indexOf = [&](const QString& name) {
        for (qsizetype i = 0; i < actions.size(); ++i) {
            if (actions[i]->objectName() == name) {
                return static_cast<int>(i);
            }
        }
        return -1;
    };
    const int compare = indexOf(QStringLiteral("compareWithAction"));
    const int quit = indexOf(QStringLiteral("quitAction"));
    ASSERT_GE(compare, 0);
    ASSERT_GE(quit, 0);
    EXPECT_LT(compare, quit);
    // Above the export submenu too: with Open, Record and Attach.
    const int exportMenu =
        static_cast<int>(actions.indexOf(window.menu(MainWindow::MenuId::Export)->menuAction()));
    EXPECT_LT(compare, exportMenu);
}

TEST(SmallFrictionsTest, RecordDialogWaitsForNothingBeforeRecord) {
    testutils::guiApp();
    for (QDialog* dialog : std::initializer_list<QDialog*>{new RecordDialog, new AttachDialog}) {
        dialog->show();
        for (const QString& text : visibleTexts(*dialog)) {
            EXPECT_FALSE(text.contains(QStringLiteral("waiting"), Qt::CaseInsensitive)) << text.toStdString();
        }
        auto* live = dialog->findChild<LiveCaptureView*>();
        ASSERT_NE(live, nullptr);
        EXPECT_EQ(live->statusText(), QStringLiteral("Not recording yet."));
        delete dialog;
    }
}

TEST(SmallFrictionsTest, ExportSaysWhereItWrote) {
    isolateSettings();
    testutils::guiApp();
    MainWindow window;
    window.show();
    QSignalSpy analysed(window.document(), &TraceDocument::analysisAvailable);
    window.document()->setModel(testutils::timelineTestModel(), QStringLiteral("test"));
    ASSERT_TRUE(analysed.count() > 0 || analysed.wait(10000));
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("kernels.csv"));
    QString error;
    ASSERT_TRUE(window.exportActions()->exportAndAnnounce(ExportActions::Kind::TopKernelsCsv, path, &error))
        << error.toStdString();
    const QString message = window.statusBar()->currentMessage();
    EXPECT_TRUE(message.contains(QDir::toNativeSeparators(path))) << message.toStdString();
    EXPECT_TRUE(message.startsWith(QStringLiteral("Exported every kernel to"))) << message.toStdString();
    EXPECT_EQ(exportNoticeText(ExportActions::exportedWhat(ExportActions::Kind::TopKernelsCsv), path),
              message);
}

TEST(SmallFrictionsTest, AboutLinksTheDocsAndTheLicence) {
    testutils::guiApp();
    qputenv("CHOKEPOINT_DOCS_DIR", QByteArrayLiteral(CHOKEPOINT_SOURCE_DIR));
    EXPECT_EQ(QDir(MainWindow::docsDirectory()), QDir(QStringLiteral(CHOKEPOINT_SOURCE_DIR)));
    const QString about = MainWindow::aboutText();
    EXPECT_TRUE(about.contains(QStringLiteral("README.md\""))) << about.toStdString();
    EXPECT_TRUE(about.contains(QStringLiteral("LICENSE\""))) << about.toStdString();
    EXPECT_TRUE(about.contains(QStringLiteral("docs/ANALYSIS.md\""))) << about.toStdString();
    EXPECT_TRUE(about.contains(QStringLiteral("file://"))) << about.toStdString();
    // Without the files the box still names the licence, without dead links.
    qputenv("CHOKEPOINT_DOCS_DIR", QByteArrayLiteral("/nonexistent/chokepoint-docs"));
    if (MainWindow::docsDirectory().isEmpty()) {
        const QString bare = MainWindow::aboutText();
        EXPECT_TRUE(bare.contains(QStringLiteral("MIT License")));
        EXPECT_FALSE(bare.contains(QStringLiteral("href")));
    }
    qunsetenv("CHOKEPOINT_DOCS_DIR");
}

TEST(SmallFrictionsTest, AlternativeFixesAreNotNextFindings) {
    testutils::guiApp();
    auto report = std::make_shared<analysis::AnalysisReport>(*testutils::buildDataBoundReport());
    ASSERT_FALSE(report->fixes.recommendations.empty());
    // Two fixes for the verdict's bottleneck, then one for another bottleneck, then another for it.
    analysis::Recommendation fix = report->fixes.recommendations.front();
    fix.target = report->overall.bottleneck;
    analysis::Recommendation alternative = fix;
    alternative.title = "alternative";
    analysis::Recommendation other = fix;
    other.target = analysis::Bottleneck::Compute;
    other.title = "other";
    analysis::Recommendation otherAlternative = other;
    otherAlternative.title = "other alternative";
    report->fixes.recommendations = {fix, alternative, other, otherAlternative};
    const std::vector<ReviewSlide> slides = buildReviewSlides(*report, {}, 0);
    auto kickerOf = [&](const QString& title) {
        for (const ReviewSlide& s : slides) {
            if (s.title == title) {
                return s.kicker;
            }
        }
        return QString();
    };
    EXPECT_FALSE(kickerOf(QStringLiteral("alternative")).contains(QStringLiteral("Next finding")));
    EXPECT_TRUE(kickerOf(QStringLiteral("alternative")).contains(QStringLiteral("Another fix")));
    EXPECT_TRUE(kickerOf(QStringLiteral("other")).contains(QStringLiteral("Next finding")));
    EXPECT_TRUE(kickerOf(QStringLiteral("other alternative")).contains(QStringLiteral("Another fix")));
}

TEST(SmallFrictionsTest, PresentationUsesTheRoomsScreenAndThePictureFillsTheSlide) {
    EXPECT_EQ(presentationScreenIndex(0, 1), 0);
    EXPECT_EQ(presentationScreenIndex(0, 2), 1);  // laptop first: the projector presents
    EXPECT_EQ(presentationScreenIndex(1, 2), 0);
    EXPECT_EQ(presentationScreenIndex(2, 3), 0);

    testutils::guiApp();
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        PresenterView view;
        QSize asked;
        view.setEvidenceRenderer([&asked](core::TimeRange, QSize s) {
            asked = s;
            QPixmap p(s);
            p.fill(Qt::darkCyan);
            return p;
        });
        std::vector<ReviewSlide> slides;
        slides.push_back({QStringLiteral("1 / 1 · Evidence"), QStringLiteral("Where it shows"),
                          QStringLiteral("<p>One line of text.</p>"), core::TimeRange{0, 1'000'000}});
        view.resize(size);
        view.show();
        view.setSlides(slides);
        QCoreApplication::processEvents();
        ASSERT_FALSE(view.evidencePicture().isNull());
        // The picture takes the height the text leaves: well over half the slide, full width.
        EXPECT_GT(asked.height(), size.height() / 2) << size.width();
        EXPECT_GT(asked.width(), size.width() * 8 / 10) << size.width();
        const QImage image = view.grab().toImage();
        testutils::saveIfRequested(image, QStringLiteral("presenter-%1").arg(size.width()));
    }
}

}  // namespace
}  // namespace chokepoint::ui
