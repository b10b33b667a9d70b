#include "core/calltree/SampledCallTree.h"

#include "core/calltree/NodeIndex.h"
#include "core/model/SampleSpans.h"

namespace chokepoint::calltree {

CallTree buildSampledTopDown(const core::TraceModel& model) {
    CallTree tree;
    tree.nodes.emplace_back();
    tree.sampled = true;
    const core::SampleSpans spans = core::stackSampleSpans(model);
    detail::NodeIndex index(tree);
    const core::StackSampleTable& samples = model.stackSamples;
    for (core::ThreadIndex thread = 0; thread < spans.byThread.size(); ++thread) {
        for (const std::uint32_t sample : spans.byThread[thread]) {
            const core::DurationNs ns = spans.span[sample].durationNs();
            const std::span<const core::FrameIndex> frames = model.stack(samples.stack[sample]);
            std::uint32_t node = index.child(CallTree::kRoot, {}, {}, {}, thread);
            tree.nodes[node].calls += 1;
            tree.nodes[node].totalNs += ns;
            // Frames are stored leaf first: walk them outermost first.
            for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
                if (*it >= model.stackFrames.size()) {
                    continue;  // an unknown frame id: its callers and callees still count
                }
                const core::StackFrame& frame = model.stackFrames[*it];
                node = index.child(node, frame.function, {}, frame.file);
                tree.nodes[node].calls += 1;
                tree.nodes[node].totalNs += ns;
            }
            tree.nodes[node].selfNs += ns;
            CallNode& root = tree.nodes[CallTree::kRoot];
            root.calls += 1;
            root.totalNs += ns;
        }
    }
    detail::sortChildren(tree, &CallNode::totalNs, &CallNode::selfNs);
    return tree;
}

}  // namespace chokepoint::calltree
