#pragma once
// The stages of analyzeJob, in the order it runs them. Internal to core/job (tests call them too).

#include <cstdint>
#include <string>
#include <vector>

#include "core/job/JobAnalysis.h"
#include "core/job/JobReport.h"

namespace chokepoint::job::stages {

// One collective call as seen by each participating rank: (index in report.ranks, index in that
// rank's summary->collectives).
struct MatchedCall {
    std::string kind;
    std::string groupKey;
    std::int64_t stepNumber = -1;
    std::int32_t sequence = 0;  // within (group, kind, step)
    bool byCommsId = false;     // paired by Kineto's "Comms Id" + "Seq": certain, never dropped
    std::vector<std::pair<std::size_t, std::size_t>> members;
};

// Matches each rank's collectives by Kineto's "Comms Id" + "Seq" where the traces have them (the
// same on every participant, whatever the clocks or trace windows); the rest by (process group,
// kind, step number, order within the step), without step numbers by order in the window. Only
// calls seen on two or more ranks are kept.
std::vector<MatchedCall> matchCollectives(const std::vector<JobRank>& ranks);

// Estimates clock offsets from matched collective end times (a collective ends at nearly the same
// instant on every participant; calls paired by Comms Id alone when there are enough of them): one offset per
// host (ranks of a host share its clock; a rank without a host name has its own) = median over its ranks'
// calls of (own end - the call's median end), anchored so that the lowest rank's offset is 0. Fills
// ranks[].clockOffsetNs.
ClockAlignment alignClocks(std::vector<JobRank>& ranks, const std::vector<MatchedCall>& calls,
                           int minMatches);

// Keeps, in each call, the members that end within options.maxEndSpreadNs of the call's median end
// once clocks are aligned (a collective ends together on every participant); the others were
// paired wrongly (traces that cover different iterations, sampled or dropped events); calls paired
// by Comms Id are kept whole. Calls left with fewer than two members go. Returns the number of
// ranks' entries dropped, and adds the number of calls that lost any to `callsTouched`.
std::size_t keepConsistentCalls(const std::vector<JobRank>& ranks, std::vector<MatchedCall>& calls,
                                const JobOptions& options, std::size_t* callsTouched = nullptr);

// Pairs the collectives no call holds (their order-based pairing was dropped, or their ranks'
// traces hold different calls) by end time: within one (process group, kind), collectives of
// different ranks whose aligned ends lie within options.maxEndSpreadNs form a call. Returns the
// number of calls added.
std::size_t pairRemainingByEnds(const std::vector<JobRank>& ranks, std::vector<MatchedCall>& calls,
                                const JobOptions& options);

// Per call on the job clock: arrivals, skew, waits, transfer, bus bandwidth; per rank: wait,
// transfer, lateness; per kind and size: the statistics.
void measureCollectives(JobReport& report, const std::vector<MatchedCall>& calls, const JobOptions& options);

// Steps across ranks, stragglers with their cause, the what-if of the step time.
void findStragglers(JobReport& report, const std::vector<MatchedCall>& calls, const JobOptions& options);

// Why the ranks do not look like one job (two captures of one process, traces taken far apart on the
// wall clock, or separate single-process runs), as one sentence with what to do instead; "" when
// they may be one job.
std::string notOneJobReason(const std::vector<JobRank>& ranks);

// The job verdict and its fixes.
void decideJobVerdict(JobReport& report, const JobOptions& options);

// Bus bandwidth factor of a collective kind for n ranks (NCCL's performance notes):
// AllReduce 2(n-1)/n; AllGather, ReduceScatter, AllToAll (n-1)/n; Broadcast, Reduce, SendRecv 1.
double busBandwidthFactor(std::string_view kind, int ranks);

// Median (the mean of the two middle values for even sizes); 0 for an empty list.
core::DurationNs median(std::vector<core::DurationNs> values);
// The lower middle value (the median for odd sizes); 0 for an empty list. The "typical arrival" of
// a call: with two members it is the earlier one, so a late rank's lateness is the whole skew.
core::DurationNs lowerMedian(std::vector<core::DurationNs> values);

}  // namespace chokepoint::job::stages
