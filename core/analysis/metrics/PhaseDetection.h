#pragma once
// Phases inside each step, where the trace allows:
//   DataLoading   `enumerate(DataLoader)#..__next__` ranges/ops (and other DataLoader ranges), input
//                 preparation frames in this process (decode, transforms, tokenization, collate;
//                 core/names/NameRules.h host role DataPreparation), work
//                 on DataLoader worker / pin-memory threads (thread names containing "dataloader",
//                 "data_worker", "pin_memory"), plus the batch's host-to-device copies (H2D copies
//                 launched inside a data-loading range or before the step's first non-H2D GPU work),
//   Forward       host time from the end of data loading to the first backward op of the step on
//                 the launching threads,
//   Backward      `autograd::engine::evaluate_function`, `*Backward*` ops, ops and runtime calls on
//                 autograd threads (thread names starting "pt_autograd"; the calls matter in
//                 captures without CPU ops),
//   Optimizer     `Optimizer.step#`, `Optimizer.zero_grad#`, `optimizer.step`, fused/foreach Adam,
//   Communication NCCL/RCCL kernels (GPU) and `c10d::` / `nccl:` / `record_param_comms` ops (CPU).
// Per phase: host ranges (merged), host time = |union of those ranges|, GPU time = |union of the GPU
// work launched from them| (for Communication also every collective kernel in the step). A kernel
// whose launch call is not in the trace takes the phase of the kernels around it on its stream when
// both have the same one (a stream runs kernels in issue order), else the phase whose host time it
// ran in.
// Units: ns. Pure function; O(n log n) in events.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/metrics/StepDetection.h"
#include "core/base/Time.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

enum class PhaseKind : std::uint8_t {
    DataLoading = 0,
    Forward,
    Backward,
    Optimizer,
    Communication,
};
inline constexpr std::size_t kPhaseKindCount = 5;

std::string_view toString(PhaseKind kind);

struct Phase {
    PhaseKind kind = PhaseKind::Forward;
    std::int32_t stepIndex = -1;
    std::vector<core::TimeRange> cpuRanges;  // merged host intervals labelled with this phase
    core::TimeRange span;                    // first start to last end of host ranges and GPU work
    core::DurationNs cpuTimeNs = 0;          // |union of cpuRanges|
    core::DurationNs gpuTimeNs = 0;          // |union of the GPU work attributed to the phase|
    std::int64_t gpuEventCount = 0;
};

struct PhasesResult {
    // Phases found, ordered by step then kind. A phase absent from a step was not seen there.
    std::vector<Phase> phases;
    // Which kinds were seen anywhere in the trace (index = PhaseKind).
    std::array<bool, kPhaseKindCount> seen{};
    std::string note;  // what the trace lacked ("no backward markers: forward/backward not split")
    // Phase of every GPU row (index = PhaseKind, -1 = not attributed).
    std::vector<std::int8_t> kernelPhase, memcpyPhase, memsetPhase;
};

PhasesResult detectPhases(const core::TraceModel& model, const StepsResult& steps);

// Name classifiers used by the phases (forwarders to core/names/NameRules.h, kept for callers).
bool isDataLoadingName(std::string_view name);
bool isBackwardOpName(std::string_view name);
bool isOptimizerName(std::string_view name);
bool isCommunicationOpName(std::string_view name);

}  // namespace chokepoint::analysis
