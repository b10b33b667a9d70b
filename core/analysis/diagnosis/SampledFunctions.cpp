#include "core/analysis/diagnosis/SampledFunctions.h"

#include "core/calltree/SampledCallTree.h"

namespace chokepoint::analysis {

void fillSampledFunctions(const core::TraceModel& model, AnalysisReport& report) {
    if (model.stackSamples.size() == 0) {
        return;
    }
    const calltree::CallTree topDown = calltree::buildSampledTopDown(model);
    const calltree::CallTree bottomUp = calltree::buildBottomUp(topDown);
    const calltree::CallNode& root = topDown.root();
    report.stackSampleCount = root.calls;
    report.sampledThreadCount = static_cast<std::int32_t>(root.children.size());
    report.sampledTimeNs = root.totalNs;
    // The bottom-up root's children are the functions, by self time; the thread nodes hold the
    // samples whose stack was empty, which name no function.
    for (const std::uint32_t id : bottomUp.root().children) {
        const calltree::CallNode& n = bottomUp.nodes[id];
        if (n.thread != core::kNoThread || n.selfNs <= 0) {
            continue;
        }
        SampledFunction f;
        f.function = std::string(model.text(n.name));
        f.file = std::string(model.text(n.file));
        f.selfNs = n.selfNs;
        f.totalNs = n.totalNs;
        f.shareOfSampledTime =
            root.totalNs > 0 ? static_cast<double>(n.selfNs) / static_cast<double>(root.totalNs) : 0.0;
        report.sampledFunctions.push_back(std::move(f));
    }
}

}  // namespace chokepoint::analysis
