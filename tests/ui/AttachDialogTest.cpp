// AttachDialog lists live agents through the control protocol: a stand-in agent (ControlServer
// with a fake backend, in this process) shows up with its command line and state; an empty socket
// directory says how to start a job.
#include <gtest/gtest.h>

#include <unistd.h>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>

#include "collectors/control/ControlServer.h"
#include "collectors/control/RuntimeDir.h"
#include "tests/ui/PageTestSupport.h"
#include "ui/capture/AttachDialog.h"

namespace chokepoint::ui {
namespace {

class FakeBackend : public collectors::CaptureBackend {
public:
    control::Status status() override {
        control::Status s;
        s.set_pid(::getpid());
        s.add_command_line("python");
        s.add_command_line("train.py");
        s.add_gpu_names("NVIDIA H100 80GB HBM3");
        s.set_state(control::AGENT_STATE_DORMANT);
        return s;
    }
    std::optional<control::Error> startCapture(const control::StartCapture&, std::uint64_t) override {
        control::Error e;
        e.set_text("not in this test");
        return e;
    }
    void requestStop() override {}
    bool pollCapture(std::vector<control::Chunk>&, control::CaptureDone*) override { return false; }
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

}  // namespace
}  // namespace chokepoint::ui
