#include "core/analysis/metrics/StackIdleProfile.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace chokepoint::analysis {

using core::DurationNs;
using core::TimeRange;

const DeviceStackIdle* StackIdleProfile::device(std::int16_t deviceIndex) const {
    for (const DeviceStackIdle& d : devices) {
        if (d.deviceIndex == deviceIndex) {
            return &d;
        }
    }
    return nullptr;
}

namespace {

static_assert(static_cast<std::size_t>(names::HostRole::CompiledRegion) + 1 == kHostRoleCount);

// "RandomResizedCrop.forward (transforms.py:980)": the function, then the file's last component.
std::string frameLabel(const core::TraceModel& model, core::FrameIndex f) {
    if (f >= model.stackFrames.size()) {
        return "?";
    }
    const core::StackFrame& frame = model.stackFrames[f];
    std::string out(model.text(frame.function));
    std::string_view file = model.text(frame.file);
    if (const std::size_t slash = file.find_last_of("/\\"); slash != std::string_view::npos) {
        file.remove_prefix(slash + 1);
    }
    if (!file.empty()) {
        out += " (" + std::string(file) + (frame.line > 0 ? ":" + std::to_string(frame.line) : "") + ")";
    }
    return out;
}

// Time of `span` inside the sorted, disjoint `gaps`, starting the search at `cursor` (advanced past
// gaps that end before the span; spans come in time order).
DurationNs overlapWithGaps(const std::vector<TimeRange>& gaps, std::size_t& cursor, TimeRange span) {
    while (cursor < gaps.size() && gaps[cursor].endNs <= span.startNs) {
        ++cursor;
    }
    DurationNs covered = 0;
    for (std::size_t g = cursor; g < gaps.size() && gaps[g].startNs < span.endNs; ++g) {
        covered += gaps[g].intersect(span).durationNs();
    }
    return covered;
}

SampledThreadIdle threadIdle(const SampledStacks& stacks, core::ThreadIndex thread,
                             const std::vector<std::uint32_t>& samples, const std::vector<TimeRange>& gaps) {
    const core::TraceModel& model = stacks.model();
    SampledThreadIdle out;
    out.thread = thread;
    std::unordered_map<core::StackIndex, DurationNs> byStack;
    std::size_t cursor = 0;
    for (std::uint32_t i : samples) {
        const DurationNs ns = overlapWithGaps(gaps, cursor, stacks.span(i));
        if (ns > 0) {
            byStack[model.stackSamples.stack[i]] += ns;
            out.sampledNs += ns;
        }
    }
    std::unordered_map<core::FrameIndex, SampledFrameTime> byFrame;
    std::vector<core::FrameIndex> seen;
    for (const auto& [stack, ns] : byStack) {
        out.stacks.push_back({stack, ns, stacks.role(stack).role, {}});
        out.byRoleNs[static_cast<std::size_t>(stacks.role(stack).role) % kHostRoleCount] += ns;
        const std::span<const core::FrameIndex> frames = model.stack(stack);
        seen.clear();
        for (std::size_t k = 0; k < frames.size(); ++k) {
            const core::FrameIndex f = frames[k];
            if (std::find(seen.begin(), seen.end(), f) != seen.end()) {
                continue;  // recursion: once per sample
            }
            seen.push_back(f);
            SampledFrameTime& t = byFrame[f];
            t.frame = f;
            t.inclusiveNs += ns;
            t.exclusiveNs += k == 0 ? ns : 0;
        }
    }
    std::sort(out.stacks.begin(), out.stacks.end(), [](const SampledStackTime& a, const SampledStackTime& b) {
        return a.ns != b.ns ? a.ns > b.ns : a.stack < b.stack;
    });
    constexpr std::size_t kTopStacks = 10, kTopFrames = 20;
    if (out.stacks.size() > kTopStacks) {
        out.stacks.resize(kTopStacks);
    }
    for (SampledStackTime& st : out.stacks) {
        st.path = stacks.pathText(st.stack);
    }
    for (const auto& [frame, t] : byFrame) {
        out.frames.push_back(t);
    }
    std::sort(out.frames.begin(), out.frames.end(), [](const SampledFrameTime& a, const SampledFrameTime& b) {
        if (a.inclusiveNs != b.inclusiveNs) {
            return a.inclusiveNs > b.inclusiveNs;
        }
        return a.exclusiveNs != b.exclusiveNs ? a.exclusiveNs > b.exclusiveNs : a.frame < b.frame;
    });
    if (out.frames.size() > kTopFrames) {
        out.frames.resize(kTopFrames);
    }
    for (SampledFrameTime& f : out.frames) {
        f.name = frameLabel(model, f.frame);
    }
    return out;
}

}  // namespace

StackIdleProfile computeStackIdleProfile(const SampledStacks& stacks,
                                         const GpuTimeAccountingResult& accounting,
                                         const std::vector<bool>& steadySteps) {
    StackIdleProfile profile;
    if (stacks.empty()) {
        return profile;
    }
    // Device-level gaps of the counted steps, per device, in time order.
    std::map<std::int16_t, std::vector<TimeRange>> gaps;
    for (const IdleInterval& idle : accounting.idleIntervals) {
        if (idle.streamId >= 0) {
            continue;
        }
        const bool counted =
            steadySteps.empty() ||
            (idle.stepIndex >= 0 && static_cast<std::size_t>(idle.stepIndex) < steadySteps.size() &&
             steadySteps[static_cast<std::size_t>(idle.stepIndex)]);
        if (counted && !idle.range.empty()) {
            gaps[idle.deviceIndex].push_back(idle.range);
        }
    }
    for (auto& [device, list] : gaps) {
        std::sort(list.begin(), list.end(),
                  [](const TimeRange& a, const TimeRange& b) { return a.startNs < b.startNs; });
        DeviceStackIdle d;
        d.deviceIndex = device;
        for (const TimeRange& gap : list) {
            d.idleNs += gap.durationNs();
        }
        const std::vector<std::vector<std::uint32_t>>& byThread = stacks.samplesByThread();
        for (std::size_t t = 0; t < byThread.size(); ++t) {
            if (byThread[t].empty()) {
                continue;
            }
            SampledThreadIdle thread =
                threadIdle(stacks, static_cast<core::ThreadIndex>(t), byThread[t], list);
            if (thread.sampledNs > 0) {
                d.threads.push_back(std::move(thread));
            }
        }
        std::sort(d.threads.begin(), d.threads.end(),
                  [](const SampledThreadIdle& a, const SampledThreadIdle& b) {
                      return a.sampledNs != b.sampledNs ? a.sampledNs > b.sampledNs : a.thread < b.thread;
                  });
        if (!d.threads.empty()) {
            profile.devices.push_back(std::move(d));
        }
    }
    return profile;
}

}  // namespace chokepoint::analysis
