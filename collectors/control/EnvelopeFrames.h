#pragma once
// Control frames carrying protoc-generated Envelopes: the CLI's and the GUI's side of the protocol
// (the agent uses its hand-written codec, ControlWire.h, over the same Framing.h).

#include <cstdint>
#include <string>
#include <string_view>

#include "collectors/control/Framing.h"
#include "collectors/control/proto/control.pb.h"

namespace chokepoint::collectors {

struct EnvelopeReadResult {
    FrameError error = FrameError::None;
    std::string detail;  // human-readable, names the byte offset where it applies
    control::Envelope envelope;
    bool ok() const { return error == FrameError::None; }
};

// Reads one frame and parses it; a payload that is not an Envelope with a body is Malformed.
EnvelopeReadResult readEnvelope(int fd, std::uint32_t maxBytes, int timeoutMs);

std::string encodeEnvelopeFrame(const control::Envelope& envelope);
bool writeEnvelope(int fd, const control::Envelope& envelope, int timeoutMs, std::string* error);

}  // namespace chokepoint::collectors
