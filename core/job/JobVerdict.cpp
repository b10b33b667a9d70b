#include <algorithm>
#include <map>

#include "core/base/Format.h"
#include "core/job/JobStages.h"

namespace chokepoint::job::stages {
namespace {

std::string fixForCause(StragglerCause cause) {
    switch (cause) {
        case StragglerCause::DataWait:
            return "Give that rank's input pipeline more DataLoader workers (num_workers), pin_memory=True "
                   "and "
                   "prefetching; check its storage or network share for slow reads";
        case StragglerCause::HostWork:
            return "Move the host work named in the evidence off the training loop on that rank (logging, "
                   "metrics, "
                   "Python-side preprocessing), or run it on every rank's idle time";
        case StragglerCause::MoreKernels:
            return "Balance the work across ranks: equal batch / sequence lengths per rank (bucketing, "
                   "padding), "
                   "even sharding of embeddings or experts";
        case StragglerCause::LongerKernels:
            return "Check that rank's GPU: clocks and throttling (nvidia-smi -q -d PERFORMANCE), ECC errors, "
                   "thermals, a neighbour process; swap the node if it stays slow";
        case StragglerCause::Synchronization:
            return "Remove host-device syncs on that rank's path (.item(), .cpu(), torch.cuda.synchronize in "
                   "logging or metrics)";
        case StragglerCause::GarbageCollection:
            return "Control Python's garbage collector: gc.freeze() after setup and gc.collect() at a fixed "
                   "step on "
                   "every rank together (or gc.disable during steps)";
        case StragglerCause::BeforeWindow:
            return "Profile that rank from an earlier step (its delay happened before its trace window) to "
                   "see why";
        case StragglerCause::Unknown:
            return "Record that rank with host sampling and GPU metrics (chokepoint-cli run) to see what "
                   "delays it";
    }
    return {};
}

// Which steps the ranks' step means leave out and why (the rule of the rank's own analysis,
// StepTimes.h), grouped by step and kind of reason: "left out ProfilerStep#1 on 8 rank(s) (warm-up)".
std::string leftOutStepsText(const JobReport& report) {
    std::map<std::pair<std::int64_t, std::string>, std::pair<std::string, int>> leftOut;
    for (const JobRank& rank : report.ranks) {
        for (const RankStep& step : rank.summary->steps) {
            if (!step.excludedReason.empty()) {
                const std::string kind = step.excludedReason.substr(0, step.excludedReason.find(':'));
                auto& entry = leftOut[{step.number, kind}];
                entry.first = step.name;
                ++entry.second;
            }
        }
    }
    if (leftOut.empty()) {
        return "none left out";
    }
    std::string text = "left out";
    std::size_t shown = 0;
    for (const auto& [key, entry] : leftOut) {
        if (shown++ == 6) {
            text += ", ... (" + std::to_string(leftOut.size() - 6) + " more)";
            break;
        }
        text += (shown > 1 ? ", " : " ") + entry.first + " on " + std::to_string(entry.second) +
                " rank(s) (" + key.second + ")";
    }
    return text;
}

}  // namespace

void decideJobVerdict(JobReport& report, const JobOptions& options) {
    JobVerdict& v = report.verdict;
    const core::DurationNs stepNs = report.whatIf.measuredStepNs;
    if (report.ranks.empty()) {
        v.bottleneck = JobBottleneck::Undetermined;
        v.headline = "No rank could be read";
        return;
    }
    // Most common per-rank verdict.
    std::map<std::string, int> verdicts;
    for (const JobRank& rank : report.ranks) {
        ++verdicts[rank.summary->verdict];
    }
    v.rankVerdict = std::max_element(verdicts.begin(), verdicts.end(), [](const auto& a, const auto& b) {
                        return a.second < b.second;
                    })->first;
    if (report.collectives.empty() || stepNs <= 0) {
        v.bottleneck = JobBottleneck::RankBound;
        v.headline =
            report.collectives.empty()
                ? "No collective was matched across ranks: each rank is judged on its own (most are " +
                      v.rankVerdict + ")"
                : "No steps found: each rank is judged on its own (most are " + v.rankVerdict + ")";
        return;
    }
    const double stepD = static_cast<double>(stepNs);
    // Median shares over ranks, per step.
    std::vector<core::DurationNs> waitPerStep;
    std::vector<core::DurationNs> transferPerStep;
    // Exposed communication: each rank's own figure (the share its single-rank report gives,
    // RankSummary::exposedCommunicationShare), never recomputed here; the job takes the median.
    std::vector<core::DurationNs> exposedPerStep;
    std::vector<double> exposedShares;
    for (const JobRank& rank : report.ranks) {
        const auto steps =
            static_cast<core::DurationNs>(std::max<std::size_t>(1, rank.summary->steps.size()));
        waitPerStep.push_back(rank.collectiveWaitNs / steps);
        transferPerStep.push_back(rank.collectiveTransferNs / steps);
        exposedPerStep.push_back(rank.summary->exposedCommunicationPerStepNs());
        exposedShares.push_back(rank.summary->exposedCommunicationShareOfStep());
    }
    const core::DurationNs wait = median(waitPerStep);
    const core::DurationNs transfer = median(transferPerStep);
    const core::DurationNs exposed = median(exposedPerStep);
    std::sort(exposedShares.begin(), exposedShares.end());
    const std::size_t mid = exposedShares.size() / 2;
    const double exposedShare = exposedShares.size() % 2 == 1
                                    ? exposedShares[mid]
                                    : (exposedShares[mid - 1] + exposedShares[mid]) / 2.0;
    v.evidence.push_back("job step " + core::formatDuration(stepNs) +
                         " (median over ranks of each rank's mean step, over every steady step: " +
                         leftOutStepsText(report) + ")");
    v.evidence.push_back(
        "median rank per step: waits " + core::formatDuration(wait) + " (" +
        core::formatPercent(static_cast<double>(wait) / stepD) + ") for the last arriver, transfers " +
        core::formatDuration(transfer) + ", exposed communication " + core::formatDuration(exposed) + " (" +
        core::formatPercent(exposedShare) +
        " of its step: the median of the ranks' own figures, each as its own report gives it)");

    const core::DurationNs slowdown = report.whatIf.slowdownPerStepNs;
    if (!report.stragglers.empty() && slowdown > report.noiseNs &&
        static_cast<double>(slowdown) >= 0.05 * stepD) {
        const Straggler& worst = report.stragglers.front();
        v.bottleneck = JobBottleneck::StragglerWait;
        v.headline =
            "Waiting for a late rank: rank " + std::to_string(worst.rank) + " " +
            std::string(describe(worst.cause)) + " and arrives " + core::formatDuration(worst.latePerStepNs) +
            " late per step; late arrivals cost the job " +
            core::formatPercent(static_cast<double>(slowdown) / stepD) +
            " of each step (if every rank were on time), rank " + std::to_string(worst.rank) + " alone " +
            core::formatPercent(static_cast<double>(worst.whatIfSavingPerStepNs) / stepD) + " (if rank " +
            std::to_string(worst.rank) + " were on time)";
        for (const std::string& line : worst.evidence) {
            v.evidence.push_back(line);
        }
        for (const Straggler& s : report.stragglers) {
            JobFix fix;
            fix.rank = s.rank;
            fix.title = "Rank " + std::to_string(s.rank) + ": " + std::string(describe(s.cause));
            fix.detail = fixForCause(s.cause);
            fix.predictedStepNs = std::max<core::DurationNs>(0, stepNs - s.whatIfSavingPerStepNs);
            fix.basis = "if rank " + std::to_string(s.rank) +
                        " arrived at its collectives with the median rank (what-if replay of the collective "
                        "schedule); "
                        "other ranks' own work is unchanged, so this is an upper bound on the gain";
            v.fixes.push_back(std::move(fix));
        }
        return;
    }
    const bool communicationMatters = exposedShare >= options.communicationShare;
    if (communicationMatters) {
        // Bus bandwidth against the link, weighted by transfer time.
        double weighted = 0;
        double weight = 0;
        for (const CollectiveStats& s : report.collectiveStats) {
            if (s.busBytesPerSecond > 0 && s.linkBytesPerSecond > 0) {
                weighted +=
                    static_cast<double>(s.totalTransferNs) * s.busBytesPerSecond / s.linkBytesPerSecond;
                weight += static_cast<double>(s.totalTransferNs);
            }
        }
        const bool known = weight > 0;
        const double linkShare = known ? weighted / weight : 0;
        if (known && linkShare < options.lowBusBandwidthShare) {
            v.bottleneck = JobBottleneck::TransferBound;
            v.headline = "Communication-bound by transfers: collectives reach " +
                         core::formatPercent(linkShare) + " of the link's bandwidth and " +
                         core::formatPercent(exposedShare) + " of each step is exposed communication";
            JobFix fix;
            fix.title = "Move more bytes per collective and use the fastest path";
            fix.detail =
                "Larger DDP buckets (bucket_cap_mb) or FSDP/ZeRO bucket sizes, gradient compression "
                "(bf16/fp16 compression hooks, PowerSGD), check NCCL's topology (NCCL_DEBUG=INFO: NVLink/IB "
                "in use, NCCL_ALGO/NCCL_PROTO), and keep tensor-parallel groups inside one host";
            const double target = 0.8;
            const core::DurationNs faster = static_cast<core::DurationNs>(
                static_cast<double>(exposed) * (1.0 - std::min(1.0, linkShare / target)));
            fix.predictedStepNs = stepNs - faster;
            fix.basis =
                "exposed communication shrinks in proportion if transfers reach 80 % of the link (from " +
                core::formatPercent(linkShare) + "); assumes the exposed share stays exposed";
            v.fixes.push_back(std::move(fix));
            return;
        }
        v.bottleneck = JobBottleneck::ExposedCommunication;
        v.headline =
            "Communication-bound: " + core::formatPercent(exposedShare) +
            " of each step is communication that compute does not hide (exposed communication " +
            core::formatDuration(exposed) + ", median rank)" +
            (known ? " (transfers at " + core::formatPercent(linkShare) + " of the link)" : std::string());
        JobFix fix;
        fix.title = "Overlap communication with compute";
        fix.detail =
            "DDP: let buckets fill and fire during backward (bucket_cap_mb, gradient_as_bucket_view, no "
            "sync in no_sync accumulation steps); FSDP: backward_prefetch=BACKWARD_PRE, "
            "forward_prefetch=True, "
            "limit_all_gathers; avoid a synchronize before the optimizer";
        fix.predictedStepNs = stepNs - exposed;
        fix.basis =
            "if all exposed communication were hidden under compute: an upper bound, reached only when "
            "each step has enough compute after the collectives are issued";
        v.fixes.push_back(std::move(fix));
        return;
    }
    v.bottleneck = JobBottleneck::RankBound;
    v.headline = "Communication is not the limit (" + core::formatPercent(exposedShare) +
                 " of each step exposed, no rank late beyond noise): most ranks are " + v.rankVerdict +
                 "; see the per-rank diagnosis";
}

}  // namespace chokepoint::job::stages
