#include "core/calltree/CallTree.h"

#include <algorithm>

#include "core/calltree/NodeIndex.h"
#include "core/calltree/OpAttribution.h"

namespace chokepoint::calltree {
using detail::NodeIndex;
using detail::sortChildren;

CallTree buildTopDown(const core::TraceModel& model, const CallTreeOptions& options) {
    const OpAttribution a = attributeOps(model, options);
    const core::CpuOpTable& ops = model.cpuOps;
    CallTree tree;
    tree.nodes.emplace_back();
    tree.unattributedGpuNs = a.unattributedGpuNs;
    tree.unattributedKernels = a.unattributedKernels;
    NodeIndex index(tree);
    std::vector<std::uint32_t> nodeOfOp(ops.size(), kNoNode);
    for (std::size_t i = 0; i < ops.size(); ++i) {
        if (!a.included[i]) {
            continue;
        }
        const std::uint32_t p = a.effectiveParent[i];
        const std::uint32_t parentNode = p == kNoOp ? CallTree::kRoot : nodeOfOp[p];
        const core::StringId shapes = options.byInputShapes ? ops.inputShapes[i] : core::StringId{};
        const std::uint32_t id = index.child(parentNode, ops.name[i], shapes);
        nodeOfOp[i] = id;
        CallNode& node = tree.nodes[id];
        ++node.calls;
        node.totalNs += a.totalNs[i];
        node.selfNs += a.selfNs[i];
        node.gpuNs += a.gpuNs[i];
        node.gpuSelfNs += a.gpuSelfNs[i];
        if (!node.longestOp.valid() || a.totalNs[i] > node.longestNs) {
            node.longestOp = core::CpuOpId{static_cast<std::uint32_t>(i)};
            node.longestNs = a.totalNs[i];
        }
        if (p == kNoOp) {
            CallNode& root = tree.nodes[CallTree::kRoot];
            ++root.calls;
            root.totalNs += a.totalNs[i];
            root.gpuNs += a.gpuNs[i];
        }
    }
    sortChildren(tree, &CallNode::totalNs, &CallNode::selfNs);
    return tree;
}

CallTree buildBottomUp(const CallTree& topDown) {
    CallTree tree;
    tree.nodes.emplace_back();
    tree.sampled = topDown.sampled;
    tree.unattributedGpuNs = topDown.unattributedGpuNs;
    tree.unattributedKernels = topDown.unattributedKernels;
    if (topDown.nodes.empty()) {
        return tree;
    }
    const CallNode& tdRoot = topDown.root();
    tree.nodes[CallTree::kRoot].calls = tdRoot.calls;
    tree.nodes[CallTree::kRoot].totalNs = tdRoot.totalNs;
    tree.nodes[CallTree::kRoot].gpuNs = tdRoot.gpuNs;
    NodeIndex index(tree);
    std::vector<std::uint32_t> path;
    for (std::uint32_t id = 1; id < topDown.nodes.size(); ++id) {
        const CallNode& n = topDown.nodes[id];
        path.clear();
        bool recursive = false;
        for (std::uint32_t at = id; at != CallTree::kRoot && at != kNoNode; at = topDown.nodes[at].parent) {
            path.push_back(at);
            if (at != id && topDown.nodes[at].name == n.name &&
                topDown.nodes[at].inputShapes == n.inputShapes && topDown.nodes[at].file == n.file) {
                recursive = true;
            }
        }
        std::uint32_t bu = CallTree::kRoot;
        for (std::uint32_t td : path) {
            const CallNode& from = topDown.nodes[td];
            bu = index.child(bu, from.name, from.inputShapes, from.file, from.thread);
            CallNode& node = tree.nodes[bu];
            node.calls += n.calls;
            node.selfNs += n.selfNs;
            node.gpuSelfNs += n.gpuSelfNs;
            if (!recursive) {
                node.totalNs += n.totalNs;
                node.gpuNs += n.gpuNs;
            }
            if (!node.longestOp.valid() || n.longestNs > node.longestNs) {
                node.longestOp = n.longestOp;
                node.longestNs = n.longestNs;
            }
        }
    }
    sortChildren(tree, &CallNode::selfNs, &CallNode::totalNs);  // hottest functions first
    return tree;
}

std::vector<std::uint32_t> pathTo(const CallTree& tree, std::uint32_t node) {
    std::vector<std::uint32_t> path;
    for (std::uint32_t at = node; at != CallTree::kRoot && at < tree.nodes.size();
         at = tree.nodes[at].parent) {
        path.push_back(at);
    }
    std::reverse(path.begin(), path.end());
    return path;
}

}  // namespace chokepoint::calltree
