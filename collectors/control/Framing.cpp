#include "collectors/control/Framing.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace chokepoint::collectors {

namespace {

using Clock = std::chrono::steady_clock;

int remainingMs(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(left);
}

// Waits for `events` on fd until the deadline. Returns 1 ready, 0 timeout, -1 error.
int waitFd(int fd, short events, Clock::time_point deadline) {
    for (;;) {
        pollfd p{fd, events, 0};
        int rc = ::poll(&p, 1, remainingMs(deadline));
        if (rc < 0 && errno == EINTR) {
            continue;
        }
        if (rc <= 0) {
            return rc;
        }
        if ((p.revents & events) != 0) {
            return 1;
        }
        if ((p.revents & (POLLERR | POLLNVAL)) != 0) {
            return -1;
        }
        return 1;  // POLLHUP: let recv/send report it
    }
}

// Reads exactly n bytes. Returns None, Closed (EOF at offset 0), Malformed (EOF mid-way), Timeout, Io.
FrameError readExact(int fd, char* out, std::size_t n, Clock::time_point deadline, std::size_t* got) {
    *got = 0;
    while (*got < n) {
        int w = waitFd(fd, POLLIN, deadline);
        if (w == 0) {
            return FrameError::Timeout;
        }
        if (w < 0) {
            return FrameError::Io;
        }
        ssize_t r = ::recv(fd, out + *got, n - *got, MSG_DONTWAIT);
        if (r > 0) {
            *got += static_cast<std::size_t>(r);
            continue;
        }
        if (r == 0) {
            return *got == 0 ? FrameError::Closed : FrameError::Malformed;
        }
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) {
            continue;
        }
        return FrameError::Io;
    }
    return FrameError::None;
}

}  // namespace

std::string_view toString(FrameError error) {
    switch (error) {
        case FrameError::None:
            return "ok";
        case FrameError::Closed:
            return "connection closed";
        case FrameError::Timeout:
            return "timed out";
        case FrameError::BadMagic:
            return "not a Chokepoint control frame";
        case FrameError::TooLarge:
            return "frame too large";
        case FrameError::Malformed:
            return "malformed frame";
        case FrameError::Io:
            return "socket error";
    }
    return "unknown";
}

std::string encodeFrame(std::string_view payload) {
    auto n = static_cast<std::uint32_t>(payload.size());
    std::string out;
    out.reserve(kFrameHeaderBytes + payload.size());
    out.append(kFrameMagic, 4);
    for (int i = 0; i < 4; ++i) {
        out.push_back(static_cast<char>((n >> (8 * i)) & 0xFFu));
    }
    out.append(payload.data(), payload.size());
    return out;
}

FrameError parseFrameHeader(std::string_view header, std::uint32_t maxBytes, std::uint32_t* lengthOut) {
    if (header.size() < kFrameHeaderBytes || std::memcmp(header.data(), kFrameMagic, 4) != 0) {
        return FrameError::BadMagic;
    }
    std::uint32_t n = 0;
    for (int i = 0; i < 4; ++i) {
        n |= static_cast<std::uint32_t>(static_cast<unsigned char>(header[4 + static_cast<std::size_t>(i)]))
             << (8 * i);
    }
    *lengthOut = n;
    return n > maxBytes ? FrameError::TooLarge : FrameError::None;
}

FrameReadResult readFrame(int fd, std::uint32_t maxBytes, int timeoutMs) {
    FrameReadResult result;
    auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
    char header[kFrameHeaderBytes];
    std::size_t got = 0;
    result.error = readExact(fd, header, sizeof header, deadline, &got);
    if (result.error != FrameError::None) {
        result.detail =
            std::string(toString(result.error)) + " at byte " + std::to_string(got) + " of the header";
        return result;
    }
    std::uint32_t length = 0;
    result.error = parseFrameHeader(std::string_view(header, sizeof header), maxBytes, &length);
    if (result.error == FrameError::BadMagic) {
        result.detail = "bad magic at byte 0 (expected \"CPC1\")";
        return result;
    }
    if (result.error == FrameError::TooLarge) {
        result.detail = "frame of " + std::to_string(length) + " bytes exceeds the limit of " +
                        std::to_string(maxBytes) + " bytes";
        return result;
    }
    std::string payload(length, '\0');
    result.error = readExact(fd, payload.data(), length, deadline, &got);
    if (result.error == FrameError::Closed) {
        result.error = length == 0 ? FrameError::None : FrameError::Malformed;
    }
    if (result.error != FrameError::None) {
        result.detail = std::string(toString(result.error)) + " at payload byte " + std::to_string(got) +
                        " of " + std::to_string(length);
        return result;
    }
    result.payload = std::move(payload);
    return result;
}

bool writeAll(int fd, std::string_view bytes, int timeoutMs, std::string* error) {
    auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
    std::size_t sent = 0;
    while (sent < bytes.size()) {
        int w = waitFd(fd, POLLOUT, deadline);
        if (w <= 0) {
            if (error) {
                *error = w == 0 ? "write timed out" : "socket error";
            }
            return false;
        }
        ssize_t r = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (r > 0) {
            sent += static_cast<std::size_t>(r);
            continue;
        }
        if (r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
            continue;
        }
        if (error) {
            *error = std::string("write failed: ") + std::strerror(errno);
        }
        return false;
    }
    return true;
}

bool writeFrame(int fd, std::string_view payload, int timeoutMs, std::string* error) {
    return writeAll(fd, encodeFrame(payload), timeoutMs, error);
}

}  // namespace chokepoint::collectors
