// TraceDocument: loading off the GUI thread with progress, errors that name the file, cancel, and
// the shared traces and the bundled sample end to end (skipped when absent).
#include <gtest/gtest.h>

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "tests/testutils/SharedTraces.h"
#include "tests/ui/PageTestSupport.h"
#include "tests/ui/UiTestModels.h"
#include "ui/base/document/TraceDocument.h"

namespace chokepoint::ui {
namespace {

// Waits until the document has finished (analysis done, load failed or cancelled).
bool waitUntilIdle(TraceDocument& document, int timeoutMs) {
    QSignalSpy available(&document, &TraceDocument::analysisAvailable);
    QSignalSpy analysisFailed(&document, &TraceDocument::analysisFailed);
    QSignalSpy loadFailed(&document, &TraceDocument::loadFailed);
    QSignalSpy cancelled(&document, &TraceDocument::cancelled);
    for (int waited = 0; waited < timeoutMs; waited += 20) {
        if (!available.isEmpty() || !analysisFailed.isEmpty() || !loadFailed.isEmpty() ||
            !cancelled.isEmpty()) {
            return true;
        }
        QTest::qWait(20);
    }
    return false;
}

TEST(TraceDocumentTest, SetModelRunsTheAnalysisAndBuildsTracks) {
    testutils::guiApp();
    TraceDocument document;
    QSignalSpy modelSpy(&document, &TraceDocument::modelAvailable);
    QSignalSpy analysisSpy(&document, &TraceDocument::analysisAvailable);
    document.setModel(testutils::timelineTestModel(), QStringLiteral("test"));
    EXPECT_EQ(modelSpy.count(), 1);
    ASSERT_NE(document.tracks(), nullptr);
    EXPECT_EQ(document.tracks()->tracks.size(), 4u);  // two streams, one thread, one counter
    ASSERT_TRUE(waitUntilIdle(document, 20'000));
    EXPECT_TRUE(document.analysisDone());
    EXPECT_FALSE(document.busy());
    EXPECT_EQ(analysisSpy.count(), 1);
    EXPECT_NE(document.report(), nullptr);
}

TEST(TraceDocumentTest, MissingFileFailsWithAMessageNamingIt) {
    testutils::guiApp();
    TraceDocument document;
    QSignalSpy failed(&document, &TraceDocument::loadFailed);
    const QString path = QStringLiteral("/nonexistent/dir/trace.json");
    document.open(path);
    EXPECT_TRUE(document.busy());
    ASSERT_TRUE(waitUntilIdle(document, 10'000));
    ASSERT_EQ(failed.count(), 1);
    EXPECT_TRUE(failed.first().first().toString().contains(path))
        << failed.first().first().toString().toStdString();
    EXPECT_EQ(document.model(), nullptr);
    EXPECT_FALSE(document.busy());
}

TEST(TraceDocumentTest, CorruptFileFailsWithAMessageNotACrash) {
    testutils::guiApp();
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("broken.json"));
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write("{\"traceEvents\": [ {\"ph\": \"X\", \"name\": \"k\", \"ts\": 1, \"dur\": ");  // truncated
    file.close();
    TraceDocument document;
    QSignalSpy failed(&document, &TraceDocument::loadFailed);
    document.open(path);
    ASSERT_TRUE(waitUntilIdle(document, 10'000));
    ASSERT_EQ(failed.count(), 1);
    EXPECT_TRUE(failed.first().first().toString().contains(QStringLiteral("broken.json")));
}

TEST(TraceDocumentTest, ProgressIsMonotonicAndEndsAtHundred) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "hta-ns-resolution__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
    testutils::guiApp();
    TraceDocument document;
    QSignalSpy progress(&document, &TraceDocument::progress);
    QSignalSpy model(&document, &TraceDocument::modelAvailable);
    document.open(QString::fromStdString(path));
    ASSERT_TRUE(waitUntilIdle(document, 60'000));
    ASSERT_EQ(model.count(), 1);
    ASSERT_FALSE(progress.isEmpty());
    int last = -1;
    for (const QList<QVariant>& args : progress) {
        EXPECT_GE(args.first().toInt(), last);
        last = args.first().toInt();
    }
    EXPECT_EQ(last, 100);
    EXPECT_GT(document.model()->kernels.size(), 0u);
    EXPECT_FALSE(document.tracks()->tracks.empty());
}

TEST(TraceDocumentTest, OpensEverySharedKinetoTrace) {
    testutils::guiApp();
    int opened = 0;
    for (const char* name : {"hta-amd-mi250__mi250_minitoy_train_ROCm6_2_kineto.json.gz",
                             "hta-cpu-only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
                             "hta-negative-queue__rank0.json.gz", "hta-trace-diff-control__control.json.gz",
                             "param-linear__linear_kineto.json.gz", "kineto-tbplugin__gpu_metrics_input.json",
                             "tracelens-h100__gaunernst_bert-small-uncased__1016001.json.gz",
                             "pipit-nsys__saxpy-mpi-cuda_nsys_perlmutter0.sqlite"}) {
        if (!testutils::sharedTraceExists(name)) {
            continue;
        }
        TraceDocument document;
        QSignalSpy failed(&document, &TraceDocument::loadFailed);
        document.open(QString::fromStdString(testutils::sharedTracePath(name)));
        ASSERT_TRUE(waitUntilIdle(document, 60'000)) << name;
        EXPECT_TRUE(failed.isEmpty())
            << name << ": " << (failed.isEmpty() ? "" : failed.first().first().toString().toStdString());
        if (failed.isEmpty()) {
            EXPECT_NE(document.model(), nullptr) << name;
            EXPECT_NE(document.tracks(), nullptr) << name;
            ++opened;
        }
    }
    if (opened == 0) {
        CHOKEPOINT_SHARED_TRACE_ABSENT("no shared traces in " << CHOKEPOINT_SHARED_TRACES_DIR);
    }
}

TEST(TraceDocumentTest, OpensTheBundledSample) {
    const QString path = QStringLiteral(CHOKEPOINT_BINARY_DIR "/samples/synthetic-data-bound.cptrace");
    // The build generates it: a missing sample is a broken build graph, not a reason to skip.
    ASSERT_TRUE(QFile::exists(path)) << "sample not built: " << path.toStdString();
    testutils::guiApp();
    TraceDocument document;
    QSignalSpy available(&document, &TraceDocument::analysisAvailable);
    document.open(path);
    ASSERT_TRUE(waitUntilIdle(document, 60'000));
    ASSERT_EQ(available.count(), 1);
    EXPECT_TRUE(document.model()->metadata.synthetic);
    ASSERT_NE(document.report(), nullptr);
}

TEST(TraceDocumentTest, CancelStopsALoadInProgress) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "tracelens-h100__gaunernst_bert-small-uncased__1016001.json.gz");
    testutils::guiApp();
    TraceDocument document;
    QSignalSpy cancelled(&document, &TraceDocument::cancelled);
    QSignalSpy available(&document, &TraceDocument::analysisAvailable);
    document.open(QString::fromStdString(path));
    document.cancel();  // before the worker has read much: the loader sees it at its next progress call
    ASSERT_TRUE(waitUntilIdle(document, 60'000));
    // Either the cancel arrived in time, or the file was already read; never both, never a crash.
    EXPECT_EQ(cancelled.count() + available.count(), 1);
    if (cancelled.count() == 1) {
        EXPECT_FALSE(document.busy());
    }
}

}  // namespace
}  // namespace chokepoint::ui
