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

// The tag and length of a length-delimited field whose `length` bytes the caller writes after it.
inline void putLenHeader(std::string& out, std::uint32_t field, std::size_t length) {
    appendTag(out, field, WireType::Len);
    cptrace_wire::appendVarint(out, length);
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

// Writes a varint at `p` (10 bytes of room) and returns the byte after it.
inline char* writeVarint(char* p, std::uint64_t value) {
    while (value >= 0x80) {
        *p++ = static_cast<char>((value & 0x7F) | 0x80);
        value >>= 7;
    }
    *p++ = static_cast<char>(value);
    return p;
}

// Replaces `out` with the varints encoded(i) for i in [begin, end), in order: the content of a packed
// field. (Written through a pointer into a stack block appended 4 KiB at a time: appending byte by
// byte made the encoder about 1.5 times slower than protobuf's serializer.)
template <class EncodedFn>
void packVarints(std::string& out, std::size_t begin, std::size_t end, EncodedFn encoded) {
    out.clear();
    char block[4096];
    char* p = block;
    for (std::size_t i = begin; i < end; ++i) {
        if (p > block + sizeof block - 10) {
            out.append(block, static_cast<std::size_t>(p - block));
            p = block;
        }
        p = writeVarint(p, encoded(i));
    }
    out.append(block, static_cast<std::size_t>(p - block));
}

// Replaces `out` with `count` doubles as little-endian IEEE 754 (a packed double field's content).
inline void packDoubles(std::string& out, const double* values, std::size_t count) {
    out.resize(count * 8);
    for (std::size_t i = 0; i < count; ++i) {
        std::uint64_t bits = 0;
        static_assert(sizeof bits == sizeof(double));
        std::memcpy(&bits, &values[i], sizeof bits);
        for (std::size_t b = 0; b < 8; ++b) {
            out[i * 8 + b] = static_cast<char>((bits >> (8 * b)) & 0xFF);
        }
    }
}

}  // namespace chokepoint::core::protowire
