#include "core/analysis/metrics/PhaseDetection.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>

#include "core/analysis/metrics/IntervalSet.h"
#include "core/analysis/metrics/KernelClassifier.h"
#include "core/names/NameRules.h"

namespace chokepoint::analysis {

using core::DurationNs;
using core::TimeRange;
using core::TimestampNs;

namespace {

// Host-labelled kinds (Forward is derived, not labelled by name).
constexpr std::size_t kLabelled[] = {
    static_cast<std::size_t>(PhaseKind::Communication), static_cast<std::size_t>(PhaseKind::Optimizer),
    static_cast<std::size_t>(PhaseKind::Backward), static_cast<std::size_t>(PhaseKind::DataLoading)};

// The phase a host op or range labels (NameRules' host role): input preparation in this process
// counts as data loading, like DataLoader ranges.
int labelOf(std::string_view name, bool autogradThread) {
    switch (names::hostRoleOf(name)) {
        case names::HostRole::Collective:
            return static_cast<int>(PhaseKind::Communication);
        case names::HostRole::Optimizer:
            return static_cast<int>(PhaseKind::Optimizer);
        case names::HostRole::Backward:
            return static_cast<int>(PhaseKind::Backward);
        case names::HostRole::DataLoading:
        case names::HostRole::DataPreparation:
            return autogradThread ? static_cast<int>(PhaseKind::Backward)
                                  : static_cast<int>(PhaseKind::DataLoading);
        default:
            return autogradThread ? static_cast<int>(PhaseKind::Backward) : -1;
    }
}

bool contains(const IntervalSet& set, TimestampNs t) {
    const auto& v = set.intervals();
    auto it = std::upper_bound(v.begin(), v.end(), t,
                               [](TimestampNs x, const TimeRange& r) { return x < r.startNs; });
    return it != v.begin() && std::prev(it)->contains(t);
}

}  // namespace

std::string_view toString(PhaseKind kind) {
    switch (kind) {
        case PhaseKind::DataLoading:
            return "data loading";
        case PhaseKind::Forward:
            return "forward";
        case PhaseKind::Backward:
            return "backward";
        case PhaseKind::Optimizer:
            return "optimizer";
        case PhaseKind::Communication:
            return "communication";
    }
    return "forward";
}

// The name rules live in core/names/NameRules (one table, token rules, regression corpus).
bool isDataLoadingName(std::string_view name) {
    return names::isDataLoadingName(name);
}

bool isBackwardOpName(std::string_view name) {
    return names::isBackwardOpName(name);
}

bool isOptimizerName(std::string_view name) {
    return names::isOptimizerName(name);
}

bool isCommunicationOpName(std::string_view name) {
    return names::isCommunicationOpName(name);
}

namespace {

// A kernel whose launch call is not in the trace (an attach capture loses the runtime API's
// launches, #21) takes the phase of the kernels around it on its stream when both have the same
// one in the same step: a stream runs its kernels in the order they were issued, so it was issued
// between two launches of that phase. Kernels at a phase boundary stay unattributed.
template <class Assign>
void inferPhasesFromStreamOrder(const core::TraceModel& model, const StepsResult& steps,
                                const std::vector<std::int8_t>& kernelPhase, Assign assign) {
    const core::KernelTable& k = model.kernels;
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::size_t>> byStream;
    for (std::size_t i = 0; i < k.size(); ++i) {
        byStream[{k.deviceIndex[i], k.streamId[i]}].push_back(i);
    }
    auto stepOf = [&](std::size_t i) { return i < steps.kernelStep.size() ? steps.kernelStep[i] : -1; };
    for (auto& [stream, kernels] : byStream) {
        std::stable_sort(kernels.begin(), kernels.end(),
                         [&](std::size_t a, std::size_t b) { return k.startNs[a] < k.startNs[b]; });
        std::size_t previous = kernels.size();  // position of the last kernel with a phase
        for (std::size_t pos = 0; pos < kernels.size(); ++pos) {
            const std::size_t i = kernels[pos];
            if (kernelPhase[i] < 0) {
                continue;
            }
            if (previous < pos && pos - previous > 1 && kernelPhase[kernels[previous]] == kernelPhase[i] &&
                stepOf(kernels[previous]) == stepOf(i) && stepOf(i) >= 0) {
                for (std::size_t gap = previous + 1; gap < pos; ++gap) {
                    const std::size_t g = kernels[gap];
                    if (!k.launchCall[g].valid() && stepOf(g) == stepOf(i)) {
                        assign(g, stepOf(g), kernelPhase[i]);
                    }
                }
            }
            previous = pos;
        }
    }
}

}  // namespace

PhasesResult detectPhases(const core::TraceModel& model, const StepsResult& steps) {
    PhasesResult result;
    result.kernelPhase.assign(model.kernels.size(), -1);
    result.memcpyPhase.assign(model.memcpys.size(), -1);
    result.memsetPhase.assign(model.memsets.size(), -1);
    const std::size_t stepCount = steps.steps.size();
    if (stepCount == 0) {
        result.note = "no steps: no phases";
        return result;
    }

    // Labelled host intervals per thread and kind.
    std::vector<bool> autogradThread(model.threads.size(), false);
    std::vector<bool> dataThread(model.threads.size(), false);  // DataLoader worker / pin-memory threads
    for (std::size_t t = 0; t < model.threads.size(); ++t) {
        const names::ThreadRole role = names::threadRoleOf(model.threads[t].name);
        autogradThread[t] = role == names::ThreadRole::Autograd;
        dataThread[t] = role == names::ThreadRole::DataWorker || role == names::ThreadRole::PinMemory;
    }
    std::unordered_map<core::ThreadIndex, std::array<std::vector<TimeRange>, kPhaseKindCount>> byThread;
    std::array<std::vector<TimeRange>, kPhaseKindCount> allHost;
    // Each distinct name is classified once (the classifiers lower-case and search the text).
    constexpr std::int8_t kUnclassified = -2;
    std::vector<std::int8_t> labelOfName(model.strings.size(), kUnclassified);
    auto label = [&](core::ThreadIndex thread, core::StringId nameId, TimeRange r) {
        bool autograd = thread < autogradThread.size() && autogradThread[thread];
        int kind = -1;
        if (nameId.valid() && nameId.index < labelOfName.size()) {
            std::int8_t& cached = labelOfName[nameId.index];
            if (cached == kUnclassified) {
                cached = static_cast<std::int8_t>(labelOf(model.text(nameId), false));
            }
            kind = cached;
        }
        if (autograd && kind != static_cast<int>(PhaseKind::Communication) &&
            kind != static_cast<int>(PhaseKind::Optimizer)) {
            kind = static_cast<int>(PhaseKind::Backward);
        }
        if (thread < dataThread.size() && dataThread[thread]) {
            kind = static_cast<int>(PhaseKind::DataLoading);
        }
        if (kind >= 0 && !r.empty()) {
            byThread[thread][static_cast<std::size_t>(kind)].push_back(r);
            allHost[static_cast<std::size_t>(kind)].push_back(r);
        }
    };
    for (std::size_t i = 0; i < model.cpuOps.size(); ++i) {
        label(model.cpuOps.thread[i], model.cpuOps.name[i], {model.cpuOps.startNs[i], model.cpuOps.endNs[i]});
    }
    for (std::size_t i = 0; i < model.ranges.size(); ++i) {
        if (model.ranges.source[i] != core::RangeSource::GpuUserAnnotation) {
            label(model.ranges.thread[i], model.ranges.name[i],
                  {model.ranges.startNs[i], model.ranges.endNs[i]});
        }
    }
    // A capture without CPU ops (ours, Nsight Systems) still shows the autograd thread's launches:
    // they are backward host time, so backward is found and forward split from it.
    for (std::size_t i = 0; i < model.apiCalls.size(); ++i) {
        const core::ThreadIndex thread = model.apiCalls.thread[i];
        if (thread < autogradThread.size() && autogradThread[thread]) {
            label(thread, {}, {model.apiCalls.startNs[i], model.apiCalls.endNs[i]});
        }
    }
    std::unordered_map<core::ThreadIndex, std::array<IntervalSet, kPhaseKindCount>> sets;
    for (auto& [thread, kinds] : byThread) {
        for (std::size_t k = 0; k < kPhaseKindCount; ++k) {
            sets[thread][k] = IntervalSet::fromUnsorted(std::move(kinds[k]));
        }
    }
    std::array<IntervalSet, kPhaseKindCount> hostUnion;
    for (std::size_t k = 0; k < kPhaseKindCount; ++k) {
        hostUnion[k] = IntervalSet::fromUnsorted(std::move(allHost[k]));
    }

    // Forward window per step: from the end of the step's first data-loading interval (or the
    // step's start) to the first backward interval inside the step.
    const bool anyBackward = !hostUnion[static_cast<std::size_t>(PhaseKind::Backward)].empty();
    std::vector<TimeRange> forward(stepCount);
    if (anyBackward) {
        for (std::size_t s = 0; s < stepCount; ++s) {
            const TimeRange cpu = steps.steps[s].cpuRange;
            IntervalSet data = hostUnion[static_cast<std::size_t>(PhaseKind::DataLoading)].clippedTo(cpu);
            IntervalSet back = hostUnion[static_cast<std::size_t>(PhaseKind::Backward)].clippedTo(cpu);
            TimestampNs begin = data.empty() ? cpu.startNs : data.intervals().front().endNs;
            TimestampNs end = back.empty() ? cpu.startNs : back.intervals().front().startNs;
            if (end > begin) {
                forward[s] = {begin, end};
            }
        }
    } else {
        result.note = "no backward markers (autograd ops/threads): forward and backward are not split";
    }

    // GPU rows: phase of their launch call.
    struct GpuAccum {
        std::vector<TimeRange> ranges;
        std::int64_t count = 0;
    };
    std::vector<std::array<GpuAccum, kPhaseKindCount>> gpu(stepCount);
    auto phaseOfLaunch = [&](core::ApiCallId call, TimestampNs fallbackNs, std::int32_t step) -> int {
        TimestampNs t = fallbackNs;
        core::ThreadIndex thread = core::kNoThread;
        if (call.valid() && call.index < model.apiCalls.size()) {
            t = model.apiCalls.startNs[call.index];
            thread = model.apiCalls.thread[call.index];
            auto it = sets.find(thread);
            if (it != sets.end()) {
                for (std::size_t k : kLabelled) {
                    if (contains(it->second[k], t)) {
                        return static_cast<int>(k);
                    }
                }
            }
            if (thread < autogradThread.size() && autogradThread[thread]) {
                return static_cast<int>(PhaseKind::Backward);
            }
        }
        if (step >= 0 && forward[static_cast<std::size_t>(step)].contains(t)) {
            return static_cast<int>(PhaseKind::Forward);
        }
        return -1;
    };
    // The batch's H2D copies: unlabelled H2D copies launched before the step's first other GPU work.
    std::vector<TimestampNs> firstOtherLaunch(stepCount, std::numeric_limits<TimestampNs>::max());
    auto launchTime = [&](core::ApiCallId call, TimestampNs fallback) {
        return call.valid() && call.index < model.apiCalls.size() ? model.apiCalls.startNs[call.index]
                                                                  : fallback;
    };
    for (std::size_t i = 0; i < model.kernels.size(); ++i) {
        std::int32_t s = i < steps.kernelStep.size() ? steps.kernelStep[i] : -1;
        if (s >= 0) {
            auto& f = firstOtherLaunch[static_cast<std::size_t>(s)];
            f = std::min(f, launchTime(model.kernels.launchCall[i], model.kernels.startNs[i]));
        }
    }
    auto record = [&](std::vector<std::int8_t>& column, std::size_t i, std::int32_t s, int kind,
                      TimeRange r) {
        if (kind < 0) {
            return;
        }
        column[i] = static_cast<std::int8_t>(kind);
        if (s >= 0) {
            GpuAccum& acc = gpu[static_cast<std::size_t>(s)][static_cast<std::size_t>(kind)];
            acc.ranges.push_back(r);
            ++acc.count;
        }
    };
    std::vector<std::int8_t> commName(model.strings.size(), -1);
    auto isCommKernel = [&](core::StringId name) {
        if (!name.valid() || name.index >= commName.size()) {
            return false;
        }
        std::int8_t& cached = commName[name.index];
        if (cached < 0) {
            cached = isCommunicationKernelName(model.text(name)) ? 1 : 0;
        }
        return cached == 1;
    };
    // Kernels by their launch call first; a kernel without one by the stream order of those, and
    // only then by when it ran on the GPU (phaseOfLaunch's fallback, weaker: the GPU runs behind the
    // host, by a whole step when the launch queue is full).
    for (std::size_t i = 0; i < model.kernels.size(); ++i) {
        std::int32_t s = i < steps.kernelStep.size() ? steps.kernelStep[i] : -1;
        const bool comm = isCommKernel(model.kernels.name[i]);
        if (!comm && !model.kernels.launchCall[i].valid()) {
            continue;
        }
        int kind = comm ? static_cast<int>(PhaseKind::Communication)
                        : phaseOfLaunch(model.kernels.launchCall[i], model.kernels.startNs[i], s);
        record(result.kernelPhase, i, s, kind, {model.kernels.startNs[i], model.kernels.endNs[i]});
    }
    inferPhasesFromStreamOrder(
        model, steps, result.kernelPhase, [&](std::size_t i, std::int32_t s, int kind) {
            record(result.kernelPhase, i, s, kind, {model.kernels.startNs[i], model.kernels.endNs[i]});
        });
    for (std::size_t i = 0; i < model.kernels.size(); ++i) {
        if (result.kernelPhase[i] < 0 && !model.kernels.launchCall[i].valid()) {
            std::int32_t s = i < steps.kernelStep.size() ? steps.kernelStep[i] : -1;
            record(result.kernelPhase, i, s, phaseOfLaunch(core::ApiCallId{}, model.kernels.startNs[i], s),
                   {model.kernels.startNs[i], model.kernels.endNs[i]});
        }
    }
    for (std::size_t i = 0; i < model.memcpys.size(); ++i) {
        std::int32_t s = i < steps.memcpyStep.size() ? steps.memcpyStep[i] : -1;
        int kind = phaseOfLaunch(model.memcpys.launchCall[i], model.memcpys.startNs[i], s);
        TimestampNs t = launchTime(model.memcpys.launchCall[i], model.memcpys.startNs[i]);
        if (model.memcpys.kind[i] == core::MemcpyKind::HostToDevice && s >= 0 &&
            (kind < 0 || kind == static_cast<int>(PhaseKind::Forward)) &&
            t < firstOtherLaunch[static_cast<std::size_t>(s)]) {
            kind = static_cast<int>(PhaseKind::DataLoading);
        }
        record(result.memcpyPhase, i, s, kind, {model.memcpys.startNs[i], model.memcpys.endNs[i]});
    }
    for (std::size_t i = 0; i < model.memsets.size(); ++i) {
        std::int32_t s = i < steps.memsetStep.size() ? steps.memsetStep[i] : -1;
        record(result.memsetPhase, i, s,
               phaseOfLaunch(model.memsets.launchCall[i], model.memsets.startNs[i], s),
               {model.memsets.startNs[i], model.memsets.endNs[i]});
    }

    for (std::size_t s = 0; s < stepCount; ++s) {
        const TimeRange cpu = steps.steps[s].cpuRange;
        for (std::size_t k = 0; k < kPhaseKindCount; ++k) {
            IntervalSet host = k == static_cast<std::size_t>(PhaseKind::Forward)
                                   ? IntervalSet::fromSortedByStart({forward[s]})
                                   : hostUnion[k].clippedTo(cpu);
            IntervalSet gpuSet = IntervalSet::fromUnsorted(std::move(gpu[s][k].ranges));
            if (host.empty() && gpuSet.empty()) {
                continue;
            }
            Phase phase;
            phase.kind = static_cast<PhaseKind>(k);
            phase.stepIndex = static_cast<std::int32_t>(s);
            phase.cpuRanges = host.intervals();
            phase.cpuTimeNs = host.totalNs();
            phase.gpuTimeNs = gpuSet.totalNs();
            phase.gpuEventCount = gpu[s][k].count;
            IntervalSet both = host.unionWith(gpuSet);
            phase.span = {both.intervals().front().startNs, both.intervals().back().endNs};
            result.seen[k] = true;
            result.phases.push_back(std::move(phase));
        }
    }
    return result;
}

}  // namespace chokepoint::analysis
