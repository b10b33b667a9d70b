#pragma once
// Per-op figures shared by the call trees and the Ops table: for every CPU op row, its nearest
// included ancestor, its duration, its self (exclusive) CPU time and the GPU kernel time it launched.
//
// - totalNs: endNs - startNs.
// - selfNs: totalNs minus the part of it covered by its included children, each child clipped to
//   the op's interval (the model nests partially overlapping ops; clipping keeps self >= 0).
//   Children on one thread never overlap each other (a later op that starts inside an earlier one
//   becomes its child), so the covered time is a plain sum.
// - gpuSelfNs: kernels whose launch call (kernel.launchCall) sits directly in the op
//   (apiCalls.cpuOp); gpuNs adds its descendants' kernels.
// With Python frames excluded, a frame's children and kernels go to its nearest included ancestor.

#include <cstdint>
#include <vector>

#include "core/calltree/CallTreeOptions.h"
#include "core/model/TraceModel.h"

namespace chokepoint::calltree {

inline constexpr std::uint32_t kNoOp = 0xFFFFFFFFu;

struct OpAttribution {
    std::vector<std::uint8_t> included;          // 1 when the op takes part (options.includePython)
    std::vector<std::uint32_t> effectiveParent;  // nearest included ancestor, or kNoOp
    std::vector<core::DurationNs> totalNs, selfNs, gpuSelfNs, gpuNs;
    core::DurationNs unattributedGpuNs = 0;  // kernels whose launch is in no included op
    std::int64_t unattributedKernels = 0;
};

// Linear in ops + kernels. Requires a finalized model (rows sorted, parents before children).
OpAttribution attributeOps(const core::TraceModel& model, const CallTreeOptions& options);

}  // namespace chokepoint::calltree
