// What a new user met in the GUI (issue 23, item 5), each tried the way the user met it: the
// Compare table's internal keys and its empty side, a new trace opening mid-page, a first Shift+drag
// that moved under the mouse, cut-off range statistics and 15-second offsets in microseconds, a
// failed open with an empty page behind its dialog, cut-short traces diagnosed with high confidence,
// CLI flags and formula symbols in GUI text, and a heatmap whose colours and clicks said little.
#include <gtest/gtest.h>

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>

#include "tests/testutils/TraceBuilder.h"
#include "tests/ui/JobReportFixture.h"
#include "tests/ui/PageReportFixture.h"
#include "tests/ui/PageTestSupport.h"
#include "tests/ui/UiTestModels.h"
#include "ui/base/charts/StepStrip.h"
#include "ui/base/document/TraceDocument.h"
#include "ui/base/widgets/DetailsPanel.h"
#include "ui/base/widgets/ElidedLabel.h"
#include "ui/base/widgets/RangeStatsView.h"
#include "ui/shell/MainWindow.h"
#include "ui/views/job/JobDocument.h"
#include "ui/views/job/JobPage.h"
#include "ui/views/job/RankStepHeatmap.h"
#include "ui/views/job/StragglerPanel.h"
#include "ui/views/pages/ComparePage.h"
#include "ui/views/pages/DiagnosisPage.h"
#include "ui/views/pages/FixesPage.h"
#include "ui/views/timeline/TimelinePage.h"
#include "ui/views/timeline/TimelineWidget.h"
// After the ui headers: they read core's reports with Qt's `signals` macro suspended.
#include "core/base/Format.h"
#include "core/import/TraceLoader.h"

namespace chokepoint::ui {
namespace {

using testutils::isolateSettings;

bool waitFor(QSignalSpy& spy, int timeoutMs = 10'000) {
    return spy.count() > 0 || spy.wait(timeoutMs);
}

// --- Compare -------------------------------------------------------------------------------------

TEST(GuiFrictions, CompareTableNamesEveryMetricItShows) {
    testutils::guiApp();
    const auto before = testutils::buildDataBoundReport();
    const auto after = testutils::buildDataBoundReport(testutils::buildDataBoundTrace(1'000'000));
    ASSERT_TRUE(before && after);
    const analysis::ComparisonReport comparison = analysis::compareReports(*before, *after);
    ASSERT_FALSE(comparison.metrics.empty());
    for (const analysis::MetricDelta& m : comparison.metrics) {
        const QString label = compareMetricLabel(m.name);
        EXPECT_NE(label, QString::fromStdString(m.name)) << "no label for " << m.name;
        EXPECT_FALSE(label.contains(QLatin1Char('.'))) << label.toStdString();
    }
    EXPECT_TRUE(compareMetricLabel("idle.hostWork").startsWith(QStringLiteral("Idle: host work")));

    ComparePage page;
    page.setReports(before, after);
    for (int row = 0; row < page.metricsModel()->rowCount(); ++row) {
        const QString shown = page.metricsModel()->item(row, 0)->text();
        EXPECT_FALSE(shown.startsWith(QStringLiteral("idle."))) << shown.toStdString();
    }
}

TEST(GuiFrictions, CompareSideWithoutATraceDoesNotSayNoStepsDetected) {
    testutils::guiApp();
    ComparePage page;
    page.setReports(testutils::buildDataBoundReport(), nullptr);
    const auto strips = page.findChildren<StepStrip*>();
    ASSERT_EQ(strips.size(), 2);
    int blank = 0;
    for (StepStrip* strip : strips) {
        if (strip->cells().empty()) {
            EXPECT_TRUE(strip->emptyText().isEmpty());  // the side with no trace says nothing
            ++blank;
        }
    }
    EXPECT_EQ(blank, 1);
}

TEST(GuiFrictions, CompareSummarySaysTheVerdictAndEachWarningOnce) {
    testutils::guiApp();
    const auto before = testutils::buildDataBoundReport();
    auto after = std::make_shared<analysis::AnalysisReport>(
        *testutils::buildDataBoundReport(testutils::buildDataBoundTrace(1'000'000)));
    after->distributed = core::DistributedInfo{true, 0, 8, "nccl"};  // world sizes differ: a warning
    after->overall.bottleneck = analysis::Bottleneck::Compute;       // and the verdict changed
    ComparePage page;
    page.setReports(before, after);
    ASSERT_NE(page.comparison(), nullptr);
    ASSERT_FALSE(page.comparison()->warnings.empty());
    const QString text = page.summaryText();
    const QString headline = text.section(QStringLiteral("</b>"), 0, 0);
    for (const std::string& warning : page.comparison()->warnings) {
        const QString shown = QString::fromStdString(warning).toHtmlEscaped();
        EXPECT_FALSE(headline.contains(shown)) << text.toStdString();  // listed below, once
        EXPECT_EQ(text.count(QStringLiteral("⚠ ") + shown), 1) << text.toStdString();
    }
    EXPECT_EQ(text.count(QStringLiteral("verdict"), Qt::CaseInsensitive), 1) << text.toStdString();
}

// --- A new trace opens at its headline ------------------------------------------------------------

TEST(GuiFrictions, ANewTraceOpensAtTheTopOfTheDiagnosisPage) {
    isolateSettings();
    MainWindow window;
    window.resize(1000, 500);  // short, so the page scrolls
    window.show();
    QSignalSpy analysed(window.document(), &TraceDocument::analysisAvailable);
    window.document()->setModel(testutils::buildDataBoundTrace(), QStringLiteral("first"));
    ASSERT_TRUE(waitFor(analysed));
    auto* page = qobject_cast<DiagnosisPage*>(window.page(QStringLiteral("diagnosis")));
    ASSERT_NE(page, nullptr);
    window.showPage(QStringLiteral("diagnosis"));
    QApplication::processEvents();
    QScrollBar* bar = page->scrollArea()->verticalScrollBar();
    ASSERT_GT(bar->maximum(), 0) << "the page must scroll for this test to mean anything";
    bar->setValue(bar->maximum());  // the user scrolled down to the kernel table
    analysed.clear();
    window.document()->setModel(testutils::buildDataBoundTrace(2'000'000), QStringLiteral("second"));
    ASSERT_TRUE(waitFor(analysed));
    QApplication::processEvents();
    EXPECT_EQ(bar->value(), 0);
}

// --- The first Shift+drag ---------------------------------------------------------------------------

void sendMouse(QWidget* w, QEvent::Type type, QPoint pos, Qt::MouseButtons buttons) {
    const Qt::MouseButton button = type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton;
    QMouseEvent event(type, QPointF(pos), QPointF(w->mapToGlobal(pos)), button, buttons, Qt::ShiftModifier);
    QApplication::sendEvent(w, &event);
}

TEST(GuiFrictions, TheFirstShiftDragSelectsWhatTheMouseCovered) {
    isolateSettings();
    TraceDocument document;
    TimelinePage page;
    page.resize(1600, 1000);  // as the user saw it: wide enough for the panel to grow
    page.setDocument(&document);
    page.show();
    QSignalSpy analysed(&document, &TraceDocument::analysisAvailable);
    document.setModel(testutils::timelineTestModel(), QStringLiteral("test"));
    ASSERT_TRUE(waitFor(analysed));
    QApplication::processEvents();
    TimelineWidget* timeline = page.timeline();
    const core::TimeRange view = timeline->visibleRange();
    const auto timeAt = [&](int x) {
        return view.startNs +
               static_cast<core::DurationNs>(static_cast<double>(x - timeline->plotLeft()) *
                                             static_cast<double>(view.durationNs()) / timeline->plotWidth());
    };
    const int y = timeline->height() / 2;
    const QPoint from(timeline->plotLeft() + timeline->plotWidth() / 4, y);
    const QPoint to(timeline->plotLeft() + timeline->plotWidth() / 2, y);
    const core::TimestampNs expectedStart = timeAt(from.x());
    const core::TimestampNs expectedEnd = timeAt(to.x());
    const int detailsWidthBefore = page.details()->width();

    sendMouse(timeline, QEvent::MouseButtonPress, from, Qt::LeftButton);
    sendMouse(timeline, QEvent::MouseMove, (from + to) / 2, Qt::LeftButton);
    QTest::qWait(200);  // the user pauses mid-drag: the range settles while the button is down
    sendMouse(timeline, QEvent::MouseMove, to, Qt::LeftButton);
    sendMouse(timeline, QEvent::MouseButtonRelease, to, Qt::NoButton);

    ASSERT_TRUE(timeline->rangeSelection().has_value());
    const core::DurationNs pixelNs = view.durationNs() / timeline->plotWidth();
    EXPECT_NEAR(static_cast<double>(timeline->rangeSelection()->startNs), static_cast<double>(expectedStart),
                2.0 * static_cast<double>(pixelNs));
    EXPECT_NEAR(static_cast<double>(timeline->rangeSelection()->endNs), static_cast<double>(expectedEnd),
                2.0 * static_cast<double>(pixelNs));
    // Once the mouse is up, the statistics get their room (the range stays what it was).
    const core::TimeRange selected = *timeline->rangeSelection();
    QTest::qWait(200);
    EXPECT_GT(page.details()->width(), detailsWidthBefore);
    EXPECT_EQ(*timeline->rangeSelection(), selected);
}

// --- Range statistics in a narrow panel ------------------------------------------------------------

// At 1000 px the toolbar's counts pushed it under its minimum and Qt drew the search buttons over
// the search box: the counts now give way, and no two toolbar widgets overlap.
TEST(GuiFrictions, ANarrowTimelineToolbarDrawsNoWidgetOverAnother) {
    isolateSettings();
    TraceDocument document;
    TimelinePage page;
    page.resize(900, 700);  // a laptop beside the details panel
    page.setDocument(&document);
    page.show();
    QSignalSpy analysed(&document, &TraceDocument::analysisAvailable);
    document.setModel(testutils::timelineTestModel(), QStringLiteral("test"));
    ASSERT_TRUE(waitFor(analysed));
    QApplication::processEvents();
    const int toolbarY = page.findChild<QLineEdit*>()->mapTo(&page, QPoint(0, 0)).y() + 5;
    std::vector<QRect> rects;
    for (QWidget* w : page.findChildren<QWidget*>()) {
        const QRect r(w->mapTo(&page, QPoint(0, 0)), w->size());
        const bool leaf = w->findChildren<QWidget*>(Qt::FindDirectChildrenOnly).isEmpty() ||
                          qobject_cast<QLineEdit*>(w) != nullptr;
        if (w->isVisible() && leaf && r.top() <= toolbarY && r.bottom() >= toolbarY && r.width() > 0 &&
            qobject_cast<QLineEdit*>(w->parentWidget()) == nullptr) {
            rects.push_back(r);
        }
    }
    // The page asks for no more than a 1000 px window gives it (it asked 1150 px, and got less).
    EXPECT_LE(page.minimumSizeHint().width(), 1000);
    ASSERT_GE(rects.size(), 8u);  // the search box, its two buttons, six view buttons, the counts
    for (std::size_t i = 0; i < rects.size(); ++i) {
        for (std::size_t j = i + 1; j < rects.size(); ++j) {
            EXPECT_FALSE(rects[i].intersects(rects[j]))
                << "x " << rects[i].x() << "+" << rects[i].width() << " and x " << rects[j].x() << "+"
                << rects[j].width();
        }
    }
}

// A host-only capture (`run --host-only`) holds Python stack samples and nothing else: the toolbar's
// counts read "0 GPU records · 0 host events", as if the trace were empty.
TEST(GuiFrictions, AHostOnlyCaptureCountsItsStackSamples) {
    isolateSettings();
    testutils::TraceBuilder builder;
    for (int i = 0; i < 40; ++i) {
        builder.sample(i * 10'000'000LL, "train.py:main;train.py:forward");
    }
    TraceDocument document;
    TimelinePage page;
    page.setDocument(&document);
    QSignalSpy analysed(&document, &TraceDocument::analysisAvailable);
    document.setModel(std::make_shared<core::TraceModel>(builder.build()), QStringLiteral("host-only"));
    ASSERT_TRUE(waitFor(analysed));
    QApplication::processEvents();
    bool found = false;
    for (ElidedLabel* label : page.findChildren<ElidedLabel*>()) {
        if (label->fullText().contains(QStringLiteral("stack samples"))) {
            found = true;
            EXPECT_TRUE(label->fullText().startsWith(QStringLiteral("40 stack samples")))
                << label->fullText().toStdString();
        }
    }
    EXPECT_TRUE(found);
}

TEST(GuiFrictions, ANarrowRangePanelKeepsItsSectionNamesWhole) {
    testutils::guiApp();
    const auto model = testutils::timelineTestModel();
    const analysis::RangeStats stats = analysis::computeRangeStats(*model, model->timeSpan());
    RangeStatsView view;
    view.resize(200, 400);  // narrower than the names and the four figures together
    view.show();
    view.setStats(stats, *model, model->timeSpan().startNs);
    QApplication::processEvents();
    const QFontMetrics metrics(view.font());
    EXPECT_GE(view.header()->sectionSize(0),
              metrics.horizontalAdvance(QStringLiteral("Range")) + view.indentation());
    EXPECT_GE(view.header()->sectionSize(0), view.minimumNameWidth());
    for (int c = 1; c < view.columnCount(); ++c) {
        EXPECT_GE(view.header()->sectionSize(c), metrics.horizontalAdvance(view.headerItem()->text(c)))
            << "column " << c;
    }
    // Wide, the name column still takes the room the figures leave.
    view.resize(900, 400);
    QApplication::processEvents();
    int total = 0;
    for (int c = 0; c < view.columnCount(); ++c) {
        total += view.header()->sectionSize(c);
    }
    EXPECT_GE(total, view.viewport()->width() - 2);
    // Offsets read in seconds once they are seconds.
    EXPECT_EQ(core::formatTimeOffset(14'971'209'026), "14.971209026 s");
}

// --- A failed open ---------------------------------------------------------------------------------

TEST(GuiFrictions, AFailedOpenKeepsTheOpenTraceOnThePageBehindItsMessage) {
    isolateSettings();
    MainWindow window;
    window.setInteractive(false);
    QSignalSpy analysed(window.document(), &TraceDocument::analysisAvailable);
    window.document()->setModel(testutils::buildDataBoundTrace(), QStringLiteral("open trace"));
    ASSERT_TRUE(waitFor(analysed));
    auto* page = qobject_cast<DiagnosisPage*>(window.page(QStringLiteral("diagnosis")));
    ASSERT_NE(page, nullptr);
    const QString headline = page->headlineText();
    ASSERT_FALSE(headline.isEmpty());
    // What the page shows at the moment the failure is announced (when the dialog comes up).
    QString shownAtFailure;
    QObject::connect(window.document(), &TraceDocument::loadFailed, page,
                     [&] { shownAtFailure = page->headlineText(); });
    QSignalSpy failed(window.document(), &TraceDocument::loadFailed);
    window.openFile(QStringLiteral("/nonexistent/trace.json"));
    ASSERT_TRUE(waitFor(failed));
    EXPECT_EQ(shownAtFailure, headline);
    EXPECT_EQ(page->headlineText(), headline);
}

// --- Traces read only in part ----------------------------------------------------------------------

TEST(GuiFrictions, AnUnreadableCptraceIsAnErrorNotACpuOnlyTrace) {
    testutils::guiApp();
    QTemporaryDir dir;
    const std::string source =
        std::string(CHOKEPOINT_SOURCE_DIR) + "/tests/data/h100-agent-2026-11-26/gpt-attach.cptrace";
    std::ifstream in(source, std::ios::binary);
    ASSERT_TRUE(in) << source;
    std::string head(100, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    const std::string path = (dir.path() + QStringLiteral("/cut.cptrace")).toStdString();
    std::ofstream(path, std::ios::binary) << head;

    auto loaded = core::loadTrace(path);
    ASSERT_FALSE(loaded.ok());
    EXPECT_NE(loaded.error().message.find("cut.cptrace"), std::string::npos) << loaded.error().message;
    EXPECT_NE(loaded.error().message.find("no records could be read"), std::string::npos)
        << loaded.error().message;

    TraceDocument document;
    DiagnosisPage page;
    page.setDocument(&document);
    QSignalSpy failed(&document, &TraceDocument::loadFailed);
    document.open(QString::fromStdString(path));
    ASSERT_TRUE(waitFor(failed));
    EXPECT_FALSE(page.headlineText().contains(QStringLiteral("CPU-only")));
}

TEST(GuiFrictions, ACutShortTraceIsNeverDiagnosedWithHighConfidence) {
    testutils::guiApp();
    QTemporaryDir dir;
    // The bundled sample, cut after a few CPU ops and before any kernel.
    const std::string source =
        std::string(CHOKEPOINT_SOURCE_DIR) + "/samples/real/resnet50-nw0.pt.trace.json.gz";
    auto whole = core::loadTrace(source);
    ASSERT_TRUE(whole.ok());
    const std::string path = (dir.path() + QStringLiteral("/cut.json")).toStdString();
    {
        // The first events of a Kineto trace: metadata and host ops; the file ends mid-event.
        std::ofstream out(path, std::ios::binary);
        out << R"({"schemaVersion": 1, "traceEvents": [)"
               R"({"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 100, "dur": 5},)"
               R"({"ph": "X", "cat": "cpu_op", "name": "aten::zeros", "pid": 1, "tid": 1, "ts": 110, "dur": 5},)"
               R"({"ph": "X", "cat": "kern)";
    }
    analysis::AnalysisOptions options;
    options.device = testutils::a100Spec();
    options.deviceMethod = "override";
    auto loaded = core::loadTrace(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    auto report =
        analysis::analyzeTrace(std::make_shared<const core::TraceModel>(std::move(loaded).value()), options);
    ASSERT_TRUE(report.ok());
    EXPECT_NE(report.value()->overall.confidenceLabel(), "high");
    EXPECT_EQ(report.value()->overall.confidenceLabel(), "low");
    EXPECT_EQ(report.value()->headline.find("CPU-only"), std::string::npos) << report.value()->headline;
    EXPECT_NE(report.value()->headline.find("cut short"), std::string::npos) << report.value()->headline;
    // A whole trace keeps its confidence.
    auto wholeReport =
        analysis::analyzeTrace(std::make_shared<const core::TraceModel>(std::move(whole).value()), options);
    ASSERT_TRUE(wholeReport.ok());
    EXPECT_NE(wholeReport.value()->overall.confidenceLabel(), "low");
}

// --- GUI text speaks to a GUI user -----------------------------------------------------------------

TEST(GuiFrictions, DiagnosisTextNamesNoCliFlagsOrFormulaSymbols) {
    testutils::guiApp();
    DiagnosisPage page;
    page.resize(1400, 1000);
    page.setReport(testutils::buildDataBoundReport(), testutils::buildDataBoundTrace());
    QApplication::processEvents();
    QString all;
    for (QLabel* label : page.findChildren<QLabel*>()) {
        all += label->text() + QLatin1Char('\n');
    }
    ASSERT_FALSE(all.isEmpty());
    for (const char* internal : {"chokepoint-cli", "O_model", "eta_hw", "R_peak"}) {
        EXPECT_FALSE(all.contains(QLatin1String(internal))) << internal << " in:\n" << all.toStdString();
    }
    // Where a CLI flag is named, the GUI's own place for the same setting is named with it.
    if (all.contains(QStringLiteral("--model-flops"))) {
        EXPECT_TRUE(all.contains(QStringLiteral("Analysis Settings"))) << all.toStdString();
    }
}

// A label under its own heading does not repeat the heading: "Why no MFU: MFU not shown: ..." and
// "at most: ... (1.50x) (upper bound)" each said a thing twice.
TEST(GuiFrictions, HeadingsAreNotRepeatedByTheirText) {
    testutils::guiApp();
    auto report = std::make_shared<analysis::AnalysisReport>(*testutils::buildDataBoundReport());
    report->mfu.impossibleMfu = 0.00015;
    report->mfu.mfu.reset();
    report->mfu.impossibleReason =
        "MFU not shown: the recorded shapes account for only 7.9 % of the kernel time";
    ASSERT_FALSE(report->fixes.recommendations.empty());
    report->fixes.recommendations.front().gain.upperBound = true;
    report->fixes.recommendations.front().gain.summary = "at most: step time 10.0 ms -> 6.00 ms (1.67x)";
    DiagnosisPage page;
    page.resize(1400, 1000);
    page.setReport(report, testutils::buildDataBoundTrace());
    QApplication::processEvents();
    QString all;
    for (QLabel* label : page.findChildren<QLabel*>()) {
        all += label->text() + QLatin1Char('\n');
    }
    EXPECT_TRUE(all.contains(QStringLiteral("Why no MFU:</b> The recorded shapes account")))
        << all.toStdString();
    FixesPage fixes;
    fixes.setReport(report);
    fixes.selectFix(0);
    EXPECT_TRUE(fixes.detailsText().contains(QStringLiteral("at most"))) << fixes.detailsText().toStdString();
    EXPECT_FALSE(fixes.detailsText().contains(QStringLiteral("(upper bound)")))
        << fixes.detailsText().toStdString();
}

// --- The job heatmap -----------------------------------------------------------------------------------

std::shared_ptr<const job::JobReport> eightRanks() {
    testutils::JobFixtureSpec spec;
    spec.worldSize = 8;
    return testutils::makeJobReport(spec);
}

TEST(GuiFrictions, AFewPercentSpreadStaysPaleOnTheHeatmap) {
    const auto report = eightRanks();
    const HeatmapData data = buildHeatmapData(*report, HeatmapMetric::StepTime);
    // The scale spans at least a quarter of the fastest step: a 4 % slower cell sits in the first
    // sixth of the ramp, not at its dark end.
    EXPECT_GE(data.highNs - data.lowNs, kStepTimeMinRelativeSpan * data.lowNs - 1);
    const double fourPercent = data.lowNs * 1.04;
    EXPECT_LT((fourPercent - data.lowNs) / (data.highNs - data.lowNs), 0.2);
}

TEST(GuiFrictions, ClickingAHeatmapCellShowsItInTheSidePanel) {
    testutils::guiApp();
    JobDocument document;
    JobPage page;
    page.resize(1400, 900);
    page.setDocument(&document);
    page.show();
    const auto report = eightRanks();
    document.setReport(report, QStringLiteral("fixture"));
    QApplication::processEvents();
    RankStepHeatmap* heatmap = page.heatmap();
    ASSERT_GT(heatmap->data().rows(), 0);
    // The cell of the second row, third column.
    int y = -1;
    for (int py = 0; py < heatmap->viewport()->height() && y < 0; ++py) {
        if (heatmap->rowAt(py) == 1) {
            y = py + heatmap->rowHeight() / 2;
        }
    }
    int x = -1;
    for (int px = 0; px < heatmap->viewport()->width() && x < 0; ++px) {
        if (heatmap->columnAt(px) == 2) {
            x = px + 2;
        }
    }
    ASSERT_GE(y, 0);
    ASSERT_GE(x, 0);
    EXPECT_TRUE(page.stragglerPanel()->cellText().isEmpty());
    QTest::mouseClick(heatmap->viewport(), Qt::LeftButton, Qt::NoModifier, QPoint(x, y));
    const QString text = page.stragglerPanel()->cellText();
    const int rank = heatmap->data().rowRank[1];
    const std::int64_t step = heatmap->data().colStep[2];
    EXPECT_TRUE(text.contains(QStringLiteral("Rank %1 · step #%2").arg(rank).arg(step)))
        << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("median rank"))) << text.toStdString();
    EXPECT_EQ(text, heatmapCellText(*report, heatmap->data(), heatmap->metric(), 1, 2));
}

}  // namespace
}  // namespace chokepoint::ui
