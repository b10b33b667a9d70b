#pragma once
// Call trees over CPU ops (framework operators and Python stack frames), merged by name path.
//
// Top-down: the root's children are the outermost ops of every thread; a node is one name path
// (root > forward > aten::linear > aten::addmm), merged over every call and every thread. Each node
// sums its calls' total, self (exclusive) and GPU time (see OpAttribution.h).
//
// Bottom-up: the root's children are every function, most self time first; a node's children are
// its callers, their children the callers' callers. Each top-down node N adds its calls, self and GPU self
// time to every node of its reversed path (N's name, its parent's, ...). Total and inclusive GPU time are
// added only for the outermost call of a recursive function (N's name does not occur among its
// ancestors), so recursion does not count time twice.

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/calltree/CallTreeOptions.h"
#include "core/model/TraceModel.h"

namespace chokepoint::calltree {

inline constexpr std::uint32_t kNoNode = 0xFFFFFFFFu;

struct CallNode {
    core::StringId name;         // invalid for the root
    core::StringId inputShapes;  // invalid unless grouped by input shapes
    // Sampled trees (SampledCallTree.h): a frame's node has name = its function and file = its
    // file; a thread's node (the level under the root) has `thread`. Invalid / kNoThread for ops.
    core::StringId file;
    core::ThreadIndex thread = core::kNoThread;
    std::uint32_t parent = kNoNode;
    std::uint32_t depth = 0;  // root 0
    std::int64_t calls = 0;
    core::DurationNs totalNs = 0;
    core::DurationNs selfNs = 0;
    core::DurationNs gpuNs = 0;           // kernels launched by these calls and everything they called
    core::DurationNs gpuSelfNs = 0;       // kernels launched directly by these calls
    core::CpuOpId longestOp;              // the longest call, to find one on the timeline
    core::DurationNs longestNs = 0;       // its duration
    std::vector<std::uint32_t> children;  // top-down: by totalNs; bottom-up: by selfNs; largest first
};

struct CallTree {
    static constexpr std::uint32_t kRoot = 0;
    std::vector<CallNode> nodes;  // nodes[0] is the root
    // Built from stack samples (SampledCallTree.h): calls count samples, times are wall clock.
    bool sampled = false;
    core::DurationNs unattributedGpuNs = 0;  // kernel time whose launch is in no included op
    std::int64_t unattributedKernels = 0;

    const CallNode& root() const { return nodes[kRoot]; }
    std::size_t size() const { return nodes.size(); }
};

// Top-down tree. The root's totalNs is the sum of the outermost ops' durations, its gpuNs the
// kernel time attributed to any op; its calls count the outermost ops. Linear in ops + kernels.
CallTree buildTopDown(const core::TraceModel& model, const CallTreeOptions& options = {});

// Bottom-up tree of a top-down tree. O(nodes x depth) of the merged tree.
CallTree buildBottomUp(const CallTree& topDown);

// The nodes from the root's child down to `node` (empty for the root).
std::vector<std::uint32_t> pathTo(const CallTree& tree, std::uint32_t node);

}  // namespace chokepoint::calltree
