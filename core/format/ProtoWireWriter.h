#pragma once
// Writes protobuf wire format by hand (https://protobuf.dev/programming-guides/encoding/), so that
// code which must not link a protobuf runtime (the collector agent, a shared object loaded into any
// training process) can still produce messages that protobuf parses. Proto3 rules, matching what
// protobuf's own serializer writes: a singular scalar or bytes field equal to its default (0, false,
// empty) is omitted; repeated scalars are packed, and omitted when empty; a sub-message or an
// element of a repeated bytes/message field is always written. Callers write fields in field-number
// order, as protobuf does, so the bytes equal protobuf's (tests compare them). Not a public API.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/format/CptraceWire.h"

namespace chokepoint::core::protowire {

enum class WireType : std::uint8_t { Varint = 0, Fixed64 = 1, Len = 2 };

inline void appendTag(std::string& out, std::uint32_t field, WireType type) {
    cptrace_wire::appendVarint(out, (std::uint64_t{field} << 3) | static_cast<std::uint64_t>(type));
}

// uint32, uint64, and enums stored as uint32.
inline void putUint(std::string& out, std::uint32_t field, std::uint64_t value) {
    if (value != 0) {
        appendTag(out, field, WireType::Varint);
        cptrace_wire::appendVarint(out, value);
    }
}

// int32 and int64: two's complement as a 64-bit varint (a negative int32 takes 10 bytes).
inline void putInt(std::string& out, std::uint32_t field, std::int64_t value) {
    putUint(out, field, static_cast<std::uint64_t>(value));
}

// sint32 and sint64 (zigzag; for an int32 value the 64-bit zigzag gives the same number).
inline void putSint(std::string& out, std::uint32_t field, std::int64_t value) {
    putUint(out, field, cptrace_wire::zigzag(value));
}

inline void putBool(std::string& out, std::uint32_t field, bool value) {
    putUint(out, field, value ? 1 : 0);
}

// A length-delimited field written whatever its length: a repeated bytes/string element or a
// sub-message that is present.
inline void putLen(std::string& out, std::uint32_t field, std::string_view bytes) {
    appendTag(out, field, WireType::Len);
    cptrace_wire::appendVarint(out, bytes.size());
    out.append(bytes.data(), bytes.size());
}

// A singular bytes/string field: omitted when empty.
inline void putBytes(std::string& out, std::uint32_t field, std::string_view bytes) {
    if (!bytes.empty()) {
        putLen(out, field, bytes);
    }
}

// A packed repeated field whose elements were already encoded into `packed`: omitted when empty.
inline void putPacked(std::string& out, std::uint32_t field, std::string_view packed) {
    putBytes(out, field, packed);
}

// One element of a packed double field.
inline void appendDouble(std::string& out, double value) {
    std::uint64_t bits = 0;
    static_assert(sizeof bits == sizeof value);
    std::memcpy(&bits, &value, sizeof bits);
    for (int i = 0; i < 8; ++i) {
        out.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
    }
}

}  // namespace chokepoint::core::protowire
