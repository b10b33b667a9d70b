// Range statistics on the timeline page: Shift+drag, a click on a step and a selected op fill the
// details panel with the range's figures (the ones core computes); the context menu zooms to the
// range, bookmarks it in the review, copies the statistics as text and compares two ranges.
#include <gtest/gtest.h>

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QDialog>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QProcess>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "core/analysis/metrics/RangeStats.h"
#include "core/base/Format.h"
#include "tests/ui/PageTestSupport.h"
#include "tests/ui/UiTestModels.h"
#include "ui/base/document/AnalysisReportQt.h"
#include "ui/base/document/TraceDocument.h"
#include "ui/base/models/BookmarksModel.h"
#include "ui/base/widgets/BookmarkDialog.h"
#include "ui/base/widgets/DetailsPanel.h"
#include "ui/base/widgets/RangeStatsView.h"
#include "ui/views/pages/ReviewPage.h"
#include "ui/views/timeline/RangeActions.h"
#include "ui/views/timeline/TimelinePage.h"
#include "ui/views/timeline/TimelineWidget.h"

namespace chokepoint::ui {
namespace {

struct Fixture {
    bool appReady = (testutils::guiApp(), true);  // before any widget member
    TraceDocument document;
    TimelinePage page;
    ReviewPage review;
    std::shared_ptr<const core::TraceModel> model = testutils::timelineTestModel();

    Fixture() {
        page.resize(1400, 800);
        page.setDocument(&document);
        review.setDocument(&document);
        page.show();
        QSignalSpy done(&document, &TraceDocument::analysisAvailable);
        document.setModel(model, QStringLiteral("test model"));
        for (int i = 0; i < 200 && done.isEmpty(); ++i) {
            QTest::qWait(25);
        }
    }
    TimelineWidget* timeline() const { return page.timeline(); }
    DetailsPanel* details() const { return page.details(); }
    // What core computes for `range` with the document's analysis.
    analysis::RangeStats expected(core::TimeRange range) const {
        const analysis::AnalysisReport& report = *document.report();
        return analysis::computeRangeStats(*model, range,
                                           {&report.metrics.accounting, &report.metrics.kernels});
    }
};

QAction* findAction(QMenu& menu, const QString& prefix) {
    for (QAction* action : menu.actions()) {
        if (action->text().startsWith(prefix)) {
            return action;
        }
    }
    return nullptr;
}

QString cell(const RangeStatsView* view, const QString& row, int column) {
    const QTreeWidgetItem* item = view->findRow(row);
    return item ? item->text(column) : QStringLiteral("<no row %1>").arg(row);
}

TEST(RangeStatisticsTest, ShiftDragShowsTheRangeFigures) {
    Fixture f;
    ASSERT_NE(f.document.report(), nullptr);
    TimelineWidget* t = f.timeline();
    const int y = t->tracksTop() + 20;
    const QPoint from(static_cast<int>(t->xForTime(100'000)), y);
    const QPoint to(static_cast<int>(t->xForTime(1'500'000)), y);
    QTest::mousePress(t, Qt::LeftButton, Qt::ShiftModifier, from);
    QTest::mouseMove(t, QPoint((from.x() + to.x()) / 2, y));
    QTest::mouseMove(t, to);
    QTest::mouseRelease(t, Qt::LeftButton, Qt::ShiftModifier, to);
    const std::optional<core::TimeRange> range = t->rangeSelection();
    ASSERT_TRUE(range.has_value());
    ASSERT_GT(range->durationNs(), 1'000'000);
    QTRY_VERIFY_WITH_TIMEOUT(f.details()->showsRange(), 2000);
    EXPECT_TRUE(f.details()->title().startsWith(QStringLiteral("Range ")))
        << f.details()->title().toStdString();
    const analysis::RangeStats expected = f.expected(*range);
    ASSERT_EQ(expected.devices.size(), 1u);
    const RangeStatsView* view = f.details()->rangeView();
    EXPECT_TRUE(view->isVisible());
    EXPECT_EQ(cell(view, QStringLiteral("Busy"), 2),
              QString::fromStdString(core::formatDuration(expected.devices[0].busyNs)));
    EXPECT_EQ(cell(view, QStringLiteral("Busy"), 4),
              QString::fromStdString(core::formatPercent(expected.devices[0].busyShare)));
    EXPECT_EQ(cell(view, QStringLiteral("Idle"), 2),
              QString::fromStdString(core::formatDuration(expected.devices[0].idleNs)));
    // Kernels by name with their count, collectives, copies and CPU ops.
    const analysis::RangeKernelGroup& top = expected.devices[0].kernels.front();
    EXPECT_EQ(cell(view, QString::fromStdString(top.shortName), 1), QString::number(top.count));
    EXPECT_NE(view->findRow(QStringLiteral("ampere_sgemm_128x64_tn")), nullptr);
    EXPECT_NE(view->findRow(QStringLiteral("Collectives")), nullptr);
    EXPECT_NE(view->findRow(QStringLiteral("aten::linear")), nullptr);
    EXPECT_GT(expected.devices[0].collectiveCount, 0);
    EXPECT_EQ(cell(view, QStringLiteral("Collectives"), 1),
              QString::number(expected.devices[0].collectiveCount));
    // Sorting by count keeps the sections in place.
    const_cast<RangeStatsView*>(view)->sortByColumn(1, Qt::AscendingOrder);
    EXPECT_EQ(view->topLevelItem(0)->text(0), QStringLiteral("Range"));
    EXPECT_EQ(view->topLevelItem(1)->text(0), QStringLiteral("GPU 0"));

    // A click without a drag clears the range; the panel goes back to the hint.
    QTest::mouseClick(t, Qt::LeftButton, Qt::ShiftModifier, from);
    EXPECT_FALSE(t->rangeSelection().has_value());
    QTRY_VERIFY_WITH_TIMEOUT(!f.details()->showsRange(), 2000);
}

TEST(RangeStatisticsTest, ClickingAStepSelectsItsRange) {
    Fixture f;
    TimelineWidget* t = f.timeline();
    ASSERT_FALSE(t->overlays().steps.empty());
    const StepBand& step = t->overlays().steps[1];
    t->showAll();
    const QPoint inStrip(static_cast<int>(t->xForTime(step.range.startNs + step.range.durationNs() / 2)),
                         28 + 9);
    ASSERT_EQ(t->stepAt(inStrip), &step);
    QTest::mouseClick(t, Qt::LeftButton, Qt::NoModifier, inStrip);
    ASSERT_TRUE(t->rangeSelection().has_value());
    EXPECT_EQ(*t->rangeSelection(), step.range);
    QTRY_VERIFY_WITH_TIMEOUT(f.details()->showsRange(), 2000);
    // The step's busy time is the analyzer's for that step.
    const analysis::GpuTimeBreakdown& row = f.document.report()->metrics.accounting.perStep.at(1);
    EXPECT_EQ(cell(f.details()->rangeView(), QStringLiteral("Busy"), 2),
              QString::fromStdString(core::formatDuration(row.busyNs)));
}

TEST(RangeStatisticsTest, ASelectedOpShowsItsFieldsAndItsSpansFigures) {
    Fixture f;
    const std::size_t op = 0;
    ASSERT_EQ(f.model->text(f.model->cpuOps.name[op]), "aten::linear");
    f.timeline()->selectEvent({timeline::EventKind::CpuOp, static_cast<std::uint32_t>(op)});
    EXPECT_GT(f.details()->detailsModel()->rowCount(), 0);
    EXPECT_TRUE(f.details()->showsRange());
    EXPECT_NE(f.details()->rangeView()->findRow(QStringLiteral("ampere_sgemm_128x64_tn")), nullptr);
    // A kernel has no span statistics.
    f.timeline()->selectEvent({timeline::EventKind::Kernel, 0});
    EXPECT_FALSE(f.details()->showsRange());
}

TEST(RangeStatisticsTest, ABookmarkShowsItsRangesFigures) {
    Fixture f;
    core::Bookmark bookmark;
    bookmark.range = {1'000'000, 1'500'000};
    bookmark.title = "second step, first half";
    f.review.addBookmark(bookmark);
    auto* table = f.review.findChild<QTableView*>();
    ASSERT_NE(table, nullptr);
    ASSERT_EQ(table->model()->rowCount(), 1);
    emit table->activated(table->model()->index(0, 0));  // what Enter or a double-click does
    ASSERT_TRUE(f.timeline()->rangeSelection().has_value());
    EXPECT_EQ(*f.timeline()->rangeSelection(), bookmark.range);
    QTRY_VERIFY_WITH_TIMEOUT(f.details()->showsRange(), 2000);
    const analysis::RangeStats expected = f.expected(bookmark.range);
    EXPECT_EQ(cell(f.details()->rangeView(), QStringLiteral("Busy"), 2),
              QString::fromStdString(core::formatDuration(expected.devices.at(0).busyNs)));
}

TEST(RangeStatisticsTest, ContextMenuZoomsCopiesBookmarksAndCompares) {
    Fixture f;
    TimelineWidget* t = f.timeline();
    const core::TimeRange a{0, 900'000};
    const core::TimeRange b{1'000'000, 1'900'000};
    t->setRangeSelection(a);
    QTRY_VERIFY_WITH_TIMEOUT(f.details()->showsRange(), 2000);
    const QPoint somewhere(t->plotLeft() + 10, 5);

    QMenu menu;
    f.page.rangeActions()->fillMenu(menu, somewhere);
    ASSERT_NE(findAction(menu, QStringLiteral("Zoom to range")), nullptr);
    ASSERT_NE(findAction(menu, QStringLiteral("Bookmark range")), nullptr);
    ASSERT_NE(findAction(menu, QStringLiteral("Copy statistics as text")), nullptr);
    ASSERT_NE(findAction(menu, QStringLiteral("Remember as range A")), nullptr);
    EXPECT_EQ(findAction(menu, QStringLiteral("Compare with range A")), nullptr);

    t->showAll();
    findAction(menu, QStringLiteral("Zoom to range"))->trigger();
    EXPECT_LT(t->visibleRange().durationNs(), 1'200'000);
    EXPECT_TRUE(t->visibleRange().intersect(a) == a);

    QApplication::clipboard()->clear();
    findAction(menu, QStringLiteral("Copy statistics as text"))->trigger();
    const QString copied = QApplication::clipboard()->text();
    EXPECT_TRUE(copied.startsWith(QStringLiteral("Range 0.000 ms to 0.900 ms"))) << copied.toStdString();
    EXPECT_TRUE(copied.contains(QStringLiteral("ampere_sgemm_128x64_tn")));
    EXPECT_TRUE(copied.contains(QStringLiteral("Memcpy HtoD")));

    // Bookmark: the dialog asks for a title; the review keeps the bookmark.
    QTimer::singleShot(0, [] {
        auto* dialog = qobject_cast<BookmarkDialog*>(QApplication::activeModalWidget());
        ASSERT_NE(dialog, nullptr);
        dialog->titleEdit()->setText(QStringLiteral("first step"));
        dialog->accept();
    });
    findAction(menu, QStringLiteral("Bookmark range"))->trigger();
    ASSERT_EQ(f.review.bookmarks()->rowCount(), 1);
    EXPECT_EQ(f.review.bookmarks()->bookmarkAt(0).range, a);
    EXPECT_EQ(f.review.bookmarks()->bookmarkAt(0).title, "first step");

    // Compare: remember A, select B, compare.
    findAction(menu, QStringLiteral("Remember as range A"))->trigger();
    ASSERT_EQ(f.page.rangeActions()->rangeA(), a);
    EXPECT_EQ(t->referenceRange(), a);  // range A stays drawn on the timeline
    t->setRangeSelection(b);
    QMenu second;
    f.page.rangeActions()->fillMenu(second, somewhere);
    QAction* compare = findAction(second, QStringLiteral("Compare with range A"));
    ASSERT_NE(compare, nullptr);
    compare->trigger();
    testutils::saveIfRequested(t->grab().toImage(), "range-a-and-b");
    EXPECT_TRUE(f.details()->title().startsWith(QStringLiteral("B "))) << f.details()->title().toStdString();
    const RangeStatsView* view = f.details()->rangeView();
    EXPECT_EQ(view->headerItem()->text(3), QStringLiteral("B − A"));
    const analysis::RangeStats sa = f.expected(a);
    const analysis::RangeStats sb = f.expected(b);
    const QTreeWidgetItem* busy = view->findRow(QStringLiteral("busy"));
    ASSERT_NE(busy, nullptr);
    EXPECT_EQ(busy->text(1), QString::fromStdString(core::formatDuration(sa.devices[0].busyNs)));
    EXPECT_EQ(busy->text(2), QString::fromStdString(core::formatDuration(sb.devices[0].busyNs)));
    findAction(second, QStringLiteral("Copy statistics as text"))->trigger();
    EXPECT_TRUE(QApplication::clipboard()->text().contains(QStringLiteral("B - A")));

    // Another trace: range A belonged to the old one.
    f.document.setModel(testutils::timelineTestModel(), QStringLiteral("another"));
    QTRY_VERIFY_WITH_TIMEOUT(!f.page.rangeActions()->rangeA().has_value(), 5000);
    EXPECT_FALSE(t->referenceRange().has_value());
}

TEST(RangeStatisticsTest, RightClickOpensTheRangeMenu) {
    Fixture f;
    f.timeline()->setRangeSelection(core::TimeRange{0, 900'000});
    QStringList shown;
    QTimer::singleShot(100, [&shown] {
        if (auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())) {
            for (QAction* action : menu->actions()) {
                shown << action->text();
            }
            menu->close();
        }
    });
    const QPoint at(f.timeline()->plotLeft() + 40, f.timeline()->tracksTop() + 5);
    QContextMenuEvent event(QContextMenuEvent::Mouse, at, f.timeline()->mapToGlobal(at));
    QApplication::sendEvent(f.timeline(), &event);
    EXPECT_TRUE(shown.contains(QStringLiteral("Zoom to range")))
        << shown.join(QStringLiteral(", ")).toStdString();
    EXPECT_TRUE(shown.contains(QStringLiteral("Copy statistics as text")));
}

TEST(RangeStatisticsTest, WithoutARangeTheMenuActsOnTheClickedEvent) {
    Fixture f;
    TimelineWidget* t = f.timeline();
    t->setRangeSelection(std::nullopt);
    t->selectEvent({});
    // The first kernel, revealed, then found under the cursor.
    const timeline::EventRef kernel{timeline::EventKind::Kernel, 0};
    t->selectEvent(kernel, true);
    const QRect lane = t->laneRectOf(kernel);
    ASSERT_TRUE(lane.isValid());
    const core::TimeRange times = timeline::eventTimes(*f.model, kernel);
    const QPoint at(static_cast<int>(t->xForTime(times.startNs + times.durationNs() / 2)), lane.center().y());
    ASSERT_EQ(t->eventAt(at), kernel);
    t->selectEvent({});
    QMenu menu;
    f.page.rangeActions()->fillMenu(menu, at);
    EXPECT_EQ(findAction(menu, QStringLiteral("Zoom to range")), nullptr);
    ASSERT_NE(findAction(menu, QStringLiteral("Select ")), nullptr);
    ASSERT_NE(findAction(menu, QStringLiteral("Copy name")), nullptr);
    QAction* span = findAction(menu, QStringLiteral("Statistics of its time span"));
    ASSERT_NE(span, nullptr);
    span->trigger();
    ASSERT_TRUE(t->rangeSelection().has_value());
    EXPECT_EQ(*t->rangeSelection(), times);
    QTRY_VERIFY_WITH_TIMEOUT(f.details()->showsRange(), 2000);
    findAction(menu, QStringLiteral("Copy name"))->trigger();
    EXPECT_EQ(QApplication::clipboard()->text(), QStringLiteral("ampere_sgemm_128x64_tn"));
}

}  // namespace
}  // namespace chokepoint::ui

namespace chokepoint::ui {
namespace {

TEST(RangeStatisticsTest, ScreenshotWithASelectedStep) {
    const QString exe = QStringLiteral(CHOKEPOINT_BINARY_DIR "/bin/chokepoint");
    ASSERT_TRUE(QFile::exists(exe)) << "chokepoint executable not built: " << exe.toStdString();
    const QString trace = QStringLiteral(CHOKEPOINT_SOURCE_DIR "/samples/real/resnet50-nw0.pt.trace.json.gz");
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("step.png"));
    QProcess gui;
    gui.setProcessChannelMode(QProcess::MergedChannels);
    gui.start(exe, {QStringLiteral("--screenshot"), png, QStringLiteral("--page"), QStringLiteral("timeline"),
                    QStringLiteral("--size"), QStringLiteral("1280x800"), QStringLiteral("--select"),
                    QStringLiteral("step:1"), trace});
    ASSERT_TRUE(gui.waitForFinished(60'000));
    EXPECT_EQ(gui.exitCode(), 0) << gui.readAll().toStdString();
    EXPECT_TRUE(QImage(png).size() == QSize(1280, 800));
    QProcess bad;
    bad.setProcessChannelMode(QProcess::MergedChannels);
    bad.start(exe, {QStringLiteral("--screenshot"), dir.filePath(QStringLiteral("bad.png")),
                    QStringLiteral("--page"), QStringLiteral("timeline"), QStringLiteral("--select"),
                    QStringLiteral("5:2"), trace});
    ASSERT_TRUE(bad.waitForFinished(60'000));
    EXPECT_EQ(bad.exitCode(), 2);
    EXPECT_TRUE(bad.readAll().contains("--select wants START:END"));
}

}  // namespace
}  // namespace chokepoint::ui
