#include "collectors/control/ControlServer.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "collectors/control/Framing.h"
#include "collectors/control/RuntimeDir.h"

namespace chokepoint::collectors {

namespace {

void closeFd(int& fd) {
    if (fd >= 0) {
        ::close(fd);
        fd = -1;
    }
}

// A connection may exchange only a few messages before it starts a capture or is closed, so a
// chatty or stuck client cannot hold the server thread.
constexpr int kMaxMessagesPerConnection = 8;

}  // namespace

ControlServer::ControlServer(CaptureBackend& backend, Options options)
    : m_backend(backend), m_options(std::move(options)) {}

ControlServer::~ControlServer() {
    stop();
}

void ControlServer::log(const std::string& text) const {
    if (m_options.log) {
        m_options.log(text);
    }
}

core::Status ControlServer::start() {
    if (m_running.load()) {
        return core::Ok{};
    }
    const std::string& path = m_options.socketPath;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof addr.sun_path) {
        return core::makeError("control socket path '" + path + "' is empty or longer than " +
                               std::to_string(sizeof addr.sun_path - 1) + " bytes");
    }
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);

    // A leftover file from a dead process with the same pid: remove it only if nobody answers.
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            return core::makeError(path + ": exists and is not a socket");
        }
        int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        bool live = probe >= 0 && ::connect(probe, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
        if (probe >= 0) {
            ::close(probe);
        }
        if (live) {
            return core::makeError(path + ": another agent is already listening there");
        }
        ::unlink(path.c_str());
    }

    m_listenFd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (m_listenFd < 0) {
        return core::makeError(std::string("socket(): ") + std::strerror(errno));
    }
    // No umask change here: umask is process-wide, and files a training thread created meanwhile
    // would get our mode. The socket's directory is 0700 and ours (ensureRuntimeDir), so nobody
    // else can reach the socket before the chmod below narrows it.
    int rc = ::bind(m_listenFd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    int bindErrno = errno;
    if (rc != 0) {
        closeFd(m_listenFd);
        return core::makeError(path + ": bind: " + std::strerror(bindErrno));
    }
    if (::chmod(path.c_str(), 0600) != 0) {
        int e = errno;
        closeFd(m_listenFd);
        ::unlink(path.c_str());
        return core::makeError(path + ": chmod: " + std::strerror(e));
    }
    if (::listen(m_listenFd, 8) != 0) {
        int e = errno;
        closeFd(m_listenFd);
        ::unlink(path.c_str());
        return core::makeError(path + ": listen: " + std::strerror(e));
    }
    if (::pipe2(m_wakeFds, O_CLOEXEC | O_NONBLOCK) != 0) {
        int e = errno;
        closeFd(m_listenFd);
        ::unlink(path.c_str());
        return core::makeError(std::string("pipe2(): ") + std::strerror(e));
    }
    m_running.store(true);
    m_thread = std::thread([this] { run(); });
    return core::Ok{};
}

void ControlServer::stop() {
    if (m_thread.joinable()) {
        char b = 1;
        [[maybe_unused]] ssize_t w = ::write(m_wakeFds[1], &b, 1);
        m_thread.join();
    }
    bool hadSocket = m_listenFd >= 0;
    closeFd(m_listenFd);
    closeFd(m_wakeFds[0]);
    closeFd(m_wakeFds[1]);
    closeFd(m_captureFd);
    if (hadSocket) {
        ::unlink(m_options.socketPath.c_str());
    }
    m_running.store(false);
}

void ControlServer::abandonAfterFork() {
    // The std::thread object refers to a thread that does not exist in the child; detaching only
    // forgets it (joining would hang).
    if (m_thread.joinable()) {
        m_thread.detach();
    }
    closeFd(m_listenFd);
    closeFd(m_wakeFds[0]);
    closeFd(m_wakeFds[1]);
    closeFd(m_captureFd);
    m_captureActive = false;
    m_running.store(false);
}

void ControlServer::refuse(int fd, wire::ErrorCode code, const std::string& text) {
    m_refused.fetch_add(1);
    log("control: refused a client: " + text);
    std::string ignored;
    writeFrame(fd, wire::encodeEnvelope(wire::Error{code, text}), 200, &ignored);
}

ControlServer::Request ControlServer::readRequest(int fd, int timeoutMs) {
    Request request;
    FrameReadResult frame = readFrame(fd, kMaxRequestFrameBytes, timeoutMs);
    request.error = frame.error;
    request.detail = std::move(frame.detail);
    if (frame.ok()) {
        core::Result<wire::Envelope> envelope = wire::decodeEnvelope(frame.payload);
        if (envelope.ok()) {
            request.envelope = std::move(envelope.value());
        } else {
            request.error = FrameError::Malformed;
            request.detail =
                "payload of " + std::to_string(frame.payload.size()) + " bytes: " + envelope.error().message;
        }
    }
    return request;
}

bool ControlServer::sendStatus(int fd) {
    wire::Status status = m_backend.status();
    status.protocolVersion = kProtocolVersion;
    std::string err;
    return writeFrame(fd, wire::encodeEnvelope(status), m_options.ioTimeoutMs, &err);
}

void ControlServer::run() {
    while (true) {
        pollfd fds[3];
        nfds_t n = 0;
        fds[n++] = {m_wakeFds[0], POLLIN, 0};
        fds[n++] = {m_listenFd, POLLIN, 0};
        if (m_captureFd >= 0) {
            fds[n++] = {m_captureFd, POLLIN, 0};
        }
        int timeout = m_captureActive ? m_options.pollIntervalMs : -1;
        int rc = ::poll(fds, n, timeout);
        if (rc < 0 && errno != EINTR) {
            log(std::string("control: poll failed: ") + std::strerror(errno));
            break;
        }
        if (rc > 0 && (fds[0].revents & POLLIN) != 0) {
            break;
        }
        if (rc > 0 && (fds[1].revents & POLLIN) != 0) {
            int fd = ::accept4(m_listenFd, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0) {
                handleConnection(fd);
            }
        }
        if (rc > 0 && n == 3 && fds[2].revents != 0) {
            Request frame = readRequest(m_captureFd, m_options.ioTimeoutMs);
            if (frame.ok() && frame.is<wire::StopCapture>()) {
                m_backend.requestStop();
            } else if (frame.ok() && (frame.is<wire::StatusRequest>() || frame.is<wire::Hello>())) {
                sendStatus(m_captureFd);
            } else {
                // Client went away or spoke nonsense: stop recording, keep draining, drop the stream.
                if (!frame.ok() && frame.error != FrameError::Closed) {
                    refuse(m_captureFd,
                           frame.error == FrameError::TooLarge ? wire::ERROR_CODE_TOO_LARGE
                                                               : wire::ERROR_CODE_MALFORMED,
                           frame.detail);
                } else if (frame.ok()) {
                    refuse(m_captureFd, wire::ERROR_CODE_PROTOCOL, "unexpected message during a capture");
                }
                m_backend.requestStop();
                closeFd(m_captureFd);
            }
        }
        if (m_captureActive) {
            serveCaptureClient();
        }
    }
    if (m_captureActive) {
        m_backend.requestStop();
        // Give the backend a bounded time to finish so the client gets CaptureDone.
        for (int i = 0; i < 40 && m_captureActive; ++i) {
            serveCaptureClient();
            if (m_captureActive) {
                ::usleep(static_cast<useconds_t>(m_options.pollIntervalMs) * 1000u);
            }
        }
    }
}

void ControlServer::serveCaptureClient() {
    std::vector<wire::Chunk> chunks;
    wire::CaptureDone done;
    bool finished = m_backend.pollCapture(chunks, &done);
    for (auto& chunk : chunks) {
        if (m_captureFd < 0) {
            break;
        }
        std::string err;
        if (!writeFrame(m_captureFd, wire::encodeEnvelope(std::move(chunk)), m_options.ioTimeoutMs, &err)) {
            log("control: capture client stopped reading (" + err + "); stopping the capture");
            m_backend.requestStop();
            closeFd(m_captureFd);
        }
    }
    if (finished) {
        if (m_captureFd >= 0) {
            std::string err;
            writeFrame(m_captureFd, wire::encodeEnvelope(done), m_options.ioTimeoutMs, &err);
        }
        endCaptureClient();
    }
}

void ControlServer::endCaptureClient() {
    closeFd(m_captureFd);
    m_captureActive = false;
}

void ControlServer::handleConnection(int fd) {
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        refuse(fd, wire::ERROR_CODE_PERMISSION, "cannot read peer credentials");
        ::close(fd);
        return;
    }
    if (core::Status uidOk = checkPeerUid(cred.uid, m_options.allowedUid); !uidOk.ok()) {
        refuse(fd, wire::ERROR_CODE_PERMISSION, uidOk.error().message);
        ::close(fd);
        return;
    }
    // One deadline for the whole exchange, so a slow client holds the server thread (and delays
    // process exit) for at most ioTimeoutMs.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(m_options.ioTimeoutMs);
    for (int message = 0; message < kMaxMessagesPerConnection; ++message) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                          std::chrono::steady_clock::now());
        int timeoutMs = static_cast<int>(std::max<std::int64_t>(1, left.count()));
        Request frame = readRequest(fd, timeoutMs);
        if (!frame.ok()) {
            if (frame.error == FrameError::BadMagic || frame.error == FrameError::Malformed) {
                refuse(fd, wire::ERROR_CODE_MALFORMED, frame.detail);
            } else if (frame.error == FrameError::TooLarge) {
                refuse(fd, wire::ERROR_CODE_TOO_LARGE, frame.detail);
            } else if (frame.error == FrameError::Timeout) {
                refuse(fd, wire::ERROR_CODE_TIMEOUT, "no request within the deadline");
            }
            break;
        }
        std::string err;
        if (frame.is<wire::Hello>() || frame.is<wire::StatusRequest>()) {
            if (!sendStatus(fd)) {
                break;
            }
            continue;
        }
        if (const auto* start = std::get_if<wire::StartCapture>(&frame.envelope)) {
            if (m_captureActive) {
                refuse(fd, wire::ERROR_CODE_BUSY, "a capture is already running for another client");
                break;
            }
            std::uint64_t id = m_nextCaptureId++;
            std::optional<wire::Error> refused = m_backend.startCapture(*start, id);
            if (refused) {
                writeFrame(fd, wire::encodeEnvelope(*refused), m_options.ioTimeoutMs, &err);
                break;
            }
            m_captureFd = fd;
            m_captureActive = true;
            return;  // the descriptor now belongs to the capture stream
        }
        refuse(fd, wire::ERROR_CODE_PROTOCOL,
               frame.is<wire::StopCapture>() ? "no capture is running on this connection"
                                             : "message type not accepted by the agent");
        break;
    }
    ::close(fd);
}

}  // namespace chokepoint::collectors
