// libchokepoint_agent.so as the CUDA driver would load it: dlopen + InitializeInjection, on a
// machine without a GPU or driver. The agent stays dormant with a control socket; a GPU capture is
// refused cleanly (CUPTI cannot work without a driver); an NVTX + host capture streams a .cptrace;
// a forked child holds no socket and leaves the parent's agent serving.
//
// This binary deliberately does not link chokepoint_format: the agent carries its own copy, and two
// copies of the same generated protobuf file registering in one process would clash.

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "collectors/control/ControlClient.h"
#include "collectors/control/RuntimeDir.h"

namespace chokepoint::collectors {
namespace {

struct LoadedAgent {
    std::string dir;
    void* handle = nullptr;
    int initResult = 0;
    std::string socket;
};

LoadedAgent& agent() {
    static LoadedAgent* a = [] {
        auto* l = new LoadedAgent();
        char tmpl[] = "/tmp/cp-agent-XXXXXX";
        l->dir = ::mkdtemp(tmpl);
        ::chmod(l->dir.c_str(), 0700);
        ::setenv("CHOKEPOINT_SOCKET_DIR", l->dir.c_str(), 1);
        l->handle = ::dlopen(CHOKEPOINT_AGENT_PATH, RTLD_NOW | RTLD_LOCAL);
        if (l->handle != nullptr) {
            auto init = reinterpret_cast<int (*)()>(::dlsym(l->handle, "InitializeInjection"));
            l->initResult = init != nullptr ? init() : -1;
        }
        l->socket = socketPathFor(l->dir, ::getpid());
        return l;
    }();
    return *a;
}

TEST(AgentInjectionTest, ExportsOnlyTheInjectionEntryPoints) {
    ASSERT_NE(agent().handle, nullptr) << ::dlerror();
    EXPECT_NE(::dlsym(agent().handle, "InitializeInjection"), nullptr);
    EXPECT_NE(::dlsym(agent().handle, "InitializeInjectionNvtx2"), nullptr);
    // Internal symbols (and the protobuf classes linked in) are hidden.
    EXPECT_EQ(::dlsym(agent().handle, "_ZN10chokepoint10collectors5Agent8instanceEv"), nullptr);
}

TEST(AgentInjectionTest, DormantAgentAnswersOnItsSocket) {
    ASSERT_EQ(agent().initResult, 1);
    ASSERT_TRUE(std::filesystem::exists(agent().socket)) << agent().socket;
    auto client = ControlClient::connect(agent().socket);
    ASSERT_TRUE(client.ok()) << client.error().message;
    auto status = client->hello("test");
    ASSERT_TRUE(status.ok()) << status.error().message;
    EXPECT_EQ(status->pid(), ::getpid());
    EXPECT_EQ(status->state(), control::AGENT_STATE_DORMANT);
    EXPECT_TRUE(status->cupti_available());
    ASSERT_GT(status->command_line_size(), 0);
    EXPECT_NE(status->command_line(0).find("collectors_agent_test"), std::string::npos);
}

TEST(AgentInjectionTest, GpuCaptureWithoutADriverIsRefusedAndAgentKeepsServing) {
    ASSERT_EQ(agent().initResult, 1);
    auto client = ControlClient::connect(agent().socket);
    ASSERT_TRUE(client.ok());
    ASSERT_TRUE(client->startCapture(control::StartCapture{}).ok());
    auto reply = client->next(10000);
    ASSERT_TRUE(reply.ok()) << reply.error().message;
    if (reply->has_chunk()) {
        GTEST_SKIP() << "a CUDA driver is present; this test covers the driverless case";
    }
    ASSERT_TRUE(reply->has_error());
    EXPECT_EQ(reply->error().code(), control::ERROR_CODE_CUPTI_FAILED);
    EXPECT_FALSE(reply->error().text().empty());
    auto again = ControlClient::connect(agent().socket);
    ASSERT_TRUE(again.ok());
    auto status = again->hello("after");
    ASSERT_TRUE(status.ok());
    EXPECT_EQ(status->state(), control::AGENT_STATE_DORMANT);
}

TEST(AgentInjectionTest, HostAndNvtxCaptureStreamsACptrace) {
    ASSERT_EQ(agent().initResult, 1);
    auto client = ControlClient::connect(agent().socket);
    ASSERT_TRUE(client.ok());
    control::StartCapture request;
    request.set_kinds(control::CAPTURE_KIND_HOST | control::CAPTURE_KIND_NVTX);
    request.set_duration_ms(300);
    ASSERT_TRUE(client->startCapture(request).ok());
    std::string stream;
    bool done = false;
    while (!done) {
        auto message = client->next(10000);
        ASSERT_TRUE(message.ok()) << message.error().message;
        ASSERT_FALSE(message->has_error()) << message->error().text();
        if (message->has_chunk()) {
            stream += message->chunk().data();
        } else if (message->has_capture_done()) {
            EXPECT_TRUE(message->capture_done().ok()) << message->capture_done().message();
            EXPECT_GE(message->capture_done().duration_ns(), 300'000'000);
            done = true;
        }
    }
    ASSERT_GE(stream.size(), 16u);
    EXPECT_EQ(stream.substr(0, 8), std::string("CPTRACE\0", 8));
}

int socketFdCount() {
    int n = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code ec;
        auto target = std::filesystem::read_symlink(entry.path(), ec);
        n += (!ec && target.string().rfind("socket:", 0) == 0) ? 1 : 0;
    }
    return n;
}

TEST(AgentInjectionTest, ForkedChildIsDormantWithoutSocketsAndParentKeepsServing) {
    ASSERT_EQ(agent().initResult, 1);
    EXPECT_GE(socketFdCount(), 1);  // the parent's listening socket
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        int code = 0;
        if (socketFdCount() != 0) {
            code = 10;  // inherited listening socket not closed
        }
        std::string own = socketPathFor(agent().dir, ::getpid());
        if (std::filesystem::exists(own)) {
            code = 11;  // the child must not create a socket of its own
        }
        // The parent still answers a client running in the child.
        auto client = ControlClient::connect(agent().socket);
        if (!client.ok() || !client->hello("child").ok()) {
            code = 12;
        }
        std::exit(code);  // runs the agent's exit handler in the child: must not touch the parent's socket
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_TRUE(std::filesystem::exists(agent().socket));
    auto client = ControlClient::connect(agent().socket);
    ASSERT_TRUE(client.ok());
    EXPECT_TRUE(client->hello("parent").ok());
}

}  // namespace
}  // namespace chokepoint::collectors
