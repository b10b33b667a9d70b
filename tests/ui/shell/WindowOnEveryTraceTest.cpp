// The whole window on every real trace in ../shared/traces (skipped when absent) and on the bundled
// sample: it opens, the analysis arrives, the diagnosis tables pass QAbstractItemModelTester, and
// every page draws something at two window sizes (the timeline at two zoom levels too).
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>

#include "tests/testutils/SharedTraces.h"
#include "tests/ui/PageTestSupport.h"
#include "ui/base/models/TopKernelsModel.h"
#include "ui/base/models/TraceStatsModel.h"
#include "ui/shell/MainWindow.h"
#include "ui/views/pages/DiagnosisPage.h"
#include "ui/views/timeline/TimelinePage.h"
#include "ui/views/timeline/TimelineWidget.h"

namespace chokepoint::ui {
namespace {

const char* const kBundledSample = "bundled sample";

// The real samples are in the repository (samples/real): they must always be there.
bool isBundled(const std::string& name) {
    return name == kBundledSample || name.rfind("samples/real/", 0) == 0;
}

std::string tracePath(const std::string& name) {
    if (name == kBundledSample) {
        return CHOKEPOINT_BINARY_DIR "/samples/synthetic-data-bound.cptrace";
    }
    return isBundled(name) ? std::string(CHOKEPOINT_SOURCE_DIR "/") + name : testutils::sharedTracePath(name);
}

class WindowOnEveryTraceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(WindowOnEveryTraceTest, OpensAnalysesAndDrawsEveryPage) {
    const std::string path = tracePath(GetParam());
    if (!QFile::exists(QString::fromStdString(path))) {
        ASSERT_FALSE(isBundled(GetParam())) << path << " not found";
        CHOKEPOINT_SHARED_TRACE_ABSENT(path << " not found");
    }
    testutils::isolateSettings();  // recent files go to this process's own settings
    MainWindow window;
    window.setInteractive(false);
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.resize(1280, 800);
    window.show();
    QSignalSpy analysed(window.document(), &TraceDocument::analysisAvailable);
    QSignalSpy failed(window.document(), &TraceDocument::loadFailed);
    QSignalSpy analysisFailed(window.document(), &TraceDocument::analysisFailed);
    window.openFile(QString::fromStdString(path));
    for (int waited = 0; analysed.isEmpty() && failed.isEmpty() && analysisFailed.isEmpty() && waited < 120;
         ++waited) {
        analysed.wait(500);
    }
    ASSERT_TRUE(failed.isEmpty()) << failed.first().first().toString().toStdString();
    ASSERT_TRUE(analysisFailed.isEmpty()) << analysisFailed.first().first().toString().toStdString();
    ASSERT_EQ(analysed.count(), 1) << "no analysis within a minute";
    ASSERT_NE(window.document()->report(), nullptr);

    auto* diagnosis = qobject_cast<DiagnosisPage*>(window.page(QStringLiteral("diagnosis")));
    ASSERT_NE(diagnosis, nullptr);
    QAbstractItemModelTester kernels(diagnosis->topKernelsModel(),
                                     QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester ops(diagnosis->topOpsModel(),
                                 QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester stats(diagnosis->traceStatsModel(),
                                   QAbstractItemModelTester::FailureReportingMode::Fatal);
    EXPECT_FALSE(diagnosis->headlineText().isEmpty());
    if (window.document()->model()->kernels.size() > 0) {
        EXPECT_GT(diagnosis->topKernelsModel()->rowCount(), 0);
    }

    for (const QString& id : window.pageIds()) {
        ASSERT_TRUE(window.showPage(id));
        for (QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
            window.resize(size);
            QApplication::processEvents();
            const QImage image = window.grab().toImage();
            testutils::saveIfRequested(image, QStringLiteral("window-%1-%2-%3")
                                                  .arg(QString::fromStdString(GetParam()).left(24), id)
                                                  .arg(size.width()));
            EXPECT_GT(testutils::distinctColours(image), 8) << id.toStdString() << " at " << size.width();
            EXPECT_GT(testutils::inkFraction(image), 0.02) << id.toStdString() << " at " << size.width();
        }
    }
    // The timeline zoomed out and zoomed in on the middle.
    auto* timelinePage = qobject_cast<TimelinePage*>(window.page(QStringLiteral("timeline")));
    ASSERT_NE(timelinePage, nullptr);
    window.showPage(QStringLiteral("timeline"));
    TimelineWidget* timeline = timelinePage->timeline();
    timeline->showAll();
    const QImage whole = timeline->grab().toImage();
    timeline->zoomBy(16.0, timeline->plotLeft() + timeline->plotWidth() / 2.0);
    const QImage zoomed = timeline->grab().toImage();
    EXPECT_LT(timeline->visibleRange().durationNs(), window.document()->model()->timeSpan().durationNs());
    EXPECT_GT(testutils::inkFraction(whole), 0.02);
    EXPECT_GT(testutils::inkFraction(zoomed), 0.02);
    EXPECT_NE(whole, zoomed);
}

INSTANTIATE_TEST_SUITE_P(Traces, WindowOnEveryTraceTest,
                         ::testing::Values(kBundledSample, "samples/real/resnet50-nw0.pt.trace.json.gz",
                                           "samples/real/resnet50-nw4.pt.trace.json.gz",
                                           "hta-amd-mi250__mi250_minitoy_train_ROCm6_2_kineto.json.gz",
                                           "hta-cpu-only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
                                           "hta-negative-queue__rank0.json.gz",
                                           "hta-trace-diff-control__control.json.gz",
                                           "hta-trace-diff-test__test.json.gz",
                                           "hta-ns-resolution__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                                           "param-linear__linear_kineto.json.gz",
                                           "kineto-tbplugin__gpu_metrics_input.json",
                                           "tracelens-h100__gaunernst_bert-small-uncased__1016001.json.gz",
                                           "pipit-nsys__saxpy-mpi-cuda_nsys_perlmutter0.sqlite"),
                         [](const ::testing::TestParamInfo<std::string>& trace) {
                             std::string name = trace.param.substr(0, trace.param.find("__"));
                             for (char& c : name) {
                                 c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                             }
                             return name + "_" + std::to_string(trace.index);
                         });

}  // namespace
}  // namespace chokepoint::ui
