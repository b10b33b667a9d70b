#include "collectors/control/EnvelopeFrames.h"

namespace chokepoint::collectors {

EnvelopeReadResult readEnvelope(int fd, std::uint32_t maxBytes, int timeoutMs) {
    FrameReadResult frame = readFrame(fd, maxBytes, timeoutMs);
    EnvelopeReadResult result;
    result.error = frame.error;
    result.detail = std::move(frame.detail);
    if (!frame.ok()) {
        return result;
    }
    if (!result.envelope.ParseFromString(frame.payload) ||
        result.envelope.body_case() == control::Envelope::BODY_NOT_SET) {
        result.error = FrameError::Malformed;
        result.detail =
            "payload of " + std::to_string(frame.payload.size()) + " bytes is not a control Envelope";
    }
    return result;
}

std::string encodeEnvelopeFrame(const control::Envelope& envelope) {
    return encodeFrame(envelope.SerializeAsString());
}

bool writeEnvelope(int fd, const control::Envelope& envelope, int timeoutMs, std::string* error) {
    return writeFrame(fd, envelope.SerializeAsString(), timeoutMs, error);
}

}  // namespace chokepoint::collectors
