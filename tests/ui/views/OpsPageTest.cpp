// The Ops page: its table and tree models under QAbstractItemModelTester, the shared filter, the
// input-shape grouping, the flame graph's zoom and "find on timeline", and renders on real traces.

#include <gtest/gtest.h>

#include <algorithm>

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include "core/import/TraceLoader.h"
#include "tests/testutils/SharedTraces.h"
#include "tests/testutils/TraceBuilder.h"
#include "tests/ui/PageReportFixture.h"
#include "tests/ui/PageTestSupport.h"
#include "ui/base/charts/FlameGraph.h"
#include "ui/base/models/CallTreeModel.h"
#include "ui/base/models/ModelRoles.h"
#include "ui/base/models/OpStatsModel.h"
#include "ui/base/models/TopKernelsModel.h"
#include "ui/shell/MainWindow.h"
#include "ui/views/pages/DiagnosisPage.h"
#include "ui/views/pages/OpsPage.h"
#include "ui/views/timeline/TimelinePage.h"
#include "ui/views/timeline/TimelineWidget.h"

namespace chokepoint::ui {
namespace {

using testutils::TraceBuilder;

// forward (python) > aten::linear > aten::addmm (launches 600 ns), then aten::relu; shapes differ
// between the two addmm calls.
std::shared_ptr<const core::TraceModel> smallModel() {
    TraceBuilder b;
    const core::CpuOpId frame = b.cpuOp("model.py(12): forward", 0, 10'000);
    b.cpuOp("aten::linear", 100, 4'000, 1, "[[4, 8]]");
    b.cpuOp("aten::addmm", 200, 3'000, 1, "[[4, 8], [8, 8]]");
    b.apiCall("cudaLaunchKernel", 300, 310, 1);
    b.kernel("gemm", 20'000, 20'600, 0, 7, 1);
    b.cpuOp("aten::relu", 5'000, 6'000);
    b.cpuOp("aten::addmm", 7'000, 7'500, 1, "[[2, 2], [2, 2]]");
    b.model().cpuOps.category[frame.index] = core::CpuOpCategory::PythonFunction;
    return std::make_shared<const core::TraceModel>(b.build());
}

int rowOf(const QAbstractItemModel& model, const QString& name, const QModelIndex& parent = {}) {
    for (int r = 0; r < model.rowCount(parent); ++r) {
        if (model.index(r, 0, parent).data().toString() == name) {
            return r;
        }
    }
    return -1;
}

TEST(OpsPageTest, ModelsPassTheItemModelTester) {
    testutils::guiApp();
    OpsPage page;
    QAbstractItemModelTester opsTester(page.opsModel(),
                                       QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester topTester(page.topDownModel(),
                                       QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester bottomTester(page.bottomUpModel(),
                                          QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester proxyTester(page.topDownProxy(),
                                         QAbstractItemModelTester::FailureReportingMode::Fatal);
    page.setModel(smallModel());
    page.setFilterText(QStringLiteral("addmm"));
    page.setOptions({true, true});
    page.setFilterText(QString());
    page.setModel(nullptr);
    EXPECT_EQ(page.opsModel()->rowCount(), 0);
    EXPECT_EQ(page.topDownModel()->rowCount(), 0);
}

TEST(OpsPageTest, TableAndTreesShowTheCoreFigures) {
    testutils::guiApp();
    OpsPage page;
    page.setModel(smallModel());
    const OpStatsModel& ops = *page.opsModel();
    ASSERT_EQ(ops.rowCount(), 4);
    const int addmm = rowOf(ops, QStringLiteral("aten::addmm"));
    ASSERT_GE(addmm, 0);
    EXPECT_EQ(ops.index(addmm, OpStatsModel::CallsColumn).data(SortRole).toLongLong(), 2);
    EXPECT_EQ(ops.index(addmm, OpStatsModel::SelfColumn).data(SortRole).toLongLong(), 2'800 + 500);
    EXPECT_EQ(ops.index(addmm, OpStatsModel::GpuColumn).data(SortRole).toLongLong(), 600);
    EXPECT_EQ(ops.index(addmm, OpStatsModel::KindColumn).data().toString(), QStringLiteral("op"));
    EXPECT_EQ(ops.index(addmm, 0).data(TimeRangeStartRole).toLongLong(), 200);  // the longest call

    const CallTreeModel& top = *page.topDownModel();
    ASSERT_EQ(top.rowCount(), 1);
    const QModelIndex forward = top.index(0, 0);
    EXPECT_EQ(forward.data().toString(), QStringLiteral("model.py(12): forward"));
    EXPECT_EQ(top.index(0, CallTreeModel::TotalColumn).data(SortRole).toLongLong(), 10'000);
    EXPECT_EQ(top.index(0, CallTreeModel::SelfColumn).data(SortRole).toLongLong(),
              10'000 - 3'900 - 1'000 - 500);
    EXPECT_EQ(top.index(0, CallTreeModel::GpuColumn).data(SortRole).toLongLong(), 600);
    EXPECT_DOUBLE_EQ(top.index(0, CallTreeModel::ShareColumn).data(SortRole).toDouble(), 1.0);
    EXPECT_EQ(top.rowCount(forward), 3);  // linear, relu, addmm (the second call)
    EXPECT_EQ(top.parent(top.index(0, 0, forward)), forward);

    // Bottom-up: addmm's callers are linear (once) and forward (once).
    const CallTreeModel& bottom = *page.bottomUpModel();
    const int buAddmm = rowOf(bottom, QStringLiteral("aten::addmm"));
    ASSERT_GE(buAddmm, 0);
    const QModelIndex callers = bottom.index(buAddmm, 0);
    EXPECT_EQ(bottom.rowCount(callers), 2);
    EXPECT_GE(rowOf(bottom, QStringLiteral("aten::linear"), callers), 0);

    // Without Python frames the operators are the top level.
    page.setOptions({false, false});
    EXPECT_EQ(page.opsModel()->rowCount(), 3);
    EXPECT_EQ(page.topDownModel()->rowCount(), 3);
}

// A capture with Python stack samples and no CPU ops (the agent's sampler, `run --host-only`): the
// page shows the samples' call tree, threads first, where it used to say there was nothing to show.
TEST(OpsPageTest, SampledStacksFillThePageWhenTheTraceHasNoCpuOps) {
    testutils::guiApp();
    TraceBuilder b;
    for (int i = 0; i < 10; ++i) {
        b.sample(i * 10'000'000, "train.py:main;data.py:load_batch", 1);
        b.sample(i * 10'000'000 + 500, "threading.py:run;tqdm/_monitor.py:monitor", 2);
    }
    b.model().threads[b.model().threadIndex(1, 1)].name = "MainThread";
    auto model = std::make_shared<const core::TraceModel>(b.build());
    OpsPage page;
    QAbstractItemModelTester tester(page.topDownModel(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    page.setModel(model);
    const CallTreeModel& top = *page.topDownModel();
    ASSERT_EQ(top.rowCount(), 2);  // the two threads
    const int mainThread = rowOf(top, QStringLiteral("Thread 1 · MainThread"));
    ASSERT_GE(mainThread, 0);
    const QModelIndex thread = top.index(mainThread, 0);
    EXPECT_EQ(top.index(mainThread, CallTreeModel::CallsColumn).data(SortRole).toLongLong(), 10);
    EXPECT_EQ(top.index(mainThread, CallTreeModel::TotalColumn).data(SortRole).toLongLong(), 100'000'000);
    EXPECT_EQ(top.index(0, 0, thread).data().toString(), QStringLiteral("main  (train.py)"));
    EXPECT_EQ(top.headerData(CallTreeModel::CallsColumn, Qt::Horizontal).toString(),
              QStringLiteral("Samples"));
    EXPECT_FALSE(page.tabs()->isTabVisible(page.tabs()->indexOf(page.opsTable())));
    const QLabel* caption = page.findChild<QLabel*>();
    ASSERT_NE(caption, nullptr);
    EXPECT_TRUE(caption->text().contains(QStringLiteral("20 sampled stacks on 2 threads")))
        << caption->text().toStdString();
    // A trace with CPU ops keeps the ops view.
    page.setModel(smallModel());
    EXPECT_TRUE(page.tabs()->isTabVisible(page.tabs()->indexOf(page.opsTable())));
    EXPECT_EQ(page.topDownModel()->headerData(CallTreeModel::CallsColumn, Qt::Horizontal).toString(),
              QStringLiteral("Calls"));
}

TEST(OpsPageTest, FilterAndShapeGrouping) {
    testutils::guiApp();
    OpsPage page;
    page.setModel(smallModel());
    page.setFilterText(QStringLiteral("ADDMM"));
    EXPECT_EQ(page.opsProxy()->rowCount(), 1);
    // The tree keeps the matches' ancestors: forward > linear > addmm and forward > addmm.
    ASSERT_EQ(page.topDownProxy()->rowCount(), 1);
    const QModelIndex forward = page.topDownProxy()->index(0, 0);
    EXPECT_EQ(page.topDownProxy()->rowCount(forward), 2);
    page.setFilterText(QString());
    EXPECT_EQ(page.opsProxy()->rowCount(), 4);

    EXPECT_TRUE(page.opsTable()->isColumnHidden(OpStatsModel::ShapesColumn));
    page.setOptions({true, true});
    EXPECT_FALSE(page.opsTable()->isColumnHidden(OpStatsModel::ShapesColumn));
    EXPECT_EQ(page.opsModel()->rowCount(), 5);  // two addmm shapes
    bool sawShape = false;
    for (int r = 0; r < page.opsModel()->rowCount(); ++r) {
        sawShape |= page.opsModel()->index(r, OpStatsModel::ShapesColumn).data().toString() ==
                    QStringLiteral("[[2, 2], [2, 2]]");
    }
    EXPECT_TRUE(sawShape);
    // Sorting by a duration column sorts numbers, not text.
    page.opsProxy()->sort(OpStatsModel::TotalColumn, Qt::DescendingOrder);
    EXPECT_EQ(page.opsProxy()->index(0, 0).data().toString(), QStringLiteral("model.py(12): forward"));
}

TEST(OpsPageTest, FlameGraphZoomsAndFindsOnTheTimeline) {
    testutils::guiApp();
    OpsPage page;
    const auto model = smallModel();
    page.setModel(model);
    page.tabs()->setCurrentIndex(0);
    const QImage image = testutils::renderWidget(page, QSize(1000, 700));
    EXPECT_GT(testutils::distinctColours(image), 10);
    FlameGraph* flame = page.flameGraph();
    ASSERT_GT(flame->width(), 100);

    // Row 1 is forward, row 2 starts with linear (the longest child).
    const QRectF linear =
        flame->blockOf(flame->nodeAt(QPointF(flame->width() * 0.2, 2.5 * FlameGraph::kRowHeight)));
    ASSERT_FALSE(linear.isEmpty());
    EXPECT_NEAR(linear.width() / flame->width(), 3'900.0 / 10'000.0, 0.01);
    const std::uint32_t linearNode = flame->nodeAt(linear.center());
    QSignalSpy focus(flame, &FlameGraph::focusChanged);
    QTest::mouseClick(flame, Qt::LeftButton, {}, linear.center().toPoint());
    ASSERT_EQ(focus.count(), 1);
    EXPECT_EQ(flame->focusNode(), linearNode);
    testutils::renderWidget(page, QSize(1000, 700));
    EXPECT_NEAR(flame->blockOf(linearNode).width(), flame->width(), 1.0);  // zoomed: full width

    QSignalSpy find(&page, &OpsPage::findRequested);
    QTest::mouseDClick(flame, Qt::LeftButton, {}, QPoint(flame->width() / 2, FlameGraph::kRowHeight / 2));
    ASSERT_EQ(find.count(), 1);
    const auto range = find.at(0).at(0).value<core::TimeRange>();
    EXPECT_EQ(range.startNs, 100);
    EXPECT_EQ(range.endNs, 4'000);

    flame->setFocusNode(calltree::CallTree::kRoot);
    EXPECT_EQ(flame->focusNode(), calltree::CallTree::kRoot);
}

TEST(OpsPageTest, MainWindowHasTheOpsPage) {
    testutils::isolateSettings();
    MainWindow window;
    EXPECT_TRUE(window.pageIds().contains(QStringLiteral("ops")));
    ASSERT_NE(window.page(QStringLiteral("ops")), nullptr);
}

TEST(OpsPageTest, DoubleClickedRowIsShownOnTheTimeline) {
    testutils::isolateSettings();
    MainWindow window;
    window.resize(1200, 800);
    window.document()->setModel(smallModel(), QStringLiteral("small"));
    ASSERT_TRUE(QTest::qWaitFor([&] { return window.document()->model() != nullptr; }, 10'000));
    ASSERT_TRUE(window.showPage(QStringLiteral("ops")));
    window.show();
    auto* page = qobject_cast<OpsPage*>(window.page(QStringLiteral("ops")));
    ASSERT_NE(page, nullptr);
    ASSERT_TRUE(QTest::qWaitFor([&] { return page->opsModel()->rowCount() == 4; }, 10'000));
    page->setFilterText(QStringLiteral("aten::addmm"));
    ASSERT_EQ(page->opsProxy()->rowCount(), 1);
    QTableView* table = page->opsTable();
    QApplication::processEvents();
    const QRect cell = table->visualRect(page->opsProxy()->index(0, 0));
    ASSERT_FALSE(cell.isEmpty());
    // A real double-click starts with a press: the view acts only on the row pressed.
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    EXPECT_EQ(window.currentPageId(), QStringLiteral("timeline"));
    auto* timeline = qobject_cast<TimelinePage*>(window.page(QStringLiteral("timeline")));
    ASSERT_NE(timeline, nullptr);
    const std::optional<core::TimeRange> selected = timeline->timeline()->rangeSelection();
    ASSERT_TRUE(selected.has_value());
    EXPECT_EQ(selected->startNs, 200);  // addmm's longest call
    EXPECT_EQ(selected->endNs, 3'000);
}

// The Diagnosis page's kernel and op tables have filter boxes over their sort proxies.
TEST(OpsPageTest, DiagnosisTablesHaveFilterBoxes) {
    testutils::guiApp();
    const auto report = testutils::buildDataBoundReport();
    ASSERT_NE(report, nullptr);
    DiagnosisPage page;
    page.setReport(report, report->model);
    auto* kernelFilter = page.findChild<QLineEdit*>(QStringLiteral("kernelFilter"));
    auto* opFilter = page.findChild<QLineEdit*>(QStringLiteral("opFilter"));
    ASSERT_NE(kernelFilter, nullptr);
    ASSERT_NE(opFilter, nullptr);
    // The proxies the filters drive: the views showing the report's models.
    const QSortFilterProxyModel* kernels = nullptr;
    const QSortFilterProxyModel* ops = nullptr;
    for (const QTableView* view : page.findChildren<QTableView*>()) {
        auto* proxy = qobject_cast<const QSortFilterProxyModel*>(view->model());
        if (proxy != nullptr && proxy->sourceModel() == page.topKernelsModel()) {
            kernels = proxy;
        } else if (proxy != nullptr && proxy->sourceModel() == page.topOpsModel()) {
            ops = proxy;
        }
    }
    ASSERT_NE(kernels, nullptr);
    ASSERT_NE(ops, nullptr);
    ASSERT_EQ(kernels->rowCount(), 3);
    kernelFilter->setText(QStringLiteral("RELU"));
    ASSERT_EQ(kernels->rowCount(), 1);
    EXPECT_TRUE(kernels->index(0, 0).data().toString().contains(QStringLiteral("relu")));
    kernelFilter->clear();
    EXPECT_EQ(kernels->rowCount(), 3);
    const int allOps = ops->rowCount();
    ASSERT_GT(allOps, 1);
    opFilter->setText(QStringLiteral("aten::mm"));
    EXPECT_EQ(ops->rowCount(), 1);
    opFilter->setText(QStringLiteral("no such op"));
    EXPECT_EQ(ops->rowCount(), 0);
    kernelFilter->setText(QStringLiteral("elementwise"));
    opFilter->setText(QStringLiteral("aten"));
    testutils::saveIfRequested(testutils::renderWidget(page, QSize(1280, 2000)),
                               QStringLiteral("diagnosis-filters"));
}

void renderRealTrace(const std::string& path, const QString& name) {
    auto loaded = core::loadTrace(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    auto model = std::make_shared<const core::TraceModel>(std::move(loaded.value()));
    OpsPage page;
    page.setModel(model);
    EXPECT_GT(page.opsModel()->rowCount(), 10);
    EXPECT_GT(page.topDownModel()->rowCount(), 0);
    for (QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        const QImage image = testutils::renderWidget(page, size);
        EXPECT_GT(testutils::inkFraction(image), 0.05);
        EXPECT_GT(testutils::distinctColours(image), 20);
        testutils::saveIfRequested(
            image, QStringLiteral("ops-%1-%2x%3").arg(name).arg(size.width()).arg(size.height()));
    }
    for (int tab : {1, 2}) {
        page.tabs()->setCurrentIndex(tab);
        const QImage trees = testutils::renderWidget(page, QSize(1280, 800));
        EXPECT_GT(testutils::inkFraction(trees), 0.05);
        testutils::saveIfRequested(trees, QStringLiteral("ops-%1-tab%2").arg(name).arg(tab));
    }
    page.tabs()->setCurrentIndex(0);
    // Zoomed 12 levels down the path that launched the most GPU time: the block spans the width.
    const auto& tree = *page.topDownModel()->tree();
    std::uint32_t node = calltree::CallTree::kRoot;
    for (int level = 0; level < 12 && !tree.nodes[node].children.empty(); ++level) {
        const auto& children = tree.nodes[node].children;
        node = *std::max_element(children.begin(), children.end(), [&](std::uint32_t a, std::uint32_t b) {
            return tree.nodes[a].gpuNs < tree.nodes[b].gpuNs;
        });
    }
    page.flameGraph()->setFocusNode(node);
    const QImage zoomed = testutils::renderWidget(page, QSize(1280, 800));
    testutils::saveIfRequested(zoomed, QStringLiteral("ops-%1-zoomed").arg(name));
    EXPECT_NEAR(page.flameGraph()->blockOf(node).width(), page.flameGraph()->width(), 1.0);
    QAbstractItemModelTester tester(page.opsProxy(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    page.setFilterText(QStringLiteral("aten::"));
    EXPECT_GT(page.opsProxy()->rowCount(), 0);
    EXPECT_LT(page.opsProxy()->rowCount(), page.opsModel()->rowCount() + 1);
}

// Under a dark palette the page, flame graph included, draws dark backgrounds.
TEST(OpsPageTest, FollowsADarkPalette) {
    testutils::guiApp();
    const QPalette saved = QApplication::palette();
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x20, 0x22, 0x25));
    dark.setColor(QPalette::Base, QColor(0x18, 0x19, 0x1b));
    dark.setColor(QPalette::AlternateBase, QColor(0x25, 0x27, 0x2a));
    dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::WindowText, QColor(0xe8, 0xe8, 0xe8));
    dark.setColor(QPalette::Button, QColor(0x30, 0x32, 0x35));
    dark.setColor(QPalette::ButtonText, QColor(0xe8, 0xe8, 0xe8));
    QApplication::setPalette(dark);
    {
        OpsPage page;
        page.setModel(smallModel());
        const QImage image = testutils::renderWidget(page, QSize(1280, 800));
        testutils::saveIfRequested(image, QStringLiteral("ops-dark-small"));
        FlameGraph* flame = page.flameGraph();
        const QPoint empty = flame->mapTo(&page, QPoint(flame->width() - 2, flame->height() - 2));
        EXPECT_LT(qGray(image.pixel(empty)), 64) << "flame graph background follows the palette";
    }
    QApplication::setPalette(saved);
}

TEST(OpsPageTest, RendersTheBertTraceWithPythonStacks) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "tracelens-h100__gaunernst_bert-small-uncased__1016001.json.gz");
    testutils::guiApp();
    renderRealTrace(path, QStringLiteral("bert"));
}

TEST(OpsPageTest, RendersTheResNetTrace) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "kineto-rn50-nw0__worker0.1623143089861.pt.trace.json.gz");
    testutils::guiApp();
    renderRealTrace(path, QStringLiteral("rn50"));
}

}  // namespace
}  // namespace chokepoint::ui
