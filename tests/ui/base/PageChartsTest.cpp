// The chart widgets used by the analysis pages: they render non-blank at two sizes, map clicks and
// hovers to the right item, and cope with empty data.
#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <QSignalSpy>
#include <QTest>

#include "tests/ui/PageTestSupport.h"
#include "ui/base/charts/RooflineChart.h"
#include "ui/base/charts/StepBarsChart.h"
#include "ui/base/theme/ReportPalette.h"
#include "ui/base/charts/StepStrip.h"

namespace chokepoint::ui {
namespace {

RooflineChartData sampleRoofline() {
    RooflineChartData data;
    data.bandwidthBytesPerSecond = 2.0e12;  // A100 40GB, seed §1.4
    data.roofs = {{"FP32", 19.5e12, QColor(120, 120, 120)}, {"BF16 tensor", 312e12, QColor(200, 80, 20)}};
    data.markers = {{"activation 0.5", 0.5}, {"softmax ~5", 5}, {"LayerNorm ~10", 10}};
    data.dots = {{"gemm", "GEMM", 300, 200e12, 0.6, QColor(31, 119, 180), "gemm\n60 %", false},
                 {"relu", "Elementwise", 0.4, 0.7e12, 0.1, QColor(255, 127, 14), "relu", false}};
    return data;
}

TEST(PageChartsTest, RooflineRendersAtTwoSizesAndHitsDots) {
    testutils::guiApp();
    RooflineChart chart;
    chart.setData(sampleRoofline());
    for (QSize size : {QSize(640, 420), QSize(1280, 800)}) {
        const QImage image = testutils::renderWidget(chart, size);
        chart.plot()->replot();
        testutils::saveIfRequested(image, QStringLiteral("roofline-%1").arg(size.width()));
        EXPECT_GT(testutils::distinctColours(image), 8) << size.width();
        EXPECT_GT(testutils::inkFraction(image), 0.02) << size.width();
    }
    chart.resize(800, 500);
    chart.plot()->replot();
    // The log axes put the GEMM (AI 300) right of the BF16 ridge (156) and the relu far left.
    const QPointF gemm = chart.dotPixel(0);
    const QPointF relu = chart.dotPixel(1);
    EXPECT_GT(gemm.x(), relu.x());
    EXPECT_LT(gemm.y(), relu.y());  // higher throughput is higher up
    EXPECT_EQ(chart.dotAt(gemm.toPoint()), 0);
    EXPECT_EQ(chart.dotAt(relu.toPoint()), 1);
    EXPECT_EQ(chart.dotAt(QPoint(2, 2)), -1);

    QSignalSpy clicked(&chart, &RooflineChart::pointClicked);
    QTest::mouseClick(chart.plot(), Qt::LeftButton, Qt::NoModifier, relu.toPoint());
    ASSERT_EQ(clicked.count(), 1);
    EXPECT_EQ(clicked.at(0).at(0).toInt(), 1);
}

TEST(PageChartsTest, RooflineWithoutDeviceOrPointsStillDraws) {
    testutils::guiApp();
    RooflineChart chart;
    RooflineChartData data;
    data.emptyMessage = "No FLOP estimates";
    chart.setData(data);
    const QImage image = testutils::renderWidget(chart, QSize(500, 350));
    EXPECT_GT(testutils::inkFraction(image), 0.005);
    EXPECT_EQ(chart.dotAt(QPoint(250, 175)), -1);
}

TEST(PageChartsTest, SiTickLabels) {
    EXPECT_EQ(siTickLabel(1e12), "1 T");
    EXPECT_EQ(siTickLabel(3.12e14), "312 T");
    EXPECT_EQ(siTickLabel(0.5), "500 m");
    EXPECT_EQ(siTickLabel(10), "10");
}

TEST(PageChartsTest, StepBarsStackAndClick) {
    testutils::guiApp();
    StepBarsChart chart;
    StepBarsData data;
    data.stepLabels = {"1", "2", "3"};
    data.series = {{"Compute", QColor(44, 160, 44), {30, 32, 31}},
                   {"Idle: data wait", QColor(214, 39, 40), {20, 0, 22}}};
    chart.setData(data);
    const QImage image = testutils::renderWidget(chart, QSize(600, 300));
    testutils::saveIfRequested(image, "stepbars");
    EXPECT_GT(testutils::distinctColours(image), 5);
    chart.resize(600, 300);
    chart.plot()->replot();
    // Stacked: the top of step 1 is at 50 ms, so the y range covers it.
    EXPECT_GE(chart.plot()->yAxis->range().upper, 50.0);
    const int x = static_cast<int>(chart.plot()->xAxis->coordToPixel(1));
    const int y = static_cast<int>(chart.plot()->yAxis->coordToPixel(10));
    QSignalSpy clicked(&chart, &StepBarsChart::stepClicked);
    QTest::mouseClick(chart.plot(), Qt::LeftButton, Qt::NoModifier, QPoint(x, y));
    ASSERT_EQ(clicked.count(), 1);
    EXPECT_EQ(clicked.at(0).at(0).toInt(), 1);
}

TEST(PageChartsTest, StepBarsMarkTheStepsLeftOut) {
    testutils::guiApp();
    StepBarsChart chart;
    StepBarsData data;
    data.stepLabels = {"1", "2", "3"};
    data.series = {{"Compute", QColor(44, 160, 44), {90, 32, 31}}};
    data.excludedReasons = {"warm-up: 2.9x the median step", "", ""};
    chart.setData(data);
    chart.resize(600, 300);
    chart.plot()->replot();
    std::vector<QCPItemText*> marks;
    for (int i = 0; i < chart.plot()->itemCount(); ++i) {
        if (auto* text = qobject_cast<QCPItemText*>(chart.plot()->item(i))) {
            marks.push_back(text);
        }
    }
    ASSERT_EQ(marks.size(), 1u);  // only the warm-up step
    // The warm-up bar (90 ms) is taller than the kept steps' axis: cut at the top, its height given.
    EXPECT_TRUE(marks.front()->text().startsWith("left out")) << marks.front()->text().toStdString();
    // In the duration text every page uses ("90.0 ms"; a 14.6 s warm-up read "14559 ms").
    EXPECT_TRUE(marks.front()->text().contains(durationText(90e6))) << marks.front()->text().toStdString();
    EXPECT_TRUE(marks.front()->text().contains("90.0 ms")) << marks.front()->text().toStdString();
    EXPECT_DOUBLE_EQ(marks.front()->position->key(), 0.0);
    EXPECT_DOUBLE_EQ(marks.front()->position->value(), chart.plot()->yAxis->range().upper);
    // A left-out bar within the axis keeps its plain mark on top of it.
    data.series = {{"Compute", QColor(44, 160, 44), {20, 32, 31}}};
    chart.setData(data);
    ASSERT_EQ(chart.plot()->itemCount(), 1);
    auto* plain = qobject_cast<QCPItemText*>(chart.plot()->item(0));
    ASSERT_NE(plain, nullptr);
    EXPECT_EQ(plain->text(), "left out");
    EXPECT_DOUBLE_EQ(plain->position->value(), 20.0);
    // Nothing left out: no marks.
    data.excludedReasons = {"", "", ""};
    chart.setData(data);
    EXPECT_EQ(chart.plot()->itemCount(), 0);
}

// The axis follows the kept steps: one 6.04 s warm-up step left out of the figures among 39 steps of
// 56 ms (rn50 with 12 workers on the H100) must not set the axis to 6,000 ms and flatten the rest.
TEST(PageChartsTest, StepBarsAxisFollowsTheKeptSteps) {
    testutils::guiApp();
    StepBarsChart chart;
    StepBarsData data;
    StackedSeries compute{"Compute", QColor(44, 160, 44), {}};
    StackedSeries idle{"Idle: data wait", QColor(214, 39, 40), {}};
    for (int i = 0; i < 40; ++i) {
        data.stepLabels << QString::number(i);
        data.excludedReasons << (i == 0 ? QStringLiteral("warm-up: 108x the median step") : QString());
        compute.valuesMs.push_back(i == 0 ? 140.0 : 40.0 + (i % 3));
        idle.valuesMs.push_back(i == 0 ? 5900.0 : 16.0);
    }
    data.series = {compute, idle};
    chart.setData(data);
    chart.resize(800, 320);
    chart.plot()->replot();
    const double upper = chart.plot()->yAxis->range().upper;
    EXPECT_GE(upper, 58.0);   // the tallest kept bar (42 + 16 ms) fits
    EXPECT_LT(upper, 100.0);  // and the warm-up does not set the scale
    const QImage image = testutils::renderWidget(chart, QSize(800, 320));
    testutils::saveIfRequested(image, "stepbars-warmup");
    EXPECT_GT(testutils::distinctColours(image), 5);
    // Every step left out: the axis covers them all rather than collapsing.
    for (QString& reason : data.excludedReasons) {
        reason = QStringLiteral("outlier");
    }
    chart.setData(data);
    chart.plot()->replot();
    EXPECT_GE(chart.plot()->yAxis->range().upper, 6040.0);
}

TEST(PageChartsTest, StepStripCellsAreProportionalAndClickable) {
    testutils::guiApp();
    StepStrip strip;
    strip.setCells({{"step 1", "Data-bound", QColor(214, 39, 40), 1.0, {}},
                    {"step 2", "Compute-bound", QColor(44, 160, 44), 3.0, {}}});
    const QImage image = testutils::renderWidget(strip, QSize(408, 46));
    testutils::saveIfRequested(image, "stepstrip");
    EXPECT_GT(testutils::distinctColours(image, 1), 3);
    // Cell 2 is three times as wide: the point at 50 % lies in it, the one at 10 % in cell 1.
    EXPECT_EQ(strip.cellAt(QPoint(40, 10)), 0);
    EXPECT_EQ(strip.cellAt(QPoint(204, 10)), 1);
    QSignalSpy clicked(&strip, &StepStrip::stepClicked);
    QTest::mouseClick(&strip, Qt::LeftButton, Qt::NoModifier, QPoint(300, 10));
    ASSERT_EQ(clicked.count(), 1);
    EXPECT_EQ(clicked.at(0).at(0).toInt(), 1);
    EXPECT_EQ(strip.selectedCell(), 1);

    strip.setCells({});
    const QImage empty = testutils::renderWidget(strip, QSize(300, 46));
    EXPECT_GT(testutils::inkFraction(empty), 0.0);  // says "No steps detected"
}

}  // namespace
}  // namespace chokepoint::ui
