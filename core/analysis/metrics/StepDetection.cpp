#include "core/analysis/metrics/StepDetection.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <unordered_map>

#include "core/base/Format.h"
#include "core/base/SequencePeriod.h"
#include "core/base/Strings.h"
#include "core/names/NameRules.h"

namespace chokepoint::analysis {

using core::DurationNs;
using core::TimeRange;
using core::TimestampNs;

namespace {

std::int64_t numberAfterHash(std::string_view name, std::int64_t fallback) {
    std::size_t hash = name.rfind('#');
    if (hash == std::string_view::npos) {
        return fallback;
    }
    std::int64_t value = 0;
    const char* first = name.data() + hash + 1;
    const char* last = name.data() + name.size();
    auto [ptr, ec] = std::from_chars(first, last, value);
    return ec == std::errc{} && ptr != first ? value : fallback;
}

bool isHostRange(const core::TraceModel& model, std::size_t i) {
    return model.ranges.source[i] != core::RangeSource::GpuUserAnnotation;
}

struct Candidate {
    TimeRange cpuRange;
    std::string name;
    std::int64_t number = 0;
    core::RangeId range;
    core::CpuOpId op;
    core::ThreadIndex thread = core::kNoThread;
};

// Drops candidates wholly inside an earlier kept candidate on the same thread (nested duplicates,
// for example an NVTX "step" inside a "train_step"). Input sorted by start.
std::vector<Candidate> dropNested(std::vector<Candidate> in) {
    std::vector<Candidate> out;
    std::unordered_map<core::ThreadIndex, TimestampNs> lastEndByThread;
    for (Candidate& c : in) {
        auto it = lastEndByThread.find(c.thread);
        if (it != lastEndByThread.end() && c.cpuRange.endNs <= it->second) {
            continue;
        }
        lastEndByThread[c.thread] = c.cpuRange.endNs;
        out.push_back(std::move(c));
    }
    return out;
}

void sortByStart(std::vector<Candidate>& c) {
    std::stable_sort(c.begin(), c.end(), [](const Candidate& a, const Candidate& b) {
        return a.cpuRange.startNs != b.cpuRange.startNs ? a.cpuRange.startNs < b.cpuRange.startNs
                                                        : a.cpuRange.endNs > b.cpuRange.endNs;
    });
}

// Host ranges (and, for ProfilerStep#, ops: some producers record ProfilerStep#N as an op) whose
// name starts with `prefix`.
std::vector<Candidate> markerSteps(const core::TraceModel& model, std::string_view prefix) {
    std::vector<Candidate> out;
    for (std::size_t i = 0; i < model.ranges.size(); ++i) {
        std::string_view name = model.text(model.ranges.name[i]);
        if (isHostRange(model, i) && names::matchesStepMarker(name, prefix)) {
            out.push_back({{model.ranges.startNs[i], model.ranges.endNs[i]},
                           std::string(name),
                           numberAfterHash(name, static_cast<std::int64_t>(out.size())),
                           core::RangeId{static_cast<std::uint32_t>(i)},
                           {},
                           model.ranges.thread[i]});
        }
    }
    if (out.empty() && prefix == names::kProfilerStepPrefix) {
        for (std::size_t i = 0; i < model.cpuOps.size(); ++i) {
            std::string_view name = model.text(model.cpuOps.name[i]);
            if (names::matchesStepMarker(name, prefix)) {
                out.push_back({{model.cpuOps.startNs[i], model.cpuOps.endNs[i]},
                               std::string(name),
                               numberAfterHash(name, static_cast<std::int64_t>(out.size())),
                               {},
                               core::CpuOpId{static_cast<std::uint32_t>(i)},
                               model.cpuOps.thread[i]});
            }
        }
    }
    sortByStart(out);
    return dropNested(std::move(out));
}

// The step-marker prefixes to look for: the options', else the trace's capture note, else the
// defaults.
std::vector<std::string> stepMarkerPrefixes(const core::TraceModel& model,
                                            const StepDetectionOptions& options) {
    if (!options.stepMarkers.empty()) {
        return options.stepMarkers;
    }
    for (const auto& [key, value] : model.metadata.notes) {
        if (key == names::kStepMarkersNote) {
            return names::parseStepMarkers(value);
        }
    }
    return names::defaultStepMarkerPrefixes();
}

// Steps read from ranges the job marked (not found in the kernels, nor the whole trace).
bool fromMarkers(StepSource source) {
    return source == StepSource::ProfilerStep || source == StepSource::StepMarker ||
           source == StepSource::NamedRange;
}

// The end of the agent's capture window when it closed NVTX ranges still open at its stop there
// (stat nvtx.open_at_stop, note capture.window_ns "start..end"); -1 otherwise.
TimestampNs rangesClosedAtStopNs(const core::TraceModel& model) {
    if (model.stats.count(names::kNvtxOpenAtStopStat) <= 0) {
        return -1;
    }
    for (const auto& [key, value] : model.metadata.notes) {
        if (key != names::kCaptureWindowNote) {
            continue;
        }
        const std::size_t dots = value.find("..");
        TimestampNs endNs = -1;
        if (dots == std::string::npos ||
            std::from_chars(value.data() + dots + 2, value.data() + value.size(), endNs).ec != std::errc{}) {
            return -1;
        }
        return endNs;
    }
    return -1;
}

// A step marker still open when the capture stopped (Ctrl-C, --duration) was closed at the
// window's end by the agent: that part-step is no step. Returns what the note says, or "".
std::string dropStepCutByCaptureStop(const core::TraceModel& model, std::vector<Candidate>& steps) {
    const TimestampNs stopNs = rangesClosedAtStopNs(model);
    if (stopNs < 0 || steps.size() < 2 || steps.back().cpuRange.endNs != stopNs) {
        return {};
    }
    const std::string name = steps.back().name;
    const DurationNs partNs = steps.back().cpuRange.durationNs();
    steps.pop_back();
    return "; " + name + " was still open when the capture stopped (" + core::formatDuration(partNs) +
           " of it recorded): cut by the window's end, it is no step";
}

// A last marker step with no GPU work that is a sliver of the others (under a tenth of their
// median) is the profiler stopping just after it opened the step (torch.profiler's context exit
// right after prof.step(): a 49 us ProfilerStep#2 after a 9.3 ms ProfilerStep#1 on the HTA MI250
// trace), not a step. Only in a trace whose other steps have GPU work; no GPU row refers to it, so
// the per-row step indices stay valid. Returns what the note says, or "".
std::string dropProfilerStopStub(std::vector<Step>& steps) {
    if (steps.size() < 2) {
        return {};
    }
    const Step& last = steps.back();
    const auto gpuRows = [](const Step& s) { return s.kernelCount + s.memcpyCount + s.memsetCount; };
    std::vector<DurationNs> others;
    std::int64_t othersGpuRows = 0;
    for (std::size_t i = 0; i + 1 < steps.size(); ++i) {
        others.push_back(steps[i].durationNs());
        othersGpuRows += gpuRows(steps[i]);
    }
    std::nth_element(others.begin(), others.begin() + static_cast<std::ptrdiff_t>(others.size() / 2),
                     others.end());
    const DurationNs median = others[others.size() / 2];
    if (gpuRows(last) > 0 || othersGpuRows == 0 || last.durationNs() * 10 >= median) {
        return {};
    }
    const std::string note = "; the last step, " + last.name + " (" +
                             core::formatDuration(last.durationNs()) +
                             ", no GPU work), is where the profiler stopped, not a step";
    steps.pop_back();
    return note;
}

// Extends each marker step's host range back over the input waits (NameRules' data-loading role:
// chokepoint:data, DataLoader ranges) on its thread that end at or before its start and begin
// after the previous step's end: the wait for a step's batch belongs to the step.
void extendOverDataWaits(const core::TraceModel& model, std::vector<Candidate>& steps,
                         std::vector<TimeRange>& dataWaits) {
    dataWaits.assign(steps.size(), TimeRange{});
    // Input-wait ranges per thread, by start.
    std::unordered_map<core::ThreadIndex, std::vector<TimeRange>> waits;
    std::unordered_map<std::uint32_t, bool> isWait;
    for (std::size_t i = 0; i < model.ranges.size(); ++i) {
        if (!isHostRange(model, i)) {
            continue;
        }
        const core::StringId name = model.ranges.name[i];
        auto [it, inserted] = isWait.try_emplace(name.index, false);
        if (inserted) {
            it->second = names::hostRoleOf(model.text(name)) == names::HostRole::DataLoading;
        }
        if (it->second) {
            waits[model.ranges.thread[i]].push_back({model.ranges.startNs[i], model.ranges.endNs[i]});
        }
    }
    if (waits.empty()) {
        return;
    }
    for (auto& [thread, list] : waits) {
        std::sort(list.begin(), list.end(),
                  [](const TimeRange& a, const TimeRange& b) { return a.startNs < b.startNs; });
    }
    std::unordered_map<core::ThreadIndex, TimestampNs> previousEnd;  // per thread
    for (std::size_t s = 0; s < steps.size(); ++s) {
        Candidate& step = steps[s];
        auto prev = previousEnd.find(step.thread);
        const TimestampNs after =
            prev == previousEnd.end() ? std::numeric_limits<TimestampNs>::min() : prev->second;
        if (auto list = waits.find(step.thread); list != waits.end()) {
            const std::vector<TimeRange>& v = list->second;
            auto it = std::lower_bound(v.begin(), v.end(), after,
                                       [](const TimeRange& r, TimestampNs t) { return r.startNs < t; });
            TimeRange& d = dataWaits[s];
            for (; it != v.end() && it->startNs < step.cpuRange.startNs; ++it) {
                if (it->endNs <= step.cpuRange.startNs) {
                    d = d.empty() ? *it
                                  : TimeRange{std::min(d.startNs, it->startNs), std::max(d.endNs, it->endNs)};
                }
            }
        }
        if (!dataWaits[s].empty()) {
            step.cpuRange.startNs = std::min(step.cpuRange.startNs, dataWaits[s].startNs);
        }
        previousEnd[step.thread] = std::max(after, step.cpuRange.endNs);
    }
}

std::vector<Candidate> namedRangeSteps(const core::TraceModel& model, const StepDetectionOptions& options) {
    std::vector<Candidate> out;
    for (std::size_t i = 0; i < model.ranges.size(); ++i) {
        std::string_view name = model.text(model.ranges.name[i]);
        if (isHostRange(model, i) && matchesStepPattern(name, options.rangePatterns)) {
            out.push_back({{model.ranges.startNs[i], model.ranges.endNs[i]},
                           std::string(name),
                           static_cast<std::int64_t>(out.size()),
                           core::RangeId{static_cast<std::uint32_t>(i)},
                           {},
                           model.ranges.thread[i]});
        }
    }
    sortByStart(out);
    out = dropNested(std::move(out));
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i].number = static_cast<std::int64_t>(i);
    }
    return out;
}

bool startsWithAny(std::string_view name, const std::vector<std::string>& prefixes) {
    for (const std::string& p : prefixes) {
        if (!p.empty() && name.substr(0, p.size()) == p) {
            return true;
        }
    }
    return false;
}

// Steps whose boundaries are the ends of optimizer-step markers.
std::vector<Candidate> optimizerSteps(const core::TraceModel& model, const StepDetectionOptions& options) {
    struct Marker {
        TimeRange range;
        core::CpuOpId op;
        core::RangeId rangeRow;
        core::ThreadIndex thread;
    };
    std::vector<Marker> markers;
    for (std::size_t i = 0; i < model.cpuOps.size(); ++i) {
        if (startsWithAny(model.text(model.cpuOps.name[i]), options.optimizerPatterns)) {
            markers.push_back({{model.cpuOps.startNs[i], model.cpuOps.endNs[i]},
                               core::CpuOpId{static_cast<std::uint32_t>(i)},
                               {},
                               model.cpuOps.thread[i]});
        }
    }
    for (std::size_t i = 0; i < model.ranges.size(); ++i) {
        if (isHostRange(model, i) &&
            startsWithAny(model.text(model.ranges.name[i]), options.optimizerPatterns)) {
            markers.push_back({{model.ranges.startNs[i], model.ranges.endNs[i]},
                               {},
                               core::RangeId{static_cast<std::uint32_t>(i)},
                               model.ranges.thread[i]});
        }
    }
    std::sort(markers.begin(), markers.end(),
              [](const Marker& a, const Marker& b) { return a.range.startNs < b.range.startNs; });
    // Overlapping markers (op + its annotation, nested calls) are one optimizer step.
    std::vector<Marker> merged;
    for (const Marker& m : markers) {
        if (!merged.empty() && m.range.startNs < merged.back().range.endNs) {
            merged.back().range.endNs = std::max(merged.back().range.endNs, m.range.endNs);
            if (!merged.back().op.valid()) {
                merged.back().op = m.op;
            }
            continue;
        }
        merged.push_back(m);
    }
    std::vector<Candidate> out;
    if (merged.empty()) {
        return out;
    }
    TimestampNs begin = model.timeSpan().startNs;
    for (std::size_t i = 0; i < merged.size(); ++i) {
        Candidate c;
        c.cpuRange = {std::min(begin, merged[i].range.startNs), merged[i].range.endNs};
        c.number = static_cast<std::int64_t>(i);
        c.name = "optimizer step " + std::to_string(i);
        c.op = merged[i].op;
        c.range = merged[i].rangeRow;
        c.thread = merged[i].thread;
        out.push_back(std::move(c));
        begin = merged[i].range.endNs;
    }
    return out;
}

// The repeating iteration of the kernel-name sequence on the device with most kernels.
std::vector<Candidate> repeatingKernelSteps(const core::TraceModel& model,
                                            const StepDetectionOptions& options, std::string& note,
                                            std::int64_t& leadingKernels, DurationNs& leadingNs) {
    const core::KernelTable& kt = model.kernels;
    std::vector<Candidate> out;
    if (kt.size() < 4) {
        return out;
    }
    std::unordered_map<std::int16_t, std::size_t> perDevice;
    for (std::int16_t d : kt.deviceIndex) {
        ++perDevice[d];
    }
    std::int16_t device = perDevice.begin()->first;
    for (const auto& [d, count] : perDevice) {
        if (count > perDevice[device] || (count == perDevice[device] && d < device)) {
            device = d;
        }
    }
    std::vector<std::uint32_t> rows;
    std::vector<std::uint32_t> seq;
    for (std::uint32_t i = 0; i < kt.size(); ++i) {
        if (kt.deviceIndex[i] == device) {
            rows.push_back(i);
            seq.push_back(kt.name[i].index);
        }
    }
    const std::size_t n = seq.size();
    core::SequencePeriodOptions periodOptions;
    periodOptions.minRepeats = options.minRepeats;
    periodOptions.minPeriodMatch = options.minPeriodMatch;
    const core::SequencePeriod found = core::findSequencePeriod(seq, periodOptions);
    if (found.period == 0 || found.repetitionStarts.empty()) {
        return out;
    }
    const std::size_t period = found.period;
    std::vector<std::size_t> positions = found.repetitionStarts;
    // A last repetition with clearly fewer kernels than a period was cut by the trace's end (a
    // capture window that closed mid-step): its duration is not a step time, so it is no step.
    std::string cutNote;
    if (positions.size() > 1) {
        const std::size_t lastKernels = n - positions.back();
        if (static_cast<double>(lastKernels) < options.minPeriodMatch * static_cast<double>(period)) {
            cutNote = "; the last repetition, cut by the trace's end after " + std::to_string(lastKernels) +
                      " of " + std::to_string(period) + " kernels, is not a step";
            positions.pop_back();
        }
    }
    const std::size_t anchorFirst = positions.front();
    for (std::size_t j = 0; j < positions.size(); ++j) {
        std::size_t begin = positions[j];
        std::size_t end = j + 1 < positions.size() ? positions[j + 1] : std::min(n, begin + period);
        TimestampNs startNs = kt.startNs[rows[begin]];
        TimestampNs endNs = startNs;
        for (std::size_t i = begin; i < end; ++i) {
            endNs = std::max(endNs, kt.endNs[rows[i]]);
        }
        if (j + 1 < positions.size()) {
            endNs = std::max(endNs, kt.startNs[rows[positions[j + 1]]]);
        }
        Candidate c;
        c.cpuRange = {startNs, endNs};
        c.number = static_cast<std::int64_t>(j);
        c.name = "iteration " + std::to_string(j) + " (kernel period)";
        out.push_back(std::move(c));
    }
    leadingKernels = static_cast<std::int64_t>(anchorFirst);
    leadingNs = anchorFirst > 0 ? kt.startNs[rows[anchorFirst]] - kt.startNs[rows[0]] : 0;
    note = "steps from the repeating kernel sequence on device " + std::to_string(device) + ": period " +
           std::to_string(period) + " kernels, " + std::to_string(positions.size()) +
           " repetitions starting at '" + std::string(model.text(core::StringId{found.anchor})) + "'" +
           cutNote;
    return out;
}

// Step index whose host range contains t (latest-starting when several do), -1 if none.
class StepLookup {
public:
    explicit StepLookup(const std::vector<Step>& steps) : m_steps(steps) {
        m_prefixMaxEnd.reserve(steps.size());
        TimestampNs maxEnd = std::numeric_limits<TimestampNs>::min();
        for (const Step& s : steps) {
            maxEnd = std::max(maxEnd, s.cpuRange.endNs);
            m_prefixMaxEnd.push_back(maxEnd);
        }
    }
    std::int32_t find(TimestampNs t) const {
        auto it = std::upper_bound(m_steps.begin(), m_steps.end(), t,
                                   [](TimestampNs v, const Step& s) { return v < s.cpuRange.startNs; });
        std::ptrdiff_t i = (it - m_steps.begin()) - 1;
        while (i >= 0 && m_prefixMaxEnd[static_cast<std::size_t>(i)] > t) {
            if (m_steps[static_cast<std::size_t>(i)].cpuRange.contains(t)) {
                return static_cast<std::int32_t>(i);
            }
            --i;
        }
        return -1;
    }

private:
    const std::vector<Step>& m_steps;
    std::vector<TimestampNs> m_prefixMaxEnd;
};

template <class Table>
void assignGpuRows(const core::TraceModel& model, const Table& table, const StepLookup& lookup,
                   std::vector<Step>& steps, std::vector<std::int32_t>& rowStep, std::int64_t Step::*counter,
                   bool stretch, bool byGpuStart) {
    rowStep.assign(table.size(), -1);
    for (std::size_t i = 0; i < table.size(); ++i) {
        core::ApiCallId call = table.launchCall[i];
        const bool launched = call.valid() && call.index < model.apiCalls.size();
        // Steps on the GPU clock (the repeating-kernel fallback) take GPU rows by their GPU start; steps
        // on the host clock take them by the launch call that issued them.
        TimestampNs launchNs =
            launched && !byGpuStart ? model.apiCalls.startNs[call.index] : table.startNs[i];
        std::int32_t s = lookup.find(launchNs);
        if (s < 0 && launched && !byGpuStart) {
            s = lookup.find(table.startNs[i]);
        }
        if (s >= 0 && launched && byGpuStart) {
            // The host side of a GPU-clock step: the span of the launch calls of its work.
            Step& step = steps[static_cast<std::size_t>(s)];
            const TimeRange callRange{model.apiCalls.startNs[call.index], model.apiCalls.endNs[call.index]};
            if (step.launchCallCount++ == 0) {
                step.launchRange = callRange;
            } else {
                step.launchRange.startNs = std::min(step.launchRange.startNs, callRange.startNs);
                step.launchRange.endNs = std::max(step.launchRange.endNs, callRange.endNs);
            }
        }
        rowStep[i] = s;
        if (s < 0) {
            continue;
        }
        Step& step = steps[static_cast<std::size_t>(s)];
        ++(step.*counter);
        TimestampNs endNs = std::max(table.startNs[i], table.endNs[i]);
        if (step.kernelCount + step.memcpyCount + step.memsetCount == 1) {  // first GPU row of the step
            step.gpuRange = {table.startNs[i], endNs};
        } else {
            step.gpuRange.startNs = std::min(step.gpuRange.startNs, table.startNs[i]);
            step.gpuRange.endNs = std::max(step.gpuRange.endNs, endNs);
        }
        if (stretch) {
            step.range.startNs = std::min(step.range.startNs, table.startNs[i]);
            step.range.endNs = std::max(step.range.endNs, endNs);
        }
    }
}

// The end of the GPU work in `table` launched before `t` and attributed to no step (work of an
// earlier step the trace window does not hold), or INT64_MIN.
template <class Table>
TimestampNs unattributedEndBefore(const core::TraceModel& model, const Table& table,
                                  const std::vector<std::int32_t>& rowStep, TimestampNs t) {
    TimestampNs end = std::numeric_limits<TimestampNs>::min();
    for (std::size_t i = 0; i < table.size(); ++i) {
        const core::ApiCallId call = table.launchCall[i];
        const TimestampNs launchNs = call.valid() && call.index < model.apiCalls.size()
                                         ? model.apiCalls.startNs[call.index]
                                         : table.startNs[i];
        if (rowStep[i] < 0 && launchNs < t) {
            end = std::max(end, std::max(table.startNs[i], table.endNs[i]));
        }
    }
    return end;
}

// A host that runs ahead of the GPU starts step N while the GPU still works on earlier steps: the
// GPU can start N only when that queue is done. A window from the host's start would hold the
// earlier steps' GPU time (hta-ns-resolution read steps of 35 ms, 72 ms and 185 ms for a job whose
// GPU period is 96 ms; hta-negative-queue's last step 374 ms against 216 ms), so each step starts at
// the later of its host start and the end of the GPU work queued before it (never after its own
// first GPU op, which another stream may run early). Host-bound and data-bound steps, whose GPU is
// idle at their start, are unchanged. Returns the steps moved.
std::int32_t startWhenTheGpuIsFree(const core::TraceModel& model, StepsResult& result) {
    std::vector<Step>& steps = result.steps;
    for (std::size_t i = 1; i < steps.size(); ++i) {
        if (steps[i].cpuRange.startNs < steps[i - 1].cpuRange.endNs) {
            return 0;  // steps of several threads overlap: no one order to queue them in
        }
    }
    if (steps.empty()) {
        return 0;
    }
    const TimestampNs first = steps.front().range.startNs;
    TimestampNs queuedUntil =
        std::max({unattributedEndBefore(model, model.kernels, result.kernelStep, first),
                  unattributedEndBefore(model, model.memcpys, result.memcpyStep, first),
                  unattributedEndBefore(model, model.memsets, result.memsetStep, first)});
    std::int32_t moved = 0;
    for (Step& step : steps) {
        const bool hasGpuWork = step.kernelCount + step.memcpyCount + step.memsetCount > 0;
        const TimestampNs start = std::min(std::max(step.range.startNs, queuedUntil), step.range.endNs);
        if (start > step.range.startNs) {
            step.range.startNs = start;
            ++moved;
        }
        if (hasGpuWork) {
            queuedUntil = std::max(queuedUntil, step.gpuRange.endNs);
        }
    }
    return moved;
}

}  // namespace

std::string_view toString(StepSource source) {
    switch (source) {
        case StepSource::ProfilerStep:
            return "ProfilerStep";
        case StepSource::NamedRange:
            return "named range";
        case StepSource::OptimizerMarker:
            return "optimizer marker";
        case StepSource::RepeatingKernels:
            return "repeating kernels";
        case StepSource::WholeTrace:
            return "whole trace";
        case StepSource::StepMarker:
            return "step marker";
    }
    return "whole trace";
}

bool matchesStepPattern(std::string_view name, const std::vector<std::string>& patterns) {
    const std::string lowered = core::toLower(name);
    for (const std::string& pattern : patterns) {
        if (pattern.empty() || lowered.size() < pattern.size() ||
            lowered.compare(0, pattern.size(), pattern) != 0) {
            continue;
        }
        if (lowered.size() == pattern.size() ||
            !std::isalpha(static_cast<unsigned char>(lowered[pattern.size()]))) {
            return true;
        }
    }
    return false;
}

TimeRange StepsResult::span() const {
    if (steps.empty()) {
        return {};
    }
    TimeRange r = steps.front().range;
    for (const Step& s : steps) {
        r.startNs = std::min(r.startNs, s.range.startNs);
        r.endNs = std::max(r.endNs, s.range.endNs);
    }
    return r;
}

StepsResult detectSteps(const core::TraceModel& model, const StepDetectionOptions& options) {
    StepsResult result;
    result.stepMarkers = stepMarkerPrefixes(model, options);
    std::vector<Candidate> candidates;
    const bool defaults = result.stepMarkers == names::defaultStepMarkerPrefixes();
    for (const std::string& prefix : result.stepMarkers) {
        // The default plain "step" prefix is read with the named-range rule below (word boundary,
        // any case: "step_12", "Step 3"); a capture's own --marker is matched as the agent does.
        if (defaults && prefix == names::kPlainStepPrefix) {
            continue;
        }
        candidates = markerSteps(model, prefix);
        if (!candidates.empty()) {
            const bool profiler = prefix == names::kProfilerStepPrefix;
            result.source = profiler ? StepSource::ProfilerStep : StepSource::StepMarker;
            const bool one = candidates.size() == 1;
            result.note = std::to_string(candidates.size()) +
                          (profiler ? std::string(one ? " ProfilerStep range" : " ProfilerStep ranges")
                                    : std::string(one ? " step-marker range" : " step-marker ranges") +
                                          " named '" + prefix + "' and a number");
            break;
        }
    }
    if (candidates.empty()) {
        candidates = namedRangeSteps(model, options);
        if (!candidates.empty()) {
            result.source = StepSource::NamedRange;
            result.note = std::to_string(candidates.size()) + " step ranges named like '" +
                          candidates.front().name + "'";
        }
    }
    if (candidates.empty()) {
        candidates = optimizerSteps(model, options);
        if (!candidates.empty()) {
            result.source = StepSource::OptimizerMarker;
            result.note =
                std::to_string(candidates.size()) +
                " optimizer-step markers; each step ends where an optimizer step ends (the first one "
                "starts at the beginning of the trace and may be partial)";
        }
    }
    if (candidates.empty()) {
        std::string note;
        candidates = repeatingKernelSteps(model, options, note, result.leadingKernels, result.leadingNs);
        if (!candidates.empty()) {
            result.source = StepSource::RepeatingKernels;
            result.note = note;
            if (result.leadingKernels > 0) {
                result.note +=
                    "; " + std::to_string(result.leadingKernels) + " kernels over " +
                    core::formatDuration(result.leadingNs) +
                    " before the first repetition (start-up, model build, autotuning) belong to no step";
            }
        }
    }
    if (candidates.empty()) {
        TimeRange span = model.timeSpan();
        result.source = StepSource::WholeTrace;
        if (span.empty() && model.gpuEventCount() == 0 && model.cpuOps.size() == 0 &&
            model.ranges.size() == 0) {
            result.note = "the trace has no events: no steps";
        } else {
            result.note =
                "no step markers (ProfilerStep, chokepoint:step, step-named ranges, optimizer steps) and no "
                "repeating kernel sequence: the whole trace is analysed as one window";
            Candidate c;
            c.cpuRange = span;
            c.name = "whole trace";
            candidates.push_back(std::move(c));
        }
    }

    if (fromMarkers(result.source)) {
        result.note += dropStepCutByCaptureStop(model, candidates);
    }
    std::vector<TimeRange> dataWaits(candidates.size());
    if (fromMarkers(result.source)) {
        extendOverDataWaits(model, candidates, dataWaits);
        const auto waited =
            std::count_if(dataWaits.begin(), dataWaits.end(), [](const TimeRange& r) { return !r.empty(); });
        if (waited > 0) {
            result.note += "; " + std::to_string(waited) +
                           " steps start at the wait for their input just before the marker "
                           "(chokepoint:data / DataLoader ranges)";
        }
    }
    result.steps.reserve(candidates.size());
    for (std::size_t ci = 0; ci < candidates.size(); ++ci) {
        Candidate& c = candidates[ci];
        Step s;
        s.number = c.number;
        s.name = std::move(c.name);
        s.cpuRange = c.cpuRange;
        s.range = c.cpuRange;
        s.markerRange = c.range;
        s.markerOp = c.op;
        s.thread = c.thread;
        s.dataWaitRange = dataWaits[ci];
        result.steps.push_back(std::move(s));
    }
    StepLookup lookup(result.steps);
    const bool stretch = options.stretchOverGpuWork;
    const bool gpuClock = result.source == StepSource::RepeatingKernels;
    // Without GPU work nothing stretches a step: the steps are their host ranges.
    result.stretched = stretch && model.gpuEventCount() > 0;
    assignGpuRows(model, model.kernels, lookup, result.steps, result.kernelStep, &Step::kernelCount, stretch,
                  gpuClock);
    assignGpuRows(model, model.memcpys, lookup, result.steps, result.memcpyStep, &Step::memcpyCount, stretch,
                  gpuClock);
    assignGpuRows(model, model.memsets, lookup, result.steps, result.memsetStep, &Step::memsetCount, stretch,
                  gpuClock);
    if (fromMarkers(result.source)) {
        result.note += dropProfilerStopStub(result.steps);  // before clipping: it clips nothing
    }
    if (stretch && !gpuClock) {
        result.queuedSteps = startWhenTheGpuIsFree(model, result);
        if (result.queuedSteps > 0) {
            result.note +=
                "; " + std::to_string(result.queuedSteps) +
                (result.queuedSteps == 1 ? " step starts when the GPU finished the work queued before it"
                                         : " steps start when the GPU finished the work queued before them") +
                " (the host ran ahead of the GPU)";
        }
    }
    // Stretched steps tile the time line: GPU work that runs past the next step's start (the GPU
    // lagging the CPU) is clipped there, so the windows never overlap and their durations add up to
    // the wall-clock they cover. Host ranges that already overlap (several threads) are kept.
    for (std::size_t i = 0; i + 1 < result.steps.size(); ++i) {
        Step& step = result.steps[i];
        const TimestampNs nextStart = result.steps[i + 1].range.startNs;
        const TimestampNs clippedEnd = std::max(step.cpuRange.endNs, std::min(step.range.endNs, nextStart));
        if (clippedEnd < step.range.endNs) {
            step.range.endNs = clippedEnd;
            ++result.clippedSteps;
        }
    }
    if (gpuClock) {
        // The candidate ranges were GPU times: keep them as the step window and the GPU range, and
        // make the host range the launch calls' span (the host runs ahead of the GPU, so the two
        // differ); a step whose work has no launch calls keeps the GPU range on the host side too.
        for (Step& step : result.steps) {
            if (step.launchCallCount > 0) {
                step.cpuRange = step.launchRange;
            }
        }
    }
    for (std::size_t i = 1; i < result.steps.size(); ++i) {
        if (result.steps[i - 1].range.endNs > result.steps[i].range.startNs) {
            result.overlapping = true;
        }
    }
    if (result.clippedSteps > 0) {
        result.note +=
            result.clippedSteps == 1
                ? std::string("; 1 step's GPU work ran past the next step's start: it is clipped there")
                : "; " + std::to_string(result.clippedSteps) +
                      " steps' GPU work ran past the next step's start: each is clipped there";
    }
    if (result.overlapping) {
        result.note += "; some host step ranges overlap each other";
    }
    return result;
}

}  // namespace chokepoint::analysis
