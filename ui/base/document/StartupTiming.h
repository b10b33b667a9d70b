#pragma once
// Milestones on the way from `chokepoint FILE` to the first page drawn, printed to stderr when the
// environment variable CHOKEPOINT_TIMING is set (used by bench/gui-startup.sh; silent otherwise).

namespace chokepoint::ui {

// Starts the clock; call first thing in main().
void startStartupClock();

// Prints "chokepoint: <milestone> <ms> ms after start" when CHOKEPOINT_TIMING is set.
void noteStartupMilestone(const char* milestone);

}  // namespace chokepoint::ui
