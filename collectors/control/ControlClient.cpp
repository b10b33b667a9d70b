#include "collectors/control/ControlClient.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "collectors/control/EnvelopeFrames.h"

namespace chokepoint::collectors {

ControlClient::~ControlClient() {
    close();
}

ControlClient::ControlClient(ControlClient&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_path(std::move(other.m_path)) {}

ControlClient& ControlClient::operator=(ControlClient&& other) noexcept {
    if (this != &other) {
        close();
        m_fd = std::exchange(other.m_fd, -1);
        m_path = std::move(other.m_path);
    }
    return *this;
}

void ControlClient::close() {
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
}

core::Result<ControlClient> ControlClient::connect(const std::string& socketPath) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (socketPath.empty() || socketPath.size() >= sizeof addr.sun_path) {
        return core::makeError("'" + socketPath + "': not a usable socket path");
    }
    std::memcpy(addr.sun_path, socketPath.c_str(), socketPath.size() + 1);
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return core::makeError(std::string("socket(): ") + std::strerror(errno));
    }
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        int e = errno;
        ::close(fd);
        std::string why = e == ECONNREFUSED ? "nobody is listening (the agent exited)" : std::strerror(e);
        return core::makeError(socketPath + ": cannot connect: " + why);
    }
    return ControlClient(fd, socketPath);
}

core::Status ControlClient::send(const control::Envelope& envelope, int timeoutMs) {
    std::string err;
    if (m_fd < 0) {
        return core::makeError(m_path + ": not connected");
    }
    if (!writeEnvelope(m_fd, envelope, timeoutMs, &err)) {
        return core::makeError(m_path + ": " + err);
    }
    return core::Ok{};
}

core::Result<control::Envelope> ControlClient::next(int timeoutMs) {
    if (m_fd < 0) {
        return core::makeError(m_path + ": not connected");
    }
    EnvelopeReadResult frame = readEnvelope(m_fd, kMaxReplyFrameBytes, timeoutMs);
    if (!frame.ok()) {
        return core::makeError(m_path + ": " + frame.detail);
    }
    return std::move(frame.envelope);
}

core::Result<control::Status> ControlClient::hello(std::string_view clientName, int timeoutMs) {
    control::Envelope envelope;
    envelope.mutable_hello()->set_protocol_version(kProtocolVersion);
    envelope.mutable_hello()->set_client_name(std::string(clientName));
    if (core::Status sent = send(envelope, timeoutMs); !sent.ok()) {
        return sent.error();
    }
    core::Result<control::Envelope> reply = next(timeoutMs);
    if (!reply.ok()) {
        return reply.error();
    }
    if (reply->has_error()) {
        return core::makeError(m_path + ": agent refused: " + reply->error().text());
    }
    if (!reply->has_status()) {
        return core::makeError(m_path + ": agent answered Hello without a Status");
    }
    return reply->status();
}

core::Status ControlClient::startCapture(const control::StartCapture& request, int timeoutMs) {
    control::Envelope envelope;
    *envelope.mutable_start_capture() = request;
    return send(envelope, timeoutMs);
}

core::Status ControlClient::stopCapture(int timeoutMs) {
    control::Envelope envelope;
    envelope.mutable_stop_capture();
    return send(envelope, timeoutMs);
}

}  // namespace chokepoint::collectors
