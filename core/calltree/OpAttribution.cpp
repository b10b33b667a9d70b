#include "core/calltree/OpAttribution.h"

#include <algorithm>

namespace chokepoint::calltree {

OpAttribution attributeOps(const core::TraceModel& model, const CallTreeOptions& options) {
    const core::CpuOpTable& ops = model.cpuOps;
    const std::size_t n = ops.size();
    OpAttribution a;
    a.included.assign(n, 0);
    a.effectiveParent.assign(n, kNoOp);
    a.totalNs.assign(n, 0);
    a.selfNs.assign(n, 0);
    a.gpuSelfNs.assign(n, 0);
    a.gpuNs.assign(n, 0);

    std::vector<core::DurationNs> coveredNs(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        a.included[i] = options.includePython || ops.category[i] != core::CpuOpCategory::PythonFunction;
        a.totalNs[i] = std::max<core::DurationNs>(0, ops.endNs[i] - ops.startNs[i]);
        const core::CpuOpId parent = ops.parent[i];
        if (parent.valid() && parent.index < i) {  // finalize puts parents first; guard anyway
            a.effectiveParent[i] = a.included[parent.index] ? parent.index : a.effectiveParent[parent.index];
        }
        const std::uint32_t p = a.effectiveParent[i];
        if (a.included[i] && p != kNoOp) {
            const core::TimestampNs from = std::max(ops.startNs[i], ops.startNs[p]);
            const core::TimestampNs to = std::min(ops.endNs[i], ops.endNs[p]);
            coveredNs[p] += std::max<core::DurationNs>(0, to - from);
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        a.selfNs[i] = std::max<core::DurationNs>(0, a.totalNs[i] - coveredNs[i]);
    }

    const core::KernelTable& kernels = model.kernels;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        const core::DurationNs durationNs = std::max<core::DurationNs>(0, kernels.durationNs(k));
        std::uint32_t target = kNoOp;
        const core::ApiCallId call = kernels.launchCall[k];
        if (call.valid() && call.index < model.apiCalls.size()) {
            const core::CpuOpId op = model.apiCalls.cpuOp[call.index];
            if (op.valid() && op.index < n) {
                target = a.included[op.index] ? op.index : a.effectiveParent[op.index];
            }
        }
        if (target == kNoOp) {
            a.unattributedGpuNs += durationNs;
            ++a.unattributedKernels;
        } else {
            a.gpuSelfNs[target] += durationNs;
        }
    }
    // Children come after their parents: a reverse sweep finishes each op before its parent.
    for (std::size_t i = n; i-- > 0;) {
        if (!a.included[i]) {
            continue;
        }
        a.gpuNs[i] += a.gpuSelfNs[i];
        if (a.effectiveParent[i] != kNoOp) {
            a.gpuNs[a.effectiveParent[i]] += a.gpuNs[i];
        }
    }
    return a;
}

}  // namespace chokepoint::calltree
