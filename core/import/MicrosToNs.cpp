#include "core/import/MicrosToNs.h"

#include <limits>

namespace chokepoint::core {

namespace {

__extension__ typedef unsigned __int128 U128;

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

std::string_view trim(std::string_view text) {
    while (!text.empty() &&
           (text.front() == ' ' || text.front() == '\t' || text.front() == '\n' || text.front() == '\r')) {
        text.remove_prefix(1);
    }
    while (!text.empty() &&
           (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' || text.back() == '\r')) {
        text.remove_suffix(1);
    }
    return text;
}

// A decimal number as digits * 10^exponent10, sign separate. Digits past the 36th only matter
// for rounding and are folded into `sticky` (any non-zero dropped digit).
struct Decimal {
    bool negative = false;
    U128 digits = 0;
    int digitCount = 0;  // significant digits kept in `digits`
    std::int64_t exponent10 = 0;
    bool sticky = false;
};

constexpr int kMaxKeptDigits = 36;  // 10^36 < 2^128

NumberParse parseDecimal(std::string_view text, Decimal& d) {
    text = trim(text);
    std::size_t i = 0;
    if (i < text.size() && text[i] == '-') {
        d.negative = true;
        ++i;
    }
    if (i >= text.size() || !isDigit(text[i])) {
        return NumberParse::NotANumber;
    }
    auto addDigit = [&d](char c, bool fractional) {
        if (d.digitCount < kMaxKeptDigits) {
            if (d.digitCount > 0 || c != '0') {
                d.digits = d.digits * 10 + U128(c - '0');
                ++d.digitCount;
            }
            if (fractional) {
                --d.exponent10;
            }
        } else {
            d.sticky = d.sticky || c != '0';
            if (!fractional) {
                ++d.exponent10;
            }
        }
    };
    std::size_t intStart = i;
    while (i < text.size() && isDigit(text[i])) {
        addDigit(text[i], false);
        ++i;
    }
    if (text[intStart] == '0' && i - intStart > 1) {
        return NumberParse::NotANumber;  // JSON forbids leading zeros
    }
    if (i < text.size() && text[i] == '.') {
        ++i;
        if (i >= text.size() || !isDigit(text[i])) {
            return NumberParse::NotANumber;
        }
        while (i < text.size() && isDigit(text[i])) {
            addDigit(text[i], true);
            ++i;
        }
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool expNegative = false;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
            expNegative = text[i] == '-';
            ++i;
        }
        if (i >= text.size() || !isDigit(text[i])) {
            return NumberParse::NotANumber;
        }
        std::int64_t e = 0;
        while (i < text.size() && isDigit(text[i])) {
            if (e < 100000000) {
                e = e * 10 + (text[i] - '0');
            }
            ++i;
        }
        d.exponent10 += expNegative ? -e : e;
    }
    return i == text.size() ? NumberParse::Ok : NumberParse::NotANumber;
}

// digits * 10^shift rounded half away from zero, as int64 with the sign applied.
NumberParse scaleToInt64(const Decimal& d, std::int64_t shift, std::int64_t& out) {
    if (d.digits == 0) {
        out = 0;
        return NumberParse::Ok;
    }
    const U128 limit = d.negative ? U128(std::numeric_limits<std::int64_t>::max()) + 1
                                  : U128(std::numeric_limits<std::int64_t>::max());
    U128 value = d.digits;
    if (shift >= 0) {
        for (std::int64_t k = 0; k < shift; ++k) {
            if (value > limit / 10) {
                return NumberParse::OutOfRange;
            }
            value *= 10;
        }
    } else {
        if (shift < -kMaxKeptDigits - 2) {
            out = 0;  // far below half a unit
            return NumberParse::Ok;
        }
        U128 divisor = 1;
        for (std::int64_t k = 0; k < -shift; ++k) {
            divisor *= 10;
        }
        U128 quotient = value / divisor;
        U128 remainder = value % divisor;
        // Half away from zero; dropped digits (sticky) only matter for an exact half, where any
        // non-zero tail makes it more than half, which rounds up as well.
        if (remainder * 2 >= divisor) {
            ++quotient;
        }
        value = quotient;
    }
    if (value > limit) {
        return NumberParse::OutOfRange;
    }
    if (d.negative) {
        out = value == U128(std::numeric_limits<std::int64_t>::max()) + 1
                  ? std::numeric_limits<std::int64_t>::min()
                  : -static_cast<std::int64_t>(value);
    } else {
        out = static_cast<std::int64_t>(value);
    }
    return NumberParse::Ok;
}

// Fast path for the forms Kineto writes: [-]digits[.digits] with at most 16 integer digits (epoch
// microseconds have 16) and at most 3 fraction digits, no exponent. Returns false to fall back to
// the exact general path.
bool fastMicrosToNs(std::string_view t, std::int64_t& outNs) {
    std::size_t i = 0;
    const bool negative = !t.empty() && t[0] == '-';
    i += negative ? 1 : 0;
    const std::size_t intStart = i;
    std::int64_t whole = 0;
    while (i < t.size() && isDigit(t[i])) {
        whole = whole * 10 + (t[i] - '0');
        ++i;
        if (i - intStart > 16) {
            return false;
        }
    }
    const std::size_t intDigits = i - intStart;
    if (intDigits == 0 || (t[intStart] == '0' && intDigits > 1)) {
        return false;
    }
    std::int64_t frac = 0;
    if (i < t.size()) {
        if (t[i] != '.' || t.size() - i - 1 > 3 || t.size() - i - 1 == 0) {
            return false;
        }
        std::size_t fracDigits = 0;
        for (++i; i < t.size(); ++i, ++fracDigits) {
            if (!isDigit(t[i])) {
                return false;
            }
            frac = frac * 10 + (t[i] - '0');
        }
        for (; fracDigits < 3; ++fracDigits) {
            frac *= 10;
        }
    }
    if (whole > (std::numeric_limits<std::int64_t>::max() - 999) / 1000) {
        return false;
    }
    const std::int64_t ns = whole * 1000 + frac;
    outNs = negative ? -ns : ns;
    return true;
}

}  // namespace

NumberParse microsToNs(std::string_view text, std::int64_t& outNs) {
    std::string_view t = trim(text);
    if (fastMicrosToNs(t, outNs)) {
        return NumberParse::Ok;
    }
    Decimal d;
    NumberParse rc = parseDecimal(text, d);
    if (rc != NumberParse::Ok) {
        return rc;
    }
    return scaleToInt64(d, d.exponent10 + 3, outNs);
}

NumberParse parseInt64Token(std::string_view text, std::int64_t& out) {
    // Fast path: plain integers of up to 18 digits (ids, sizes, counts).
    std::string_view t = trim(text);
    if (!t.empty() && t.size() <= 18 && (isDigit(t[0]) || (t[0] == '-' && t.size() > 1))) {
        const bool negative = t[0] == '-';
        std::int64_t value = 0;
        std::size_t i = negative ? 1 : 0;
        const bool leadingZero = t[i] == '0' && t.size() - i > 1;
        for (; i < t.size() && isDigit(t[i]); ++i) {
            value = value * 10 + (t[i] - '0');
        }
        if (i == t.size() && !leadingZero) {
            out = negative ? -value : value;
            return NumberParse::Ok;
        }
    }
    Decimal d;
    NumberParse rc = parseDecimal(text, d);
    if (rc != NumberParse::Ok) {
        return rc;
    }
    if (d.exponent10 >= 0) {
        return scaleToInt64(d, d.exponent10, out);
    }
    // Truncate toward zero: drop the fractional digits.
    Decimal truncated = d;
    U128 divisor = 1;
    for (std::int64_t k = 0; k < -d.exponent10 && k <= kMaxKeptDigits; ++k) {
        divisor *= 10;
    }
    truncated.digits = -d.exponent10 > kMaxKeptDigits ? 0 : d.digits / divisor;
    return scaleToInt64(truncated, 0, out);
}

}  // namespace chokepoint::core
