#pragma once
// The client side of the control protocol (chokepoint-cli, the GUI): connect to one agent's socket,
// ask for its status, start and stop a capture and read the streamed chunks. Blocking calls with
// deadlines; no threads. Move-only (owns the socket).

#include <cstdint>
#include <string>
#include <string_view>

#include "collectors/control/proto/control.pb.h"
#include "core/base/Result.h"

namespace chokepoint::collectors {

class ControlClient {
public:
    ControlClient() = default;
    ~ControlClient();
    ControlClient(ControlClient&& other) noexcept;
    ControlClient& operator=(ControlClient&& other) noexcept;
    ControlClient(const ControlClient&) = delete;
    ControlClient& operator=(const ControlClient&) = delete;

    // Connects to `socketPath`. The error names the path and says whether nobody listens there.
    static core::Result<ControlClient> connect(const std::string& socketPath);

    // Sends Hello and waits for Status (or the agent's Error, turned into an error message).
    core::Result<control::Status> hello(std::string_view clientName, int timeoutMs = 5000);
    // Sends StartCapture. The agent answers with an Error at once when it refuses; otherwise the
    // stream of Chunk messages follows (read them with next()).
    core::Status startCapture(const control::StartCapture& request, int timeoutMs = 5000);
    core::Status stopCapture(int timeoutMs = 5000);
    // Sends any envelope (tests use it to send messages the agent must refuse).
    core::Status send(const control::Envelope& envelope, int timeoutMs = 5000);
    // Reads the next message from the agent (Chunk, CaptureDone, Status or Error).
    core::Result<control::Envelope> next(int timeoutMs);

    int fd() const { return m_fd; }
    void close();

private:
    explicit ControlClient(int fd, std::string path) : m_fd(fd), m_path(std::move(path)) {}
    int m_fd = -1;
    std::string m_path;
};

}  // namespace chokepoint::collectors
