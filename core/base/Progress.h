#pragma once
// Progress and cancellation for long-running core work (import, analysis). The callback receives
// a fraction in [0, 1] and returns false to ask the work to stop; the work then returns an Error
// whose message is kCancelledMessage.

#include <functional>

namespace chokepoint::core {

using ProgressFn = std::function<bool(double fraction)>;

inline constexpr const char* kCancelledMessage = "cancelled";

// Calls `progress` when set; returns false when the caller asked to cancel.
inline bool reportProgress(const ProgressFn& progress, double fraction) {
    return !progress || progress(fraction);
}

}  // namespace chokepoint::core
