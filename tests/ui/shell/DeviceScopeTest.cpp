// Several GPUs in one trace, in the GUI: the status bar's GPU selector lists them, and choosing one
// shows that GPU alone (its slice of the trace, its own report) on every page; "Every GPU" goes back.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QProcess>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include "core/format/CptraceWriter.h"
#include "tests/core/analysis/diagnosis/TwoGpuTrace.h"
#include "tests/ui/PageTestSupport.h"
#include "ui/base/document/AnalysisReportQt.h"
#include "ui/base/document/TraceDocument.h"
#include "ui/shell/MainWindow.h"

namespace chokepoint::ui {
namespace {

bool waitForAnalysis(TraceDocument& document, int timeoutMs) {
    for (int waited = 0; waited < timeoutMs; waited += 20) {
        if (document.analysisDone() && !document.busy()) {
            return true;
        }
        QTest::qWait(20);
    }
    return false;
}

QComboBox* deviceSelector(MainWindow& window) {
    for (QComboBox* box : window.statusBar()->findChildren<QComboBox*>()) {
        if (box->accessibleName() == QStringLiteral("GPU shown")) {
            return box;
        }
    }
    return nullptr;
}

TEST(DeviceScopeTest, SelectorShowsOneGpuAloneAndBack) {
    testutils::isolateSettings();
    MainWindow window;
    TraceDocument* document = window.document();
    document->setModel(std::make_shared<const core::TraceModel>(testutils::twoGpuProcess()),
                       QStringLiteral("two GPUs"));
    ASSERT_TRUE(waitForAnalysis(*document, 20'000));
    ASSERT_TRUE(document->report());
    const auto wholeModel = document->model();
    EXPECT_EQ(document->devicesWithReports(), (QList<int>{0, 1}));
    EXPECT_EQ(document->scopeDevice(), -1);

    QComboBox* selector = deviceSelector(window);
    ASSERT_NE(selector, nullptr);
    EXPECT_FALSE(selector->isHidden());
    ASSERT_EQ(selector->count(), 3);  // every GPU, GPU 0, GPU 1

    QSignalSpy scope(document, &TraceDocument::scopeChanged);
    QSignalSpy analysis(document, &TraceDocument::analysisAvailable);
    selector->setCurrentIndex(2);
    emit selector->activated(2);
    EXPECT_EQ(scope.count(), 1);
    EXPECT_EQ(analysis.count(), 1);
    EXPECT_EQ(document->scopeDevice(), 1);
    ASSERT_TRUE(document->report());
    EXPECT_EQ(document->report()->scopeDeviceIndex, 1);
    EXPECT_EQ(document->report()->model, document->model());  // pages resolve names in the slice
    EXPECT_EQ(document->model()->kernels.size(), 32u);
    EXPECT_LT(document->report()->overallSignals.busyFraction, 0.2);
    EXPECT_EQ(selector->currentIndex(), 2);
    // The selector still lists every GPU while one is shown.
    EXPECT_EQ(document->devicesWithReports(), (QList<int>{0, 1}));

    EXPECT_TRUE(document->selectDevice(-1));
    EXPECT_EQ(document->scopeDevice(), -1);
    EXPECT_EQ(document->model(), wholeModel);
    EXPECT_EQ(document->report()->scopeDeviceIndex, -1);
    EXPECT_FALSE(document->selectDevice(5));  // no such GPU
    EXPECT_EQ(document->scopeDevice(), -1);

    // A new trace starts on every GPU again; one GPU: no selector.
    EXPECT_TRUE(document->selectDevice(0));
    document->setModel(std::make_shared<const core::TraceModel>(testutils::computeBoundJob()),
                       QStringLiteral("one GPU"));
    EXPECT_EQ(document->scopeDevice(), -1);
    ASSERT_TRUE(waitForAnalysis(*document, 20'000));
    EXPECT_TRUE(document->devicesWithReports().isEmpty());
    EXPECT_TRUE(selector->isHidden());
}

TEST(DeviceScopeTest, ScreenshotOfOneGpuFromTheCommandLine) {
    const QString exe = QStringLiteral(CHOKEPOINT_BINARY_DIR "/bin/chokepoint");
    ASSERT_TRUE(QFile::exists(exe)) << "chokepoint executable not built: " << exe.toStdString();
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("two-gpus.cptrace"));
    ASSERT_TRUE(core::writeCptrace(testutils::twoGpuProcess(), trace.toStdString()).ok());
    const QString png = dir.filePath(QStringLiteral("gpu1.png"));
    QProcess gui;
    gui.setProcessChannelMode(QProcess::MergedChannels);
    gui.start(exe,
              {QStringLiteral("--screenshot"), png, QStringLiteral("--page"), QStringLiteral("diagnosis"),
               QStringLiteral("--device-index"), QStringLiteral("1"), trace});
    ASSERT_TRUE(gui.waitForFinished(60'000));
    EXPECT_EQ(gui.exitCode(), 0) << gui.readAll().toStdString();
    EXPECT_TRUE(QFile::exists(png));
    QProcess absent;
    absent.setProcessChannelMode(QProcess::MergedChannels);
    absent.start(exe, {QStringLiteral("--screenshot"), dir.filePath(QStringLiteral("none.png")),
                       QStringLiteral("--device-index"), QStringLiteral("4"), trace});
    ASSERT_TRUE(absent.waitForFinished(60'000));
    EXPECT_EQ(absent.exitCode(), 2);
    EXPECT_TRUE(absent.readAll().contains("GPUs with work: 0, 1"));
}

}  // namespace
}  // namespace chokepoint::ui
