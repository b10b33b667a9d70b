#pragma once
// Sampled call stacks (TraceModel::stackSamples, the Python sampler's) prepared for the analyses:
// what each stack was doing (NameRules' stackRoleOf, each frame classified once) and how much time
// each sample stands for.
//
// The time a sample stands for is core::stackSampleSpans' (core/model/SampleSpans.h): to the
// thread's next sample, at most twice its median interval.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/Time.h"
#include "core/model/TraceModel.h"
#include "core/names/NameRules.h"

namespace chokepoint::analysis {

class SampledStacks {
public:
    explicit SampledStacks(const core::TraceModel& model);

    bool empty() const { return m_spans.empty(); }
    std::size_t size() const { return m_spans.size(); }
    const core::TraceModel& model() const { return m_model; }

    // The time sample i stands for (see above); empty for a sample whose stack or thread is unknown.
    core::TimeRange span(std::size_t sample) const { return m_spans[sample]; }
    // What stack s was doing; HostRole::None for an unknown stack.
    names::StackRole role(core::StackIndex stack) const;
    // The sampled frame's name as the name table reads it ("<file>(<line>): <function>").
    const std::string& frameName(core::FrameIndex frame) const;
    // The leaf frame's function (an empty id for an empty or unknown stack).
    core::StringId leafFunction(core::StackIndex stack) const;
    // Indices of the samples of each thread, in time order (index = ThreadIndex).
    const std::vector<std::vector<std::uint32_t>>& samplesByThread() const { return m_byThread; }

    // A stack as a short path, root to leaf, of the frames that say what it does (those with a host
    // role, and the leaf; every frame when none has a role), function names only, at most maxFrames
    // (the outermost, "…", then the innermost): "_BaseDataLoaderIter.__next__ → … →
    // DatasetFolder.__getitem__ → Compose.__call__ → RandomResizedCrop.forward".
    std::string pathText(core::StackIndex stack, std::size_t maxFrames = 4) const;

private:
    const core::TraceModel& m_model;
    std::vector<core::TimeRange> m_spans;
    std::vector<names::StackRole> m_roles;
    std::vector<names::HostRole> m_frameRoles;
    std::vector<std::string> m_frameNames;
    std::vector<std::vector<std::uint32_t>> m_byThread;
};

}  // namespace chokepoint::analysis
