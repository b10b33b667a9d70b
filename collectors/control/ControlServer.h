#pragma once
// The agent side of the control protocol: one listening Unix-domain socket, served by one thread.
//
// Conversation (see control.proto): the client sends Hello (or StatusRequest) and gets Status; it
// may then send StartCapture. Once a capture is accepted, the connection becomes the capture's
// stream: the server forwards Chunk messages produced by the backend, accepts StopCapture, and ends
// with CaptureDone, then closes. While a capture runs, other clients can still ask for Status;
// a second StartCapture gets Error(BUSY).
//
// Safety: every peer's uid is checked with SO_PEERCRED; every read has a deadline (one deadline of
// ioTimeoutMs covers a connection's whole exchange before a capture starts); frames with a
// foreign magic, over the size limit, or not parsing as an Envelope get an Error reply and the
// connection is closed. Nothing here throws or aborts; problems are counted and logged through the
// optional log callback. The backend is called only from the server thread.
//
// It runs inside the agent, so messages go through the hand-written codec (ControlWire.h), not
// protobuf.

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collectors/control/ControlWire.h"
#include "collectors/control/Framing.h"
#include "core/base/Result.h"

namespace chokepoint::collectors {

// What the server needs from the capture engine.
class CaptureBackend {
public:
    virtual ~CaptureBackend() = default;
    // Snapshot for Hello/StatusRequest replies. The server fills protocolVersion.
    virtual wire::Status status() = 0;
    // Starts or arms a capture. Returns an Error to refuse it (CUPTI busy, unsupported kinds...).
    virtual std::optional<wire::Error> startCapture(const wire::StartCapture& request,
                                                    std::uint64_t captureId) = 0;
    // Asks the running capture to stop (client sent StopCapture or went away). Must not block long.
    virtual void requestStop() = 0;
    // Moves the chunks produced so far into `out`. Returns true once the capture is complete and all
    // its chunks were handed out; then `*done` is filled.
    virtual bool pollCapture(std::vector<wire::Chunk>& out, wire::CaptureDone* done) = 0;
};

class ControlServer {
public:
    struct Options {
        std::string socketPath;   // full path, "<dir>/<pid>.sock"
        uid_t allowedUid = 0;     // peers must run as this uid (set to geteuid() by the agent)
        int ioTimeoutMs = 5000;   // deadline for each message
        int pollIntervalMs = 50;  // how often a running capture's chunks are forwarded
        std::function<void(const std::string&)> log;  // optional diagnostics sink
    };

    ControlServer(CaptureBackend& backend, Options options);
    ~ControlServer();
    ControlServer(const ControlServer&) = delete;
    ControlServer& operator=(const ControlServer&) = delete;

    // Binds and listens (removing a stale socket of the same name), then starts the thread.
    core::Status start();
    // Stops the thread, ends a running capture, closes sockets and removes the socket file.
    void stop();
    // In a forked child: the thread does not exist there. Closes inherited descriptors without
    // touching the parent's socket file or joining anything.
    void abandonAfterFork();

    bool running() const { return m_running.load(); }
    const std::string& socketPath() const { return m_options.socketPath; }
    // Connections refused (wrong uid, malformed or oversized frames), for tests and status.
    std::uint64_t refusedConnections() const { return m_refused.load(); }

private:
    void run();
    void handleConnection(int fd);
    void serveCaptureClient();
    void endCaptureClient();
    // One request frame, decoded (a payload that is not an Envelope is FrameError::Malformed).
    struct Request {
        FrameError error = FrameError::None;
        std::string detail;
        wire::Envelope envelope;
        bool ok() const { return error == FrameError::None; }
        template <class Message>
        bool is() const {
            return std::holds_alternative<Message>(envelope);
        }
    };
    Request readRequest(int fd, int timeoutMs);
    bool sendStatus(int fd);
    void refuse(int fd, wire::ErrorCode code, const std::string& text);
    void log(const std::string& text) const;

    CaptureBackend& m_backend;
    Options m_options;
    int m_listenFd = -1;
    int m_wakeFds[2] = {-1, -1};
    int m_captureFd = -1;
    bool m_captureActive = false;
    std::uint64_t m_nextCaptureId = 1;
    std::thread m_thread;
    std::atomic<bool> m_running{false};
    std::atomic<std::uint64_t> m_refused{0};
};

}  // namespace chokepoint::collectors
