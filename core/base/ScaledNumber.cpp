#include "core/base/ScaledNumber.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace chokepoint::core {

std::optional<double> parseScaledNumber(std::string_view text) {
    if (text.empty()) {
        return std::nullopt;
    }
    std::string body(text);
    double scale = 1;
    switch (body.back()) {
        case 'k':
        case 'K':
            scale = 1e3;
            break;
        case 'M':
            scale = 1e6;
            break;
        case 'G':
        case 'B':
            scale = 1e9;
            break;
        case 'T':
            scale = 1e12;
            break;
        default:
            break;
    }
    if (scale != 1) {
        body.pop_back();
    }
    if (body.empty()) {
        return std::nullopt;
    }
    char* end = nullptr;
    const double value = std::strtod(body.c_str(), &end);
    if (end == nullptr || *end != '\0' || !std::isfinite(value) || value <= 0) {
        return std::nullopt;
    }
    const double scaled = value * scale;
    if (!std::isfinite(scaled)) {
        return std::nullopt;
    }
    return scaled;
}

std::string formatScaledNumber(double value) {
    char buffer[64];
    static constexpr std::array<std::pair<double, char>, 4> kSuffixes = {
        {{1e12, 'T'}, {1e9, 'B'}, {1e6, 'M'}, {1e3, 'k'}}};
    for (const auto& [scale, suffix] : kSuffixes) {
        if (std::fabs(value) >= scale) {
            const double mantissa = value / scale;
            std::snprintf(buffer, sizeof buffer, "%.6g", mantissa);
            const std::optional<double> back = parseScaledNumber(std::string(buffer) + suffix);
            if (back && std::fabs(*back - value) <= 1e-9 * std::fabs(value) && mantissa < 1000) {
                return std::string(buffer) + suffix;
            }
            break;
        }
    }
    std::snprintf(buffer, sizeof buffer, "%.10g", value);
    return buffer;
}

}  // namespace chokepoint::core
