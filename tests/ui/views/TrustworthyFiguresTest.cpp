// One figure per concept in every GUI view (issue "Numbers you can trust"): the diagnosis page, the
// HTML report and the step chart show the report's step time, busy and idle-by-cause figures; the
// roofline flags points above their roof; Compare forgets its other side when the document gets
// another trace. The shared ResNet-50 trace is used when ../shared/traces is present.

#include <gtest/gtest.h>

#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "core/format/CptraceWriter.h"
#include "core/import/TraceLoader.h"
#include "tests/testutils/SharedTraces.h"
#include "tests/testutils/TraceBuilder.h"
#include "tests/ui/PageReportFixture.h"
#include "tests/ui/PageTestSupport.h"
#include "tests/ui/UiTestModels.h"
#include "ui/base/charts/ReportCharts.h"
#include "ui/base/document/TraceDocument.h"
#include "ui/base/theme/ReportPalette.h"
#include "ui/views/pages/ComparePage.h"
#include "ui/views/pages/DiagnosisPage.h"
#include "ui/views/report/DiagnosisReport.h"
#include "ui/views/report/ReportDocument.h"
#include "ui/views/timeline/ReportOverlays.h"

namespace chokepoint::ui {
namespace {

// Loads `path` into a document watched by `page` and waits for the analysis.
std::shared_ptr<const analysis::AnalysisReport> analyzeInto(TraceDocument& document, const QString& path) {
    QSignalSpy done(&document, &TraceDocument::analysisAvailable);
    QSignalSpy failed(&document, &TraceDocument::loadFailed);
    document.open(path);
    for (int i = 0; i < 1200 && done.isEmpty() && failed.isEmpty(); ++i) {
        QTest::qWait(25);
    }
    return document.report();
}

// A diagnosis page on a document holding the shared trace `name`, analysed.
struct SharedTracePage {
    TraceDocument document;
    DiagnosisPage page;
    std::shared_ptr<const analysis::AnalysisReport> report;
    explicit SharedTracePage(const char* name) {
        page.setDocument(&document);
        report = analyzeInto(document, QString::fromStdString(testutils::sharedTracePath(name)));
    }
};

QString allLabelText(const QWidget& widget) {
    QString text;
    for (const QLabel* label : widget.findChildren<QLabel*>()) {
        text += label->text() + QLatin1Char('\n');
    }
    // What a reader sees: a figure's value keeps its unit on its line with a no-break space.
    return text.replace(QChar::Nbsp, QLatin1Char(' '));
}

void expectFiguresAgree(const analysis::AnalysisReport& r, const QWidget& diagnosisPage) {
    const QString page = allLabelText(diagnosisPage);
    const QString mean = QString::fromStdString(analysis::formatStepDuration(r.metrics.stepTimes.meanNs));
    const QString sentence = QString::fromStdString(analysis::describeStepTimes(r.metrics.stepTimes));
    // The step time: the figure and the sentence that defines it, on the page and in the report.
    EXPECT_TRUE(page.contains(mean)) << mean.toStdString();
    EXPECT_TRUE(page.contains(sentence)) << sentence.toStdString();
    EXPECT_EQ(durationText(r.mfu.stepTimeNs), mean);
    const QString html = buildDiagnosisReport(r, r.model.get()).toHtml();
    EXPECT_TRUE(html.contains(htmlEscape(sentence))) << sentence.toStdString();
    // Busy and MFU as the core computed them.
    EXPECT_TRUE(page.contains(percentText(r.mfu.busyFraction)));
    EXPECT_TRUE(html.contains(percentText(r.mfu.busyFraction)));
    if (r.mfu.mfu) {
        EXPECT_TRUE(page.contains(percentText(*r.mfu.mfu)));
    }
    // A withheld MFU says why in the figure's place, as the core names it (a far-too-low 6·N·T on a
    // CNN is not called "impossible").
    if (r.mfu.withheld != analysis::MfuWithheld::No) {
        const QString label = QString::fromStdString(std::string(analysis::shortLabel(r.mfu.withheld)));
        EXPECT_TRUE(page.contains(label)) << label.toStdString();
    }
    // The step chart draws each step's verdict figures: bars add up to the step window and the idle
    // series are the verdict's idle by cause.
    const StepBarsData bars = stepBarsFromReport(r);
    ASSERT_EQ(static_cast<std::size_t>(bars.stepLabels.size()), r.steps.size());
    ASSERT_EQ(static_cast<std::size_t>(bars.excludedReasons.size()), r.steps.size());
    for (std::size_t s = 0; s < r.steps.size(); ++s) {
        // The steps the step time leaves out are the ones the chart marks, with the same reason.
        EXPECT_EQ(bars.excludedReasons[static_cast<int>(s)].toStdString(),
                  r.steps[s].excluded ? r.steps[s].excludedReason : std::string())
            << "step " << s;
        const analysis::DiagnosisSignals& sig = diagnosisSignals(r.steps[s]);
        if (!sig.hasGpuActivity) {
            continue;
        }
        double total = 0;
        for (const StackedSeries& series : bars.series) {
            total += series.valuesMs[s];
        }
        EXPECT_NEAR(total, sig.windowNs / 1e6, sig.windowNs / 1e6 * 0.01 + 1e-3) << "step " << s;
        for (const StackedSeries& series : bars.series) {
            double expected = -1;
            if (series.name == QObject::tr("Idle: synchronization")) {
                expected = sig.idleSyncFraction;
            } else if (series.name == QObject::tr("Idle: waiting on a collective")) {
                expected = sig.idleCollectiveFraction;
            } else if (series.name == QObject::tr("Idle: launch overhead")) {
                expected = sig.idleLaunchOverheadFraction;
            } else if (series.name == QObject::tr("Idle: waiting for data")) {
                expected = sig.idleDataWaitFraction;
            } else if (series.name == QObject::tr("Compute-bound kernels")) {
                // The kernel time splits as the verdict's composition does.
                expected = sig.compositionKnown ? sig.computeFraction * sig.computeBoundKernelShare : 0.0;
            } else if (series.name == QObject::tr("Memory-bound kernels")) {
                expected = sig.compositionKnown ? sig.computeFraction * sig.memoryBoundKernelShare : 0.0;
            }
            if (expected >= 0) {
                EXPECT_NEAR(series.valuesMs[s], expected * sig.windowNs / 1e6, 1e-6)
                    << series.name.toStdString();
            }
        }
    }
    // With a composition, the chart has the compute- and memory-bound parts the verdict speaks of.
    const bool composed =
        std::any_of(r.steps.begin(), r.steps.end(), [](const analysis::StepDiagnosis& step) {
            return diagnosisSignals(step).compositionKnown &&
                   diagnosisSignals(step).computeBoundKernelShare > 0;
        });
    if (composed) {
        EXPECT_TRUE(std::any_of(bars.series.begin(), bars.series.end(), [](const StackedSeries& series) {
            return series.name == QObject::tr("Compute-bound kernels");
        }));
    }
    // The timeline's idle strip says what the verdict says: a queued wait (decided per gap) is not
    // drawn as launch overhead or synchronization.
    const TimelineOverlays overlays = overlaysFromReport(r);
    std::size_t drawn = 0;
    for (const analysis::IdleInterval& idle : r.metrics.accounting.idleIntervals) {
        if (idle.streamId != -1) {
            continue;
        }
        ASSERT_LT(drawn, overlays.idleGaps.size());
        const IdleGap& gap = overlays.idleGaps[drawn++];
        EXPECT_EQ(gap.color, idleCauseColor(idle.cause));
        if (idle.queued) {
            EXPECT_NE(gap.color, idleCauseColor(analysis::IdleCause::LaunchOverhead));
            EXPECT_NE(gap.color, idleCauseColor(analysis::IdleCause::Synchronization));
        }
    }
    // Points above their roof carry a flag and their reason; no other tooltip shows more than 100 %.
    const RooflineChartData roofline = rooflineFromReport(r);
    for (const RooflineDot& dot : roofline.dots) {
        if (dot.aboveRoof) {
            EXPECT_TRUE(dot.tooltip.contains(QStringLiteral("above its roof"))) << dot.tooltip.toStdString();
        }
    }
}

TEST(TrustworthyFigures, SyntheticReportShowsTheSameFiguresEverywhere) {
    testutils::guiApp();
    TraceDocument document;
    DiagnosisPage page;
    page.setDocument(&document);
    QSignalSpy done(&document, &TraceDocument::analysisAvailable);
    document.setModel(testutils::buildDataBoundTrace(), QStringLiteral("data-bound"));
    ASSERT_TRUE(done.count() > 0 || done.wait(20'000));
    ASSERT_TRUE(document.report());
    expectFiguresAgree(*document.report(), page);
}

TEST(TrustworthyFigures, SharedTracesShowTheSameFiguresEverywhere) {
    testutils::guiApp();
    for (const char* name : {"kineto-rn50-nw0__worker0.1623143089861.pt.trace.json.gz",
                             "hta-negative-queue__rank0.json.gz", "h100/rn50-nw0.cptrace"}) {
        if (!testutils::sharedTraceExists(name)) {
            GTEST_SKIP() << "shared trace " << name << " not found";
        }
        SharedTracePage opened(name);
        ASSERT_TRUE(opened.report) << name;
        SCOPED_TRACE(name);
        expectFiguresAgree(*opened.report, opened.page);
    }
}

// The bundled V100-DGXS trace is matched to the V100 SXM2 datasheet by family: the page names the
// trace's own device, as the timeline does, and says whose peaks stand in.
TEST(TrustworthyFigures, AFamilyFallbackDeviceKeepsItsOwnName) {
    testutils::guiApp();
    TraceDocument document;
    DiagnosisPage page;
    page.setDocument(&document);
    const auto report = analyzeInto(
        document, QStringLiteral(CHOKEPOINT_SOURCE_DIR "/samples/real/resnet50-nw0.pt.trace.json.gz"));
    ASSERT_TRUE(report);
    ASSERT_EQ(report->device.method, "family fallback");
    const QString text = allLabelText(page);
    EXPECT_TRUE(text.contains(QStringLiteral("Tesla V100-DGXS-32GB"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("peaks of ") + QString::fromStdString(report->device.spec.name)))
        << text.toStdString();
}

TEST(TrustworthyFigures, LongFiguresWrapInsteadOfWideningThePage) {
    // The H100 ResNet capture: a withheld MFU's reason and the device's full name are the longest
    // figures; at 1000 px the page still needs no sideways scrolling.
    testutils::guiApp();
    const char* name = "h100/rn50-nw0.cptrace";
    if (!testutils::sharedTraceExists(name)) {
        GTEST_SKIP() << "shared trace " << name << " not found";
    }
    SharedTracePage opened(name);
    ASSERT_TRUE(opened.report);
    ASSERT_NE(opened.report->mfu.withheld, analysis::MfuWithheld::No);
    const QImage image = testutils::renderWidget(opened.page, QSize(1000, 700));
    testutils::saveIfRequested(image, QStringLiteral("diagnosis-1000"));
    auto* scroll = opened.page.findChild<QScrollArea*>();
    ASSERT_NE(scroll, nullptr);
    EXPECT_EQ(scroll->horizontalScrollBar()->maximum(), 0);
    EXPECT_LE(scroll->widget()->minimumSizeHint().width(), scroll->viewport()->width());
}

TEST(TrustworthyFigures, CompareForgetsItsOtherSideWhenTheDocumentGetsAnotherTrace) {
    testutils::guiApp();
    QTemporaryDir dir;
    const QString other = dir.filePath(QStringLiteral("other.cptrace"));
    ASSERT_TRUE(core::writeCptrace(*testutils::buildDataBoundTrace(1'000'000), other.toStdString()).ok());
    TraceDocument document;
    ComparePage page;
    page.setDocument(&document);
    QSignalSpy done(&document, &TraceDocument::analysisAvailable);
    document.setModel(testutils::buildDataBoundTrace(), QStringLiteral("first"));
    ASSERT_TRUE(done.count() > 0 || done.wait(20'000));
    page.compareWith(other);
    QTRY_VERIFY_WITH_TIMEOUT(page.comparison() != nullptr, 20'000);
    EXPECT_TRUE(page.summaryText().contains(QStringLiteral("step time")));
    // Another trace in the document: the old comparison must not be shown against it.
    done.clear();
    document.setModel(testutils::timelineTestModel(), QStringLiteral("second"));
    ASSERT_TRUE(done.count() > 0 || done.wait(20'000));
    QTest::qWait(50);
    EXPECT_EQ(page.comparison(), nullptr);
    EXPECT_FALSE(page.summaryText().contains(QStringLiteral("step time")));
}

// A warm-up step is not what the verdict describes: the timeline's step strip draws it neutral and
// says it is left out, where it used to wear its own verdict's colour like a steady step (the H100
// ResNet capture's 14.6 s first step read "Host-bound" across most of the window).
TEST(TrustworthyFigures, AStepLeftOutOfTheFiguresIsDrawnNeutralOnTheTimeline) {
    analysis::AnalysisReport report;
    analysis::StepDiagnosis warmUp;
    warmUp.name = "chokepoint:step#0";
    warmUp.range = {0, 14'600'000'000};
    warmUp.verdict.bottleneck = analysis::Bottleneck::HostBound;
    warmUp.excluded = true;
    warmUp.excludedReason = "warm-up: 55.97x the median step (first step: compilation, autotuning)";
    analysis::StepDiagnosis steady;
    steady.name = "chokepoint:step#1";
    steady.range = {14'600'000'000, 14'860'000'000};
    steady.verdict.bottleneck = analysis::Bottleneck::Data;
    report.steps = {warmUp, steady};
    const TimelineOverlays overlays = overlaysFromReport(report);
    ASSERT_EQ(overlays.steps.size(), 2u);
    EXPECT_FALSE(overlays.steps[0].color.isValid());
    EXPECT_TRUE(overlays.steps[0].verdict.startsWith(QStringLiteral("left out of the figures (warm-up)")))
        << overlays.steps[0].verdict.toStdString();
    EXPECT_EQ(overlays.steps[1].color, bottleneckColor(analysis::Bottleneck::Data));
    // The agent's step markers read as short as ProfilerStep's in the narrow strip.
    EXPECT_EQ(overlays.steps[1].label, QStringLiteral("Step 1"));
    for (const auto& entry : overlays.legend) {
        EXPECT_FALSE(entry.label.contains(bottleneckName(analysis::Bottleneck::HostBound)))
            << entry.label.toStdString();
    }
}

}  // namespace
}  // namespace chokepoint::ui

namespace chokepoint::ui {
namespace {

// A trace with no GPU timeline (host ops only, as a host-only capture or the profiler's counter
// mode leaves): no busy share, MFU or gauge to read, and no request to set the model FLOPs, which
// could not give an MFU. It read "GPU busy 0.0 %", "MFU unknown" and "MFU needs the model FLOPs".
TEST(TrustworthyFigures, ATraceWithoutAGpuTimelineShowsNoBusyOrMfu) {
    testutils::guiApp();
    testutils::TraceBuilder b;
    for (int i = 0; i < 20; ++i) {
        b.cpuOp("aten::add", i * 1'000'000, i * 1'000'000 + 400'000);
    }
    TraceDocument document;
    DiagnosisPage page;
    page.setDocument(&document);
    QSignalSpy done(&document, &TraceDocument::analysisAvailable);
    document.setModel(std::make_shared<const core::TraceModel>(b.build()), QStringLiteral("host only"));
    ASSERT_TRUE(done.count() > 0 || done.wait(20'000));
    const auto report = document.report();
    ASSERT_TRUE(report);
    ASSERT_FALSE(report->metrics.hasGpuWork);
    const QString text = allLabelText(page);
    EXPECT_TRUE(text.contains(QStringLiteral("not recorded"))) << text.toStdString();
    EXPECT_FALSE(text.contains(QStringLiteral("0.0 %"))) << text.toStdString();
    EXPECT_FALSE(text.contains(QStringLiteral("MFU needs"))) << text.toStdString();
    EXPECT_FALSE(text.contains(QStringLiteral("Peak used"))) << text.toStdString();
    const QString html = buildDiagnosisReport(*report, report->model.get()).toHtml();
    EXPECT_TRUE(html.contains(QStringLiteral("no GPU timeline"))) << html.toStdString();
    EXPECT_FALSE(html.contains(QStringLiteral("model FLOPs not given"))) << html.toStdString();
}

}  // namespace
}  // namespace chokepoint::ui
