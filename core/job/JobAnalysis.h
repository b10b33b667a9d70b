#pragma once
// analyzeJob: the cross-rank analysis of a training job from its ranks' summaries — clock
// alignment, collective matching, stragglers and why, a what-if of the step time without them,
// and a job verdict with fixes (see JobReport.h and docs/JOBS.md). Pure; O(ranks x collectives).

#include <memory>
#include <vector>

#include "core/job/JobReport.h"
#include "core/job/RankSummary.h"

namespace chokepoint::job {

struct JobOptions {
    // Lateness per step below max(minLateNs, noiseShareOfStep x step time) is noise: no straggler.
    core::DurationNs minLateNs = 200'000;  // 200 us
    double noiseShareOfStep = 0.02;
    // Fewest matched collectives per rank to estimate its clock offset.
    int minClockMatches = 3;
    // A call matched across ranks must end within this spread on the aligned clock (see
    // stages::keepConsistentCalls); collectives end together on every participant.
    core::DurationNs maxEndSpreadNs = 200'000;
    // Peak one-direction bandwidth of the links between hosts (NIC), for jobs on several hosts; 0
    // unknown. Within one host the devices' GPU interconnect is used.
    double networkBytesPerSecond = 0;
    // A collective transfers "far below the link" under this fraction of the link's peak.
    double lowBusBandwidthShare = 0.5;
    // Communication matters when the median rank's exposed or waiting share of the step exceeds it.
    double communicationShare = 0.15;
};

// `problems`: inputs that could not be summarised; they are reported and the job goes on.
JobReport analyzeJob(std::vector<std::shared_ptr<const RankSummary>> ranks,
                     std::vector<RankProblem> problems = {}, const JobOptions& options = {});

}  // namespace chokepoint::job
