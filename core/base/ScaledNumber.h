#pragma once
// Positive numbers as people type them for model sizes and FLOP counts: a plain number ("1.2e15",
// "4096") or one with a suffix k/K (1e3), M (1e6), G or B (1e9), T (1e12): "7B", "4k". Used by the
// CLI's --model-flops / --params / --tokens-per-step / --peak-memory and by the GUI's analysis settings.

#include <optional>
#include <string>
#include <string_view>

namespace chokepoint::core {

// The value, or nullopt when `text` is empty, malformed, not finite or not positive.
std::optional<double> parseScaledNumber(std::string_view text);

// The shortest text parseScaledNumber reads back to `value` within 1e-9 relative: "7B", "4k",
// "1.5e+15"; plain "%.10g" when no suffix fits exactly.
std::string formatScaledNumber(double value);

}  // namespace chokepoint::core
