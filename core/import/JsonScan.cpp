#include "core/import/JsonScan.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace chokepoint::core {

namespace {

// Bit i set when data[i] (0 <= i < 16) is one of the bytes this state cares about.
#if defined(__SSE2__)
inline unsigned specialMask(const char* data, bool inString) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data));
    __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    if (inString) {
        __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
        return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(quote, backslash)));
    }
    __m128i brackets = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('{')), _mm_cmpeq_epi8(v, _mm_set1_epi8('}'))),
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('[')), _mm_cmpeq_epi8(v, _mm_set1_epi8(']'))));
    return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(quote, brackets)));
}
#else
inline unsigned specialMask(const char* data, bool inString) {
    unsigned mask = 0;
    for (unsigned i = 0; i < 16; ++i) {
        char c = data[i];
        bool hit =
            inString ? (c == '"' || c == '\\') : (c == '"' || c == '{' || c == '}' || c == '[' || c == ']');
        mask |= hit ? (1u << i) : 0u;
    }
    return mask;
}
#endif

bool isScalarEnd(char c) {
    return c == ',' || c == '}' || c == ']' || isJsonSpace(c);
}

}  // namespace

ScanResult scanJsonValue(const char* data, std::size_t size) {
    if (size == 0) {
        return {ScanStatus::Incomplete, 0};
    }
    char first = data[0];
    if (first != '{' && first != '[' && first != '"') {
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
    bool inString = first == '"';
    std::size_t depth = inString ? 0 : 1;
    std::size_t i = 1;
    while (i < size) {
        unsigned mask = specialMask(data + i, inString);
        if (mask == 0) {
            i += 16;
            continue;
        }
        i += static_cast<std::size_t>(__builtin_ctz(mask));
        if (i >= size) {
            break;
        }
        char c = data[i];
        if (inString) {
            if (c == '\\') {
                i += 2;
                continue;
            }
            inString = false;
            if (depth == 0) {
                return {ScanStatus::Complete, i + 1};
            }
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else {
            if (--depth == 0) {
                return {ScanStatus::Complete, i + 1};
            }
        }
        ++i;
    }
    return {ScanStatus::Incomplete, 0};
}

}  // namespace chokepoint::core
