#include "core/job/SummarizeRank.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/analysis/metrics/KernelClassifier.h"
#include "core/job/JobNames.h"
#include "core/model/NameMemo.h"

namespace chokepoint::job {
namespace {

using core::DurationNs;
using core::TimeRange;
using core::TimestampNs;

// Sorted, merged intervals: the covered length of a range by binary search and a short walk.
class CoveredTime {
public:
    explicit CoveredTime(std::vector<TimeRange> ranges) {
        std::sort(ranges.begin(), ranges.end(),
                  [](const TimeRange& a, const TimeRange& b) { return a.startNs < b.startNs; });
        for (const TimeRange& r : ranges) {
            if (r.empty()) {
                continue;
            }
            if (!m_merged.empty() && r.startNs <= m_merged.back().endNs) {
                m_merged.back().endNs = std::max(m_merged.back().endNs, r.endNs);
            } else {
                m_merged.push_back(r);
            }
        }
    }

    DurationNs within(const TimeRange& window) const {
        if (window.empty() || m_merged.empty()) {
            return 0;
        }
        // First merged interval ending after the window starts.
        auto first = std::upper_bound(m_merged.begin(), m_merged.end(), window.startNs,
                                      [](TimestampNs t, const TimeRange& r) { return t < r.endNs; });
        DurationNs total = 0;
        for (auto it = first; it != m_merged.end() && it->startNs < window.endNs; ++it) {
            total += it->intersect(window).durationNs();
        }
        return total;
    }

    // From `t` on, how long the covered run that holds `t` lasts, up to `limit`; 0 when `t` is
    // not covered.
    DurationNs runFrom(TimestampNs t, TimestampNs limit) const {
        auto it = std::upper_bound(m_merged.begin(), m_merged.end(), t,
                                   [](TimestampNs time, const TimeRange& r) { return time < r.endNs; });
        if (it == m_merged.end() || it->startNs > t) {
            return 0;
        }
        return std::max<DurationNs>(0, std::min(it->endNs, limit) - t);
    }

private:
    std::vector<TimeRange> m_merged;
};

WorkKind workKindOf(analysis::IdleCause cause) {
    switch (cause) {
        case analysis::IdleCause::DataWait:
            return WorkKind::DataWait;
        case analysis::IdleCause::LaunchOverhead:
        case analysis::IdleCause::HostWork:
        case analysis::IdleCause::Compilation:
        case analysis::IdleCause::Housekeeping:
        case analysis::IdleCause::GarbageCollection:  // split out of HostWork below by GC frames
            return WorkKind::HostWork;
        case analysis::IdleCause::Synchronization:
        case analysis::IdleCause::Collective:
            return WorkKind::Synchronization;
        case analysis::IdleCause::OtherStream:
        case analysis::IdleCause::Unexplained:
            return WorkKind::Unexplained;
    }
    return WorkKind::Unexplained;
}

// The message size of a collective kernel from the host op that launched it (record_param_comms,
// nccl:*): the product of its first input's dims times the element size. -1 when not recorded.
std::int64_t sizeFromLaunchingOp(const core::TraceModel& model, std::size_t kernel) {
    const core::ApiCallId launch = model.kernels.launchCall[kernel];
    if (!launch.valid() || launch.index >= model.apiCalls.size()) {
        return -1;
    }
    core::CpuOpId op = model.apiCalls.cpuOp[launch.index];
    for (int depth = 0; depth < 6 && op.valid() && op.index < model.cpuOps.size(); ++depth) {
        const std::string_view name = model.text(model.cpuOps.name[op.index]);
        if (isCollectiveOpName(name)) {
            const std::string_view shapes = model.text(model.cpuOps.inputShapes[op.index]);
            const std::string_view types = model.text(model.cpuOps.inputTypes[op.index]);
            // First inner array of "[[339738624], [], ...]" and first string of "[\"unsigned char\", ...]".
            const std::size_t open = shapes.find('[', 1);
            const std::size_t close = shapes.find(']', open == std::string_view::npos ? 0 : open);
            const std::size_t q1 = types.find('"');
            const std::size_t q2 = q1 == std::string_view::npos ? q1 : types.find('"', q1 + 1);
            if (open != std::string_view::npos && close != std::string_view::npos &&
                q2 != std::string_view::npos) {
                const int elementBytes = dtypeBytes(types.substr(q1 + 1, q2 - q1 - 1));
                std::string_view dims = shapes.substr(open + 1, close - open - 1);
                if (elementBytes > 0 && !dims.empty()) {
                    std::int64_t elements = 1;
                    std::size_t pos = 0;
                    while (pos < dims.size()) {
                        std::size_t comma = dims.find(',', pos);
                        std::string part(
                            dims.substr(pos, comma == std::string_view::npos ? dims.npos : comma - pos));
                        try {
                            elements *= std::stoll(part);
                        } catch (...) {
                            return -1;
                        }
                        if (comma == std::string_view::npos) {
                            break;
                        }
                        pos = comma + 1;
                    }
                    return elements * elementBytes;
                }
            }
        }
        op = model.cpuOps.parent[op.index];
    }
    return -1;
}

std::string groupKeyOf(const core::TraceModel& model, const core::CollectiveCallRow& call) {
    const std::string_view name = model.text(call.processGroupName);
    const std::string_view ranks = model.text(call.processGroupRanks);
    if (name.empty() && ranks.empty()) {
        return {};
    }
    std::string key = "pg " + std::string(name);
    if (!ranks.empty()) {
        key += " " + std::string(ranks);
    }
    return key;
}

// Host annotations of collective calls ("nccl:all_reduce", "c10d::allreduce_") per thread: the
// kind of call that launched a kernel whose own name says only "SendRecv" or "Generic".
class CollectiveAnnotations {
public:
    explicit CollectiveAnnotations(const core::TraceModel& model) {
        core::NameMemo collectiveOp(model, isCollectiveOpName);
        for (std::size_t i = 0; i < model.ranges.size(); ++i) {
            if (model.ranges.thread[i] == core::kNoThread || !collectiveOp(model.ranges.name[i])) {
                continue;
            }
            const std::string_view name = model.text(model.ranges.name[i]);
            std::string kind = collectiveKindFromName(name);
            if (!kind.empty()) {
                m_byThread[model.ranges.thread[i]].push_back(
                    {{model.ranges.startNs[i], model.ranges.endNs[i]}, std::move(kind)});
            }
        }
        for (auto& [thread, list] : m_byThread) {
            std::sort(list.begin(), list.end(),
                      [](const Entry& a, const Entry& b) { return a.range.startNs < b.range.startNs; });
        }
    }

    // The innermost annotation on `thread` that contains `t`, or "".
    std::string kindAt(core::ThreadIndex thread, TimestampNs t) const {
        auto found = m_byThread.find(thread);
        if (found == m_byThread.end()) {
            return {};
        }
        const std::vector<Entry>& list = found->second;
        auto it = std::upper_bound(list.begin(), list.end(), t,
                                   [](TimestampNs time, const Entry& e) { return time < e.range.startNs; });
        for (int steps = 0; it != list.begin() && steps < 8; ++steps) {
            --it;
            if (it->range.contains(t)) {
                return it->kind;
            }
        }
        return {};
    }

private:
    struct Entry {
        TimeRange range;
        std::string kind;
    };
    std::unordered_map<core::ThreadIndex, std::vector<Entry>> m_byThread;
};

std::int16_t chooseDevice(const core::TraceModel& model, const analysis::AnalysisReport& report) {
    if (report.device.deviceIndex >= 0) {
        return static_cast<std::int16_t>(report.device.deviceIndex);
    }
    if (!report.metrics.accounting.devices.empty()) {
        return report.metrics.accounting.devices.front();
    }
    return model.kernels.size() > 0 ? model.kernels.deviceIndex[0] : std::int16_t{-1};
}

// Exclusive host time per CPU op (its duration minus its children's), clipped to windows later.
std::vector<DurationNs> exclusiveTimes(const core::TraceModel& model) {
    const auto& ops = model.cpuOps;
    std::vector<DurationNs> self(ops.size(), 0);
    for (std::size_t i = 0; i < ops.size(); ++i) {
        self[i] = std::max<DurationNs>(0, ops.endNs[i] - ops.startNs[i]);
    }
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const core::CpuOpId parent = ops.parent[i];
        if (parent.valid() && parent.index < ops.size()) {
            self[parent.index] -= std::max<DurationNs>(0, ops.endNs[i] - ops.startNs[i]);
        }
    }
    for (DurationNs& s : self) {
        s = std::max<DurationNs>(0, s);
    }
    return self;
}

}  // namespace

RankSummary summarizeRank(const core::TraceModel& model, const analysis::AnalysisReport& report,
                          const RankIdentity& identity) {
    RankSummary s;
    s.rank = identity.rank;
    s.rankSource = identity.source;
    if (model.distributed.present) {
        s.worldSize = model.distributed.worldSize;
        s.backend = model.distributed.backend;
    }
    s.sourcePath = report.sourcePath.empty() ? model.metadata.sourcePath : report.sourcePath;
    s.hostName = model.metadata.hostName;
    if (!model.processes.empty()) {
        s.pid = model.processes.front().pid;
        s.processName = model.processes.front().name;
    }
    const std::int16_t device = chooseDevice(model, report);
    s.deviceIndex = device;
    if (const core::DeviceInfo* info = model.device(device)) {
        s.deviceName = info->name;
    }
    if (report.device.matched) {
        s.deviceId = report.device.spec.id;
        // The datasheet gives the bidirectional figure; one direction is what a collective uses.
        s.linkBytesPerSecond = report.device.spec.interconnectBytesPerSecond / 2;
    }
    s.window = model.timeSpan();
    s.stepSource = report.metrics.steps.note;
    s.verdict = std::string(analysis::toString(report.overall.bottleneck));
    s.headline = report.headline;
    s.mfu = report.mfu.mfu;
    if (report.overallSignals.hasGpuActivity) {
        s.exposedCommunicationShare = report.overallSignals.exposedCommunicationShare();
    }
    for (const auto& scoped : report.deviceReports) {
        RankDevice d;
        d.deviceIndex = static_cast<std::int16_t>(scoped->scopeDeviceIndex);
        d.deviceName = scoped->device.traceDeviceName;
        d.busyFraction = scoped->overallSignals.busyFraction;
        d.idleFraction = scoped->overallSignals.idleFraction;
        d.meanStepNs = static_cast<core::DurationNs>(scoped->overallSignals.stepTimeNs);
        d.verdict = std::string(analysis::toString(scoped->overall.bottleneck));
        d.headline = scoped->headline;
        s.devices.push_back(std::move(d));
    }

    const analysis::GpuTimeAccountingResult& accounting = report.metrics.accounting;
    for (const analysis::GpuTimeBreakdown& row : accounting.perDevice) {
        if (row.deviceIndex != device) {
            continue;
        }
        s.busyFraction = row.busyFraction();
        s.workNs[static_cast<std::size_t>(WorkKind::GpuKernels)] = row.busyNs - row.communicationNs;
        for (std::size_t c = 0; c < analysis::kIdleCauseCount; ++c) {
            s.workNs[static_cast<std::size_t>(workKindOf(static_cast<analysis::IdleCause>(c)))] +=
                row.idleByCauseNs[c];
        }
        s.exposedCommunicationNs = row.exposedCommunicationNs;
    }

    // Steps, with their accounting row for this device.
    const analysis::StepsResult& steps = report.metrics.steps;
    for (std::size_t i = 0; i < steps.steps.size(); ++i) {
        const analysis::Step& step = steps.steps[i];
        RankStep rs;
        rs.number = step.number;
        rs.name = step.name;
        rs.range = step.range;
        for (const analysis::ExcludedStep& excluded : report.metrics.stepTimes.excluded) {
            if (excluded.stepIndex == static_cast<std::int32_t>(i)) {
                rs.excludedReason = excluded.reason;
            }
        }
        for (const analysis::GpuTimeBreakdown& row : accounting.perStep) {
            if (row.stepIndex != static_cast<std::int32_t>(i) || row.deviceIndex != device) {
                continue;
            }
            rs.busyNs = row.busyNs;
            rs.collectiveNs = row.communicationNs;
            rs.workNs[static_cast<std::size_t>(WorkKind::GpuKernels)] = row.busyNs - row.communicationNs;
            for (std::size_t c = 0; c < analysis::kIdleCauseCount; ++c) {
                rs.workNs[static_cast<std::size_t>(workKindOf(static_cast<analysis::IdleCause>(c)))] +=
                    row.idleByCauseNs[c];
            }
        }
        s.steps.push_back(std::move(rs));
    }

    // GPU work that is not communication, and the device's idle intervals by cause.
    std::vector<TimeRange> gpuWork;
    std::vector<TimestampNs> computeKernelStarts;
    std::vector<std::size_t> collectiveKernels;
    const auto& k = model.kernels;
    core::NameMemo communicationKernel(model, analysis::isCommunicationKernelName);
    for (std::size_t i = 0; i < k.size(); ++i) {
        if (k.deviceIndex[i] != device) {
            continue;
        }
        if (communicationKernel(k.name[i])) {
            collectiveKernels.push_back(i);
        } else {
            gpuWork.push_back({k.startNs[i], k.endNs[i]});
            computeKernelStarts.push_back(k.startNs[i]);
        }
    }
    for (std::size_t i = 0; i < model.memcpys.size(); ++i) {
        if (model.memcpys.deviceIndex[i] == device) {
            gpuWork.push_back({model.memcpys.startNs[i], model.memcpys.endNs[i]});
        }
    }
    for (std::size_t i = 0; i < model.memsets.size(); ++i) {
        if (model.memsets.deviceIndex[i] == device) {
            gpuWork.push_back({model.memsets.startNs[i], model.memsets.endNs[i]});
        }
    }
    std::sort(computeKernelStarts.begin(), computeKernelStarts.end());
    const CoveredTime gpuBusy(std::move(gpuWork));
    std::array<std::vector<TimeRange>, kWorkKindCount> idleByKind;
    for (const analysis::IdleInterval& idle : accounting.idleIntervals) {
        if (idle.deviceIndex == device && idle.streamId < 0) {
            idleByKind[static_cast<std::size_t>(workKindOf(idle.cause))].push_back(idle.range);
        }
    }
    std::vector<CoveredTime> idleCovered;
    for (auto& ranges : idleByKind) {
        idleCovered.emplace_back(std::move(ranges));
    }
    // Garbage-collector frames and ranges on the host.
    std::vector<TimeRange> gcRanges;
    core::NameMemo garbageCollection(model, isGarbageCollectionName);
    for (std::size_t i = 0; i < model.cpuOps.size(); ++i) {
        if (garbageCollection(model.cpuOps.name[i])) {
            gcRanges.push_back({model.cpuOps.startNs[i], model.cpuOps.endNs[i]});
        }
    }
    for (std::size_t i = 0; i < model.ranges.size(); ++i) {
        if (model.ranges.deviceIndex[i] < 0 && garbageCollection(model.ranges.name[i])) {
            gcRanges.push_back({model.ranges.startNs[i], model.ranges.endNs[i]});
        }
    }
    const CoveredTime gcCovered(std::move(gcRanges));

    // Collective parameters by correlation id.
    std::unordered_map<std::int64_t, const core::CollectiveCallRow*> callByCorrelation;
    for (const core::CollectiveCallRow& call : model.collectiveCalls) {
        callByCorrelation.emplace(call.correlationId, &call);
    }

    const CollectiveAnnotations annotations(model);
    TimestampNs previousEnd = s.window.startNs;
    bool first = true;
    for (std::size_t i : collectiveKernels) {
        RankCollective c;
        c.startNs = k.startNs[i];
        c.endNs = k.endNs[i];
        c.deviceIndex = k.deviceIndex[i];
        c.streamId = k.streamId[i];
        const std::string_view kernelName = model.text(k.name[i]);
        c.kind = collectiveKindFromName(kernelName);
        const core::ApiCallId launch = k.launchCall[i];
        if (launch.valid() && launch.index < model.apiCalls.size()) {
            std::string annotated =
                annotations.kindAt(model.apiCalls.thread[launch.index], model.apiCalls.startNs[launch.index]);
            if (!annotated.empty()) {
                c.kind = std::move(annotated);
            }
        }
        auto call =
            k.correlationId[i] != 0 ? callByCorrelation.find(k.correlationId[i]) : callByCorrelation.end();
        if (call != callByCorrelation.end()) {
            const core::CollectiveCallRow& row = *call->second;
            const std::string recordedKind = collectiveKindFromName(model.text(row.collectiveName));
            if (!recordedKind.empty()) {
                c.kind = recordedKind;
            }
            c.groupKey = groupKeyOf(model, row);
            c.groupSize = row.groupSize;
            c.hasCommsId = row.hasCommsId;
            c.commsId = row.commsId;
            c.seq = row.seq;
            c.dtype = std::string(model.text(row.dtype));
            const int elementBytes = dtypeBytes(c.dtype);
            const std::int64_t elements = std::max(row.inNelems, row.outNelems);
            if (elementBytes > 0 && elements >= 0) {
                c.sizeBytes = elements * elementBytes;
            }
        }
        if (c.sizeBytes < 0) {
            c.sizeBytes = sizeFromLaunchingOp(model, i);
        }
        if (c.kind.empty()) {
            c.kind = "Collective";
        }
        if (i < steps.kernelStep.size() && steps.kernelStep[i] >= 0) {
            c.stepNumber = steps.steps[static_cast<std::size_t>(steps.kernelStep[i])].number;
        }
        // The segment: since the previous collective on this device ended (or the window began).
        SegmentWork& w = c.before;
        w.segmentStartNs = std::min(previousEnd, c.startNs);
        w.startsAtWindowStart = first;
        const TimeRange segment{w.segmentStartNs, c.startNs};
        w.ns[static_cast<std::size_t>(WorkKind::GpuKernels)] = gpuBusy.within(segment);
        w.busyAtStartNs = gpuBusy.runFrom(segment.startNs, segment.endNs);
        for (std::size_t kind = 1; kind < kWorkKindCount; ++kind) {
            w.ns[kind] = idleCovered[kind].within(segment);
        }
        // Garbage collection is host work: move the overlap out of HostWork.
        const DurationNs gc =
            std::min(gcCovered.within(segment), w.ns[static_cast<std::size_t>(WorkKind::HostWork)]);
        w.ns[static_cast<std::size_t>(WorkKind::GarbageCollection)] = gc;
        w.ns[static_cast<std::size_t>(WorkKind::HostWork)] -= gc;
        w.kernelCount = static_cast<std::int32_t>(
            std::lower_bound(computeKernelStarts.begin(), computeKernelStarts.end(), segment.endNs) -
            std::lower_bound(computeKernelStarts.begin(), computeKernelStarts.end(), segment.startNs));
        s.collectives.push_back(std::move(c));
        previousEnd = std::max(previousEnd, k.endNs[i]);
        first = false;
    }

    // Heaviest host frames per segment, by exclusive time (Python frames when recorded, else ops).
    if (!s.collectives.empty() && model.cpuOps.size() > 0) {
        const std::vector<DurationNs> self = exclusiveTimes(model);
        bool hasPython = false;
        for (std::size_t i = 0; i < model.cpuOps.size() && !hasPython; ++i) {
            hasPython = model.cpuOps.category[i] == core::CpuOpCategory::PythonFunction;
        }
        const core::CpuOpCategory wanted =
            hasPython ? core::CpuOpCategory::PythonFunction : core::CpuOpCategory::Operator;
        std::vector<std::unordered_map<std::uint32_t, DurationNs>> perSegment(s.collectives.size());
        for (std::size_t op = 0; op < model.cpuOps.size(); ++op) {
            if (model.cpuOps.category[op] != wanted || self[op] <= 0) {
                continue;
            }
            const TimeRange opRange{model.cpuOps.startNs[op], model.cpuOps.endNs[op]};
            // Segments are ordered and (nearly) disjoint; find the first that may overlap.
            auto it = std::upper_bound(s.collectives.begin(), s.collectives.end(), opRange.startNs,
                                       [](TimestampNs t, const RankCollective& c) { return t < c.startNs; });
            for (; it != s.collectives.end(); ++it) {
                const TimeRange segment{it->before.segmentStartNs, it->startNs};
                if (segment.startNs >= opRange.endNs) {
                    break;
                }
                const DurationNs overlap = segment.intersect(opRange).durationNs();
                if (overlap > 0) {
                    const DurationNs share = static_cast<DurationNs>(
                        static_cast<double>(self[op]) * static_cast<double>(overlap) /
                        static_cast<double>(std::max<DurationNs>(1, opRange.durationNs())));
                    perSegment[static_cast<std::size_t>(it - s.collectives.begin())]
                              [model.cpuOps.name[op].index] += share;
                }
            }
        }
        for (std::size_t c = 0; c < s.collectives.size(); ++c) {
            std::vector<std::pair<std::uint32_t, DurationNs>> frames(perSegment[c].begin(),
                                                                     perSegment[c].end());
            std::sort(frames.begin(), frames.end(), [](const auto& a, const auto& b) {
                return a.second != b.second ? a.second > b.second : a.first < b.first;
            });
            for (std::size_t f = 0; f < frames.size() && f < 3; ++f) {
                s.collectives[c].before.topHostFrames.push_back(
                    {std::string(model.text(core::StringId(frames[f].first))), frames[f].second});
            }
        }
    }

    for (const analysis::ReportWarning& warning : report.warnings) {
        if (warning.severity >= core::Severity::Warning) {
            s.warnings.push_back(warning.message);
        }
    }
    return s;
}

}  // namespace chokepoint::job
