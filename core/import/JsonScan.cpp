#include "core/import/JsonScan.h"

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace chokepoint::core {

namespace {

bool isScalarEnd(char c) {
    return c == ',' || c == '}' || c == ']' || isJsonSpace(c);
}

// Scanner state carried from one 64-byte block to the next.
struct State {
    std::size_t depth = 0;
    bool inString = false;
    bool escapeNext = false;
};

// Byte-at-a-time scan of data[from, to). Returns the end of the value (one past its closing
// bracket) or 0 when it does not end in this range.
std::size_t scanScalar(const char* data, std::size_t from, std::size_t to, State& s) {
    for (std::size_t i = from; i < to; ++i) {
        char c = data[i];
        if (s.escapeNext) {
            s.escapeNext = false;
        } else if (s.inString) {
            if (c == '\\') {
                s.escapeNext = true;
            } else if (c == '"') {
                s.inString = false;
            }
        } else if (c == '"') {
            s.inString = true;
        } else if (c == '{' || c == '[') {
            ++s.depth;
        } else if (c == '}' || c == ']') {
            if (--s.depth == 0) {
                return i + 1;
            }
        }
    }
    return 0;
}

#if defined(__SSE2__)
struct BlockMasks {
    std::uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

// Bit i of each mask is set when data[i] (0 <= i < 64) is that kind of byte.
inline BlockMasks blockMasks(const char* data) {
    BlockMasks m;
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i openBrace = _mm_set1_epi8('{');
    const __m128i openBracket = _mm_set1_epi8('[');
    const __m128i closeBrace = _mm_set1_epi8('}');
    const __m128i closeBracket = _mm_set1_epi8(']');
    for (int k = 0; k < 4; ++k) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * k));
        auto bits = [&](__m128i eq) {
            return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(eq))) << (16 * k);
        };
        m.quote |= bits(_mm_cmpeq_epi8(v, quote));
        m.backslash |= bits(_mm_cmpeq_epi8(v, backslash));
        m.open |= bits(_mm_or_si128(_mm_cmpeq_epi8(v, openBrace), _mm_cmpeq_epi8(v, openBracket)));
        m.close |= bits(_mm_or_si128(_mm_cmpeq_epi8(v, closeBrace), _mm_cmpeq_epi8(v, closeBracket)));
    }
    return m;
}

// Bit i of the result is the XOR of bits 0..i: 1 inside a string (opening quote included).
inline std::uint64_t prefixXor(std::uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

// Finds the end of the object/array starting at data[0], 64 bytes at a time: quotes give the
// string mask by prefix XOR and brackets outside strings change the depth (a few per block in a
// trace). Blocks with backslashes (rare in traces) go through the byte-at-a-time path.
std::size_t scanContainer(const char* data, std::size_t size) {
    State s;
    for (std::size_t pos = 0; pos < size; pos += 64) {
        const std::size_t valid = size - pos;
        const std::uint64_t validMask = valid >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << valid) - 1;
        BlockMasks m = blockMasks(data + pos);
        if (s.escapeNext || (m.backslash & validMask) != 0) {
            std::size_t end = scanScalar(data, pos, pos + (valid >= 64 ? 64 : valid), s);
            if (end != 0) {
                return end;
            }
            continue;
        }
        const std::uint64_t inString = prefixXor(m.quote) ^ (s.inString ? ~std::uint64_t{0} : 0);
        const std::uint64_t outside = ~inString & validMask;
        const std::uint64_t open = m.open & outside;
        const std::uint64_t close = m.close & outside;
        std::uint64_t brackets = open | close;
        while (brackets != 0) {
            const int bit = __builtin_ctzll(brackets);
            brackets &= brackets - 1;
            if ((open >> bit) & 1) {
                ++s.depth;
            } else if (--s.depth == 0) {
                return pos + static_cast<std::size_t>(bit) + 1;
            }
        }
        s.inString = (inString >> 63) & 1;
    }
    return 0;
}
#else
std::size_t scanContainer(const char* data, std::size_t size) {
    State s;
    return scanScalar(data, 0, size, s);
}
#endif

}  // namespace

ScanResult scanJsonValue(const char* data, std::size_t size) {
    if (size == 0) {
        return {ScanStatus::Incomplete, 0};
    }
    const char first = data[0];
    if (first == '{' || first == '[') {
        std::size_t end = scanContainer(data, size);
        return end != 0 ? ScanResult{ScanStatus::Complete, end} : ScanResult{ScanStatus::Incomplete, 0};
    }
    if (first == '"') {
        for (std::size_t i = 1; i < size; ++i) {
            if (data[i] == '\\') {
                ++i;
            } else if (data[i] == '"') {
                return {ScanStatus::Complete, i + 1};
            }
        }
        return {ScanStatus::Incomplete, 0};
    }
    if (first == '}' || first == ']' || first == ',' || first == ':') {
        return {ScanStatus::Invalid, 0};
    }
    // Number or literal: runs to the next delimiter. simdjson checks its syntax later.
    std::size_t i = 0;
    while (i < size && !isScalarEnd(data[i])) {
        ++i;
    }
    return i < size ? ScanResult{ScanStatus::Complete, i} : ScanResult{ScanStatus::Incomplete, 0};
}

}  // namespace chokepoint::core
