#include "ui/base/document/StartupTiming.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace chokepoint::ui {

namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point& startTime() {
    static Clock::time_point start = Clock::now();
    return start;
}

bool timingEnabled() {
    static const bool enabled = std::getenv("CHOKEPOINT_TIMING") != nullptr;
    return enabled;
}

}  // namespace

void startStartupClock() {
    startTime() = Clock::now();
}

void noteStartupMilestone(const char* milestone) {
    if (!timingEnabled()) {
        return;
    }
    const auto elapsed = std::chrono::duration<double, std::milli>(Clock::now() - startTime());
    std::fprintf(stderr, "chokepoint: %s %.1f ms after start\n", milestone, elapsed.count());
}

}  // namespace chokepoint::ui
