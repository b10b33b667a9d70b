// Recording from the GUI: the live view draws the records of a .cptrace that is still being written
// (cut mid-chunk, then complete), and the Record dialog drives `chokepoint-cli run` with the chosen
// window, shows the job's output, reports why nothing could be opened, and stops a job like Ctrl-C.
// The real capture of a CUDA job is in the GPU tests.
#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "core/format/CptraceWriter.h"
#include "tests/ui/PageTestSupport.h"
#include "tests/ui/UiTestModels.h"
#include "ui/shell/capture/LiveCaptureView.h"
#include "ui/shell/capture/RecordDialog.h"
#include "ui/views/timeline/TimelineWidget.h"

namespace chokepoint::ui {
namespace {

void useBuiltCli() {
    testutils::guiApp();
    qputenv("CHOKEPOINT_CLI", CHOKEPOINT_BINARY_DIR "/bin/chokepoint-cli");
}

bool writeBytes(const QString& path, const std::string& bytes, std::size_t count) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           f.write(bytes.data(), static_cast<qint64>(count)) == static_cast<qint64>(count);
}

TEST(LiveCaptureViewTest, DrawsTheRecordsOfAFileStillBeingWritten) {
    testutils::guiApp();
    const auto model = testutils::timelineTestModel();
    core::CptraceWriteOptions options;
    options.rowsPerChunk = 8;  // many chunks, as a stream from the agent has
    const std::string bytes = core::encodeCptrace(*model, options);
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath("live.cptrace");

    LiveCaptureView view;
    view.resize(800, 400);
    QSignalSpy updated(&view, &LiveCaptureView::updated);
    view.follow(path);
    EXPECT_TRUE(view.following());
    view.pollNow();  // no file yet: nothing happens, nothing breaks
    EXPECT_EQ(view.model(), nullptr);

    // Half the file, cut inside a chunk: what is whole so far is drawn.
    ASSERT_TRUE(writeBytes(path, bytes, bytes.size() / 2));
    view.pollNow();
    ASSERT_TRUE(updated.wait(10000));
    ASSERT_NE(view.model(), nullptr);
    const std::size_t early = view.model()->kernels.size() + view.model()->cpuOps.size() +
                              view.model()->apiCalls.size() + view.model()->ranges.size();
    const std::size_t total =
        model->kernels.size() + model->cpuOps.size() + model->apiCalls.size() + model->ranges.size();
    EXPECT_GT(early, 0u);
    EXPECT_LT(early, total);
    EXPECT_TRUE(view.statusText().contains("kernels")) << view.statusText().toStdString();
    const QImage picture = testutils::renderWidget(view, {800, 400});
    testutils::saveIfRequested(picture, QStringLiteral("live-capture"));
    EXPECT_GT(testutils::inkFraction(picture), 0.02);

    // The rest arrives while someone looks closer at the start: their window stays.
    TimelineWidget* timeline = view.timeline();
    timeline->zoomBy(4.0, timeline->plotLeft());
    const core::TimeRange looking = timeline->visibleRange();
    ASSERT_TRUE(writeBytes(path, bytes, bytes.size()));
    view.pollNow();
    ASSERT_TRUE(updated.wait(10000));
    EXPECT_EQ(timeline->visibleRange().startNs, looking.startNs);
    EXPECT_NEAR(static_cast<double>(timeline->visibleRange().durationNs()),
                static_cast<double>(looking.durationNs()), 0.01 * static_cast<double>(looking.durationNs()));
    EXPECT_EQ(view.model()->kernels.size(), model->kernels.size());
    EXPECT_EQ(view.model()->apiCalls.size(), model->apiCalls.size());
    view.stop();
    EXPECT_FALSE(view.following());
}

TEST(LiveCaptureViewTest, AFileWithoutReadableRecordsWaitsWithAReason) {
    testutils::guiApp();
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath("garbage.cptrace");
    ASSERT_TRUE(writeBytes(path, std::string(64, 'x'), 64));
    LiveCaptureView view;
    view.follow(path);
    view.pollNow();
    QTRY_VERIFY_WITH_TIMEOUT(view.statusText().contains("Waiting for readable records"), 10000);
    EXPECT_EQ(view.model(), nullptr);
}

TEST(RecordDialogTest, ArgumentsFollowTheChosenWindow) {
    useBuiltCli();
    RecordDialog dialog;
    QTemporaryDir dir;
    const QString out = dir.filePath("r.cptrace");
    dialog.setOutput(out);
    QString error;
    dialog.setCommand(QString());
    EXPECT_TRUE(dialog.cliArguments(&error).isEmpty());
    EXPECT_FALSE(error.isEmpty());
    dialog.setCommand(QStringLiteral("python train.py --tag 'a b'"));
    dialog.setWindow(RecordDialog::Window::Steps, 5);
    dialog.setStartAtStep(true);
    EXPECT_EQ(dialog.cliArguments(), (QStringList{"run", "--steps", "5", "--at-step", "-o", out, "--",
                                                  "/bin/sh", "-c", "python train.py --tag 'a b'"}));
    dialog.setStartAtStep(false);
    dialog.setWindow(RecordDialog::Window::Seconds, 12);
    EXPECT_EQ(dialog.cliArguments(), (QStringList{"run", "--duration", "12", "-o", out, "--", "/bin/sh", "-c",
                                                  "python train.py --tag 'a b'"}));
    dialog.setWindow(RecordDialog::Window::WholeRun);
    EXPECT_EQ(dialog.cliArguments(),
              (QStringList{"run", "-o", out, "--", "/bin/sh", "-c", "python train.py --tag 'a b'"}));
    // Skipping start-up: the same choice as run --delay / --after-steps.
    dialog.setSkip(RecordDialog::Skip::Seconds, 45);
    EXPECT_EQ(dialog.cliArguments(), (QStringList{"run", "--delay", "45", "-o", out, "--", "/bin/sh", "-c",
                                                  "python train.py --tag 'a b'"}));
    dialog.setWindow(RecordDialog::Window::Steps, 10);
    dialog.setSkip(RecordDialog::Skip::Steps, 3);
    EXPECT_EQ(dialog.cliArguments(), (QStringList{"run", "--steps", "10", "--after-steps", "3", "-o", out,
                                                  "--", "/bin/sh", "-c", "python train.py --tag 'a b'"}));
    dialog.setSkip(RecordDialog::Skip::Nothing);
    EXPECT_EQ(dialog.cliArguments(), (QStringList{"run", "--steps", "10", "-o", out, "--", "/bin/sh", "-c",
                                                  "python train.py --tag 'a b'"}));
}

TEST(RecordDialogTest, AJobThatNeverUsesCudaEndsWithTheReason) {
    useBuiltCli();
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    RecordDialog dialog;
    dialog.setWorkingDirectory(dir.path());
    dialog.setOutput(dir.filePath("run.cptrace"));
    dialog.setWindow(RecordDialog::Window::WholeRun);
    dialog.setCommand(QStringLiteral("sh -c 'echo job-says-hello'"));
    QSignalSpy finished(&dialog, &RecordDialog::recordingFinished);
    QString error;
    ASSERT_TRUE(dialog.startRecording(&error)) << error.toStdString();
    ASSERT_TRUE(finished.wait(30000));
    EXPECT_FALSE(finished.first().first().toBool());
    EXPECT_TRUE(dialog.recordedFiles().isEmpty());
    EXPECT_TRUE(dialog.statusText().startsWith("Nothing to open")) << dialog.statusText().toStdString();
    const QString log = dialog.logText();
    if (log.contains("job-says-hello")) {
        // The agent exists (a CUDA build): the job ran, used no CUDA, so nothing was recorded.
        EXPECT_TRUE(log.contains("nothing was recorded")) << log.toStdString();
    } else {
        // No agent in this build: the CLI says so before starting anything.
        EXPECT_TRUE(log.contains("agent")) << log.toStdString();
    }
    EXPECT_FALSE(dialog.recording());
    testutils::saveIfRequested(testutils::renderWidget(dialog, {980, 720}), QStringLiteral("record-dialog"));
}

TEST(RecordDialogTest, StopEndsTheJobLikeCtrlC) {
    useBuiltCli();
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    RecordDialog dialog;
    dialog.setWorkingDirectory(dir.path());
    dialog.setOutput(dir.filePath("run.cptrace"));
    dialog.setCommand(QStringLiteral("sleep 60"));
    QSignalSpy finished(&dialog, &RecordDialog::recordingFinished);
    QElapsedTimer clock;
    clock.start();
    ASSERT_TRUE(dialog.startRecording());
    QTest::qWait(300);
    dialog.stopRecording();
    ASSERT_TRUE(finished.count() > 0 || finished.wait(15000));
    EXPECT_LT(clock.elapsed(), 15000);
    EXPECT_FALSE(dialog.recording());
    // Starting again while nothing runs works; a bad directory is refused with the reason.
    dialog.setWorkingDirectory(dir.filePath("missing"));
    QString error;
    EXPECT_FALSE(dialog.startRecording(&error));
    EXPECT_TRUE(error.contains("missing")) << error.toStdString();
}

}  // namespace
}  // namespace chokepoint::ui
