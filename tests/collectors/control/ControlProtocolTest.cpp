// The control protocol over a real Unix socket in a temp directory: hello/status, start/stop, the
// chunk stream, refusal of malformed, foreign, oversized and out-of-order messages, peer uid check,
// runtime directory permissions, stale socket cleanup.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>

#include "collectors/control/AgentDirectory.h"
#include "collectors/control/AgentLauncher.h"
#include "collectors/control/ControlClient.h"
#include "collectors/control/ControlServer.h"
#include "collectors/control/EnvelopeFrames.h"
#include "collectors/control/RuntimeDir.h"

namespace chokepoint::collectors {
namespace {

// A scripted backend: produces `chunksToSend` chunks, one per poll, then finishes. Stop requests
// end it early.
class FakeBackend : public CaptureBackend {
public:
    wire::Status status() override {
        std::lock_guard lock(m);
        wire::Status s;
        s.pid = ::getpid();
        s.commandLine.push_back("fake-training");
        s.gpuNames.push_back("Fake GPU");
        s.state = capturing ? wire::AGENT_STATE_CAPTURING : wire::AGENT_STATE_DORMANT;
        s.captureId = captureId;
        return s;
    }
    std::optional<wire::Error> startCapture(const wire::StartCapture& request, std::uint64_t id) override {
        std::lock_guard lock(m);
        if (refuseWith) {
            return refuseWith;
        }
        lastRequest = request;
        capturing = true;
        captureId = id;
        sent = 0;
        starts++;
        return std::nullopt;
    }
    void requestStop() override {
        std::lock_guard lock(m);
        stopRequested = true;
    }
    bool pollCapture(std::vector<wire::Chunk>& out, wire::CaptureDone* done) override {
        std::lock_guard lock(m);
        if (!capturing) {
            return false;
        }
        if (!stopRequested && sent < chunksToSend) {
            wire::Chunk c;
            c.captureId = captureId;
            c.seq = static_cast<std::uint64_t>(sent);
            c.data = std::string(chunkBytes, static_cast<char>('a' + sent % 26));
            c.records = 1;
            out.push_back(std::move(c));
            ++sent;
            return false;
        }
        if (!stopRequested && holdOpen) {
            return false;
        }
        capturing = false;
        done->captureId = captureId;
        done->ok = true;
        done->message = stopRequested ? "stopped by request" : "window complete";
        done->kernels = sent;
        return true;
    }

    std::mutex m;
    bool capturing = false;
    bool stopRequested = false;
    bool holdOpen = false;
    int chunksToSend = 3;
    std::size_t chunkBytes = 100;
    int sent = 0;
    int starts = 0;
    std::uint64_t captureId = 0;
    wire::StartCapture lastRequest;
    std::optional<wire::Error> refuseWith;
};

class ControlProtocolTest : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/cp-ctl-XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr);
        dir = tmpl;
        ::chmod(dir.c_str(), 0700);
        path = socketPathFor(dir, ::getpid());
        ASSERT_FALSE(path.empty());
    }
    void TearDown() override {
        server.reset();
        std::filesystem::remove_all(dir);
    }
    void startServer(uid_t allowedUid = ::geteuid()) {
        ControlServer::Options o;
        o.socketPath = path;
        o.allowedUid = allowedUid;
        o.ioTimeoutMs = 1000;
        o.pollIntervalMs = 10;
        server = std::make_unique<ControlServer>(backend, o);
        core::Status s = server->start();
        ASSERT_TRUE(s.ok()) << s.error().message;
    }
    int rawConnect() {
        int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strcpy(addr.sun_path, path.c_str());
        EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        return fd;
    }

    std::string dir;
    std::string path;
    FakeBackend backend;
    std::unique_ptr<ControlServer> server;
};

TEST_F(ControlProtocolTest, HelloReturnsStatus) {
    startServer();
    auto client = ControlClient::connect(path);
    ASSERT_TRUE(client.ok()) << client.error().message;
    auto status = client->hello("test");
    ASSERT_TRUE(status.ok()) << status.error().message;
    EXPECT_EQ(status->pid(), ::getpid());
    EXPECT_EQ(status->protocol_version(), kProtocolVersion);
    EXPECT_EQ(status->state(), control::AGENT_STATE_DORMANT);
    ASSERT_EQ(status->gpu_names_size(), 1);
    EXPECT_EQ(status->gpu_names(0), "Fake GPU");
    // The socket is private to the user.
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 077, 0u);
}

TEST_F(ControlProtocolTest, CaptureStreamsChunksThenDone) {
    startServer();
    auto client = ControlClient::connect(path);
    ASSERT_TRUE(client.ok());
    ASSERT_TRUE(client->hello("test").ok());
    control::StartCapture request;
    request.set_steps(5);
    request.set_start_at_next_step(true);
    ASSERT_TRUE(client->startCapture(request).ok());
    std::string stream;
    std::uint64_t expectedSeq = 0;
    bool done = false;
    while (!done) {
        auto message = client->next(2000);
        ASSERT_TRUE(message.ok()) << message.error().message;
        if (message->has_chunk()) {
            EXPECT_EQ(message->chunk().seq(), expectedSeq++);
            stream += message->chunk().data();
        } else {
            ASSERT_TRUE(message->has_capture_done());
            EXPECT_TRUE(message->capture_done().ok());
            EXPECT_EQ(message->capture_done().kernels(), 3);
            done = true;
        }
    }
    EXPECT_EQ(stream.size(), 300u);
    EXPECT_EQ(stream.substr(0, 1) + stream.substr(100, 1) + stream.substr(200, 1), "abc");
    std::lock_guard lock(backend.m);
    EXPECT_EQ(backend.lastRequest.steps, 5u);
    EXPECT_TRUE(backend.lastRequest.startAtNextStep);
}

TEST_F(ControlProtocolTest, StopEndsCaptureAndSecondClientIsBusy) {
    backend.holdOpen = true;
    backend.chunksToSend = 0;
    startServer();
    auto first = ControlClient::connect(path);
    ASSERT_TRUE(first.ok());
    ASSERT_TRUE(first->startCapture(control::StartCapture{}).ok());
    // Wait until the capture is running.
    for (int i = 0; i < 200; ++i) {
        std::lock_guard lock(backend.m);
        if (backend.capturing) {
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // Status still works during a capture; a second start is refused with BUSY.
    auto second = ControlClient::connect(path);
    ASSERT_TRUE(second.ok());
    auto status = second->hello("second");
    ASSERT_TRUE(status.ok()) << status.error().message;
    EXPECT_EQ(status->state(), control::AGENT_STATE_CAPTURING);
    ASSERT_TRUE(second->startCapture(control::StartCapture{}).ok());
    auto refusal = second->next(2000);
    ASSERT_TRUE(refusal.ok());
    ASSERT_TRUE(refusal->has_error());
    EXPECT_EQ(refusal->error().code(), control::ERROR_CODE_BUSY);

    ASSERT_TRUE(first->stopCapture().ok());
    auto done = first->next(2000);
    ASSERT_TRUE(done.ok()) << done.error().message;
    ASSERT_TRUE(done->has_capture_done());
    EXPECT_EQ(done->capture_done().message(), "stopped by request");
}

TEST_F(ControlProtocolTest, BackendRefusalIsForwarded) {
    wire::Error e;
    e.code = wire::ERROR_CODE_CUPTI_BUSY;
    e.text = "CUPTI is held by 'CUPTI for PyTorch'";
    backend.refuseWith = e;
    startServer();
    auto client = ControlClient::connect(path);
    ASSERT_TRUE(client.ok());
    ASSERT_TRUE(client->startCapture(control::StartCapture{}).ok());
    auto reply = client->next(2000);
    ASSERT_TRUE(reply.ok());
    ASSERT_TRUE(reply->has_error());
    EXPECT_EQ(reply->error().code(), control::ERROR_CODE_CUPTI_BUSY);
    EXPECT_NE(reply->error().text().find("PyTorch"), std::string::npos);
}

TEST_F(ControlProtocolTest, ForeignBytesAreRefusedAndServerSurvives) {
    startServer();
    int fd = rawConnect();
    const char junk[] = "GET / HTTP/1.1\r\n\r\n";
    ASSERT_EQ(::send(fd, junk, sizeof junk - 1, MSG_NOSIGNAL), static_cast<ssize_t>(sizeof junk - 1));
    EnvelopeReadResult reply = readEnvelope(fd, kMaxReplyFrameBytes, 2000);
    ASSERT_TRUE(reply.ok()) << reply.detail;
    ASSERT_TRUE(reply.envelope.has_error());
    EXPECT_EQ(reply.envelope.error().code(), control::ERROR_CODE_MALFORMED);
    EXPECT_NE(reply.envelope.error().text().find("byte 0"), std::string::npos);
    char b;
    EXPECT_LE(::recv(fd, &b, 1, 0), 0);  // closed (or reset: unread junk) by the agent
    ::close(fd);
    // Still serving.
    auto client = ControlClient::connect(path);
    ASSERT_TRUE(client.ok());
    EXPECT_TRUE(client->hello("after").ok());
    EXPECT_GE(server->refusedConnections(), 1u);
}

TEST_F(ControlProtocolTest, OversizedFrameIsRefusedWithoutReadingIt) {
    startServer();
    int fd = rawConnect();
    char header[8] = {'C', 'P', 'C', '1', 0, 0, 0, 0x10};  // 256 MiB
    ASSERT_EQ(::send(fd, header, 8, MSG_NOSIGNAL), 8);
    EnvelopeReadResult reply = readEnvelope(fd, kMaxReplyFrameBytes, 2000);
    ASSERT_TRUE(reply.ok()) << reply.detail;
    ASSERT_TRUE(reply.envelope.has_error());
    EXPECT_EQ(reply.envelope.error().code(), control::ERROR_CODE_TOO_LARGE);
    ::close(fd);
}

TEST_F(ControlProtocolTest, GarbagePayloadAndTruncatedFrameAreRefused) {
    startServer();
    {
        int fd = rawConnect();
        std::string frame = std::string("CPC1") + std::string("\x05\0\0\0", 4) + "\xff\xff\xff\xff\xff";
        ASSERT_EQ(::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL), static_cast<ssize_t>(frame.size()));
        EnvelopeReadResult reply = readEnvelope(fd, kMaxReplyFrameBytes, 2000);
        ASSERT_TRUE(reply.ok());
        EXPECT_EQ(reply.envelope.error().code(), control::ERROR_CODE_MALFORMED);
        ::close(fd);
    }
    {
        // Header promises 100 bytes, 3 arrive, then the client hangs up.
        int fd = rawConnect();
        std::string frame = std::string("CPC1") + std::string("\x64\0\0\0", 4) + "abc";
        ASSERT_EQ(::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL), static_cast<ssize_t>(frame.size()));
        ::shutdown(fd, SHUT_WR);
        EnvelopeReadResult reply = readEnvelope(fd, kMaxReplyFrameBytes, 2000);
        ASSERT_TRUE(reply.ok());
        EXPECT_EQ(reply.envelope.error().code(), control::ERROR_CODE_MALFORMED);
        ::close(fd);
    }
    auto client = ControlClient::connect(path);
    ASSERT_TRUE(client.ok());
    EXPECT_TRUE(client->hello("after").ok());
}

TEST_F(ControlProtocolTest, RandomFramesNeverHarmTheServer) {
    startServer();
    std::uint32_t seed = 12345;
    auto next = [&seed] {
        seed = seed * 1664525u + 1013904223u;  // fixed LCG: the same frames every run
        return seed >> 8;
    };
    for (int i = 0; i < 150; ++i) {
        int fd = rawConnect();
        std::string bytes = "CPC1";
        std::uint32_t len = next() % 200;
        for (int b = 0; b < 4; ++b) {
            bytes.push_back(static_cast<char>((len >> (8 * b)) & 0xFF));
        }
        for (std::uint32_t k = 0; k < len; ++k) {
            bytes.push_back(static_cast<char>(next() & 0xFF));
        }
        ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        ::shutdown(fd, SHUT_WR);
        // Whatever the agent answers must be a well-formed frame (Status or Error), then EOF.
        EnvelopeReadResult reply = readEnvelope(fd, kMaxReplyFrameBytes, 2000);
        if (reply.ok()) {
            EXPECT_TRUE(reply.envelope.has_error() || reply.envelope.has_status()) << "frame " << i;
        }
        ::close(fd);
    }
    {
        std::lock_guard lock(backend.m);
        if (backend.capturing) {  // a random frame may have been a valid StartCapture
            backend.stopRequested = true;
        }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto client = ControlClient::connect(path);
    ASSERT_TRUE(client.ok());
    EXPECT_TRUE(client->hello("after the noise").ok());
}

TEST_F(ControlProtocolTest, AgentOnlyMessagesFromClientAreProtocolErrors) {
    startServer();
    auto client = ControlClient::connect(path);
    ASSERT_TRUE(client.ok());
    control::Envelope e;
    e.mutable_chunk()->set_data("x");
    ASSERT_TRUE(client->send(e).ok());
    auto reply = client->next(2000);
    ASSERT_TRUE(reply.ok());
    ASSERT_TRUE(reply->has_error());
    EXPECT_EQ(reply->error().code(), control::ERROR_CODE_PROTOCOL);
}

TEST_F(ControlProtocolTest, ForeignUidIsRefused) {
    startServer(::geteuid() + 4242);  // the agent serves someone else: we are the foreign peer
    auto client = ControlClient::connect(path);
    ASSERT_TRUE(client.ok());
    // The agent refuses right after accept, before reading anything.
    auto reply = client->next(2000);
    ASSERT_TRUE(reply.ok()) << reply.error().message;
    ASSERT_TRUE(reply->has_error());
    EXPECT_EQ(reply->error().code(), control::ERROR_CODE_PERMISSION);
    EXPECT_NE(reply->error().text().find("uid"), std::string::npos);
    EXPECT_EQ(server->refusedConnections(), 1u);
    std::lock_guard lock(backend.m);
    EXPECT_EQ(backend.starts, 0);
}

TEST_F(ControlProtocolTest, SilentClientTimesOutAndServerKeepsServing) {
    startServer();
    int fd = rawConnect();  // says nothing
    EnvelopeReadResult reply = readEnvelope(fd, kMaxReplyFrameBytes, 3000);
    ASSERT_TRUE(reply.ok()) << reply.detail;
    EXPECT_EQ(reply.envelope.error().code(), control::ERROR_CODE_TIMEOUT);
    ::close(fd);
    auto client = ControlClient::connect(path);
    ASSERT_TRUE(client.ok());
    EXPECT_TRUE(client->hello("after").ok());
}

TEST_F(ControlProtocolTest, ClientDisconnectStopsCapture) {
    backend.holdOpen = true;
    backend.chunksToSend = 0;
    startServer();
    {
        auto client = ControlClient::connect(path);
        ASSERT_TRUE(client.ok());
        ASSERT_TRUE(client->startCapture(control::StartCapture{}).ok());
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (int i = 0; i < 400; ++i) {
        {
            std::lock_guard lock(backend.m);
            if (!backend.capturing) {
                break;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::lock_guard lock(backend.m);
    EXPECT_TRUE(backend.stopRequested);
    EXPECT_FALSE(backend.capturing);
}

TEST_F(ControlProtocolTest, ListFindsLiveAgentAndRemovesStaleSockets) {
    startServer();
    // A stale socket of a process that does not exist (pid numbers near the limit are unused).
    std::string stale = dir + "/" + std::to_string(4194000) + ".sock";
    {
        int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strcpy(addr.sun_path, stale.c_str());
        ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        ::close(fd);
    }
    // And an unrelated file that is ignored.
    {
        std::FILE* f = std::fopen((dir + "/notes.txt").c_str(), "w");
        std::fclose(f);
    }
    AgentListing listing = listAgents(dir, true, 2000);
    EXPECT_TRUE(listing.error.empty()) << listing.error;
    ASSERT_EQ(listing.agents.size(), 1u);
    EXPECT_EQ(listing.agents[0].pid, ::getpid());
    EXPECT_TRUE(listing.agents[0].responded);
    EXPECT_EQ(listing.agents[0].status.command_line(0), "fake-training");
    ASSERT_EQ(listing.removedStale.size(), 1u);
    EXPECT_FALSE(std::filesystem::exists(stale));
}

TEST_F(ControlProtocolTest, StopRemovesSocketFile) {
    startServer();
    EXPECT_TRUE(std::filesystem::exists(path));
    server->stop();
    EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(RuntimeDirTest, RefusesForeignOwnerAndOpenModes) {
    struct stat st {};
    st.st_mode = S_IFDIR | 0700;
    st.st_uid = 1000;
    EXPECT_TRUE(checkRuntimeDirStat(st, 1000, "/x").ok());
    auto foreign = checkRuntimeDirStat(st, 1001, "/x");
    ASSERT_FALSE(foreign.ok());
    EXPECT_NE(foreign.error().message.find("owned by uid 1000"), std::string::npos);
    st.st_mode = S_IFDIR | 0755;
    auto open = checkRuntimeDirStat(st, 1000, "/x");
    ASSERT_FALSE(open.ok());
    EXPECT_NE(open.error().message.find("0755"), std::string::npos);
    st.st_mode = S_IFLNK | 0700;
    EXPECT_FALSE(checkRuntimeDirStat(st, 1000, "/x").ok());
    st.st_mode = S_IFREG | 0700;
    EXPECT_FALSE(checkRuntimeDirStat(st, 1000, "/x").ok());
}

TEST(RuntimeDirTest, EnsureCreatesPrivateDirectoryAndRejectsOpenOne) {
    char tmpl[] = "/tmp/cp-rt-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    std::string base = tmpl;
    std::string dir = base + "/chokepoint";
    ASSERT_TRUE(ensureRuntimeDir(dir, true).ok());
    struct stat st {};
    ASSERT_EQ(::stat(dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    ::chmod(dir.c_str(), 0777);
    EXPECT_FALSE(ensureRuntimeDir(dir, true).ok());
    EXPECT_FALSE(ensureRuntimeDir(base + "/missing", false).ok());
    std::filesystem::remove_all(base);
}

TEST(RuntimeDirTest, PeerUidAndSocketNames) {
    EXPECT_TRUE(checkPeerUid(5, 5).ok());
    EXPECT_FALSE(checkPeerUid(0, 5).ok());  // root is not special
    EXPECT_EQ(pidFromSocketName("1234.sock"), 1234);
    EXPECT_EQ(pidFromSocketName("abc.sock"), -1);
    EXPECT_EQ(pidFromSocketName("1234.sockx"), -1);
    EXPECT_EQ(pidFromSocketName(".sock"), -1);
    EXPECT_EQ(socketPathFor("/run/user/1", 42), "/run/user/1/42.sock");
    EXPECT_TRUE(socketPathFor(std::string(200, 'x'), 42).empty());
}

TEST(RuntimeDirTest, DefaultDirHonoursOverride) {
    const char* old = std::getenv("CHOKEPOINT_SOCKET_DIR");
    std::string saved = old ? old : "";
    ::setenv("CHOKEPOINT_SOCKET_DIR", "/tmp/override-dir", 1);
    EXPECT_EQ(defaultRuntimeDir(), "/tmp/override-dir");
    if (old) {
        ::setenv("CHOKEPOINT_SOCKET_DIR", saved.c_str(), 1);
    } else {
        ::unsetenv("CHOKEPOINT_SOCKET_DIR");
    }
}

TEST(FramingTest, RoundTripAndHeaderChecks) {
    control::Envelope e;
    e.mutable_chunk()->set_data(std::string(1000, 'z'));
    std::string frame = encodeEnvelopeFrame(e);
    std::uint32_t n = 0;
    EXPECT_EQ(parseFrameHeader(frame, kMaxReplyFrameBytes, &n), FrameError::None);
    EXPECT_EQ(n + kFrameHeaderBytes, frame.size());
    EXPECT_EQ(parseFrameHeader(frame, 10, &n), FrameError::TooLarge);
    EXPECT_EQ(parseFrameHeader("XPC1\0\0\0\0", 10, &n), FrameError::BadMagic);
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    std::string err;
    ASSERT_TRUE(writeEnvelope(sv[0], e, 1000, &err)) << err;
    EnvelopeReadResult r = readEnvelope(sv[1], kMaxReplyFrameBytes, 1000);
    ASSERT_TRUE(r.ok()) << r.detail;
    EXPECT_EQ(r.envelope.chunk().data().size(), 1000u);
    // Nothing more to read: the deadline applies.
    EnvelopeReadResult t = readEnvelope(sv[1], kMaxReplyFrameBytes, 50);
    EXPECT_EQ(t.error, FrameError::Timeout);
    ::close(sv[0]);
    EnvelopeReadResult c = readEnvelope(sv[1], kMaxReplyFrameBytes, 50);
    EXPECT_EQ(c.error, FrameError::Closed);
    ::close(sv[1]);
}

TEST(AgentLauncherTest, InjectionEnvironmentSetsBothVariablesAndRefusesAnotherInjector) {
    auto env = injectionEnvironment({"PATH=/usr/bin", "NVTX_INJECTION64_PATH=/old.so"},
                                    "/opt/cp/libchokepoint_agent.so", {{"CHOKEPOINT_SOCKET_DIR", "/tmp/x"}});
    ASSERT_TRUE(env.ok()) << env.error().message;
    auto has = [&](const std::string& kv) { return std::find(env->begin(), env->end(), kv) != env->end(); };
    EXPECT_TRUE(has("PATH=/usr/bin"));
    EXPECT_TRUE(has("CUDA_INJECTION64_PATH=/opt/cp/libchokepoint_agent.so"));
    EXPECT_TRUE(has("NVTX_INJECTION64_PATH=/opt/cp/libchokepoint_agent.so"));  // replaced, not duplicated
    EXPECT_FALSE(has("NVTX_INJECTION64_PATH=/old.so"));
    EXPECT_TRUE(has("CHOKEPOINT_SOCKET_DIR=/tmp/x"));
    auto nsys = injectionEnvironment({"CUDA_INJECTION64_PATH=/opt/nsys/libToolsInjection64.so"}, "/a.so", {});
    ASSERT_FALSE(nsys.ok());
    EXPECT_NE(nsys.error().message.find("libToolsInjection64.so"), std::string::npos);
    EXPECT_TRUE(injectionEnvironment({"CUDA_INJECTION64_PATH=none"}, "/a.so", {}).ok());
}

TEST(AgentLauncherTest, AgentLookupHonoursTheEnvironmentAndNamesMissingFiles) {
    const char* old = std::getenv("CHOKEPOINT_AGENT_PATH");
    std::string saved = old ? old : "";
    ::setenv("CHOKEPOINT_AGENT_PATH", "/nonexistent/libchokepoint_agent.so", 1);
    auto missing = findAgentLibrary("/usr/bin/chokepoint-cli");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("/nonexistent/libchokepoint_agent.so"), std::string::npos);
    char tmpl[] = "/tmp/cp-agentlib-XXXXXX";
    std::string dir = ::mkdtemp(tmpl);
    std::string lib = dir + "/libchokepoint_agent.so";
    {
        std::FILE* f = std::fopen(lib.c_str(), "w");
        std::fclose(f);
    }
    ::unsetenv("CHOKEPOINT_AGENT_PATH");
    auto beside = findAgentLibrary(dir + "/chokepoint-cli");  // next to the executable
    ASSERT_TRUE(beside.ok()) << beside.error().message;
    EXPECT_EQ(beside.value(), lib);
    if (old) {
        ::setenv("CHOKEPOINT_AGENT_PATH", saved.c_str(), 1);
    }
    std::filesystem::remove_all(dir);
}

TEST(AgentLauncherTest, SpawnReportsMissingProgramsAndExitCodes) {
    auto missing = spawnProcess({"/nonexistent/program"}, currentEnvironment());
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("/nonexistent/program"), std::string::npos);
    auto sh = spawnProcess({"/bin/sh", "-c", "exit 7"}, currentEnvironment());
    ASSERT_TRUE(sh.ok()) << sh.error().message;
    EXPECT_EQ(waitForExit(sh.value()), 7);
    auto killed = spawnProcess({"/bin/sh", "-c", "kill -9 $$"}, currentEnvironment());
    ASSERT_TRUE(killed.ok());
    EXPECT_EQ(waitForExit(killed.value()), 128 + 9);
}

TEST(AgentLauncherTest, TheJobGetsCtrlCEvenWhenTheLauncherIgnoresIt) {
    // `run` and `launch` ignore SIGINT while they wait, so that Ctrl-C goes to the job alone; the
    // job itself must still die of it.
    struct sigaction ignore {
    }, previous{};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGINT, &ignore, &previous);
    auto job = spawnProcess({"/bin/sh", "-c", "kill -INT $$; sleep 5; exit 3"}, currentEnvironment());
    ::sigaction(SIGINT, &previous, nullptr);
    ASSERT_TRUE(job.ok()) << job.error().message;
    EXPECT_EQ(waitForExit(job.value()), 128 + SIGINT);
}

}  // namespace
}  // namespace chokepoint::collectors
