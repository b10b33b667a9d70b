#pragma once
// Human-readable formatting shared by the CLI, reports and the GUI, so every surface prints the
// same figure the same way.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/Time.h"

namespace chokepoint::core {

// "850 ns", "12.3 µs", "4.56 ms", "1.23 s" (3 significant digits).
std::string formatDuration(DurationNs ns);
// "512 B", "1.5 KiB", "2.00 MiB", "3.1 GiB".
std::string formatBytes(double bytes);
// "12.3 %" from a fraction 0.123.
std::string formatPercent(double fraction, int decimals = 1);
// "12.3 %" down to 0.1 %, then two significant digits ("0.0072 %"), so a tiny figure (an MFU of a
// toy job) does not read "0.0 %"; exactly zero is "0.0 %".
std::string formatSmallPercent(double fraction);
// "1.23 TFLOP/s", "456 GFLOP/s".
std::string formatFlopsPerSecond(double flopsPerSecond);
// "788 GFLOP", "21.6 TFLOP" (3 significant digits).
std::string formatFlops(double flops);
// "1.23 TB/s", "456 GB/s" (decimal units, as datasheets use).
std::string formatBandwidth(double bytesPerSecond);
// "1,234,567".
std::string formatCount(std::int64_t count);
// A thread id as shown. Recorders that keep a 32-bit pthread id in a signed int write negative ids
// (Kineto: -1220540864); such an id is shown as the unsigned value it stands for (3074426432), a
// negative 64-bit one as its unsigned 64-bit value. Other ids unchanged.
std::string formatThreadId(std::int64_t tid);
// Fixed-point with `decimals` digits, no locale.
std::string formatFixed(double value, int decimals);
// A counter's value in its unit: "107 %" (unit "%", 0-100 scale), "1.50 GiB" ("bytes"),
// "12.0 GB/s" ("B/s"), "3.2 W" (any other unit after the number), "3.2" without a unit.
std::string formatCounterValue(double value, std::string_view unit);
// A point in time as an offset (from the trace start), exact to the nanosecond in the unit of its
// size: "850 ns", "12.345 µs", "4.567890 ms", "14.971209026 s". Integer arithmetic, so a 15 s
// offset keeps its last nanosecond digit.
std::string formatTimeOffset(DurationNs ns);

}  // namespace chokepoint::core
