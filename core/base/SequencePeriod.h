#pragma once
// The period of a repeating sequence of ids: how training steps are found without step markers,
// from the kernel names of a trace (core/analysis/metrics/StepDetection) and from the kernel
// launches the agent sees while `--after-steps` waits (collectors/agent/LaunchStepCounter).
//
// A candidate period is the distance at which one id recurs (most of its recurrences at that
// distance); the smallest candidate is verified first. A period holds from the earliest position
// after which at least minPeriodMatch of the ids equal the id one period later; that periodic part
// must hold minRepeats periods and at least half of the sequence. What comes before it (process
// start, model build, autotuning, a first iteration that differs) belongs to no repetition. Each
// repetition starts at the anchor: the id with that period that occurs first in the periodic part.
// Pure function; O(n) per candidate period tried, at most maxPeriodsTried of them.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace chokepoint::core {

struct SequencePeriodOptions {
    int minRepeats = 2;           // fewest repetitions accepted
    double minPeriodMatch = 0.9;  // fraction of ids that must repeat one period later
    int maxPeriodsTried = 16;     // distinct candidate periods verified, smallest first
    std::size_t minPeriod = 2;    // fewest ids per repetition
};

struct SequencePeriod {
    std::size_t period = 0;                     // ids per repetition; 0 when the sequence does not repeat
    std::size_t regionStart = 0;                // first position of the periodic part
    std::uint32_t anchor = 0;                   // the id that starts each repetition
    std::vector<std::size_t> repetitionStarts;  // positions of the anchor from the periodic part on
};

SequencePeriod findSequencePeriod(std::span<const std::uint32_t> sequence,
                                  const SequencePeriodOptions& options = {});

}  // namespace chokepoint::core
