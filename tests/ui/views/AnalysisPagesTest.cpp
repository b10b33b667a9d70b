// The diagnosis, roofline and fixes pages on a real (synthetic-trace) AnalysisReport: their models
// pass QAbstractItemModelTester and are not empty, they render non-blank at two sizes, navigation
// reaches the TraceDocument, and the diagnosis exports to HTML and PDF.
#include <gtest/gtest.h>

#include <algorithm>

#include <qcustomplot.h>
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "core/import/TraceLoader.h"
#include "tests/testutils/SharedTraces.h"
#include "tests/testutils/TraceBuilder.h"
#include "tests/ui/PageReportFixture.h"
#include "tests/ui/PageTestSupport.h"
#include "ui/base/charts/ReportCharts.h"
#include "ui/base/charts/RooflineChart.h"
#include "ui/base/charts/StepBarsChart.h"
#include "ui/base/charts/StepStrip.h"
#include "ui/base/document/TraceDocument.h"
#include "ui/base/models/TopKernelsModel.h"
#include "ui/base/models/TraceStatsModel.h"
#include "ui/views/pages/ComparePage.h"
#include "ui/views/pages/DiagnosisPage.h"
#include "ui/views/pages/FixesPage.h"
#include "ui/views/pages/RooflinePage.h"

namespace chokepoint::ui {
namespace {

class AnalysisPagesTest : public ::testing::Test {
protected:
    void SetUp() override {
        testutils::guiApp();
        m_report = testutils::buildDataBoundReport();
        ASSERT_NE(m_report, nullptr);
        ASSERT_EQ(m_report->steps.size(), 4u);
    }
    std::shared_ptr<const analysis::AnalysisReport> m_report;
};

TEST_F(AnalysisPagesTest, FixtureIsDataBound) {
    // Guards the fixture itself: the pages below are tested on a data-bound verdict with fixes.
    EXPECT_EQ(m_report->overall.bottleneck, analysis::Bottleneck::Data) << m_report->overall.rationale;
    EXPECT_FALSE(m_report->fixes.recommendations.empty());
}

TEST_F(AnalysisPagesTest, DiagnosisPageShowsTheReport) {
    DiagnosisPage page;
    EXPECT_FALSE(page.headlineText().isEmpty());  // "Open a trace…" before any report
    page.setReport(m_report, m_report->model);
    EXPECT_EQ(page.headlineText(), QString::fromStdString(m_report->headline));

    QAbstractItemModelTester kernels(page.topKernelsModel(),
                                     QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester ops(page.topOpsModel(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester stats(page.traceStatsModel(),
                                   QAbstractItemModelTester::FailureReportingMode::Fatal);
    EXPECT_EQ(page.topKernelsModel()->rowCount(), 3);
    EXPECT_GT(page.topOpsModel()->rowCount(), 0);
    EXPECT_EQ(page.traceStatsModel()->rowCount(), 1);
    // The longest GEMM instance is known, for "select on the timeline".
    EXPECT_TRUE(page.topKernelsModel()->kernelAt(0).valid());
    EXPECT_EQ(page.stepStrip()->cells().size(), 4u);

    for (QSize size : {QSize(900, 700), QSize(1600, 1000)}) {
        const QImage image = testutils::renderWidget(page, size);
        testutils::saveIfRequested(image, QStringLiteral("diagnosis-%1").arg(size.width()));
        EXPECT_GT(testutils::distinctColours(image), 20) << size.width();
        EXPECT_GT(testutils::inkFraction(image), 0.05) << size.width();
    }
}

TEST_F(AnalysisPagesTest, TheRationaleLineDoesNotRepeatTheHeadline) {
    DiagnosisPage page;
    page.setReport(m_report, m_report->model);
    // The data-bound headline holds its rationale ("Data-bound: the GPU waits …"): shown once.
    EXPECT_FALSE(page.rationaleText().contains(QStringLiteral("input pipeline")))
        << page.rationaleText().toStdString();
    EXPECT_TRUE(page.rationaleText().contains(QStringLiteral("Confidence: high.")))
        << page.rationaleText().toStdString();
    // A rationale that adds to its headline is shown under it.
    auto adds = std::make_shared<analysis::AnalysisReport>(*m_report);
    adds->overall.rationale = "the GPU waits 40 % of each step for the input pipeline, in 4 of 4 steps";
    adds->headline = "Data-bound: the GPU waits 40 % of each step";
    page.setReport(adds, adds->model);
    EXPECT_TRUE(
        page.rationaleText().startsWith(QStringLiteral("The GPU waits 40 % of each step for the input")))
        << page.rationaleText().toStdString();
    // A start-up window's headline is its rationale: the sentence is shown once, at the top.
    auto startUp = std::make_shared<analysis::AnalysisReport>(*m_report);
    startUp->overall.rationale = "no steady-state verdict: the window holds start-up";
    startUp->headline = "No steady-state verdict: the window holds start-up";
    startUp->overall.confidence = 0.3;
    page.setReport(startUp, startUp->model);
    EXPECT_EQ(page.headlineText(), QStringLiteral("No steady-state verdict: the window holds start-up"));
    EXPECT_FALSE(page.rationaleText().contains(QStringLiteral("steady-state"), Qt::CaseInsensitive))
        << page.rationaleText().toStdString();
    EXPECT_TRUE(page.rationaleText().startsWith(QStringLiteral("Confidence: low.")))
        << page.rationaleText().toStdString();
}

TEST_F(AnalysisPagesTest, DiagnosisStepClickShowsTheStepOnTheTimeline) {
    TraceDocument document;
    DiagnosisPage page;
    page.setDocument(&document);
    page.setReport(m_report, m_report->model);
    testutils::renderWidget(page, QSize(1000, 800));
    QSignalSpy shown(&document, &TraceDocument::requestShowRange);
    StepStrip* strip = page.stepStrip();
    const QPoint inThirdStep(strip->width() * 5 / 8, 10);
    QTest::mouseClick(strip, Qt::LeftButton, Qt::NoModifier, inThirdStep);
    ASSERT_EQ(shown.count(), 1);
    EXPECT_EQ(shown.at(0).at(0).value<core::TimeRange>(), m_report->steps[2].range);
}

TEST_F(AnalysisPagesTest, DiagnosisExportsHtmlAndPdf) {
    DiagnosisPage page;
    page.setReport(m_report, m_report->model);
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    QString error;
    const QString html = dir.filePath("diagnosis.html");
    ASSERT_TRUE(page.exportHtml(html, &error)) << error.toStdString();
    QFile htmlFile(html);
    ASSERT_TRUE(htmlFile.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(htmlFile.readAll());
    EXPECT_TRUE(text.contains(QString::fromStdString(m_report->headline).toHtmlEscaped()));
    EXPECT_TRUE(text.contains("data:image/png;base64,"));
    EXPECT_TRUE(
        text.contains(QString::fromStdString(m_report->fixes.recommendations.front().title).toHtmlEscaped()));

    const QString pdf = dir.filePath("diagnosis.pdf");
    ASSERT_TRUE(page.exportPdf(pdf, &error)) << error.toStdString();
    QFile pdfFile(pdf);
    ASSERT_TRUE(pdfFile.open(QIODevice::ReadOnly));
    const QByteArray bytes = pdfFile.readAll();
    EXPECT_TRUE(bytes.startsWith("%PDF-"));
    EXPECT_GT(bytes.size(), 20000);

    DiagnosisPage empty;
    EXPECT_FALSE(empty.exportHtml(dir.filePath("none.html"), &error));
}

TEST_F(AnalysisPagesTest, MeasuredRoofsAreDrawnDashedBesideTheDatasheet) {
    // A report whose device has a calibration: its roofs come as a second, dashed set.
    auto withCalibration = std::make_shared<analysis::AnalysisReport>(*m_report);
    analysis::DeviceSpec measured;
    measured.id = "measured-test";
    measured.memoryBandwidthBytesPerSecond = 1.6e12;
    measured.peaks = {{analysis::Precision::FP32, 15e12, false}, {analysis::Precision::BF16, 250e12, true}};
    measured.source = "chokepoint-cli calibrate";
    withCalibration->metrics.roofline.measured = analysis::measuredRoofs(measured);
    const RooflineChartData data = rooflineFromReport(*withCalibration);
    ASSERT_EQ(data.measuredRoofs.size(), 2u);
    EXPECT_DOUBLE_EQ(data.measuredBandwidthBytesPerSecond, 1.6e12);
    EXPECT_TRUE(data.note.contains("measured")) << data.note.toStdString();
    EXPECT_TRUE(rooflineFromReport(*m_report).measuredRoofs.empty());

    RooflineChart plain;
    plain.setData(rooflineFromReport(*m_report));
    RooflineChart chart;
    chart.setData(data);
    // A dashed memory roof and one dashed line per measured precision.
    EXPECT_EQ(chart.plot()->graphCount(), plain.plot()->graphCount() + 3);
    int dashed = 0;
    for (int i = 0; i < chart.plot()->graphCount(); ++i) {
        dashed += chart.plot()->graph(i)->pen().style() == Qt::DashLine ? 1 : 0;
    }
    EXPECT_EQ(dashed, 3);
    const QImage image = testutils::renderWidget(chart, QSize(1200, 800));
    testutils::saveIfRequested(image, QStringLiteral("roofline-measured"));
    EXPECT_GT(testutils::distinctColours(image), 15);
}

// An A100's roofs are a factor of two apart: on a small plot "ridge 401" was drawn over
// "BF16 tensor / FP16 tensor 312 TFLOP/s". No ridge label overlaps any other label once laid out,
// and every roof keeps its label.
TEST_F(AnalysisPagesTest, RooflineRidgeLabelsNeverOverlapOtherLabels) {
    RooflineChartData data;
    data.bandwidthBytesPerSecond = 1.555e12;
    data.roofs = {{QStringLiteral("INT8 tensor"), 624e12, QColor(Qt::gray)},
                  {QStringLiteral("BF16 tensor"), 312e12, QColor(Qt::magenta)},
                  {QStringLiteral("TF32 tensor"), 156e12, QColor(Qt::red)},
                  {QStringLiteral("FP32"), 19.5e12, QColor(Qt::darkGray)}};
    RooflineDot gemm;
    gemm.label = QStringLiteral("gemm");
    gemm.group = QStringLiteral("GEMM");
    gemm.intensityFlopsPerByte = 50.0;
    gemm.flopsPerSecond = 20e12;
    gemm.timeShare = 0.5;
    gemm.color = QColor(Qt::blue);
    data.dots.push_back(gemm);
    RooflineChart chart;
    chart.setData(data);
    testutils::renderWidget(chart, QSize(700, 420));
    std::vector<std::pair<QRectF, bool>> visible;  // rect, is a ridge label
    int roofLabels = 0;
    for (int i = 0; i < chart.plot()->itemCount(); ++i) {
        auto* text = qobject_cast<QCPItemText*>(chart.plot()->item(i));
        if (text == nullptr || (!text->text().contains(QStringLiteral("FLOP/s")) &&
                                !text->text().startsWith(QStringLiteral("ridge")))) {
            continue;
        }
        const bool ridge = text->text().startsWith(QStringLiteral("ridge"));
        roofLabels += ridge ? 0 : 1;
        if (!ridge) {
            EXPECT_TRUE(text->visible()) << text->text().toStdString();
        }
        if (text->visible()) {
            visible.push_back(
                {QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition()).normalized(),
                 ridge});
        }
    }
    EXPECT_EQ(roofLabels, 4);
    for (std::size_t a = 0; a < visible.size(); ++a) {
        for (std::size_t b = a + 1; b < visible.size(); ++b) {
            if (visible[a].second || visible[b].second) {
                EXPECT_FALSE(visible[a].first.intersects(visible[b].first)) << a << " and " << b;
            }
        }
    }
}

TEST_F(AnalysisPagesTest, RooflinePagePlotsPointsAndSelectsKernels) {
    TraceDocument document;
    RooflinePage page;
    page.setDocument(&document);
    page.setReport(m_report);
    QAbstractItemModelTester points(page.pointsModel(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    ASSERT_GT(page.pointsModel()->rowCount(), 0) << "aten::mm with shapes gives at least one point";
    EXPECT_EQ(page.chart()->data().roofs.size(), 2u);
    EXPECT_DOUBLE_EQ(page.chart()->data().bandwidthBytesPerSecond, 2.0e12);
    for (QSize size : {QSize(800, 600), QSize(1400, 900)}) {
        const QImage image = testutils::renderWidget(page, size);
        testutils::saveIfRequested(image, QStringLiteral("roofline-page-%1").arg(size.width()));
        EXPECT_GT(testutils::distinctColours(image), 15) << size.width();
    }
    // Click the first kernel-level point: the document is asked to select a kernel.
    int kernelDot = -1;
    const auto& dots = page.chart()->data().dots;
    for (int i = 0; i < static_cast<int>(dots.size()); ++i) {
        if (!dots[i].hollow) {
            kernelDot = i;
            break;
        }
    }
    ASSERT_GE(kernelDot, 0);
    QSignalSpy selected(&document, &TraceDocument::requestSelectKernel);
    page.chart()->resize(800, 500);
    page.chart()->plot()->replot();
    const QPoint at = page.chart()->dotPixel(kernelDot).toPoint();
    QTest::mouseClick(reinterpret_cast<QWidget*>(page.chart()->plot()), Qt::LeftButton, Qt::NoModifier, at);
    ASSERT_EQ(selected.count(), 1);
    const auto kernel = selected.at(0).at(0).value<core::KernelId>();
    ASSERT_TRUE(kernel.valid());
    EXPECT_LT(kernel.index, m_report->model->kernels.size());
}

TEST_F(AnalysisPagesTest, FixesPageShowsCopiesAndJumps) {
    TraceDocument document;
    FixesPage page;
    page.setDocument(&document);
    page.setReport(m_report);
    ASSERT_EQ(page.fixCount(), static_cast<int>(m_report->fixes.recommendations.size()));
    EXPECT_EQ(page.selectedFix(), 0);
    const analysis::Recommendation& best = m_report->fixes.recommendations.front();
    EXPECT_TRUE(page.detailsText().contains(QString::fromStdString(best.title)));
    const QString copied = page.copySnippet();
    EXPECT_EQ(copied, QString::fromStdString(best.pytorchChange));
    if (!copied.isEmpty()) {
        EXPECT_EQ(QApplication::clipboard()->text(), copied);
    }
    QSignalSpy shown(&document, &TraceDocument::requestShowRange);
    QSignalSpy page2(&document, &TraceDocument::requestPage);
    const core::TimeRange range = page.showEvidence();
    EXPECT_FALSE(range.empty());
    ASSERT_EQ(shown.count(), 1);
    EXPECT_EQ(page2.count(), 1);
    // Data-bound evidence is the longest data-wait gap: inside the trace, about 4 ms plus context.
    EXPECT_GE(range.durationNs(), 3'000'000);
    for (QSize size : {QSize(800, 600), QSize(1400, 900)}) {
        const QImage image = testutils::renderWidget(page, size);
        testutils::saveIfRequested(image, QStringLiteral("fixes-%1").arg(size.width()));
        EXPECT_GT(testutils::inkFraction(image), 0.03) << size.width();
    }
}

// A trace with no GPU work: every rule steps aside for the same reason, said once, not 18 times.
TEST_F(AnalysisPagesTest, FixesPageSaysACommonReasonOnce) {
    testutils::TraceBuilder b;
    b.range("ProfilerStep#1", 0, 5'000'000);
    auto report = analysis::analyzeTrace(std::make_shared<const core::TraceModel>(b.build()), {});
    ASSERT_TRUE(report.ok());
    ASSERT_TRUE(report.value()->fixes.recommendations.empty());
    FixesPage page;
    page.setReport(report.value());
    const QString details = page.detailsText();
    EXPECT_TRUE(details.contains(QStringLiteral("No fix applies to this verdict: no GPU activity")))
        << details.toStdString();
    EXPECT_EQ(details.count(QStringLiteral("no GPU activity")), 1) << details.toStdString();
    EXPECT_FALSE(details.contains(QStringLiteral("Rules considered")));
}

// A real PyTorch profiler trace through the importer and the analyzer, then every analysis page.
TEST_F(AnalysisPagesTest, RealSharedTraceFillsEveryPage) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "hta-ns-resolution__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
    auto loaded = core::loadTrace(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    auto model = std::make_shared<const core::TraceModel>(std::move(loaded.value()));
    auto analysed = analysis::analyzeTrace(model);
    ASSERT_TRUE(analysed.ok()) << analysed.error().message;
    const auto report = analysed.value();

    DiagnosisPage diagnosis;
    diagnosis.setReport(report, model);
    QAbstractItemModelTester kernels(diagnosis.topKernelsModel(),
                                     QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester ops(diagnosis.topOpsModel(),
                                 QAbstractItemModelTester::FailureReportingMode::Fatal);
    EXPECT_EQ(diagnosis.headlineText(), QString::fromStdString(report->headline));
    EXPECT_GT(diagnosis.topKernelsModel()->rowCount(), 0);
    EXPECT_GT(diagnosis.topOpsModel()->rowCount(), 0);
    EXPECT_EQ(diagnosis.stepStrip()->cells().size(), report->steps.size());
    const QImage d = testutils::renderWidget(diagnosis, QSize(1600, 1000));
    testutils::saveIfRequested(d, "real-diagnosis");
    EXPECT_GT(testutils::distinctColours(d), 20);

    RooflinePage roofline;
    roofline.setReport(report);
    const QImage r = testutils::renderWidget(roofline, QSize(1400, 900));
    testutils::saveIfRequested(r, "real-roofline");
    EXPECT_GT(testutils::distinctColours(r), 10);

    FixesPage fixes;
    fixes.setReport(report);
    EXPECT_EQ(fixes.fixCount(), static_cast<int>(report->fixes.recommendations.size()));
    const QImage f = testutils::renderWidget(fixes, QSize(1400, 900));
    testutils::saveIfRequested(f, "real-fixes");
    EXPECT_GT(testutils::inkFraction(f), 0.02);

    QTemporaryDir dir;
    QString error;
    ASSERT_TRUE(diagnosis.exportHtml(dir.filePath("real.html"), &error)) << error.toStdString();
    ASSERT_TRUE(diagnosis.exportPdf(dir.filePath("real.pdf"), &error)) << error.toStdString();
    if (!qEnvironmentVariableIsEmpty("CHOKEPOINT_TEST_IMAGES_DIR")) {
        QFile::copy(dir.filePath("real.html"),
                    qEnvironmentVariable("CHOKEPOINT_TEST_IMAGES_DIR") + "/real.html");
        QFile::copy(dir.filePath("real.pdf"),
                    qEnvironmentVariable("CHOKEPOINT_TEST_IMAGES_DIR") + "/real.pdf");
    }
}

TEST_F(AnalysisPagesTest, ComparePageShowsDeltas) {
    // A second run of the same loop with half the data wait: the comparison must see it faster.
    auto after = testutils::buildDataBoundReport(testutils::buildDataBoundTrace(1'000'000));
    ASSERT_NE(after, nullptr);
    ComparePage page;
    page.setReports(m_report, after);
    ASSERT_NE(page.comparison(), nullptr);
    const analysis::MetricDelta* step = page.comparison()->metric("stepTimeNs");
    ASSERT_NE(step, nullptr);
    EXPECT_LT(step->after, step->before);
    EXPECT_TRUE(step->improved);
    QAbstractItemModelTester metrics(page.metricsModel(),
                                     QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester kernels(page.kernelsModel(),
                                     QAbstractItemModelTester::FailureReportingMode::Fatal);
    EXPECT_GT(page.metricsModel()->rowCount(), 0);
    // Side by side on shared axes: one step scale and one roofline frame for both traces.
    EXPECT_EQ(page.stepBars(false)->data().stepLabels.size(), m_report->metrics.steps.steps.size());
    EXPECT_EQ(page.stepBars(true)->data().stepLabels.size(), after->metrics.steps.steps.size());
    EXPECT_FALSE(page.roofline(false)->data().dots.empty());
    EXPECT_FALSE(page.roofline(true)->data().dots.empty());
    EXPECT_EQ(page.stepBars(false)->plot()->yAxis->range(), page.stepBars(true)->plot()->yAxis->range());
    EXPECT_GT(page.stepBars(false)->plot()->yAxis->range().upper, 0.0);
    EXPECT_EQ(page.roofline(false)->plot()->xAxis->range(), page.roofline(true)->plot()->xAxis->range());
    EXPECT_EQ(page.roofline(false)->plot()->yAxis->range(), page.roofline(true)->plot()->yAxis->range());
    for (QSize size : {QSize(900, 600), QSize(1500, 900)}) {
        const QImage image = testutils::renderWidget(page, size);
        testutils::saveIfRequested(image, QStringLiteral("compare-%1").arg(size.width()));
        EXPECT_GT(testutils::inkFraction(image), 0.03);
    }
    ComparePage empty;
    EXPECT_EQ(empty.comparison(), nullptr);
    EXPECT_FALSE(empty.summaryText().isEmpty());
    // The same trace on both sides: no kernel changed, and the table says so instead of staying blank.
    ComparePage same;
    same.setReports(m_report, m_report);
    ASSERT_NE(same.comparison(), nullptr);
    ASSERT_EQ(same.kernelsModel()->rowCount(), 1);
    EXPECT_TRUE(same.kernelsModel()->item(0, 0)->text().startsWith(QStringLiteral("No kernel changed")))
        << same.kernelsModel()->item(0, 0)->text().toStdString();
    EXPECT_TRUE(same.kernelsModel()->item(0, 0)->text().contains(QStringLiteral("10 %")));
    // Read across the whole table, not cut to the kernel column; a real comparison after it has no span.
    const QList<QTableView*> views = same.findChildren<QTableView*>();
    const auto spanning = std::find_if(views.begin(), views.end(), [&](QTableView* v) {
        const auto* proxy = qobject_cast<QSortFilterProxyModel*>(v->model());
        return proxy != nullptr && proxy->sourceModel() == same.kernelsModel();
    });
    ASSERT_NE(spanning, views.end());
    EXPECT_EQ((*spanning)->columnSpan(0, 0), same.kernelsModel()->columnCount());
    // The same run with its GEMM taking twice as long per step: kernel rows, and no span left over.
    auto slower = std::make_shared<analysis::AnalysisReport>(*m_report);
    for (analysis::TopKernel& k : slower->kernelsByName) {
        if (k.kernelClass == analysis::KernelClass::Gemm) {
            k.steadyTotalNs *= 2;
        }
    }
    same.setReports(m_report, slower);
    ASSERT_EQ(same.comparison()->slower.size(), 1u);
    EXPECT_EQ((*spanning)->columnSpan(0, 0), 1);
}

// The real pair, side by side at 1000 px: nw4 idles in host work and nw0 does not, so nw0's legend
// was a row shorter and its bars started higher than nw4's. Both legends now list the same kinds,
// and the plots' bar areas line up. The kernel column keeps room for a readable name.
TEST_F(AnalysisPagesTest, ComparedStepBarsShareOneLegendAndLineUp) {
    std::shared_ptr<const analysis::AnalysisReport> reports[2];
    const char* files[2] = {"resnet50-nw0.pt.trace.json.gz", "resnet50-nw4.pt.trace.json.gz"};
    for (int i = 0; i < 2; ++i) {
        auto model = core::loadTrace(std::string(CHOKEPOINT_SOURCE_DIR "/samples/real/") + files[i]);
        ASSERT_TRUE(model.ok()) << model.error().message;
        auto analysed =
            analysis::analyzeTrace(std::make_shared<const core::TraceModel>(std::move(model).value()), {});
        ASSERT_TRUE(analysed.ok());
        reports[i] = analysed.value();
    }
    ComparePage page;
    page.setReports(reports[0], reports[1]);
    const QImage image = testutils::renderWidget(page, QSize(1000, 700));
    testutils::saveIfRequested(image, QStringLiteral("compare-real-1000"));
    QCustomPlot* left = page.stepBars(false)->plot();
    QCustomPlot* right = page.stepBars(true)->plot();
    EXPECT_EQ(left->legend->itemCount(), right->legend->itemCount());
    EXPECT_GE(left->legend->itemCount(), 6);
    EXPECT_EQ(left->axisRect()->rect().top(), right->axisRect()->rect().top());
    EXPECT_EQ(left->axisRect()->rect().height(), right->axisRect()->rect().height());
    const QList<QTableView*> views = page.findChildren<QTableView*>();
    for (QTableView* view : views) {
        const auto* proxy = qobject_cast<QSortFilterProxyModel*>(view->model());
        if (proxy != nullptr && proxy->sourceModel() == page.kernelsModel()) {
            EXPECT_GE(view->columnWidth(0), 120) << "the kernel column is squeezed";
        }
        if (proxy != nullptr && proxy->sourceModel() == page.metricsModel()) {
            const QStandardItemModel* metrics = page.metricsModel();
            for (int column = 1; column < metrics->columnCount(); ++column) {
                int widest = 0;
                for (int row = 0; row < metrics->rowCount(); ++row) {
                    widest = std::max(
                        widest, view->fontMetrics().horizontalAdvance(metrics->item(row, column)->text()));
                }
                EXPECT_GE(view->columnWidth(column), widest) << "metrics column " << column << " is cut";
            }
        }
    }
}

TEST_F(AnalysisPagesTest, PagesDrawWithoutAReport) {
    DiagnosisPage diagnosis;
    RooflinePage roofline;
    FixesPage fixes;
    for (QWidget* page : std::initializer_list<QWidget*>{&diagnosis, &roofline, &fixes}) {
        const QImage image = testutils::renderWidget(*page, QSize(700, 500));
        EXPECT_GT(testutils::inkFraction(image), 0.0);
    }
    EXPECT_EQ(fixes.fixCount(), 0);
}

}  // namespace
}  // namespace chokepoint::ui
