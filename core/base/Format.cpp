#include "core/base/Format.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace chokepoint::core {

namespace {

std::string withSignificantDigits(double value, const char* unit) {
    char buffer[64];
    double magnitude = std::fabs(value);
    int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
    std::snprintf(buffer, sizeof buffer, "%.*f %s", decimals, value, unit);
    return buffer;
}

std::string scaled(double value, const char* const* units, int unitCount, double step) {
    int unit = 0;
    while (std::fabs(value) >= step && unit + 1 < unitCount) {
        value /= step;
        ++unit;
    }
    return withSignificantDigits(value, units[unit]);
}

}  // namespace

std::string formatDuration(DurationNs ns) {
    double value = static_cast<double>(ns);
    double magnitude = std::fabs(value);
    if (magnitude < 1e3) {
        return std::to_string(ns) + " ns";
    }
    if (magnitude < 1e6) {
        return withSignificantDigits(value / 1e3, "µs");
    }
    if (magnitude < 1e9) {
        return withSignificantDigits(value / 1e6, "ms");
    }
    return withSignificantDigits(value / 1e9, "s");
}

std::string formatBytes(double bytes) {
    static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (std::fabs(bytes) < 1024) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.0f B", bytes);
        return buffer;
    }
    return scaled(bytes, kUnits, 6, 1024.0);
}

std::string formatPercent(double fraction, int decimals) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.*f %%", decimals, fraction * 100.0);
    return buffer;
}

std::string formatSmallPercent(double fraction) {
    const double percent = fraction * 100.0;
    if (percent == 0.0 || std::fabs(percent) >= 0.1) {
        return formatPercent(fraction, 1);
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2g %%", percent);
    return buffer;
}

std::string formatFlops(double flops) {
    static const char* const kUnits[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"};
    return scaled(flops, kUnits, 7, 1000.0);
}

std::string formatFlopsPerSecond(double flopsPerSecond) {
    static const char* const kUnits[] = {"FLOP/s", "kFLOP/s", "MFLOP/s", "GFLOP/s", "TFLOP/s", "PFLOP/s"};
    return scaled(flopsPerSecond, kUnits, 6, 1000.0);
}

std::string formatBandwidth(double bytesPerSecond) {
    static const char* const kUnits[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s"};
    return scaled(bytesPerSecond, kUnits, 6, 1000.0);
}

std::string formatThreadId(std::int64_t tid) {
    if (tid >= 0) {
        return std::to_string(tid);
    }
    if (tid >= std::numeric_limits<std::int32_t>::min()) {
        return std::to_string(static_cast<std::uint32_t>(static_cast<std::int32_t>(tid)));
    }
    return std::to_string(static_cast<std::uint64_t>(tid));
}

std::string formatCount(std::int64_t count) {
    std::string digits = std::to_string(count < 0 ? -count : count);
    std::string out;
    int sinceComma = 0;
    for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
        if (sinceComma == 3) {
            out.insert(out.begin(), ',');
            sinceComma = 0;
        }
        out.insert(out.begin(), *it);
        ++sinceComma;
    }
    return count < 0 ? "-" + out : out;
}

std::string formatFixed(double value, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

std::string formatTimeOffset(DurationNs ns) {
    const bool negative = ns < 0;
    // The magnitude as unsigned, so INT64_MIN does not overflow.
    const std::uint64_t magnitude =
        negative ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    struct Unit {
        std::uint64_t nsPerUnit;
        int decimals;
        const char* name;
    };
    static constexpr Unit kUnits[] = {{1'000'000'000, 9, "s"}, {1'000'000, 6, "ms"}, {1'000, 3, "µs"}};
    char buffer[64];
    for (const Unit& unit : kUnits) {
        if (magnitude >= unit.nsPerUnit) {
            std::snprintf(buffer, sizeof buffer, "%s%llu.%0*llu %s", negative ? "-" : "",
                          static_cast<unsigned long long>(magnitude / unit.nsPerUnit), unit.decimals,
                          static_cast<unsigned long long>(magnitude % unit.nsPerUnit), unit.name);
            return buffer;
        }
    }
    std::snprintf(buffer, sizeof buffer, "%s%llu ns", negative ? "-" : "",
                  static_cast<unsigned long long>(magnitude));
    return buffer;
}

std::string formatCounterValue(double value, std::string_view unit) {
    if (unit == "%") {
        return formatFixed(value, value >= 10 ? 0 : 1) + " %";
    }
    if (unit == "bytes" || unit == "B") {
        return formatBytes(value);
    }
    if (unit == "B/s" || unit == "bytes/s") {
        return formatBandwidth(value);
    }
    const std::string number = formatFixed(value, 1);
    return unit.empty() ? number : number + " " + std::string(unit);
}

}  // namespace chokepoint::core
