// Review mode: the presenter steps through the findings with the keyboard, and bookmarks are saved
// beside the trace and reloaded; an unreadable sidecar is reported and never overwritten.
#include <gtest/gtest.h>

#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "core/review/ReviewSidecar.h"
#include "tests/ui/PageReportFixture.h"
#include "tests/ui/PageTestSupport.h"
#include "ui/base/document/TraceDocument.h"
#include "ui/base/models/BookmarksModel.h"
#include "ui/views/pages/ReviewPage.h"
#include "ui/views/review/PresenterView.h"

namespace chokepoint::ui {
namespace {

class ReviewModeTest : public ::testing::Test {
protected:
    void SetUp() override {
        testutils::guiApp();
        m_report = testutils::buildDataBoundReport();
        ASSERT_NE(m_report, nullptr);
        ASSERT_TRUE(m_dir.isValid());
        m_trace = m_dir.filePath("run.pt.trace.json");
        QFile f(m_trace);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("{\"traceEvents\": []}");  // stands in for the trace file; the report is built in memory
    }
    std::shared_ptr<const analysis::AnalysisReport> m_report;
    QTemporaryDir m_dir;
    QString m_trace;
};

TEST_F(ReviewModeTest, SlidesFollowTheFindingsOrder) {
    const auto slides = buildReviewSlides(*m_report, {}, m_report->model->timeSpan().startNs);
    ASSERT_GE(slides.size(), 4u);
    EXPECT_EQ(slides[0].title, QString::fromStdString(m_report->headline));
    EXPECT_TRUE(slides[1].kicker.contains("dominant bottleneck"));
    EXPECT_TRUE(slides[2].kicker.contains("Evidence"));
    EXPECT_FALSE(slides[2].evidence.empty());
    EXPECT_EQ(slides[3].title, QString::fromStdString(m_report->fixes.recommendations.front().title));
    EXPECT_TRUE(slides[3].bodyHtml.contains("Expected gain"));
}

TEST_F(ReviewModeTest, PresenterKeysStepForwardAndBack) {
    TraceDocument document;
    ReviewPage page;
    page.setDocument(&document);
    page.setTrace(m_trace, m_report, m_report->model);
    PresenterView* presenter = page.startPresentation(false);
    ASSERT_NE(presenter, nullptr);
    const int n = presenter->slideCount();
    ASSERT_GE(n, 4);
    EXPECT_EQ(presenter->currentSlide(), 0);
    QSignalSpy shown(&document, &TraceDocument::requestShowRange);

    QTest::keyClick(presenter, Qt::Key_Right);
    EXPECT_EQ(presenter->currentSlide(), 1);
    QTest::keyClick(presenter, Qt::Key_Space);
    EXPECT_EQ(presenter->currentSlide(), 2);
    EXPECT_EQ(shown.count(), 1) << "the evidence slide moves the timeline";
    QTest::keyClick(presenter, Qt::Key_PageDown);
    EXPECT_EQ(presenter->currentSlide(), 3);
    QTest::keyClick(presenter, Qt::Key_Left);
    EXPECT_EQ(presenter->currentSlide(), 2);
    QTest::keyClick(presenter, Qt::Key_PageUp);
    EXPECT_EQ(presenter->currentSlide(), 1);
    QTest::keyClick(presenter, Qt::Key_End);
    EXPECT_EQ(presenter->currentSlide(), n - 1);
    QTest::keyClick(presenter, Qt::Key_Right);  // stays on the last slide
    EXPECT_EQ(presenter->currentSlide(), n - 1);
    QTest::keyClick(presenter, Qt::Key_Home);
    EXPECT_EQ(presenter->currentSlide(), 0);

    for (QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
        const QImage image = testutils::renderWidget(*presenter, size);
        testutils::saveIfRequested(image, QStringLiteral("presenter-%1").arg(size.width()));
        EXPECT_GT(testutils::inkFraction(image), 0.01);
    }
    QSignalSpy closed(presenter, &PresenterView::closeRequested);
    QTest::keyClick(presenter, Qt::Key_Escape);
    EXPECT_EQ(closed.count(), 1);
    EXPECT_FALSE(presenter->isVisible());
}

TEST_F(ReviewModeTest, EvidenceSlidesCarryAPictureOfTheTimeline) {
    // While presenting, the room sees the presenter, not the main window: the evidence slide must
    // carry the timeline itself.
    ReviewPage page;
    page.setTrace(m_trace, m_report, m_report->model);
    PresenterView* presenter = page.startPresentation(false);
    ASSERT_NE(presenter, nullptr);
    EXPECT_TRUE(presenter->evidencePicture().isNull()) << "the overview slide has no picture";
    presenter->goTo(2);
    ASSERT_FALSE(presenter->slide(2)->evidence.empty());
    const QPixmap picture = presenter->evidencePicture();
    ASSERT_FALSE(picture.isNull());
    EXPECT_GE(picture.width(), 400);
    EXPECT_GE(picture.height(), 100);
    const QImage image = picture.toImage();
    testutils::saveIfRequested(image, QStringLiteral("presenter-evidence"));
    EXPECT_GT(testutils::distinctColours(image), 8);
    EXPECT_GT(testutils::inkFraction(image), 0.05);
    // The picture follows the window's size.
    const QImage slide = testutils::renderWidget(*presenter, {1920, 1080});
    testutils::saveIfRequested(slide, QStringLiteral("presenter-evidence-slide"));
    EXPECT_GT(presenter->evidencePicture().width(), picture.width());
    // Few tracks are drawn larger so that the timeline fills the slide below the text.
    EXPECT_GT(presenter->evidencePicture().height(), 1080 / 2);
    presenter->goTo(0);
    EXPECT_TRUE(presenter->evidencePicture().isNull());
    presenter->close();
}

TEST_F(ReviewModeTest, BookmarksAreSavedBesideTheTraceAndReloaded) {
    const std::string sidecar = core::reviewSidecarPath(m_trace.toStdString());
    {
        TraceDocument document;
        ReviewPage page;
        page.setDocument(&document);
        page.setTrace(m_trace, m_report, m_report->model);
        // Another page shows a range: "Add bookmark" now marks it.
        document.showRange(m_report->steps[1].range, "step 2");
        ASSERT_NE(page.bookmarkCurrentFocus("Input stall", "DataLoader blocks for 4 ms"), 0u);
        // And a kernel selected elsewhere.
        document.selectKernel(core::KernelId{0});
        ASSERT_NE(page.bookmarkCurrentFocus("First GEMM", ""), 0u);
        EXPECT_EQ(page.bookmarks()->rowCount(), 2);
        EXPECT_TRUE(page.sidecarStatus().isEmpty()) << page.sidecarStatus().toStdString();
        ASSERT_TRUE(QFile::exists(QString::fromStdString(sidecar)));

        // Edit a note through the table's own editor and delegate.
        auto* table = page.findChild<QTableView*>();
        ASSERT_NE(table, nullptr);
        testutils::renderWidget(page, QSize(1000, 700));
        page.show();
        // The view sorts; find the "Input stall" row through the view's own model.
        QModelIndex noteCell;
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            if (table->model()->index(row, BookmarksModel::TitleColumn).data().toString() == "Input stall") {
                noteCell = table->model()->index(row, BookmarksModel::NoteColumn);
            }
        }
        ASSERT_TRUE(noteCell.isValid());
        table->setCurrentIndex(noteCell);
        table->edit(noteCell);
        auto* editor = table->viewport()->findChild<QLineEdit*>();
        ASSERT_NE(editor, nullptr);
        // Offscreen the editor gets no keyboard focus, so type into it directly and let the view's
        // delegate write it back, as pressing Return would.
        editor->setText("edited in review");
        table->itemDelegateForIndex(noteCell)->setModelData(editor, table->model(), noteCell);
        EXPECT_EQ(noteCell.data().toString(), "edited in review");
        page.hide();
    }
    // Reopen: the bookmarks come back from the sidecar.
    ReviewPage reopened;
    reopened.setTrace(m_trace, m_report, m_report->model);
    ASSERT_EQ(reopened.bookmarks()->rowCount(), 2);
    const auto& notes = reopened.bookmarks()->notes();
    bool sawRange = false, sawKernel = false;
    for (const core::Bookmark& b : notes.bookmarks()) {
        if (b.title == "Input stall") {
            sawRange = true;
            EXPECT_EQ(b.range, m_report->steps[1].range);
            EXPECT_EQ(b.note, "edited in review");
        }
        if (b.title == "First GEMM") {
            sawKernel = true;
            EXPECT_EQ(b.kind, core::BookmarkKind::Kernel);
            EXPECT_EQ(core::resolveKernel(*m_report->model, b).index, 0u);
        }
    }
    EXPECT_TRUE(sawRange);
    EXPECT_TRUE(sawKernel);
    // The presenter shows the bookmarks after the findings.
    PresenterView* presenter = reopened.startPresentation(false);
    ASSERT_NE(presenter, nullptr);
    bool bookmarkSlide = false;
    for (int i = 0; i < presenter->slideCount(); ++i) {
        bookmarkSlide = bookmarkSlide || presenter->slide(i)->title == "Input stall";
    }
    EXPECT_TRUE(bookmarkSlide);
    presenter->hide();
}

TEST_F(ReviewModeTest, BookmarksDefaultToTheTimelineSelection) {
    TraceDocument document;
    ReviewPage page;
    page.setDocument(&document);
    page.setTrace(QString(), m_report, m_report->model);  // in memory: no sidecar
    // The user selects an op on the timeline: "Add bookmark" marks it, named after it.
    const core::TimeRange op{m_report->steps[2].range.startNs + 1000,
                             m_report->steps[2].range.startNs + 5000};
    document.noteSelection(op, QStringLiteral("aten::mm"));
    ASSERT_NE(page.bookmarkCurrentFocus(QString(), QString()), 0u);
    ASSERT_EQ(page.bookmarks()->notes().bookmarks().size(), 1u);
    const core::Bookmark& b = page.bookmarks()->notes().bookmarks().front();
    EXPECT_EQ(b.range, op);
    EXPECT_EQ(b.title, "aten::mm");
    // A title typed by the user wins over the selection's name.
    ASSERT_NE(page.bookmarkCurrentFocus(QStringLiteral("slow matmul"), QString()), 0u);
    EXPECT_EQ(page.bookmarks()->notes().bookmarks().back().title, "slow matmul");
    EXPECT_EQ(page.bookmarks()->notes().bookmarks().back().range, op);
}

TEST_F(ReviewModeTest, CorruptSidecarIsReportedAndNotOverwritten) {
    const QString sidecar = QString::fromStdString(core::reviewSidecarPath(m_trace.toStdString()));
    const QByteArray garbage =
        "{\"format\": \"chokepoint-review\", \"version\": 1, \"bookmarks\": [ {\"id\": ";
    {
        QFile f(sidecar);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(garbage);
    }
    ReviewPage page;
    page.setTrace(m_trace, m_report, m_report->model);
    EXPECT_TRUE(page.sidecarStatus().contains(sidecar)) << page.sidecarStatus().toStdString();
    EXPECT_EQ(page.bookmarks()->rowCount(), 0);
    page.bookmarkCurrentFocus("kept in memory", "");
    EXPECT_EQ(page.bookmarks()->rowCount(), 1);
    QFile f(sidecar);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    EXPECT_EQ(f.readAll(), garbage);
}

}  // namespace
}  // namespace chokepoint::ui
