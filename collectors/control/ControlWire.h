#pragma once
// The agent's side of control.proto, written by hand: plain structs for the messages and one
// encoder/decoder for the Envelope, so the agent (a shared object loaded into every training
// process) links no protobuf runtime. The CLI and the GUI keep the protoc-generated classes; both
// write and read the same bytes (ControlWireTest checks each direction against the generated code).
//
// Field names follow control.proto in camelCase; enum constants keep the proto's names. Decoding
// follows proto3: unknown fields are skipped, a repeated singular field keeps its last value, a
// oneof member seen twice is merged, an unknown enum value is kept as a number, a `string` field
// that is not UTF-8 makes the message invalid. Bytes that are not protobuf wire format (a truncated
// varint or length, a group, wire types 6 and 7, field number 0) give an error naming the byte
// offset, never a crash. Encoding writes what protobuf writes, except that bytes of a `string` field
// that are not UTF-8 (a command line may hold any) become U+FFFD, so the client can parse it.

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/base/Result.h"

namespace chokepoint::collectors::wire {

enum AgentState : std::uint32_t {
    AGENT_STATE_UNSPECIFIED = 0,
    AGENT_STATE_DORMANT = 1,
    AGENT_STATE_ARMED = 2,
    AGENT_STATE_CAPTURING = 3,
    AGENT_STATE_DRAINING = 4,
};

enum CaptureKind : std::uint32_t {
    CAPTURE_KIND_NONE = 0,
    CAPTURE_KIND_KERNELS = 1,
    CAPTURE_KIND_MEMORY = 2,
    CAPTURE_KIND_API = 4,
    CAPTURE_KIND_SYNC = 8,
    CAPTURE_KIND_NVTX = 16,
    CAPTURE_KIND_HOST = 32,
    CAPTURE_KIND_GPU_METRICS = 64,
    CAPTURE_KIND_GRAPHS = 128,
    CAPTURE_KIND_OVERHEAD = 256,
    CAPTURE_KIND_PYTHON_STACKS = 512,
};

enum ErrorCode : std::uint32_t {
    ERROR_CODE_UNSPECIFIED = 0,
    ERROR_CODE_MALFORMED = 1,
    ERROR_CODE_TOO_LARGE = 2,
    ERROR_CODE_PERMISSION = 3,
    ERROR_CODE_BUSY = 4,
    ERROR_CODE_UNSUPPORTED = 5,
    ERROR_CODE_CUPTI_BUSY = 6,
    ERROR_CODE_CUPTI_FAILED = 7,
    ERROR_CODE_PROTOCOL = 8,
    ERROR_CODE_TIMEOUT = 9,
};

struct Hello {
    std::uint32_t protocolVersion = 0;
    std::string clientName;
    bool operator==(const Hello&) const = default;
};

struct StatusRequest {
    bool operator==(const StatusRequest&) const = default;
};

struct Status {
    std::uint32_t protocolVersion = 0;
    std::int64_t pid = 0;
    std::vector<std::string> commandLine;
    std::vector<std::string> gpuNames;
    AgentState state = AGENT_STATE_UNSPECIFIED;
    std::string agentVersion;
    std::string hostName;
    std::uint64_t captureId = 0;
    std::string cuptiHolder;
    bool cuptiAvailable = false;
    std::int64_t stepsSeen = 0;
    bool operator==(const Status&) const = default;
};

struct StartCapture {
    std::uint64_t durationMs = 0;
    std::uint32_t steps = 0;
    std::uint32_t kinds = 0;  // CaptureKind bits
    bool startAtNextStep = false;
    std::string stepMarker;
    std::uint32_t hostSampleHz = 0;
    std::uint64_t delayMs = 0;     // dormant this long first, then start (CUPTI off meanwhile)
    std::uint32_t afterSteps = 0;  // dormant until this many step markers, then start at the next
    bool operator==(const StartCapture&) const = default;
};

struct StopCapture {
    bool operator==(const StopCapture&) const = default;
};

struct Chunk {
    std::uint64_t captureId = 0;
    std::uint64_t seq = 0;
    std::string data;
    std::int64_t records = 0;
    bool operator==(const Chunk&) const = default;
};

struct CaptureDone {
    std::uint64_t captureId = 0;
    bool ok = false;
    std::string message;
    std::int64_t kernels = 0;
    std::int64_t apiCalls = 0;
    std::int64_t ranges = 0;
    std::int64_t droppedRecords = 0;
    std::int64_t steps = 0;
    std::int64_t durationNs = 0;
    bool operator==(const CaptureDone&) const = default;
};

struct Error {
    ErrorCode code = ERROR_CODE_UNSPECIFIED;
    std::string text;
    bool operator==(const Error&) const = default;
};

// The Envelope's oneof body, in field-number order (index + 1 is the field number).
using Envelope =
    std::variant<Hello, StatusRequest, Status, StartCapture, StopCapture, Chunk, CaptureDone, Error>;

// The serialized Envelope (what protobuf's SerializeAsString writes for the same message).
std::string encodeEnvelope(const Envelope& envelope);

// Parses a serialized Envelope. An Envelope without a body is an error too.
core::Result<Envelope> decodeEnvelope(std::string_view bytes);

}  // namespace chokepoint::collectors::wire
