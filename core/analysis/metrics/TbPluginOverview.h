#pragma once
// TensorBoard PyTorch Profiler plugin (torch-tb-profiler) parity: the plugin's Overview figures,
// computed with the plugin's own definitions so our numbers can be put beside the ones people saw
// in TensorBoard (pytorch/kineto, tb_plugin/torch_tb_profiler/profiler/{event_parser,overall_parser,
// gpu_metrics_parser,range_utils}.py at commit 041e7ce9; the per-kernel inputs are libkineto's
// DeviceProperties.cpp). The rules, summarized:
//   * steps: every ProfilerStep#N (host range or op). Each step is stretched to the GPU work whose
//     launch call lies inside it: start = max(previous step's end, host start), end = max(host end,
//     latest end of that GPU work). Trailing steps that launched no GPU work are dropped, then the
//     last step too when it launched fewer than 0.8x the GPU ops of the step before it. Without
//     ProfilerStep the whole CPU span is one step.
//   * step breakdown: the roles below, in priority order, each claim their merged intervals inside
//     the (still unclaimed part of the) steps; what nobody claims is Other. Averages are plain means
//     over the kept steps; a role's share is its average over the average step time.
//   * GPU utilization = |union of kernels on the GPU within [first step start, last step end)| /
//     that span (memcpy and memset do not count).
//   * estimated SM efficiency = integral over the span of min(sum of blocks/SM of the kernels
//     running, 1) / span, where blocks/SM = grid size / SM count.
//   * estimated achieved occupancy = kernel-time-weighted mean over the span of each kernel's
//     min(resident blocks per SM, blocks/SM) x threads per block / max threads per SM, in whole
//     percent. libkineto gets the resident blocks from CUDA's occupancy calculator; we compute the
//     same limits (warps, registers, shared memory, blocks per SM) from the kernel's launch
//     configuration and the architecture's limits (KernelOccupancy below).
// Units: ns; fractions 0..1 except occupancy, which is in percent like the plugin's. Pure, no I/O.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/Time.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

// The plugin's step-breakdown roles, in its priority order (ProfileRole).
enum class TbRole : std::uint8_t {
    Kernel = 0,
    Memcpy,
    Memset,
    Communication,
    Runtime,
    DataLoader,
    CpuExec,
    Other
};
inline constexpr std::size_t kTbRoleCount = 8;
const char* tbRoleName(TbRole role);

struct TbStep {
    std::string name;            // "5" for ProfilerStep#5, "0" for the whole-trace step
    core::TimeRange range;       // device-adjusted
    std::int64_t deviceOps = 0;  // kernels, memcpys and memsets launched inside the host step
    std::array<core::DurationNs, kTbRoleCount> roleNs{};
};

struct TbGpuMetrics {
    std::int16_t deviceIndex = 0;
    double utilization = 0.0;  // 0..1
    // Absent when no kernel on this GPU has a grid and the GPU's SM count is unknown.
    std::optional<double> smEfficiency;  // 0..1
    // Absent when the architecture's limits are unknown or no kernel has a launch configuration.
    std::optional<double> achievedOccupancyPercent;
};

struct TbPluginOverview {
    bool available = false;  // at least one step kept
    std::string note;        // why not, or how the steps were found
    std::vector<TbStep> steps;
    double averageStepNs = 0.0;
    std::array<double, kTbRoleCount> averageRoleNs{};
    std::vector<TbGpuMetrics> gpus;  // by device index, GPUs that ran kernels

    // A role's share of the average step (0..1), as the Overview's percentage column.
    double roleShare(TbRole role) const {
        return averageStepNs > 0.0 ? averageRoleNs[static_cast<std::size_t>(role)] / averageStepNs : 0.0;
    }
};

TbPluginOverview computeTbPluginOverview(const core::TraceModel& model);

// The per-kernel occupancy estimate libkineto writes as "est. achieved occupancy %".
struct KernelLaunchShape {
    std::int64_t blocks = 0;           // grid x*y*z
    std::int32_t threadsPerBlock = 0;  // block x*y*z
    std::int32_t registersPerThread = 0;
    std::int64_t sharedBytesPerBlock = 0;  // static + dynamic
};
// Resident blocks per SM allowed by warps, registers, shared memory and the block limit of compute
// capability major.minor; nullopt when the architecture is not in our table. 0 when the launch
// cannot fit at all.
std::optional<std::int32_t> maxResidentBlocksPerSm(const KernelLaunchShape& shape, std::int32_t computeMajor,
                                                   std::int32_t computeMinor);
// min(resident blocks, blocks / smCount) x threads per block / max threads per SM, as a whole
// percent (rounded); nullopt when the limits or the SM count are unknown.
std::optional<std::int32_t> estimatedAchievedOccupancyPercent(const KernelLaunchShape& shape,
                                                              const core::DeviceInfo& device);

}  // namespace chokepoint::analysis
