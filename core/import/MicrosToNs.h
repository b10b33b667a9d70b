#pragma once
// Exact conversion of a JSON number written in microseconds ("1712195495519689.047", "21",
// "1.5e3") to int64 nanoseconds. The decimal text is converted digit by digit, never through a
// double, so a 16-digit epoch timestamp keeps its nanoseconds. Rounds to the nearest nanosecond,
// halves away from zero.

#include <cstdint>
#include <string_view>

namespace chokepoint::core {

enum class NumberParse : std::uint8_t {
    Ok,
    NotANumber,  // not JSON number syntax
    OutOfRange,  // the value in nanoseconds does not fit in int64
};

// `text` is the number token (surrounding whitespace allowed). Writes the result to `outNs`.
NumberParse microsToNs(std::string_view text, std::int64_t& outNs);

// Parses a JSON number token as an integer; fractional values are truncated toward zero.
NumberParse parseInt64Token(std::string_view text, std::int64_t& out);

}  // namespace chokepoint::core
