#pragma once
// Internal helpers shared by the .cptrace encoder and decoder: varints, zigzag, little-endian
// integers and the link-column encoding described in proto/cptrace.proto. Not a public API.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace chokepoint::core::cptrace_wire {

inline void appendVarint(std::string& out, std::uint64_t value) {
    while (value >= 0x80) {
        out.push_back(static_cast<char>((value & 0x7F) | 0x80));
        value >>= 7;
    }
    out.push_back(static_cast<char>(value));
}

enum class VarintStatus { Ok, NeedMore, Malformed };

// Parses a varint at data[pos]; on Ok advances pos. More than 10 bytes or bits beyond 64 is Malformed.
inline VarintStatus readVarint(std::string_view data, std::size_t& pos, std::uint64_t& value) {
    std::uint64_t result = 0;
    for (std::size_t i = 0; i < 10; ++i) {
        if (pos + i >= data.size()) {
            return VarintStatus::NeedMore;
        }
        auto byte = static_cast<std::uint8_t>(data[pos + i]);
        if (i == 9 && byte > 1) {
            return VarintStatus::Malformed;
        }
        result |= std::uint64_t{byte & 0x7Fu} << (7 * i);
        if ((byte & 0x80) == 0) {
            pos += i + 1;
            value = result;
            return VarintStatus::Ok;
        }
    }
    return VarintStatus::Malformed;
}

inline void appendU32Le(std::string& out, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) {
        out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
    }
}

inline std::uint32_t readU32Le(const char* p) {
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
        value |= std::uint32_t{static_cast<std::uint8_t>(p[i])} << (8 * i);
    }
    return value;
}

inline std::uint64_t zigzag(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}

inline std::int64_t unzigzag(std::uint64_t v) {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

// Wrapping arithmetic on int64 without undefined behaviour (hostile deltas may overflow).
inline std::int64_t wrapAdd(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
inline std::int64_t wrapSub(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}

// Link column state: 0 = none, else zigzag(g - prev) + 1.
struct LinkEncoder {
    std::int64_t prev = 0;
    std::uint64_t encode(std::optional<std::uint64_t> globalRow) {
        if (!globalRow) {
            return 0;
        }
        auto g = static_cast<std::int64_t>(*globalRow);
        std::uint64_t wire = zigzag(wrapSub(g, prev)) + 1;
        prev = g;
        return wire;
    }
};

struct LinkDecoder {
    std::int64_t prev = 0;
    // Returns nullopt for "none"; the global row otherwise (may be out of range: caller checks).
    std::optional<std::int64_t> decode(std::uint64_t wire) {
        if (wire == 0) {
            return std::nullopt;
        }
        prev = wrapAdd(prev, unzigzag(wire - 1));
        return prev;
    }
};

}  // namespace chokepoint::core::cptrace_wire
