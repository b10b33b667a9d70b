#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "core/base/Format.h"
#include "core/job/JobStages.h"

namespace chokepoint::job::stages {

namespace {

// Timestamps at or above this (2001-09-09 in ns since 1970) are wall-clock time, comparable
// across hosts to within clock sync; smaller ones count from boot (CLOCK_MONOTONIC) and are not.
constexpr core::TimestampNs kEpochClockFloorNs = 1'000'000'000'000'000'000;
// Ranks of one job are profiled at the same steps, so their windows overlap; hosts' wall clocks
// agree to well under a minute. A gap this long means the traces were taken at different times.
constexpr core::DurationNs kSeparateRunsGapNs = 300'000'000'000;  // 5 min

// A long span in the unit a person would use: "8.5 days", "3.2 hours", "12 minutes".
std::string longSpanText(core::DurationNs ns) {
    constexpr double kMinuteNs = 60e9;
    const double minutes = static_cast<double>(ns) / kMinuteNs;
    if (minutes >= 2 * 24 * 60) {
        return core::formatFixed(minutes / (24 * 60), 1) + " days";
    }
    if (minutes >= 2 * 60) {
        return core::formatFixed(minutes / 60, 1) + " hours";
    }
    return core::formatFixed(minutes, 0) + " minutes";
}

std::string rankName(const RankSummary& s) {
    return "rank " + std::to_string(s.rank) + " (" + s.sourcePath + ")";
}

// Two inputs from different files recorded by the same process of the same host.
std::string sameProcessReason(const std::vector<JobRank>& ranks) {
    std::map<std::pair<std::string, std::int64_t>, const RankSummary*> firstOfProcess;
    for (const JobRank& rank : ranks) {
        const RankSummary& s = *rank.summary;
        if (s.pid <= 0) {
            continue;
        }
        const auto [it, inserted] = firstOfProcess.emplace(std::make_pair(s.hostName, s.pid), &s);
        if (!inserted && it->second->sourcePath != s.sourcePath) {
            return rankName(*it->second) + " and " + rankName(s) + " were recorded by one process (pid " +
                   std::to_string(s.pid) + (s.hostName.empty() ? "" : " on " + s.hostName) +
                   "): two captures of one process, not two ranks";
        }
    }
    return {};
}

// Wall-clock windows that do not overlap by far: traces of different runs.
std::string separateTimesReason(const std::vector<JobRank>& ranks) {
    const RankSummary* earliestEnd = nullptr;
    const RankSummary* latestStart = nullptr;
    for (const JobRank& rank : ranks) {
        const RankSummary& s = *rank.summary;
        if (s.window.empty() || s.window.startNs < kEpochClockFloorNs) {
            continue;
        }
        if (earliestEnd == nullptr || s.window.endNs < earliestEnd->window.endNs) {
            earliestEnd = &s;
        }
        if (latestStart == nullptr || s.window.startNs > latestStart->window.startNs) {
            latestStart = &s;
        }
    }
    if (earliestEnd == nullptr || latestStart == nullptr ||
        latestStart->window.startNs - earliestEnd->window.endNs < kSeparateRunsGapNs) {
        return {};
    }
    return rankName(*earliestEnd) + " ends " +
           longSpanText(latestStart->window.startNs - earliestEnd->window.endNs) + " before " +
           rankName(*latestStart) + " starts on the wall clock: ranks of one job are traced at the same time";
}

// No input records a rank, none holds a collective, and they come from several files: separate
// single-process runs (a real job's ranks synchronise gradients or exchange activations).
std::string separateProcessesReason(const std::vector<JobRank>& ranks) {
    std::set<std::string> files;
    for (const JobRank& rank : ranks) {
        const RankSummary& s = *rank.summary;
        if (s.rankSource == RankSource::DistributedInfo || s.rankSource == RankSource::ProcessName ||
            !s.collectives.empty() || s.worldSize > 1) {
            return {};
        }
        files.insert(s.sourcePath);
    }
    if (files.size() < 2) {
        return {};
    }
    return "no input records a rank or a world size and none holds a collective kernel: these look like " +
           std::to_string(files.size()) + " separate single-process runs";
}

}  // namespace

std::string notOneJobReason(const std::vector<JobRank>& ranks) {
    if (ranks.size() < 2) {
        return {};
    }
    for (const auto& reason :
         {sameProcessReason(ranks), separateTimesReason(ranks), separateProcessesReason(ranks)}) {
        if (!reason.empty()) {
            return "these inputs do not look like the ranks of one job: " + reason +
                   ". Analyse each on its own (chokepoint-cli analyze FILE), or compare two (chokepoint-cli "
                   "diff A B, Compare in the GUI)";
        }
    }
    return {};
}

}  // namespace chokepoint::job::stages
