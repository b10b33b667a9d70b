#pragma once
// Building blocks of the call-tree builders (CallTree.cpp, SampledCallTree.cpp): the merged-node
// index and the children's order. Internal to core/calltree.

#include <algorithm>
#include <unordered_map>

#include "core/calltree/CallTree.h"
#include "core/calltree/NodeKey.h"

namespace chokepoint::calltree::detail {

// Finds or adds the child of `parent` with this name, shapes and file. A thread's node (sampled
// trees) is keyed by its thread index in place of a name.
class NodeIndex {
public:
    explicit NodeIndex(CallTree& tree) : m_tree(tree) {}

    std::uint32_t child(std::uint32_t parent, core::StringId name, core::StringId shapes,
                        core::StringId file = {}, core::ThreadIndex thread = core::kNoThread) {
        const std::uint32_t nameKey =
            thread != core::kNoThread ? static_cast<std::uint32_t>(thread) : name.index;
        const NodeKey key{parent, nameKey, shapes.index,
                          thread != core::kNoThread ? 0xFFFFFFFFu : file.index};
        auto [it, added] = m_index.try_emplace(key, static_cast<std::uint32_t>(m_tree.nodes.size()));
        if (added) {
            CallNode node;
            node.name = name;
            node.inputShapes = shapes;
            node.file = file;
            node.thread = thread;
            node.parent = parent;
            node.depth = m_tree.nodes[parent].depth + 1;
            m_tree.nodes.push_back(node);
            m_tree.nodes[parent].children.push_back(it->second);
        }
        return it->second;
    }

private:
    CallTree& m_tree;
    std::unordered_map<NodeKey, std::uint32_t, NodeKeyHash> m_index;
};

// Orders every node's children by `key` (largest first), then the other time, then node id.
inline void sortChildren(CallTree& tree, core::DurationNs CallNode::*key,
                         core::DurationNs CallNode::*tieBreak) {
    for (CallNode& node : tree.nodes) {
        std::sort(node.children.begin(), node.children.end(), [&](std::uint32_t a, std::uint32_t b) {
            const CallNode& x = tree.nodes[a];
            const CallNode& y = tree.nodes[b];
            if (x.*key != y.*key) {
                return x.*key > y.*key;
            }
            return x.*tieBreak != y.*tieBreak ? x.*tieBreak > y.*tieBreak : a < b;
        });
    }
}

}  // namespace chokepoint::calltree::detail
