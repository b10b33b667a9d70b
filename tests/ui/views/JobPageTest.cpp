// The job window's widgets over JobReport fixtures (8, 64 and 1,024 ranks, a straggler, missing
// ranks): the heatmap's cells and rows, the straggler panel, the collectives model, the multi-rank
// timeline's instance selection, the page rendered at 1280x800 and 1920x1080, and a rank opened in
// its own window.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QPointer>
#include <QProcess>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "core/job/SummaryFile.h"
#include "tests/core/job/KinetoJobWriter.h"
#include "tests/ui/JobReportFixture.h"
#include "tests/ui/PageTestSupport.h"
#include "ui/base/models/ModelRoles.h"
#include "ui/shell/JobWindow.h"
#include "ui/shell/MainWindow.h"
#include "ui/views/job/CollectivesTableModel.h"
#include "ui/views/job/JobDocument.h"
#include "ui/views/job/JobPage.h"
#include "ui/views/job/JobRankMenu.h"
#include "ui/views/job/JobTimelineWidget.h"
#include "ui/views/job/RankStepHeatmap.h"
#include "ui/views/job/StragglerPanel.h"

namespace chokepoint::ui {
namespace {

using testutils::JobFixtureSpec;
using testutils::makeJobReport;

std::shared_ptr<const job::JobReport> eightRanks() {
    JobFixtureSpec spec;
    spec.worldSize = 8;
    spec.missing = {6};
    return makeJobReport(spec);
}

TEST(JobDocumentTest, IndexesRanksInstancesAndTheMedianRank) {
    testutils::guiApp();
    JobDocument document;
    QSignalSpy available(&document, &JobDocument::reportAvailable);
    const auto report = eightRanks();
    document.setReport(report, QStringLiteral("fixture"));
    EXPECT_EQ(available.count(), 1);
    ASSERT_EQ(report->ranks.size(), 7u);
    EXPECT_EQ(document.indexOfRank(0), 0);
    EXPECT_EQ(document.indexOfRank(7), 6);
    EXPECT_EQ(document.indexOfRank(6), -1);  // missing
    EXPECT_EQ(document.indexOfRank(99), -1);
    // Every rank's collective of step s is instance s, despite each rank's own clock offset.
    for (int i = 0; i < 7; ++i) {
        for (int s = 0; s < 6; ++s) {
            EXPECT_EQ(document.instanceOf(i, s), s) << "rank index " << i << " collective " << s;
        }
    }
    EXPECT_EQ(document.instanceOf(7, 0), -1);
    // Mean steps: rank 5 (the straggler) 100 ms, the others 100 ms minus 0, 1 or 2 us: the lower
    // median of the sorted means is one of the 99.999 ms ranks.
    const int median = document.medianRank();
    ASSERT_GE(median, 0);
    EXPECT_EQ(report->ranks[static_cast<std::size_t>(document.indexOfRank(median))].meanStepNs, 99'999'000);

    QSignalSpy selected(&document, &JobDocument::instanceSelected);
    document.selectInstance(3);
    document.selectInstance(3);
    document.selectInstance(99);  // out of range clears
    EXPECT_EQ(selected.count(), 2);
    EXPECT_EQ(document.selectedInstance(), -1);
}

TEST(RankStepHeatmapTest, CellsComeFromTheReportAndMissingRanksGetARow) {
    const auto report = eightRanks();
    HeatmapData steps = buildHeatmapData(*report, HeatmapMetric::StepTime);
    ASSERT_EQ(steps.rows(), 8);  // 7 loaded + rank 6 missing
    ASSERT_EQ(steps.columns(), 6);
    EXPECT_EQ(steps.rowRank[6], 6);
    EXPECT_TRUE(steps.rowMissing[6]);
    EXPECT_FALSE(steps.rowMissing[5]);
    EXPECT_TRUE(std::isnan(steps.value(6, 0)));
    EXPECT_EQ(steps.colStep[0], 100);
    EXPECT_DOUBLE_EQ(steps.value(5, 2), 100'000'000.0);
    EXPECT_DOUBLE_EQ(steps.value(1, 2), 99'999'000.0);
    EXPECT_DOUBLE_EQ(steps.lowNs, 99'998'000.0);  // from the fastest cell, not from zero
    // The ranks are within 0.002 % of each other: the scale spans 25 % of the fastest, so their
    // cells all stay at the pale end (issue 23: a 4 % spread ran pale to dark).
    EXPECT_DOUBLE_EQ(steps.highNs, 99'998'000.0 * (1 + kStepTimeMinRelativeSpan));
    EXPECT_LT((steps.value(5, 2) - steps.lowNs) / (steps.highNs - steps.lowNs), 0.01);

    HeatmapData wait = buildHeatmapData(*report, HeatmapMetric::CollectiveWait);
    EXPECT_DOUBLE_EQ(wait.value(5, 0), 0.0);           // the straggler waits for nobody
    EXPECT_DOUBLE_EQ(wait.value(0, 0), 12'000'000.0);  // everybody else waits for it
    EXPECT_DOUBLE_EQ(wait.lowNs, 0.0);

    HeatmapData data = buildHeatmapData(*report, HeatmapMetric::IdleDataWait);
    EXPECT_DOUBLE_EQ(data.value(5, 4), 14'000'000.0);  // read from rank 5's own step #104
    EXPECT_DOUBLE_EQ(data.value(0, 4), 2'000'000.0);
    EXPECT_NE(heatmapMetricName(HeatmapMetric::IdleDataWait), heatmapMetricName(HeatmapMetric::IdleHostWork));

    // Consecutive missing ranks share a row: 12 loaded ranks and two runs of missing ones.
    JobFixtureSpec gaps;
    gaps.worldSize = 16;
    gaps.missing = {3, 4, 5, 9};
    const HeatmapData rows = buildHeatmapData(*makeJobReport(gaps), HeatmapMetric::StepTime);
    ASSERT_EQ(rows.rows(), 14);
    EXPECT_EQ(rows.rowRank[3], 3);
    EXPECT_EQ(rows.rowLastRank[3], 5);
    EXPECT_TRUE(rows.rowMissing[3]);
    EXPECT_EQ(rows.rowRank[4], 6);
    EXPECT_FALSE(rows.rowMissing[4]);
    EXPECT_EQ(rows.rowRank[7], 9);
    EXPECT_EQ(rows.rowLastRank[7], 9);
    EXPECT_DOUBLE_EQ(rows.value(4, 0), 100'000'000.0);  // rank 6's step #100
}

TEST(RankStepHeatmapTest, AThousandRanksScrollWithoutAWidgetPerCell) {
    testutils::guiApp();
    JobFixtureSpec spec;
    spec.worldSize = 1024;
    spec.steps = 4;
    spec.straggler = 1000;
    spec.missing = {17, 18};
    JobDocument document;
    document.setReport(makeJobReport(spec), QStringLiteral("1024"));
    RankStepHeatmap heatmap;
    heatmap.setDocument(&document);
    const QImage image = testutils::renderWidget(heatmap, {600, 400});
    EXPECT_TRUE(heatmap.children().size() < 20u);  // scroll bars and viewport, no cells
    EXPECT_EQ(heatmap.data().rows(), 1023);        // missing ranks 17 and 18 share a row
    EXPECT_EQ(heatmap.rowHeight(), RankStepHeatmap::kMinRowPx);
    EXPECT_GT(heatmap.verticalScrollBar()->maximum(), 1024 * RankStepHeatmap::kMinRowPx - 400);
    EXPECT_GT(testutils::inkFraction(image), 0.2);
    // Selecting the straggler scrolls its row into view, and a click there selects it back.
    heatmap.show();
    QApplication::processEvents();
    document.selectRank(1000);
    const int row = 999;  // rank 1000, one row up for the shared missing row
    ASSERT_EQ(heatmap.data().rowRank[row], 1000);
    const int y = 20 + row * heatmap.rowHeight() - heatmap.verticalScrollBar()->value() + 1;
    EXPECT_EQ(heatmap.rowAt(y), row);
    document.selectRank(-1);
    QTest::mouseClick(heatmap.viewport(), Qt::LeftButton, {}, QPoint(200, y));
    EXPECT_EQ(document.selectedRank(), 1000);
    testutils::saveIfRequested(testutils::renderWidget(heatmap, {600, 400}),
                               QStringLiteral("job-heatmap-1024"));
}

TEST(CollectivesTableModelTest, PassesTheModelTesterAndSortsRawValues) {
    testutils::guiApp();
    CollectivesTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setReport(eightRanks());
    ASSERT_EQ(model.rowCount(), 2);
    EXPECT_EQ(model.columnCount(), CollectivesTableModel::NumColumns);
    EXPECT_EQ(model.data(model.index(0, CollectivesTableModel::KindColumn)).toString(),
              QStringLiteral("AllReduce"));
    EXPECT_EQ(model.data(model.index(0, CollectivesTableModel::SizeColumn), SortRole).toLongLong(),
              64LL << 20);
    EXPECT_EQ(model.data(model.index(0, CollectivesTableModel::SkewP95Column), SortRole).toLongLong(),
              12'000'000);
    EXPECT_FALSE(model.data(model.index(0, CollectivesTableModel::BusBandwidthColumn)).toString().isEmpty());
    // 12 GB/s of a 450 GB/s link: below the analysis's low-bandwidth share, drawn in red.
    EXPECT_TRUE(
        model.data(model.index(1, CollectivesTableModel::LinkShareColumn), Qt::ForegroundRole).isValid());
    EXPECT_NEAR(model.data(model.index(1, CollectivesTableModel::LinkShareColumn), SortRole).toDouble(),
                12.0 / 450.0, 1e-9);
    model.setReport(nullptr);
    EXPECT_EQ(model.rowCount(), 0);
}

TEST(StragglerPanelTest, ShowsTheCauseEvidenceAndActions) {
    testutils::guiApp();
    JobDocument document;
    StragglerPanel panel;
    panel.setDocument(&document);
    document.setReport(eightRanks(), QStringLiteral("fixture"));
    EXPECT_EQ(panel.currentStraggler(), 0);
    const QString text = panel.text();
    EXPECT_TRUE(text.contains(QStringLiteral("Rank 5"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QString::fromUtf8(job::describe(job::StragglerCause::DataWait).data())));
    EXPECT_TRUE(text.contains(QStringLiteral("DataLoader.__next__")));
    EXPECT_TRUE(text.contains(QStringLiteral("#105")));
    EXPECT_EQ(document.selectedRank(), 5);
    // The files do not exist: nothing to open, and the buttons say why.
    EXPECT_FALSE(panel.openRankButton()->isEnabled());
    EXPECT_FALSE(panel.openRankButton()->toolTip().isEmpty());
    QSignalSpy shown(&document, &JobDocument::requestShowRange);
    panel.showMeButton()->click();
    ASSERT_EQ(shown.count(), 1);
    EXPECT_EQ(shown.first().at(1).toInt(), 5);
    // The show range ends with rank 5's arrival at step #105's all-reduce: instance 5 is linked.
    EXPECT_EQ(document.selectedInstance(), 5);

    JobFixtureSpec calm;
    calm.straggler = -1;
    document.setReport(makeJobReport(calm), QStringLiteral("calm"));
    EXPECT_EQ(panel.currentStraggler(), -1);
    EXPECT_TRUE(panel.text().contains(QStringLiteral("No straggler")));
    EXPECT_FALSE(panel.showMeButton()->isEnabled());
}

TEST(JobTimelineWidgetTest, ClickingACollectiveSelectsItsInstanceAcrossRanks) {
    testutils::guiApp();
    JobDocument document;
    document.setReport(eightRanks(), QStringLiteral("fixture"));
    JobTimelineWidget timeline;
    timeline.setDocument(&document);
    timeline.resize(1000, 400);
    timeline.show();
    QApplication::processEvents();
    // The job clock spans the ranks' windows with their offsets removed: 6 steps of 100 ms from 0.
    EXPECT_EQ(timeline.fullRange().startNs, 0);
    EXPECT_EQ(timeline.fullRange().endNs, 600'000'000);
    timeline.setVisibleRange({200'000'000, 300'000'000});
    // Rank 0's all-reduce of step 2 (instance 2) starts at 260 ms and lasts to 292 ms.
    const int x = static_cast<int>(timeline.xOf(275'000'000));
    const int y = timeline.laneTop(0) + timeline.laneHeight() / 2;
    const auto [lane, collective] = timeline.collectiveAt({x, y});
    EXPECT_EQ(lane, 0);
    EXPECT_EQ(collective, 2);
    QTest::mouseClick(&timeline, Qt::LeftButton, {}, QPoint(x, y));
    EXPECT_EQ(document.selectedInstance(), 2);
    EXPECT_EQ(document.selectedRank(), 0);
    // Clicking empty time clears the instance.
    const int empty = static_cast<int>(timeline.xOf(210'000'000));
    QTest::mouseClick(&timeline, Qt::LeftButton, {}, QPoint(empty, y));
    EXPECT_EQ(document.selectedInstance(), -1);
    document.selectInstance(2);
    const QImage image = testutils::renderWidget(timeline, {1000, 400});
    testutils::saveIfRequested(image, QStringLiteral("job-timeline-instance"));
    // The last arriver's marker is red: some pixels of that colour are drawn.
    int red = 0;
    for (int py = 0; py < image.height(); ++py) {
        for (int px = 0; px < image.width(); ++px) {
            const QColor c = image.pixelColor(px, py);
            red += c.red() > 180 && c.green() < 80 && c.blue() < 80 ? 1 : 0;
        }
    }
    EXPECT_GT(red, 20);
    // Esc clears the linked instance.
    QTest::keyClick(&timeline, Qt::Key_Escape);
    EXPECT_EQ(document.selectedInstance(), -1);
    // "Show me": the range and the lane come into view.
    timeline.showRange({500'000'000, 572'000'000}, 5);
    EXPECT_LT(timeline.visibleRange().startNs, 500'000'000);
    EXPECT_GT(timeline.visibleRange().endNs, 572'000'000);
}

TEST(JobTimelineWidgetTest, SixtyFourRanksScrollTheirLanes) {
    testutils::guiApp();
    JobFixtureSpec spec;
    spec.worldSize = 64;
    spec.straggler = 41;
    JobDocument document;
    document.setReport(makeJobReport(spec), QStringLiteral("64"));
    JobTimelineWidget timeline;
    timeline.setDocument(&document);
    const QImage image = testutils::renderWidget(timeline, {900, 300});
    EXPECT_EQ(timeline.laneHeight(), JobTimelineWidget::kMinLanePx);
    EXPECT_GT(testutils::inkFraction(image), 0.2);
    timeline.showRange({}, 41);
    const int top = timeline.laneTop(41);
    EXPECT_GE(top, 0);
    EXPECT_LE(top, 300);
    EXPECT_EQ(timeline.laneAt(top + 2), 41);
}

void checkPageRender(const std::shared_ptr<const job::JobReport>& report, QSize size, const QString& name) {
    JobDocument document;
    JobPage page;
    page.setDocument(&document);
    document.setReport(report, name);
    const QImage image = testutils::renderWidget(page, size);
    testutils::saveIfRequested(image, name);
    EXPECT_GT(testutils::distinctColours(image), 40) << name.toStdString();
    EXPECT_GT(testutils::inkFraction(image), 0.15) << name.toStdString();
    // Every part has room at this size.
    EXPECT_GE(page.heatmap()->height(), 120) << name.toStdString();
    EXPECT_GE(page.timeline()->height(), 120) << name.toStdString();
    EXPECT_GE(page.stragglerPanel()->width(), 250) << name.toStdString();
}

TEST(JobPageTest, RendersAtLaptopAndDesktopSizes) {
    testutils::guiApp();
    JobFixtureSpec spec;
    spec.worldSize = 64;
    spec.straggler = 41;
    spec.missing = {60, 61, 62, 63};
    const auto big = makeJobReport(spec);
    checkPageRender(eightRanks(), {1280, 800}, QStringLiteral("job-page-8-1280x800"));
    checkPageRender(eightRanks(), {1920, 1080}, QStringLiteral("job-page-8-1920x1080"));
    checkPageRender(big, {1280, 800}, QStringLiteral("job-page-64-1280x800"));
    checkPageRender(big, {1920, 1080}, QStringLiteral("job-page-64-1920x1080"));
}

TEST(JobPageTest, HeaderNamesTheVerdictMissingRanksAndProblems) {
    testutils::guiApp();
    JobFixtureSpec spec;
    spec.worldSize = 64;
    spec.straggler = 41;
    spec.missing = {60, 61, 62, 63};
    JobDocument document;
    JobPage page;
    page.setDocument(&document);
    EXPECT_TRUE(page.headerText().contains(QStringLiteral("No job open")));
    document.setReport(makeJobReport(spec), QStringLiteral("64"));
    const QString header = page.headerText();
    EXPECT_TRUE(header.contains(QStringLiteral("Rank 41 makes the job wait"))) << header.toStdString();
    EXPECT_TRUE(header.contains(QStringLiteral("60 of 64 ranks")));
    EXPECT_TRUE(header.contains(QStringLiteral("60–63")));
    EXPECT_TRUE(header.contains(QStringLiteral("truncated gzip stream")));
    EXPECT_TRUE(page.verdictText().contains(QStringLiteral("input pipeline more workers")));
    // With a straggler the heatmap opens on the collective wait; the selector switches the figure.
    EXPECT_EQ(page.heatmap()->metric(), HeatmapMetric::CollectiveWait);
    page.metricSelector()->setCurrentIndex(static_cast<int>(HeatmapMetric::IdleDataWait));
    EXPECT_EQ(page.heatmap()->metric(), HeatmapMetric::IdleDataWait);
    EXPECT_DOUBLE_EQ(page.heatmap()->data().value(41, 0), 14'000'000.0);
    // A palette change repaints the page and keeps the chosen figure; a new report opens afresh.
    QPalette dark = page.palette();
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    page.setPalette(dark);
    EXPECT_EQ(page.heatmap()->metric(), HeatmapMetric::IdleDataWait);
    document.setReport(makeJobReport(spec), QStringLiteral("64 again"));
    EXPECT_EQ(page.heatmap()->metric(), HeatmapMetric::CollectiveWait);
    // "Show me" brings the timeline tab forward.
    page.tabs()->setCurrentIndex(1);
    page.stragglerPanel()->showMeButton()->click();
    EXPECT_EQ(page.tabs()->currentWidget(), page.timeline());
}

TEST(JobWindowTest, OpensARankInItsOwnWindowAndSaysWhenItCannot) {
    testutils::isolateSettings();
    JobWindow window;
    window.setInteractive(false);
    JobFixtureSpec spec;
    spec.worldSize = 4;
    spec.straggler = 2;
    spec.pathPrefix = std::string(CHOKEPOINT_SHARED_TRACES_DIR) + "/hta-sampled-128r/sampled_rank-";
    spec.pathSuffix = ".json.gz";
    auto report = makeJobReport(spec);
    // Rank 3 came from a summary file (it starts with the .cpsum magic).
    QTemporaryDir dir;
    const QString summaryPath = dir.filePath(QStringLiteral("rank-3.cpsum"));
    {
        QFile summary(summaryPath);
        ASSERT_TRUE(summary.open(QIODevice::WriteOnly));
        summary.write(job::kSummaryMagic, sizeof(job::kSummaryMagic));
    }
    std::const_pointer_cast<job::RankSummary>(report->ranks[3].summary)->sourcePath =
        summaryPath.toStdString();
    const core::DurationNs means[] = {99'900'000, 99'800'000, 110'000'000, 100'000'000};
    for (std::size_t i = 0; i < 4; ++i) {
        report->ranks[i].meanStepNs = means[i];
    }
    window.document()->setReport(report, QStringLiteral("fixture"));
    if (!QFileInfo::exists(QString::fromStdString(report->ranks[0].summary->sourcePath))) {
        GTEST_SKIP() << "shared traces not available";
    }
    EXPECT_FALSE(window.document()->rankHasFullTrace(3));
    // The rank menus of the heatmap and the timeline: what can be done with each rank.
    auto menuState = [&](int rank) {
        QMenu menu;
        fillRankMenu(menu, *window.document(), rank);
        const QList<QAction*> actions = menu.actions();
        return std::pair{actions.at(0)->isEnabled(), actions.at(1)->isEnabled()};
    };
    EXPECT_EQ(menuState(1), std::pair(true, true));
    EXPECT_EQ(menuState(0), std::pair(true, false));   // the median rank
    EXPECT_EQ(menuState(3), std::pair(false, false));  // a summary
    EXPECT_EQ(window.openRankWindow(3), nullptr);
    EXPECT_EQ(window.openRankWindow(9), nullptr);
    MainWindow* rankWindow = window.openRankWindow(0);
    ASSERT_NE(rankWindow, nullptr);
    EXPECT_EQ(rankWindow->document()->filePath(),
              QFileInfo(QString::fromStdString(report->ranks[0].summary->sourcePath)).absoluteFilePath());
    QPointer<MainWindow> closed = rankWindow;
    rankWindow->close();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    EXPECT_TRUE(closed.isNull());
    // Rank 1 with the median rank: rank 0 (mean steps 99.8, 99.9, 110 and 100 ms for ranks 1, 0, 2, 3).
    EXPECT_EQ(window.document()->medianRank(), 0);
    MainWindow* compared = window.compareWithMedianRank(1);
    ASSERT_NE(compared, nullptr);
    EXPECT_EQ(compared->document()->filePath(),
              QFileInfo(QString::fromStdString(report->ranks[1].summary->sourcePath)).absoluteFilePath());
    EXPECT_EQ(compared->currentPageId(), QStringLiteral("compare"));
    compared->close();
    EXPECT_EQ(window.compareWithMedianRank(0), nullptr);  // it is the median rank
    // The closed windows delete themselves: their documents stop their workers before the test ends.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

// The real loader, on a folder of Kineto traces written for the test: rank 2 waits 8 ms longer for
// its data every step.
TEST(JobDocumentTest, OpensAFolderOfRankTracesOffTheGuiThread) {
    testutils::guiApp();
    QTemporaryDir dir;
    testjob::KinetoJobOptions options;
    options.ranks = 4;
    options.steps = 4;
    options.lateRank = 2;
    options.lateDataUs = 8000;
    testjob::writeKinetoJob(options, dir.path().toStdString());
    JobDocument document;
    JobPage page;
    page.setDocument(&document);
    QSignalSpy progress(&document, &JobDocument::progress);
    QSignalSpy available(&document, &JobDocument::reportAvailable);
    QSignalSpy failed(&document, &JobDocument::loadFailed);
    document.open({dir.path()});
    EXPECT_TRUE(document.busy());
    ASSERT_TRUE(available.wait(60'000))
        << (failed.isEmpty() ? "" : failed.first().first().toString().toStdString());
    EXPECT_FALSE(document.busy());
    ASSERT_FALSE(progress.isEmpty());
    EXPECT_EQ(progress.last().at(0).toInt(), 4);
    EXPECT_EQ(progress.last().at(1).toInt(), 4);
    const auto report = document.report();
    ASSERT_NE(report, nullptr);
    ASSERT_EQ(report->ranks.size(), 4u);
    ASSERT_FALSE(report->stragglers.empty());
    EXPECT_EQ(report->stragglers.front().rank, 2);
    EXPECT_TRUE(document.rankHasFullTrace(2));
    // The page shows it: the straggler panel names rank 2, every rank's collectives are matched.
    EXPECT_TRUE(page.stragglerPanel()->text().contains(QStringLiteral("Rank 2")))
        << page.stragglerPanel()->text().toStdString();
    for (int i = 0; i < 4; ++i) {
        EXPECT_GE(document.instanceOf(i, 0), 0) << "rank index " << i;
    }
    testutils::saveIfRequested(testutils::renderWidget(page, {1280, 800}),
                               QStringLiteral("job-page-kineto-folder"));
    // "Show me": the timeline shows the straggler's late segment; then one all-reduce is selected.
    page.stragglerPanel()->showMeButton()->click();
    const core::TimeRange shown = report->stragglers.front().showRange;
    ASSERT_FALSE(shown.empty());
    EXPECT_LE(page.timeline()->visibleRange().startNs, shown.startNs);
    EXPECT_GE(page.timeline()->visibleRange().endNs, shown.endNs);
    // ... and selects the collective the segment leads to, where rank 2 arrived last.
    ASSERT_GE(document.selectedInstance(), 0);
    EXPECT_EQ(report->collectives[static_cast<std::size_t>(document.selectedInstance())].lastRank, 2);
    testutils::saveIfRequested(testutils::renderWidget(page, {1280, 800}),
                               QStringLiteral("job-page-kineto-showme"));
    // The other tabs: one row per collective kind and size; the verdict with its fixes.
    EXPECT_EQ(page.collectivesModel()->rowCount(), static_cast<int>(report->collectiveStats.size()));
    page.tabs()->setCurrentWidget(page.collectivesView());
    testutils::saveIfRequested(testutils::renderWidget(page, {1280, 800}),
                               QStringLiteral("job-page-kineto-collectives"));
    page.tabs()->setCurrentIndex(2);
    ASSERT_FALSE(report->verdict.fixes.empty());
    EXPECT_TRUE(page.verdictText().contains(
        QString::fromStdString(report->verdict.fixes.front().title).toHtmlEscaped()));
    testutils::saveIfRequested(testutils::renderWidget(page, {1280, 800}),
                               QStringLiteral("job-page-kineto-verdict"));
}

TEST(JobDocumentTest, CancelStopsTheLoad) {
    testutils::guiApp();
    QTemporaryDir dir;
    testjob::KinetoJobOptions options;
    options.ranks = 4;
    testjob::writeKinetoJob(options, dir.path().toStdString());
    JobDocument document;
    QSignalSpy cancelled(&document, &JobDocument::cancelled);
    QSignalSpy available(&document, &JobDocument::reportAvailable);
    document.open({dir.path()});
    document.cancel();
    ASSERT_TRUE(cancelled.wait(30'000));
    EXPECT_EQ(available.count(), 0);
    EXPECT_FALSE(document.busy());
    EXPECT_EQ(document.report(), nullptr);
}

TEST(JobDocumentTest, AMissingFolderFailsNamingIt) {
    testutils::guiApp();
    JobDocument document;
    QSignalSpy failed(&document, &JobDocument::loadFailed);
    document.open({QStringLiteral("/nonexistent/job-folder")});
    ASSERT_TRUE(failed.wait(30'000));
    EXPECT_TRUE(failed.first().first().toString().contains(QStringLiteral("/nonexistent/job-folder")));
    EXPECT_EQ(document.report(), nullptr);
}

// The executable: several files or a folder with --page job render the job window.
TEST(JobScreenshotTest, RendersAJobFolderHeadless) {
    testutils::guiApp();
    QTemporaryDir dir;
    testjob::KinetoJobOptions options;
    options.ranks = 8;
    options.steps = 4;
    options.lateRank = 5;
    options.lateDataUs = 6000;
    testjob::writeKinetoJob(options, dir.path().toStdString());
    const QString exe = QStringLiteral(CHOKEPOINT_BINARY_DIR "/bin/chokepoint");
    const QString out = dir.filePath(QStringLiteral("job.png"));
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    process.setProcessEnvironment(env);
    process.start(exe, {QStringLiteral("--screenshot"), out, QStringLiteral("--page"), QStringLiteral("job"),
                        QStringLiteral("--size"), QStringLiteral("1280x800"), dir.path()});
    ASSERT_TRUE(process.waitForFinished(90'000));
    EXPECT_EQ(process.exitCode(), 0) << process.readAllStandardError().toStdString();
    const QImage image(out);
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.size(), QSize(1280, 800));
    EXPECT_GT(testutils::distinctColours(image), 40);
    testutils::saveIfRequested(image, QStringLiteral("job-screenshot-8-ranks"));

    // A folder that does not exist: exit 1 and a message naming it.
    process.start(exe, {QStringLiteral("--screenshot"), out, QStringLiteral("--page"), QStringLiteral("job"),
                        QStringLiteral("/nonexistent/job-folder")});
    ASSERT_TRUE(process.waitForFinished(60'000));
    EXPECT_EQ(process.exitCode(), 1);
    EXPECT_TRUE(process.readAllStandardError().contains("/nonexistent/job-folder"));
}

TEST(JobWindowTest, TheFileMenuOpensJobs) {
    testutils::isolateSettings();
    MainWindow window;
    QStringList texts;
    for (QAction* action : window.menu(MainWindow::MenuId::File)->actions()) {
        texts << action->text();
    }
    EXPECT_TRUE(texts.contains(QStringLiteral("Open &Job…")))
        << texts.join(QStringLiteral(", ")).toStdString();
    EXPECT_TRUE(texts.contains(QStringLiteral("Open Job &Folder…")));
}

}  // namespace
}  // namespace chokepoint::ui
