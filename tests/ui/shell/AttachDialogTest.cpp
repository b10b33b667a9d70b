// AttachDialog lists live agents through the control protocol: a stand-in agent (ControlServer
// with a fake backend, in this process) shows up with its command line and state; an empty socket
// directory says how to start a job.
#include <gtest/gtest.h>

#include <unistd.h>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <chrono>
#include <mutex>

#include "collectors/control/ControlServer.h"
#include "collectors/control/RuntimeDir.h"
#include "core/format/CptraceWriter.h"
#include "core/import/TraceLoader.h"
#include "tests/ui/PageTestSupport.h"
#include "tests/ui/UiTestModels.h"
#include "ui/shell/capture/AttachDialog.h"
#include "ui/shell/capture/LiveCaptureView.h"

namespace chokepoint::ui {
namespace {

class FakeBackend : public collectors::CaptureBackend {
public:
    collectors::wire::Status status() override {
        collectors::wire::Status s;
        s.pid = ::getpid();
        s.commandLine.push_back("python");
        s.commandLine.push_back("train.py");
        s.gpuNames.push_back("NVIDIA H100 80GB HBM3");
        s.state = collectors::wire::AGENT_STATE_DORMANT;
        return s;
    }
    std::optional<collectors::wire::Error> startCapture(const collectors::wire::StartCapture&,
                                                        std::uint64_t) override {
        collectors::wire::Error e;
        e.text = "not in this test";
        return e;
    }
    void requestStop() override {}
    bool pollCapture(std::vector<collectors::wire::Chunk>&, collectors::wire::CaptureDone*) override {
        return false;
    }
};

struct SocketDir {
    QTemporaryDir dir{QStringLiteral("/tmp/cp-attach-XXXXXX")};  // short: Unix socket paths are limited
    SocketDir() { qputenv("CHOKEPOINT_SOCKET_DIR", dir.path().toLocal8Bit()); }
    ~SocketDir() { qunsetenv("CHOKEPOINT_SOCKET_DIR"); }
};

TEST(AttachDialogTest, EmptySocketDirectorySaysHowToStartAJob) {
    testutils::guiApp();
    SocketDir sockets;
    ASSERT_TRUE(sockets.dir.isValid());
    AttachDialog dialog;
    EXPECT_EQ(dialog.refresh(), 0);
    auto* table = dialog.findChild<QTableWidget*>();
    ASSERT_NE(table, nullptr);
    EXPECT_EQ(table->rowCount(), 0);
    bool explained = false;
    for (QLabel* label : dialog.findChildren<QLabel*>()) {
        explained = explained || label->text().contains(QStringLiteral("chokepoint-cli launch"));
    }
    EXPECT_TRUE(explained);
}

TEST(AttachDialogTest, ListsALiveAgentWithItsCommandAndState) {
    testutils::guiApp();
    SocketDir sockets;
    ASSERT_TRUE(sockets.dir.isValid());
    FakeBackend backend;
    collectors::ControlServer::Options options;
    options.socketPath = collectors::socketPathFor(sockets.dir.path().toStdString(), ::getpid());
    options.allowedUid = ::geteuid();
    collectors::ControlServer server(backend, options);
    const core::Status started = server.start();
    ASSERT_TRUE(started.ok()) << started.error().message;

    AttachDialog dialog;
    EXPECT_EQ(dialog.refresh(), 1);
    auto* table = dialog.findChild<QTableWidget*>();
    ASSERT_NE(table, nullptr);
    ASSERT_EQ(table->rowCount(), 1);
    EXPECT_EQ(table->item(0, 0)->text(), QString::number(::getpid()));
    EXPECT_EQ(table->item(0, 1)->text(), QStringLiteral("python train.py"));
    EXPECT_EQ(table->item(0, 2)->text(), QStringLiteral("NVIDIA H100 80GB HBM3"));
    EXPECT_EQ(table->item(0, 3)->text(), QStringLiteral("waiting (dormant)"));
    server.stop();
}

// An agent that accepts the capture and streams a known .cptrace in slices, one every 300 ms, as a
// real agent streams its chunks while the window runs.
class StreamingBackend : public collectors::CaptureBackend {
public:
    explicit StreamingBackend(std::string bytes) : m_bytes(std::move(bytes)) {}
    collectors::wire::Status status() override {
        collectors::wire::Status s;
        s.pid = ::getpid();
        s.commandLine.push_back("python");
        s.commandLine.push_back("train.py");
        s.state = collectors::wire::AGENT_STATE_DORMANT;
        return s;
    }
    std::optional<collectors::wire::Error> startCapture(const collectors::wire::StartCapture& request,
                                                        std::uint64_t id) override {
        std::lock_guard lock(m_mutex);
        m_request = request;
        m_id = id;
        m_started = std::chrono::steady_clock::now();
        m_sent = 0;
        return std::nullopt;
    }
    void requestStop() override {}
    bool pollCapture(std::vector<collectors::wire::Chunk>& out,
                     collectors::wire::CaptureDone* done) override {
        std::lock_guard lock(m_mutex);
        const auto elapsed = std::chrono::steady_clock::now() - m_started;
        const std::size_t due = std::min<std::size_t>(
            kSlices, 1 + static_cast<std::size_t>(elapsed / std::chrono::milliseconds(300)));
        for (; m_sent < due; ++m_sent) {
            const std::size_t begin = m_bytes.size() * m_sent / kSlices;
            const std::size_t end = m_bytes.size() * (m_sent + 1) / kSlices;
            collectors::wire::Chunk chunk;
            chunk.captureId = m_id;
            chunk.seq = m_sent;
            chunk.data = m_bytes.substr(begin, end - begin);
            out.push_back(std::move(chunk));
        }
        if (m_sent < kSlices) {
            return false;
        }
        done->captureId = m_id;
        done->ok = true;
        done->message = "window of 3000 ms recorded";
        return true;
    }
    collectors::wire::StartCapture request() {
        std::lock_guard lock(m_mutex);
        return m_request;
    }

private:
    static constexpr std::size_t kSlices = 8;
    std::mutex m_mutex;
    std::string m_bytes;
    collectors::wire::StartCapture m_request;
    std::uint64_t m_id = 0;
    std::chrono::steady_clock::time_point m_started;
    std::size_t m_sent = 0;
};

TEST(AttachDialogTest, ArgumentsFollowTheChosenWindow) {
    testutils::guiApp();
    SocketDir sockets;
    AttachDialog dialog;
    dialog.setWindow(10, false, false);
    EXPECT_EQ(dialog.attachArguments("42", "/tmp/o.cptrace"),
              (QStringList{"attach", "42", "--duration", "10", "-o", "/tmp/o.cptrace"}));
    dialog.setWindow(5, true, true);
    EXPECT_EQ(dialog.attachArguments("42", "/tmp/o.cptrace"),
              (QStringList{"attach", "42", "--steps", "5", "--at-step", "-o", "/tmp/o.cptrace"}));
    // Skipping start-up, as the Record dialog offers: attach --after-steps / --delay.
    dialog.setSkip(CaptureSkip::Steps, 20);
    EXPECT_EQ(dialog.attachArguments("42", "/tmp/o.cptrace"),
              (QStringList{"attach", "42", "--steps", "5", "--at-step", "--after-steps", "20", "-o",
                           "/tmp/o.cptrace"}));
    dialog.setSkip(CaptureSkip::Seconds, 45);
    testutils::saveIfRequested(testutils::renderWidget(dialog, {900, 640}), QStringLiteral("attach-dialog"));
    dialog.setWindow(10, false, false);
    EXPECT_EQ(dialog.attachArguments("42", "/tmp/o.cptrace"),
              (QStringList{"attach", "42", "--duration", "10", "--delay", "45", "-o", "/tmp/o.cptrace"}));
}

TEST(AttachDialogTest, RecordsAWindowShowingTheRecordsLiveAndHandsTheTraceBack) {
    testutils::guiApp();
    qputenv("CHOKEPOINT_CLI", CHOKEPOINT_BINARY_DIR "/bin/chokepoint-cli");
    SocketDir sockets;
    ASSERT_TRUE(sockets.dir.isValid());
    const auto model = testutils::timelineTestModel();
    core::CptraceWriteOptions writeOptions;
    writeOptions.rowsPerChunk = 8;
    StreamingBackend backend(core::encodeCptrace(*model, writeOptions));
    collectors::ControlServer::Options options;
    options.socketPath = collectors::socketPathFor(sockets.dir.path().toStdString(), ::getpid());
    options.allowedUid = ::geteuid();
    collectors::ControlServer server(backend, options);
    ASSERT_TRUE(server.start().ok());

    AttachDialog dialog;
    ASSERT_EQ(dialog.refresh(), 1);
    dialog.setWindow(3, false, false);
    QSignalSpy updated(dialog.liveView(), &LiveCaptureView::updated);
    QSignalSpy finished(&dialog, &QDialog::finished);
    QPushButton* record = nullptr;
    for (QPushButton* b : dialog.findChildren<QPushButton*>()) {
        record = b->text() == QStringLiteral("Record") ? b : record;
    }
    ASSERT_NE(record, nullptr);
    ASSERT_TRUE(record->isEnabled());
    record->click();
    ASSERT_TRUE(finished.wait(30000)) << "the recording did not end";
    EXPECT_EQ(finished.first().first().toInt(), QDialog::Accepted);
    EXPECT_EQ(backend.request().durationMs, 3000u);
    // While it recorded, the records were drawn as they arrived.
    EXPECT_GE(updated.count(), 1);
    // The file handed back is the whole stream: it opens with every record.
    ASSERT_FALSE(dialog.recordedFile().isEmpty());
    auto loaded = core::loadTrace(dialog.recordedFile().toStdString());
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    EXPECT_EQ(loaded->kernels.size(), model->kernels.size());
    EXPECT_EQ(loaded->apiCalls.size(), model->apiCalls.size());
    QFile::remove(dialog.recordedFile());
    server.stop();
}

}  // namespace
}  // namespace chokepoint::ui
