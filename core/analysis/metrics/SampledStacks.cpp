#include "core/analysis/metrics/SampledStacks.h"

#include <algorithm>

#include "core/model/SampleSpans.h"

namespace chokepoint::analysis {

SampledStacks::SampledStacks(const core::TraceModel& model) : m_model(model) {
    const core::StackSampleTable& t = model.stackSamples;
    if (t.size() == 0) {
        return;
    }
    m_frameNames.reserve(model.stackFrames.size());
    std::vector<names::HostRole>& frameRoles = m_frameRoles;
    frameRoles.reserve(model.stackFrames.size());
    for (const core::StackFrame& f : model.stackFrames) {
        m_frameNames.push_back(names::frameName(model.text(f.file), model.text(f.function), f.line));
        frameRoles.push_back(names::hostRoleOf(m_frameNames.back()));
    }
    m_roles.resize(model.stackCount());
    std::vector<names::HostRole> roles;
    for (core::StackIndex s = 0; s < model.stackCount(); ++s) {
        roles.clear();
        for (core::FrameIndex f : model.stack(s)) {
            roles.push_back(f < frameRoles.size() ? frameRoles[f] : names::HostRole::None);
        }
        m_roles[s] = names::stackRoleOfFrameRoles(roles);
    }
    core::SampleSpans spans = core::stackSampleSpans(model);
    m_spans = std::move(spans.span);
    m_byThread = std::move(spans.byThread);
}

names::StackRole SampledStacks::role(core::StackIndex stack) const {
    return stack < m_roles.size() ? m_roles[stack] : names::StackRole{};
}

const std::string& SampledStacks::frameName(core::FrameIndex frame) const {
    static const std::string kUnknown;
    return frame < m_frameNames.size() ? m_frameNames[frame] : kUnknown;
}

core::StringId SampledStacks::leafFunction(core::StackIndex stack) const {
    const std::span<const core::FrameIndex> frames = m_model.stack(stack);
    if (frames.empty() || frames.front() >= m_model.stackFrames.size()) {
        return {};
    }
    return m_model.stackFrames[frames.front()].function;
}

std::string SampledStacks::pathText(core::StackIndex stack, std::size_t maxFrames) const {
    const std::span<const core::FrameIndex> frames = m_model.stack(stack);
    if (frames.empty()) {
        return "(no frames)";
    }
    auto roleOf = [&](core::FrameIndex f) {
        return f < m_frameRoles.size() ? m_frameRoles[f] : names::HostRole::None;
    };
    const bool anyRole = std::any_of(frames.begin(), frames.end(),
                                     [&](core::FrameIndex f) { return roleOf(f) != names::HostRole::None; });
    std::vector<core::FrameIndex> path;  // root to leaf: the frames with a role (all without), and the leaf
    for (std::size_t i = frames.size(); i-- > 0;) {
        if (!anyRole || roleOf(frames[i]) != names::HostRole::None || i == 0) {
            path.push_back(frames[i]);
        }
    }
    auto name = [&](core::FrameIndex f) {
        return f < m_model.stackFrames.size() ? std::string(m_model.text(m_model.stackFrames[f].function))
                                              : std::string("?");
    };
    maxFrames = std::max<std::size_t>(maxFrames, 2);
    std::string out = name(path.front());
    const std::size_t tail = path.size() > maxFrames ? maxFrames - 1 : path.size() - 1;
    if (path.size() > maxFrames) {
        out += " → …";
    }
    for (std::size_t i = path.size() - tail; i < path.size(); ++i) {
        out += " → " + name(path[i]);
    }
    return out;
}

}  // namespace chokepoint::analysis
