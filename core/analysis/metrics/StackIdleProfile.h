#pragma once
// Which sampled frames filled the GPU's idle time: for each device and each sampled thread, the
// time its samples cover inside the device's idle intervals (GpuTimeAccounting's device-level gaps),
// split by stack, by frame (inclusive: the frame anywhere in the stack; exclusive: the frame is the
// leaf) and by what the stack was doing (SampledStacks::role).
//
// Shares are of the device's idle time in the gaps counted (those of steady steps when
// `steadySteps` is given, as for hostWorkFrames): a thread's samples never overlap (SampledStacks),
// a frame is counted once per sample even when it recurs in the stack, so no thread, stack, frame
// or role can exceed 100 % of the idle. Threads are separate: two threads sampled in the same gap
// each cover it, so shares of different threads may add up to more than 100 %.
// Pure function; O(samples + gaps) per device after sorting.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/metrics/GpuTimeAccounting.h"
#include "core/analysis/metrics/SampledStacks.h"

namespace chokepoint::analysis {

inline constexpr std::size_t kHostRoleCount = 11;  // names::HostRole values

struct SampledStackTime {
    core::StackIndex stack = 0;
    core::DurationNs ns = 0;
    names::HostRole role = names::HostRole::None;
    std::string path;  // SampledStacks::pathText
};

struct SampledFrameTime {
    core::FrameIndex frame = 0;
    core::DurationNs inclusiveNs = 0;
    core::DurationNs exclusiveNs = 0;
    std::string name;  // "RandomResizedCrop.forward (transforms.py:980)"
};

struct SampledThreadIdle {
    core::ThreadIndex thread = core::kNoThread;
    core::DurationNs sampledNs = 0;                           // idle time covered by this thread's samples
    std::array<core::DurationNs, kHostRoleCount> byRoleNs{};  // index = names::HostRole
    std::vector<SampledStackTime> stacks;                     // by ns, largest first (at most 10)
    std::vector<SampledFrameTime> frames;                     // by inclusive ns, largest first (at most 20)
};

struct DeviceStackIdle {
    std::int16_t deviceIndex = 0;
    core::DurationNs idleNs = 0;             // the idle time the shares are of
    std::vector<SampledThreadIdle> threads;  // by sampledNs, largest first; threads with samples in it
    double share(core::DurationNs part) const {
        return idleNs > 0 ? static_cast<double>(part) / static_cast<double>(idleNs) : 0.0;
    }
};

struct StackIdleProfile {
    std::vector<DeviceStackIdle> devices;  // devices with idle time and samples, ascending
    const DeviceStackIdle* device(std::int16_t deviceIndex) const;
};

StackIdleProfile computeStackIdleProfile(const SampledStacks& stacks,
                                         const GpuTimeAccountingResult& accounting,
                                         const std::vector<bool>& steadySteps = {});

}  // namespace chokepoint::analysis
