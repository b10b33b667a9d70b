#include "core/analysis/metrics/TbPluginOverview.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "core/analysis/metrics/IntervalSet.h"
#include "core/names/NameRules.h"

namespace chokepoint::analysis {

using core::DurationNs;
using core::TimeRange;
using core::TimestampNs;

namespace {

// --- The plugin's name rules (profiler/trace.py, event_parser.py, overall_parser.py) ------------
// torch.profiler's step ranges (the marker table, core/names/NameRules.h): HTA and the
// TensorBoard plugin read only these.
using names::kProfilerStepPrefix;
constexpr std::string_view kDataLoaderPrefix = "enumerate(DataLoader)#";
constexpr std::string_view kDataLoaderSuffix = ".__next__";
constexpr std::string_view kDataPipePrefix = "enumerate(DataPipe)#";
constexpr std::string_view kCommunicationOps[] = {
    "nccl:broadcast", "nccl:reduce", "nccl:all_reduce", "nccl:all_gather", "nccl:reduce_scatter",
    "gloo:broadcast", "gloo:reduce", "gloo:all_reduce", "gloo:all_gather", "gloo:reduce_scatter"};
// A last step that launched fewer than this share of the previous step's GPU ops was cut short by
// the profiler and is dropped (event_parser.py, StepParser).
constexpr double kLastStepMinOpShare = 0.8;

bool isDataLoaderName(std::string_view name) {
    return (name.starts_with(kDataLoaderPrefix) && name.ends_with(kDataLoaderSuffix)) ||
           name.starts_with(kDataPipePrefix);
}

bool isCommunicationOpName(std::string_view name) {
    return std::find(std::begin(kCommunicationOps), std::end(kCommunicationOps), name) !=
           std::end(kCommunicationOps);
}

// --- Architecture limits for the occupancy estimate ------------------------------------------
// Facts from the CUDA C++ Programming Guide, "Technical Specifications per Compute Capability", and
// the CUDA occupancy calculator's allocation granularities (registers in units of 256 per warp,
// allocated per SM sub-partition; shared memory in allocation units, plus the 1 KiB the system
// reserves per block from compute capability 8.0 on). Shared memory per SM is the largest carveout.
struct ArchLimits {
    std::int32_t major, minor;
    std::int32_t maxBlocksPerSm;
    std::int32_t maxWarpsPerSm;
    std::int32_t registersPerSm;
    std::int32_t subPartitions;
    std::int64_t sharedBytesPerSm;
    std::int32_t sharedAllocationUnit;
    std::int32_t reservedSharedPerBlock;
};

constexpr ArchLimits kArchLimits[] = {
    {6, 0, 32, 64, 65536, 2, 65536, 256, 0},      // P100
    {6, 1, 32, 64, 65536, 4, 98304, 256, 0},      // P40, GTX 10xx
    {7, 0, 32, 64, 65536, 4, 98304, 256, 0},      // V100
    {7, 5, 16, 32, 65536, 4, 65536, 256, 0},      // T4, RTX 20xx
    {8, 0, 32, 64, 65536, 4, 167936, 128, 1024},  // A100
    {8, 6, 16, 48, 65536, 4, 102400, 128, 1024},  // A10, RTX 30xx
    {8, 9, 24, 48, 65536, 4, 102400, 128, 1024},  // L4, L40, RTX 40xx
    {9, 0, 32, 64, 65536, 4, 233472, 128, 1024},  // H100, H200
};
constexpr std::int32_t kWarpSize = 32;
constexpr std::int32_t kRegisterAllocationUnit = 256;
constexpr std::int32_t kMaxRegistersPerThread = 255;
constexpr std::int32_t kMaxThreadsPerBlock = 1024;

const ArchLimits* archLimits(std::int32_t major, std::int32_t minor) {
    for (const ArchLimits& a : kArchLimits) {
        if (a.major == major && a.minor == minor) {
            return &a;
        }
    }
    return nullptr;
}

std::int64_t roundUp(std::int64_t value, std::int64_t unit) {
    return (value + unit - 1) / unit * unit;
}

// --- Steps (event_parser.py, StepParser) ------------------------------------------------------

struct DeviceOp {
    TimeRange range;
    TimeRange launch;  // the launching runtime call, when hasLaunch
    bool hasLaunch = false;
};

std::vector<DeviceOp> deviceOps(const core::TraceModel& model) {
    std::vector<DeviceOp> ops;
    ops.reserve(model.gpuEventCount());
    auto add = [&](TimestampNs start, TimestampNs end, core::ApiCallId call) {
        DeviceOp op{{start, end}, {}, false};
        if (call.valid() && call.index < model.apiCalls.size()) {
            op.launch = {model.apiCalls.startNs[call.index], model.apiCalls.endNs[call.index]};
            op.hasLaunch = true;
        }
        ops.push_back(op);
    };
    for (std::size_t i = 0; i < model.kernels.size(); ++i) {
        add(model.kernels.startNs[i], model.kernels.endNs[i], model.kernels.launchCall[i]);
    }
    for (std::size_t i = 0; i < model.memcpys.size(); ++i) {
        add(model.memcpys.startNs[i], model.memcpys.endNs[i], model.memcpys.launchCall[i]);
    }
    for (std::size_t i = 0; i < model.memsets.size(); ++i) {
        add(model.memsets.startNs[i], model.memsets.endNs[i], model.memsets.launchCall[i]);
    }
    return ops;
}

struct HostStep {
    std::string name;
    TimeRange range;
};

std::vector<HostStep> hostSteps(const core::TraceModel& model, bool& fromProfilerSteps) {
    std::vector<HostStep> steps;
    auto add = [&](std::string_view name, TimestampNs start, TimestampNs end) {
        steps.push_back({std::string(name.substr(kProfilerStepPrefix.size())), {start, end}});
    };
    for (std::size_t i = 0; i < model.ranges.size(); ++i) {
        const std::string_view name = model.text(model.ranges.name[i]);
        if (model.ranges.source[i] != core::RangeSource::GpuUserAnnotation &&
            name.starts_with(kProfilerStepPrefix)) {
            add(name, model.ranges.startNs[i], model.ranges.endNs[i]);
        }
    }
    for (std::size_t i = 0; i < model.cpuOps.size(); ++i) {
        const std::string_view name = model.text(model.cpuOps.name[i]);
        if (name.starts_with(kProfilerStepPrefix)) {
            add(name, model.cpuOps.startNs[i], model.cpuOps.endNs[i]);
        }
    }
    std::sort(steps.begin(), steps.end(),
              [](const HostStep& a, const HostStep& b) { return a.range.startNs < b.range.startNs; });
    fromProfilerSteps = !steps.empty();
    if (fromProfilerSteps) {
        return steps;
    }
    // No ProfilerStep: one step "0" over the CPU-side events.
    TimestampNs first = std::numeric_limits<TimestampNs>::max();
    TimestampNs last = std::numeric_limits<TimestampNs>::min();
    for (std::size_t i = 0; i < model.cpuOps.size(); ++i) {
        first = std::min(first, model.cpuOps.startNs[i]);
        last = std::max(last, model.cpuOps.endNs[i]);
    }
    if (first < last) {
        steps.push_back({"0", {first, last}});
    }
    return steps;
}

// Device-adjusted steps with the number of GPU ops each launched, tail-trimmed.
std::vector<TbStep> deviceSteps(const std::vector<HostStep>& host, const std::vector<DeviceOp>& ops) {
    const std::size_t n = host.size();
    std::vector<std::int64_t> count(n, 0);
    std::vector<TimestampNs> latestEnd(n, std::numeric_limits<TimestampNs>::min());
    TimestampNs firstOpOfStep0 = std::numeric_limits<TimestampNs>::max();
    std::vector<const DeviceOp*> outside;
    for (const DeviceOp& op : ops) {
        bool inStep = false;
        if (op.hasLaunch) {
            // Host steps are sorted by start and do not nest: only the last one starting at or
            // before the launch can hold it.
            const auto after =
                std::upper_bound(host.begin(), host.end(), op.launch.startNs,
                                 [](TimestampNs t, const HostStep& step) { return t < step.range.startNs; });
            if (after != host.begin()) {
                const auto s = static_cast<std::size_t>(after - host.begin()) - 1;
                if (op.launch.endNs <= host[s].range.endNs) {
                    ++count[s];
                    latestEnd[s] = std::max(latestEnd[s], op.range.endNs);
                    if (s == 0) {
                        firstOpOfStep0 = std::min(firstOpOfStep0, op.range.startNs);
                    }
                    inStep = true;
                }
            }
        }
        if (!inStep) {
            outside.push_back(&op);
        }
    }
    std::vector<TbStep> steps;
    if (n == 0) {
        return steps;
    }
    TimestampNs previousEnd = host[0].range.startNs;
    for (const DeviceOp* op : outside) {
        if (op->range.endNs <= firstOpOfStep0) {
            previousEnd = std::max(previousEnd, op->range.endNs);
        }
    }
    for (std::size_t s = 0; s < n; ++s) {
        TbStep step;
        step.name = host[s].name;
        step.deviceOps = count[s];
        step.range.startNs = std::max(previousEnd, host[s].range.startNs);
        step.range.endNs = std::max(host[s].range.endNs, latestEnd[s]);
        previousEnd = step.range.endNs;
        steps.push_back(std::move(step));
    }
    while (!steps.empty() && steps.back().deviceOps == 0) {
        steps.pop_back();
    }
    if (steps.size() >= 2 &&
        static_cast<double>(steps.back().deviceOps) <
            kLastStepMinOpShare * static_cast<double>(steps[steps.size() - 2].deviceOps)) {
        steps.pop_back();
    }
    return steps;
}

// --- Step breakdown (overall_parser.py, Statistics.create_from_range) -------------------------

std::array<IntervalSet, kTbRoleCount - 1> roleIntervals(const core::TraceModel& model) {
    std::array<std::vector<TimeRange>, kTbRoleCount - 1> raw;
    auto put = [&](TbRole role, TimestampNs start, TimestampNs end) {
        raw[static_cast<std::size_t>(role)].push_back({start, end});
    };
    auto isCommunicationOp = [&](core::CpuOpId op) {
        for (int guard = 0; op.valid() && op.index < model.cpuOps.size() && guard < 256; ++guard) {
            if (isCommunicationOpName(model.text(model.cpuOps.name[op.index]))) {
                return true;
            }
            op = model.cpuOps.parent[op.index];
        }
        return false;
    };
    for (std::size_t i = 0; i < model.kernels.size(); ++i) {
        const core::ApiCallId call = model.kernels.launchCall[i];
        const bool communication = call.valid() && call.index < model.apiCalls.size() &&
                                   isCommunicationOp(model.apiCalls.cpuOp[call.index]);
        put(communication ? TbRole::Communication : TbRole::Kernel, model.kernels.startNs[i],
            model.kernels.endNs[i]);
    }
    for (std::size_t i = 0; i < model.memcpys.size(); ++i) {
        put(TbRole::Memcpy, model.memcpys.startNs[i], model.memcpys.endNs[i]);
    }
    for (std::size_t i = 0; i < model.memsets.size(); ++i) {
        put(TbRole::Memset, model.memsets.startNs[i], model.memsets.endNs[i]);
    }
    for (std::size_t i = 0; i < model.apiCalls.size(); ++i) {
        if (model.apiCalls.domain[i] == core::ApiDomain::Runtime) {
            put(TbRole::Runtime, model.apiCalls.startNs[i], model.apiCalls.endNs[i]);
        }
    }
    auto cpuSide = [&](std::string_view name, TimestampNs start, TimestampNs end) {
        if (name.starts_with(kProfilerStepPrefix)) {
            return;
        }
        const TbRole role = isCommunicationOpName(name) ? TbRole::Communication
                            : isDataLoaderName(name)    ? TbRole::DataLoader
                                                        : TbRole::CpuExec;
        put(role, start, end);
    };
    for (std::size_t i = 0; i < model.cpuOps.size(); ++i) {
        cpuSide(model.text(model.cpuOps.name[i]), model.cpuOps.startNs[i], model.cpuOps.endNs[i]);
    }
    // The plugin knows framework annotations (record_function), not NVTX or GPU-projected ranges.
    for (std::size_t i = 0; i < model.ranges.size(); ++i) {
        if (model.ranges.source[i] == core::RangeSource::UserAnnotation) {
            cpuSide(model.text(model.ranges.name[i]), model.ranges.startNs[i], model.ranges.endNs[i]);
        }
    }
    std::array<IntervalSet, kTbRoleCount - 1> sets;
    for (std::size_t r = 0; r < raw.size(); ++r) {
        sets[r] = IntervalSet::fromUnsorted(std::move(raw[r]));
    }
    return sets;
}

void attributeRoles(const core::TraceModel& model, std::vector<TbStep>& steps) {
    std::vector<TimeRange> stepRanges;
    for (const TbStep& s : steps) {
        stepRanges.push_back(s.range);
    }
    IntervalSet unclaimed = IntervalSet::fromUnsorted(stepRanges);
    const auto roles = roleIntervals(model);
    auto addPerStep = [&](const IntervalSet& claimed, TbRole role) {
        for (TbStep& s : steps) {
            s.roleNs[static_cast<std::size_t>(role)] = claimed.coveredNs(s.range);
        }
    };
    for (std::size_t r = 0; r < roles.size(); ++r) {
        const IntervalSet claimed = roles[r].intersect(unclaimed);
        addPerStep(claimed, static_cast<TbRole>(r));
        unclaimed = unclaimed.subtract(claimed);
    }
    addPerStep(unclaimed, TbRole::Other);
}

// --- GPU metrics (gpu_metrics_parser.py, range_utils.py) -------------------------------------

TbGpuMetrics gpuMetrics(const core::TraceModel& model, std::int16_t device, TimeRange span) {
    TbGpuMetrics g;
    g.deviceIndex = device;
    const double spanNs = static_cast<double>(span.durationNs());
    const core::DeviceInfo* info = model.device(device);
    std::vector<TimeRange> busy;
    std::vector<std::pair<TimestampNs, double>> edges;  // (time, +/- blocks per SM)
    double occupancyWeighted = 0.0;
    double occupancyWeight = 0.0;
    for (std::size_t i = 0; i < model.kernels.size(); ++i) {
        if (model.kernels.deviceIndex[i] != device) {
            continue;
        }
        const TimeRange k{model.kernels.startNs[i], model.kernels.endNs[i]};
        busy.push_back(k);
        const KernelLaunchShape shape{
            static_cast<std::int64_t>(model.kernels.gridX[i]) * model.kernels.gridY[i] *
                model.kernels.gridZ[i],
            model.kernels.blockX[i] * model.kernels.blockY[i] * model.kernels.blockZ[i],
            model.kernels.registersPerThread[i],
            static_cast<std::int64_t>(model.kernels.staticSharedBytes[i]) +
                model.kernels.dynamicSharedBytes[i]};
        if (info != nullptr && info->smCount > 0 && shape.blocks > 0 && !k.empty()) {
            const double blocksPerSm = static_cast<double>(shape.blocks) / info->smCount;
            edges.emplace_back(k.startNs, blocksPerSm);
            edges.emplace_back(k.endNs, -blocksPerSm);
        }
        if (info != nullptr && shape.threadsPerBlock > 0) {
            if (const auto o = estimatedAchievedOccupancyPercent(shape, *info); o && *o >= 0) {
                const double w = static_cast<double>(k.intersect(span).durationNs());
                occupancyWeighted += *o * w;
                occupancyWeight += w;
            }
        }
    }
    if (spanNs <= 0.0) {
        return g;
    }
    g.utilization = static_cast<double>(IntervalSet::fromUnsorted(std::move(busy)).coveredNs(span)) / spanNs;
    if (!edges.empty()) {
        std::sort(edges.begin(), edges.end());
        double running = 0.0;
        double integral = 0.0;
        for (std::size_t e = 0; e < edges.size(); ++e) {
            running += edges[e].second;
            if (e + 1 < edges.size()) {
                const TimeRange piece = TimeRange{edges[e].first, edges[e + 1].first}.intersect(span);
                const double value = std::clamp(running, 0.0, 1.0);
                integral += value * static_cast<double>(piece.durationNs());
            }
        }
        g.smEfficiency = integral / spanNs;
    }
    if (occupancyWeight > 0.0) {
        g.achievedOccupancyPercent = occupancyWeighted / occupancyWeight;
    }
    return g;
}

}  // namespace

const char* tbRoleName(TbRole role) {
    switch (role) {
        case TbRole::Kernel:
            return "Kernel";
        case TbRole::Memcpy:
            return "Memcpy";
        case TbRole::Memset:
            return "Memset";
        case TbRole::Communication:
            return "Communication";
        case TbRole::Runtime:
            return "Runtime";
        case TbRole::DataLoader:
            return "DataLoader";
        case TbRole::CpuExec:
            return "CPU Exec";
        case TbRole::Other:
            return "Other";
    }
    return "Other";
}

std::optional<std::int32_t> maxResidentBlocksPerSm(const KernelLaunchShape& shape, std::int32_t computeMajor,
                                                   std::int32_t computeMinor) {
    const ArchLimits* a = archLimits(computeMajor, computeMinor);
    if (a == nullptr) {
        return std::nullopt;
    }
    if (shape.threadsPerBlock <= 0 || shape.threadsPerBlock > kMaxThreadsPerBlock ||
        shape.registersPerThread > kMaxRegistersPerThread || shape.registersPerThread < 0 ||
        shape.sharedBytesPerBlock < 0) {
        return 0;
    }
    const std::int32_t warpsPerBlock = (shape.threadsPerBlock + kWarpSize - 1) / kWarpSize;
    std::int32_t blocks = std::min(a->maxBlocksPerSm, a->maxWarpsPerSm / warpsPerBlock);
    if (shape.registersPerThread > 0) {
        const auto registersPerWarp = static_cast<std::int32_t>(
            roundUp(std::int64_t{shape.registersPerThread} * kWarpSize, kRegisterAllocationUnit));
        const std::int32_t warpsPerPartition = (a->registersPerSm / a->subPartitions) / registersPerWarp;
        blocks = std::min(blocks, warpsPerPartition * a->subPartitions / warpsPerBlock);
    }
    const std::int64_t shared = shape.sharedBytesPerBlock + a->reservedSharedPerBlock;
    if (shared > 0) {
        const std::int64_t perBlock = roundUp(shared, a->sharedAllocationUnit);
        blocks = std::min<std::int32_t>(blocks, static_cast<std::int32_t>(a->sharedBytesPerSm / perBlock));
    }
    return std::max(blocks, 0);
}

std::optional<std::int32_t> estimatedAchievedOccupancyPercent(const KernelLaunchShape& shape,
                                                              const core::DeviceInfo& device) {
    const std::optional<std::int32_t> resident =
        maxResidentBlocksPerSm(shape, device.computeMajor, device.computeMinor);
    if (!resident || device.smCount <= 0) {
        return std::nullopt;
    }
    const ArchLimits* a = archLimits(device.computeMajor, device.computeMinor);
    const std::int32_t maxThreadsPerSm =
        device.maxThreadsPerSm > 0 ? device.maxThreadsPerSm : a->maxWarpsPerSm * kWarpSize;
    const double blocksPerSm = static_cast<double>(shape.blocks) / device.smCount;
    const double occupancy =
        std::min(static_cast<double>(*resident), blocksPerSm) * shape.threadsPerBlock / maxThreadsPerSm;
    return static_cast<std::int32_t>(std::lround(occupancy * 100.0));
}

TbPluginOverview computeTbPluginOverview(const core::TraceModel& model) {
    TbPluginOverview result;
    bool fromProfilerSteps = false;
    const std::vector<HostStep> host = hostSteps(model, fromProfilerSteps);
    if (host.empty()) {
        result.note = "no ProfilerStep and no CPU ops";
        return result;
    }
    result.steps = deviceSteps(host, deviceOps(model));
    if (result.steps.empty()) {
        result.note = "no step launched GPU work";
        return result;
    }
    result.available = true;
    result.note = fromProfilerSteps ? std::to_string(result.steps.size()) + " of " +
                                          std::to_string(host.size()) + " ProfilerStep steps kept"
                                    : "one step over the CPU span (no ProfilerStep)";
    attributeRoles(model, result.steps);
    double totalNs = 0.0;
    for (const TbStep& s : result.steps) {
        totalNs += static_cast<double>(s.range.durationNs());
        for (std::size_t r = 0; r < kTbRoleCount; ++r) {
            result.averageRoleNs[r] += static_cast<double>(s.roleNs[r]);
        }
    }
    const auto count = static_cast<double>(result.steps.size());
    result.averageStepNs = totalNs / count;
    for (double& v : result.averageRoleNs) {
        v /= count;
    }
    const TimeRange span{result.steps.front().range.startNs, result.steps.back().range.endNs};
    std::vector<std::int16_t> devices(model.kernels.deviceIndex.begin(), model.kernels.deviceIndex.end());
    std::sort(devices.begin(), devices.end());
    devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
    for (std::int16_t d : devices) {
        result.gpus.push_back(gpuMetrics(model, d, span));
    }
    return result;
}

}  // namespace chokepoint::analysis
