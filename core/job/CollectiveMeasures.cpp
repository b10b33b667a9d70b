#include <algorithm>
#include <cmath>
#include <map>

#include "core/job/JobStages.h"

namespace chokepoint::job::stages {

double busBandwidthFactor(std::string_view kind, int ranks) {
    if (ranks < 1) {
        return 0;
    }
    const double n = ranks;
    if (kind == "AllReduce") {
        return 2.0 * (n - 1) / n;
    }
    if (kind == "AllGather" || kind == "ReduceScatter" || kind == "AllToAll") {
        return (n - 1) / n;
    }
    if (kind == "Broadcast" || kind == "Reduce" || kind == "SendRecv") {
        return 1.0;
    }
    return 0;  // Barrier and unknown kinds move no meaningful payload
}

namespace {

core::DurationNs percentile(std::vector<core::DurationNs> values, double p) {
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const auto at = static_cast<std::size_t>(std::ceil(p * static_cast<double>(values.size()))) - 1;
    return values[std::min(at, values.size() - 1)];
}

// The link a group's collectives run over: the GPU interconnect when every member is on one host,
// else the network (JobOptions::networkBytesPerSecond, unknown unless the user gives it).
double linkOf(const JobReport& report, const std::vector<std::pair<std::size_t, std::size_t>>& members,
              const JobOptions& options) {
    std::string host;
    double link = 0;
    for (std::size_t i = 0; i < members.size(); ++i) {
        const RankSummary& s = *report.ranks[members[i].first].summary;
        if (i == 0) {
            host = s.hostName;
            link = s.linkBytesPerSecond;
        } else if (s.hostName != host || host.empty()) {
            return options.networkBytesPerSecond;
        } else if (s.linkBytesPerSecond > 0) {
            link = link > 0 ? std::min(link, s.linkBytesPerSecond) : s.linkBytesPerSecond;
        }
    }
    return link;
}

core::TimestampNs firstArrival(const CollectiveInstance& instance) {
    core::TimestampNs first = instance.arrivals.front().startNs;
    for (const CollectiveArrival& arrival : instance.arrivals) {
        first = std::min(first, arrival.startNs);
    }
    return first;
}

}  // namespace

void measureCollectives(JobReport& report, const std::vector<MatchedCall>& calls, const JobOptions& options) {
    struct StatsKey {
        std::string kind;
        std::int64_t sizeBytes;
        std::int32_t groupSize;
        bool operator<(const StatsKey& o) const {
            return std::tie(kind, sizeBytes, groupSize) < std::tie(o.kind, o.sizeBytes, o.groupSize);
        }
    };
    struct StatsAccumulator {
        CollectiveStats stats;
        std::vector<core::DurationNs> skews;
        std::vector<double> busBandwidths;
    };
    std::map<StatsKey, StatsAccumulator> stats;

    for (const MatchedCall& call : calls) {
        CollectiveInstance instance;
        instance.kind = call.kind;
        instance.groupKey = call.groupKey;
        instance.sequence = call.sequence;
        instance.stepNumber = call.stepNumber;
        std::vector<core::DurationNs> starts;
        core::DurationNs shortest = -1;
        std::int32_t recordedGroupSize = 0;
        for (auto [r, c] : call.members) {
            const JobRank& rank = report.ranks[r];
            const RankCollective& own = rank.summary->collectives[c];
            CollectiveArrival arrival;
            arrival.rank = rank.summary->rank;
            arrival.startNs = own.startNs - rank.clockOffsetNs;
            arrival.endNs = own.endNs - rank.clockOffsetNs;
            arrival.collectiveIndex = static_cast<std::int32_t>(c);
            instance.arrivals.push_back(arrival);
            starts.push_back(arrival.startNs);
            const core::DurationNs duration = own.endNs - own.startNs;
            shortest = shortest < 0 ? duration : std::min(shortest, duration);
            instance.sizeBytes = std::max(instance.sizeBytes, own.sizeBytes);
            recordedGroupSize = std::max(recordedGroupSize, own.groupSize);
        }
        const auto members = static_cast<std::int32_t>(call.members.size());
        instance.groupSize =
            recordedGroupSize > 0 ? recordedGroupSize : static_cast<std::int32_t>(report.ranks.size());
        instance.complete = members >= instance.groupSize;
        const auto last = std::max_element(
            instance.arrivals.begin(), instance.arrivals.end(),
            [](const CollectiveArrival& a, const CollectiveArrival& b) { return a.startNs < b.startNs; });
        const core::TimestampNs lastStart = last->startNs;
        const core::TimestampNs firstStart = *std::min_element(starts.begin(), starts.end());
        const core::TimestampNs medianStart = lowerMedian(starts);
        instance.lastRank = last->rank;
        instance.skewNs = lastStart - firstStart;
        instance.lastLateNs = lastStart - medianStart;
        instance.transferNs = std::max<core::DurationNs>(0, shortest);
        for (std::size_t m = 0; m < call.members.size(); ++m) {
            CollectiveArrival& arrival = instance.arrivals[m];
            arrival.waitNs = lastStart - arrival.startNs;
            JobRank& rank = report.ranks[call.members[m].first];
            rank.collectiveWaitNs += arrival.waitNs;
            rank.collectiveTransferNs += instance.transferNs;
            rank.lateNs += std::max<core::DurationNs>(0, arrival.startNs - medianStart);
            if (arrival.rank == instance.lastRank) {
                ++rank.timesLast;
            }
        }
        const int participants = std::max(members, recordedGroupSize);
        if (instance.sizeBytes > 0 && instance.transferNs > 0) {
            instance.algBytesPerSecond =
                static_cast<double>(instance.sizeBytes) * 1e9 / static_cast<double>(instance.transferNs);
            instance.busBytesPerSecond =
                instance.algBytesPerSecond * busBandwidthFactor(instance.kind, participants);
        }
        StatsAccumulator& acc = stats[{instance.kind, instance.sizeBytes, instance.groupSize}];
        if (acc.stats.count == 0) {
            acc.stats.kind = instance.kind;
            acc.stats.sizeBytes = instance.sizeBytes;
            acc.stats.groupSize = instance.groupSize;
            acc.stats.linkBytesPerSecond = linkOf(report, call.members, options);
        }
        ++acc.stats.count;
        acc.stats.totalTransferNs += instance.transferNs;
        for (const CollectiveArrival& arrival : instance.arrivals) {
            acc.stats.totalWaitNs += arrival.waitNs;
        }
        acc.skews.push_back(instance.skewNs);
        if (instance.busBytesPerSecond > 0) {
            acc.busBandwidths.push_back(instance.busBytesPerSecond);
        }
        report.collectives.push_back(std::move(instance));
    }
    std::sort(report.collectives.begin(), report.collectives.end(),
              [](const CollectiveInstance& a, const CollectiveInstance& b) {
                  const core::TimestampNs aFirst = a.arrivals.empty() ? 0 : firstArrival(a);
                  const core::TimestampNs bFirst = b.arrivals.empty() ? 0 : firstArrival(b);
                  return aFirst < bFirst;
              });
    for (auto& [key, acc] : stats) {
        acc.stats.p50SkewNs = percentile(acc.skews, 0.5);
        acc.stats.p95SkewNs = percentile(acc.skews, 0.95);
        if (!acc.busBandwidths.empty()) {
            std::sort(acc.busBandwidths.begin(), acc.busBandwidths.end());
            acc.stats.busBytesPerSecond = acc.busBandwidths[(acc.busBandwidths.size() - 1) / 2];
        }
        report.collectiveStats.push_back(acc.stats);
    }
    std::sort(report.collectiveStats.begin(), report.collectiveStats.end(),
              [](const CollectiveStats& a, const CollectiveStats& b) {
                  return a.totalTransferNs + a.totalWaitNs > b.totalTransferNs + b.totalWaitNs;
              });
}

}  // namespace chokepoint::job::stages
