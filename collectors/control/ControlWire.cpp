#include "collectors/control/ControlWire.h"

#include <type_traits>

#include "core/format/CptraceWire.h"
#include "core/format/ProtoWireWriter.h"

namespace chokepoint::collectors::wire {

namespace {

using namespace core::protowire;
using core::cptrace_wire::readVarint;
using core::cptrace_wire::VarintStatus;

// ---- UTF-8 (proto3 `string` fields must hold it; protobuf refuses to parse a message that does not)

// Length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlongs, no surrogates,
// nothing past U+10FFFF), or 0 when it is not one.
std::size_t utf8SequenceLength(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char b0 = byte(i);
    if (b0 < 0x80) {
        return 1;
    }
    std::size_t n = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        n = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        n = 3;
        lo = b0 == 0xE0 ? 0xA0 : 0x80;
        hi = b0 == 0xED ? 0x9F : 0xBF;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        n = 4;
        lo = b0 == 0xF0 ? 0x90 : 0x80;
        hi = b0 == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (i + n > text.size() || byte(i + 1) < lo || byte(i + 1) > hi) {
        return 0;
    }
    for (std::size_t k = 2; k < n; ++k) {
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) {
            return 0;
        }
    }
    return n;
}

bool isUtf8(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = utf8SequenceLength(text, i);
        if (n == 0) {
            return false;
        }
        i += n;
    }
    return true;
}

// `text` with every byte that is not part of well-formed UTF-8 replaced by U+FFFD, so that the
// client's protobuf can parse it (a command line or a path may hold any bytes).
std::string toUtf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = utf8SequenceLength(text, i);
        if (n == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
        } else {
            out.append(text.data() + i, n);
            i += n;
        }
    }
    return out;
}

// A singular / one repeated element of a proto3 `string` field.
void putString(std::string& out, std::uint32_t field, std::string_view text) {
    if (isUtf8(text)) {
        putBytes(out, field, text);
    } else {
        putBytes(out, field, toUtf8(text));
    }
}
void putStringElement(std::string& out, std::uint32_t field, std::string_view text) {
    if (isUtf8(text)) {
        putLen(out, field, text);
    } else {
        putLen(out, field, toUtf8(text));
    }
}

// ---- Encoding (fields in field-number order, as protobuf writes them) ----------------------------

std::string encodeBody(const Hello& m) {
    std::string out;
    putUint(out, 1, m.protocolVersion);
    putString(out, 2, m.clientName);
    return out;
}

std::string encodeBody(const StatusRequest&) {
    return {};
}

std::string encodeBody(const Status& m) {
    std::string out;
    putUint(out, 1, m.protocolVersion);
    putInt(out, 2, m.pid);
    for (const std::string& s : m.commandLine) {
        putStringElement(out, 3, s);
    }
    for (const std::string& s : m.gpuNames) {
        putStringElement(out, 4, s);
    }
    putInt(out, 5, static_cast<std::int32_t>(m.state));
    putString(out, 6, m.agentVersion);
    putString(out, 7, m.hostName);
    putUint(out, 8, m.captureId);
    putString(out, 9, m.cuptiHolder);
    putBool(out, 10, m.cuptiAvailable);
    putInt(out, 11, m.stepsSeen);
    return out;
}

std::string encodeBody(const StartCapture& m) {
    std::string out;
    putUint(out, 1, m.durationMs);
    putUint(out, 2, m.steps);
    putUint(out, 3, m.kinds);
    putBool(out, 4, m.startAtNextStep);
    putString(out, 5, m.stepMarker);
    putUint(out, 6, m.hostSampleHz);
    putUint(out, 7, m.delayMs);
    putUint(out, 8, m.afterSteps);
    return out;
}

std::string encodeBody(const StopCapture&) {
    return {};
}

std::string encodeBody(const Chunk& m) {
    std::string out;
    out.reserve(m.data.size() + 32);
    putUint(out, 1, m.captureId);
    putUint(out, 2, m.seq);
    putBytes(out, 3, m.data);
    putInt(out, 4, m.records);
    return out;
}

std::string encodeBody(const CaptureDone& m) {
    std::string out;
    putUint(out, 1, m.captureId);
    putBool(out, 2, m.ok);
    putString(out, 3, m.message);
    putInt(out, 4, m.kernels);
    putInt(out, 5, m.apiCalls);
    putInt(out, 6, m.ranges);
    putInt(out, 7, m.droppedRecords);
    putInt(out, 8, m.steps);
    putInt(out, 9, m.durationNs);
    return out;
}

std::string encodeBody(const Error& m) {
    std::string out;
    putInt(out, 1, static_cast<std::int32_t>(m.code));
    putString(out, 2, m.text);
    return out;
}

// ---- Decoding -----------------------------------------------------------------------------------

struct Field {
    std::uint32_t number = 0;
    std::uint32_t wireType = 0;
    std::uint64_t value = 0;  // wire types 0, 1, 5
    std::string_view bytes;   // wire type 2
    bool isVarint() const { return wireType == 0; }
    bool isLen() const { return wireType == 2; }
};

// Walks the fields of one message. `base` is the message's offset in the whole Envelope, for errors.
class FieldReader {
public:
    FieldReader(std::string_view data, std::size_t base) : m_data(data), m_base(base) {}

    // False at the end of the message or on an error (then error() is set).
    bool next(Field& f) {
        if (m_pos >= m_data.size() || !m_error.empty()) {
            return false;
        }
        const std::size_t start = m_pos;
        std::uint64_t tag = 0;
        if (readVarint(m_data, m_pos, tag) != VarintStatus::Ok) {
            return fail(start, "truncated or overlong field tag");
        }
        if ((tag >> 3) == 0 || (tag >> 3) > 0x1FFFFFFFu) {
            return fail(start, "field number " + std::to_string(tag >> 3) + " is out of range");
        }
        f.number = static_cast<std::uint32_t>(tag >> 3);
        f.wireType = static_cast<std::uint32_t>(tag & 7);
        f.value = 0;
        f.bytes = {};
        switch (f.wireType) {
            case 0:
                if (readVarint(m_data, m_pos, f.value) != VarintStatus::Ok) {
                    return fail(start, "truncated or overlong varint in field " + std::to_string(f.number));
                }
                return true;
            case 1:
                return fixed(start, f, 8);
            case 5:
                return fixed(start, f, 4);
            case 2: {
                std::uint64_t length = 0;
                if (readVarint(m_data, m_pos, length) != VarintStatus::Ok) {
                    return fail(start, "truncated length of field " + std::to_string(f.number));
                }
                if (length > m_data.size() - m_pos) {
                    return fail(start, "field " + std::to_string(f.number) + " claims " +
                                           std::to_string(length) + " bytes, " +
                                           std::to_string(m_data.size() - m_pos) + " remain");
                }
                f.bytes = m_data.substr(m_pos, static_cast<std::size_t>(length));
                m_pos += static_cast<std::size_t>(length);
                return true;
            }
            default:
                return fail(start, "wire type " + std::to_string(f.wireType) + " in field " +
                                       std::to_string(f.number) + " (control.proto uses no groups)");
        }
    }

    // Offset of the current field's value in the whole Envelope.
    std::size_t offsetOf(const Field& f) const {
        return m_base + static_cast<std::size_t>(f.bytes.data() - m_data.data());
    }
    const std::string& error() const { return m_error; }

private:
    bool fixed(std::size_t start, Field& f, std::size_t n) {
        if (m_data.size() - m_pos < n) {
            return fail(start, "truncated fixed-width field " + std::to_string(f.number));
        }
        for (std::size_t i = 0; i < n; ++i) {
            f.value |= std::uint64_t{static_cast<std::uint8_t>(m_data[m_pos + i])} << (8 * i);
        }
        m_pos += n;
        return true;
    }
    bool fail(std::size_t at, const std::string& what) {
        m_error = "byte " + std::to_string(m_base + at) + ": " + what;
        return false;
    }

    std::string_view m_data;
    std::size_t m_base;
    std::size_t m_pos = 0;
    std::string m_error;
};

// Field setters: a field of an unexpected wire type is an unknown field and skipped, as protobuf does.
bool setU64(const Field& f, std::uint64_t& out) {
    if (f.isVarint()) {
        out = f.value;
    }
    return true;
}
bool setU32(const Field& f, std::uint32_t& out) {
    if (f.isVarint()) {
        out = static_cast<std::uint32_t>(f.value);  // protobuf truncates a wider varint
    }
    return true;
}
bool setI64(const Field& f, std::int64_t& out) {
    if (f.isVarint()) {
        out = static_cast<std::int64_t>(f.value);
    }
    return true;
}
bool setBool(const Field& f, bool& out) {
    if (f.isVarint()) {
        out = f.value != 0;
    }
    return true;
}
template <class Enum>
bool setEnum(const Field& f, Enum& out) {
    if (f.isVarint()) {
        out = static_cast<Enum>(static_cast<std::uint32_t>(f.value));
    }
    return true;
}
bool setText(const Field& f, std::string& out) {
    if (f.isLen()) {
        out.assign(f.bytes.data(), f.bytes.size());
    }
    return true;
}

// A proto3 `string` field that is not UTF-8 makes the message unparsable, as in protobuf.
bool setUtf8(const Field& f, std::string& out) {
    if (f.isLen() && !isUtf8(f.bytes)) {
        return false;
    }
    return setText(f, out);
}
bool addUtf8(const Field& f, std::vector<std::string>& out) {
    if (f.isLen() && !isUtf8(f.bytes)) {
        return false;
    }
    if (f.isLen()) {
        out.emplace_back(f.bytes);
    }
    return true;
}

// clang-format off
// Each returns false only for a string field that is not UTF-8.
bool decodeField(const Field& f, Hello& m) {
    switch (f.number) {
        case 1: return setU32(f, m.protocolVersion);
        case 2: return setUtf8(f, m.clientName);
        default: return true;
    }
}

bool decodeField(const Field&, StatusRequest&) {
    return true;
}

bool decodeField(const Field& f, Status& m) {
    switch (f.number) {
        case 1: return setU32(f, m.protocolVersion);
        case 2: return setI64(f, m.pid);
        case 3: return addUtf8(f, m.commandLine);
        case 4: return addUtf8(f, m.gpuNames);
        case 5: return setEnum(f, m.state);
        case 6: return setUtf8(f, m.agentVersion);
        case 7: return setUtf8(f, m.hostName);
        case 8: return setU64(f, m.captureId);
        case 9: return setUtf8(f, m.cuptiHolder);
        case 10: return setBool(f, m.cuptiAvailable);
        case 11: return setI64(f, m.stepsSeen);
        default: return true;
    }
}

bool decodeField(const Field& f, StartCapture& m) {
    switch (f.number) {
        case 1: return setU64(f, m.durationMs);
        case 2: return setU32(f, m.steps);
        case 3: return setU32(f, m.kinds);
        case 4: return setBool(f, m.startAtNextStep);
        case 5: return setUtf8(f, m.stepMarker);
        case 6: return setU32(f, m.hostSampleHz);
        case 7: return setU64(f, m.delayMs);
        case 8: return setU32(f, m.afterSteps);
        default: return true;
    }
}

bool decodeField(const Field&, StopCapture&) {
    return true;
}

bool decodeField(const Field& f, Chunk& m) {
    switch (f.number) {
        case 1: return setU64(f, m.captureId);
        case 2: return setU64(f, m.seq);
        case 3: return setText(f, m.data);  // bytes: any content
        case 4: return setI64(f, m.records);
        default: return true;
    }
}

bool decodeField(const Field& f, CaptureDone& m) {
    switch (f.number) {
        case 1: return setU64(f, m.captureId);
        case 2: return setBool(f, m.ok);
        case 3: return setUtf8(f, m.message);
        case 4: return setI64(f, m.kernels);
        case 5: return setI64(f, m.apiCalls);
        case 6: return setI64(f, m.ranges);
        case 7: return setI64(f, m.droppedRecords);
        case 8: return setI64(f, m.steps);
        case 9: return setI64(f, m.durationNs);
        default: return true;
    }
}

bool decodeField(const Field& f, Error& m) {
    switch (f.number) {
        case 1: return setEnum(f, m.code);
        case 2: return setUtf8(f, m.text);
        default: return true;
    }
}

// clang-format on

// Decodes `bytes` (at `base` in the Envelope) into `m`, merging with what it holds.
template <class Message>
bool decodeBody(std::string_view bytes, std::size_t base, Message& m, std::string& error) {
    FieldReader reader(bytes, base);
    Field f;
    while (reader.next(f)) {
        if (!decodeField(f, m)) {
            error = "byte " + std::to_string(reader.offsetOf(f)) + ": field " + std::to_string(f.number) +
                    " is a string that is not valid UTF-8";
            return false;
        }
    }
    error = reader.error();
    return error.empty();
}

// Makes `out` hold alternative I (keeping its content when it already does) and decodes into it.
template <std::size_t I>
bool decodeAlternative(std::size_t index, std::string_view bytes, std::size_t base, Envelope& out, bool& set,
                       std::string& error) {
    if constexpr (I < std::variant_size_v<Envelope>) {
        if (index != I) {
            return decodeAlternative<I + 1>(index, bytes, base, out, set, error);
        }
        if (!set || out.index() != I) {
            out.template emplace<I>();
            set = true;
        }
        return decodeBody(bytes, base, std::get<I>(out), error);
    } else {
        return true;
    }
}

}  // namespace

std::string encodeEnvelope(const Envelope& envelope) {
    std::string out;
    std::visit(
        [&](const auto& body) {
            std::string bytes = encodeBody(body);
            out.reserve(bytes.size() + 8);
            putLen(out, static_cast<std::uint32_t>(envelope.index() + 1), bytes);
        },
        envelope);
    return out;
}

core::Result<Envelope> decodeEnvelope(std::string_view bytes) {
    Envelope out;
    bool set = false;
    FieldReader reader(bytes, 0);
    Field f;
    std::string error;
    while (reader.next(f)) {
        if (f.number < 1 || f.number > std::variant_size_v<Envelope> || !f.isLen()) {
            continue;  // an unknown field, or a body member of the wrong wire type: skipped
        }
        if (!decodeAlternative<0>(f.number - 1, f.bytes, reader.offsetOf(f), out, set, error)) {
            return core::makeError("control message: " + error);
        }
    }
    if (!reader.error().empty()) {
        return core::makeError("control message: " + reader.error());
    }
    if (!set) {
        return core::makeError("control message: " + std::to_string(bytes.size()) +
                               " bytes hold no message body (not a control Envelope)");
    }
    return out;
}

}  // namespace chokepoint::collectors::wire
