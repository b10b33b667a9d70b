#pragma once
// Frames of the agent control protocol on a stream socket:
//   "CPC1" (4 bytes) | payload length (uint32, little-endian) | Envelope (protobuf, control.proto)
// This file moves payloads and knows nothing of their content: the agent encodes and decodes them
// with its hand-written codec (ControlWire.h), the CLI and GUI with protoc's classes
// (EnvelopeFrames.h), so the agent links no protobuf runtime.
// A frame whose magic is wrong (a foreign program) or whose length exceeds the receiver's limit is
// refused before any payload is read. Reads and writes take a deadline and never block past it;
// they use MSG_DONTWAIT/MSG_NOSIGNAL, so they work on blocking and non-blocking sockets and never
// raise SIGPIPE in the host process.

#include <cstdint>
#include <string>
#include <string_view>

namespace chokepoint::collectors {

constexpr std::uint32_t kProtocolVersion = 1;
constexpr std::size_t kFrameHeaderBytes = 8;
constexpr char kFrameMagic[4] = {'C', 'P', 'C', '1'};
// Client -> agent messages are tiny; the agent refuses anything larger.
constexpr std::uint32_t kMaxRequestFrameBytes = 64 * 1024;
// Agent -> client frames carry trace chunks.
constexpr std::uint32_t kMaxReplyFrameBytes = 64u * 1024 * 1024;
// Default deadline for one control message.
constexpr int kDefaultIoTimeoutMs = 5000;

enum class FrameError {
    None = 0,
    Closed,     // orderly shutdown before a frame started
    Timeout,    // deadline passed
    BadMagic,   // not our protocol
    TooLarge,   // length over the limit
    Malformed,  // the stream ended mid-frame, or (set by the caller) the payload is not an Envelope
    Io,         // socket error
};

std::string_view toString(FrameError error);

struct FrameReadResult {
    FrameError error = FrameError::None;
    std::string detail;   // human-readable, names the byte offset where it applies
    std::string payload;  // the serialized Envelope, not parsed here
    bool ok() const { return error == FrameError::None; }
};

// One payload with its frame header.
std::string encodeFrame(std::string_view payload);

// Parses the 8-byte header: returns the payload length or the error (BadMagic/TooLarge).
FrameError parseFrameHeader(std::string_view header, std::uint32_t maxBytes, std::uint32_t* lengthOut);

// Reads exactly one frame from `fd` within `timeoutMs`, refusing payloads over `maxBytes`.
FrameReadResult readFrame(int fd, std::uint32_t maxBytes, int timeoutMs);

// Writes raw bytes / one frame within `timeoutMs`. On failure returns false and sets *error.
bool writeAll(int fd, std::string_view bytes, int timeoutMs, std::string* error);
bool writeFrame(int fd, std::string_view payload, int timeoutMs, std::string* error);

}  // namespace chokepoint::collectors
