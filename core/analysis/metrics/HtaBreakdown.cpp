#include "core/analysis/metrics/HtaBreakdown.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>

#include "core/analysis/metrics/IntervalSet.h"
#include "core/model/NameMemo.h"
#include "core/names/NameRules.h"

namespace chokepoint::analysis {

using core::DurationNs;
using core::TimeRange;
using core::TimestampNs;

namespace {

// torch.profiler's step ranges (the marker table, core/names/NameRules.h): HTA and the
// TensorBoard plugin read only these.
using names::kProfilerStepPrefix;

// HTA's kernel types: its own prefix rule, kept in the name table (NameRules::htaKernelType).
using HtaType = names::HtaKernelType;

HtaType kernelType(std::string_view name) {
    return names::htaKernelType(name);
}

struct Op {
    TimeRange range;
    TimestampNs launchNs;  // launch call start, or min() when unknown
    std::int16_t device;
    std::int32_t stream;
    HtaType type;
};

}  // namespace

HtaBreakdown computeHtaBreakdown(const core::TraceModel& model, const HtaOptions& options) {
    HtaBreakdown result;

    // Start of the last ProfilerStep when there are two or more (host ranges or ops).
    std::vector<TimestampNs> stepStarts;
    for (std::size_t i = 0; i < model.ranges.size(); ++i) {
        if (model.ranges.source[i] != core::RangeSource::GpuUserAnnotation &&
            model.text(model.ranges.name[i]).starts_with(kProfilerStepPrefix)) {
            stepStarts.push_back(model.ranges.startNs[i]);
        }
    }
    if (stepStarts.empty()) {
        for (std::size_t i = 0; i < model.cpuOps.size(); ++i) {
            if (model.text(model.cpuOps.name[i]).starts_with(kProfilerStepPrefix)) {
                stepStarts.push_back(model.cpuOps.startNs[i]);
            }
        }
    }
    TimestampNs cutoff = std::numeric_limits<TimestampNs>::max();
    if (stepStarts.size() >= 2) {
        cutoff = *std::max_element(stepStarts.begin(), stepStarts.end());
        result.droppedLastStep = true;
    }

    constexpr TimestampNs kUnknown = std::numeric_limits<TimestampNs>::min();
    std::vector<Op> ops;
    ops.reserve(model.gpuEventCount());
    auto launchOf = [&](core::ApiCallId call) {
        return call.valid() && call.index < model.apiCalls.size() ? model.apiCalls.startNs[call.index]
                                                                  : kUnknown;
    };
    // HTA ends up with whole microseconds: measured against its published figures, an op spans
    // [ceil(start), floor(start + dur)) in us (identical for traces with integer timestamps). HTA
    // holds ts and dur as float64 microseconds, and start + dur is a float64 sum: at an epoch
    // timestamp (1.7e15 us) a double's step is 0.25 us, so a 4.928 us kernel ends 5 us after its
    // start there, not 4.928. The sum is taken the same way here (hta-ns-resolution, whose kernels
    // have fractional durations, matches HTA's 2.63 % idle only so; exact nanoseconds give 2.94 %).
    auto asHtaUs = [](TimestampNs t) {  // the double nearest to t in us, as a JSON parser gives it
        const TimestampNs whole = t / core::kNsPerUs;
        return static_cast<double>(whole) + static_cast<double>(t - whole * core::kNsPerUs) / 1e3;
    };
    auto toNs = [](double us) { return static_cast<TimestampNs>(us) * core::kNsPerUs; };
    auto ceilUs = [&](TimestampNs t) { return toNs(std::ceil(asHtaUs(t))); };
    auto floorEndUs = [&](TimestampNs start, TimestampNs end) {
        const double durationUs = static_cast<double>(end - start) / 1e3;
        return toNs(std::floor(asHtaUs(start) + durationUs));
    };
    auto add = [&](TimestampNs start, TimestampNs end, core::ApiCallId call, std::int16_t device,
                   std::int32_t stream, HtaType type) {
        TimestampNs launch = launchOf(call);
        // With >= 2 steps HTA keeps only GPU work whose launch call it found before the cutoff.
        if (result.droppedLastStep && (launch == kUnknown || launch >= cutoff)) {
            return;
        }
        TimestampNs qStart = start;
        TimestampNs qEnd = std::max(start, end);
        TimestampNs qLaunch = launch;
        if (options.truncateToMicroseconds) {
            qStart = ceilUs(start);
            qEnd = std::max(qStart, floorEndUs(start, std::max(start, end)));
            qLaunch = launch == kUnknown ? kUnknown : ceilUs(launch);
        }
        ops.push_back({{qStart, qEnd}, qLaunch, device, stream, type});
    };
    core::NameMemo typeOfName(model, kernelType);
    for (std::size_t i = 0; i < model.kernels.size(); ++i) {
        add(model.kernels.startNs[i], model.kernels.endNs[i], model.kernels.launchCall[i],
            model.kernels.deviceIndex[i], model.kernels.streamId[i], typeOfName(model.kernels.name[i]));
    }
    const std::size_t kernelOps = ops.size();
    for (std::size_t i = 0; i < model.memcpys.size(); ++i) {
        add(model.memcpys.startNs[i], model.memcpys.endNs[i], model.memcpys.launchCall[i],
            model.memcpys.deviceIndex[i], model.memcpys.streamId[i], HtaType::Memory);
    }
    const std::size_t copyOps = ops.size();
    for (std::size_t i = 0; i < model.memsets.size(); ++i) {
        add(model.memsets.startNs[i], model.memsets.endNs[i], model.memsets.launchCall[i],
            model.memsets.deviceIndex[i], model.memsets.streamId[i], HtaType::Memory);
    }
    if (ops.empty()) {
        return result;
    }
    result.hasGpuWork = true;
    // Kernels, memcpys and memsets each arrive sorted by start (rounding keeps the order): merge.
    auto byStart = [](const Op& a, const Op& b) { return a.range.startNs < b.range.startNs; };
    std::inplace_merge(ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(kernelOps),
                       ops.begin() + static_cast<std::ptrdiff_t>(copyOps), byStart);
    std::inplace_merge(ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(copyOps), ops.end(), byStart);
    if (!std::is_sorted(ops.begin(), ops.end(), byStart)) {  // a model that was not finalized
        std::stable_sort(ops.begin(), ops.end(), byStart);
    }

    IntervalSet all;
    IntervalSet compute;
    TimestampNs lastEnd = std::numeric_limits<TimestampNs>::min();
    for (const Op& op : ops) {
        all.appendSorted(op.range);
        if (op.type == HtaType::Computation) {
            compute.appendSorted(op.range);
        }
        lastEnd = std::max(lastEnd, op.range.endNs);
    }
    result.window = {ops.front().range.startNs, lastEnd};
    result.windowNs = result.window.durationNs();
    result.idleNs = result.windowNs - all.totalNs();
    result.computeNs = compute.totalNs();
    result.nonComputeNs = result.windowNs - result.idleNs - result.computeNs;

    // Per-stream idle split (ops stay sorted by start within each stream).
    std::map<std::pair<std::int16_t, std::int32_t>, HtaStreamIdle> streams;
    std::map<std::pair<std::int16_t, std::int32_t>, TimestampNs> prevEnd;
    for (const Op& op : ops) {
        auto key = std::make_pair(op.device, op.stream);
        HtaStreamIdle& s = streams[key];
        s.deviceIndex = op.device;
        s.streamId = op.stream;
        ++s.opCount;
        s.busyNs += op.range.durationNs();
        auto it = prevEnd.find(key);
        if (it != prevEnd.end()) {
            DurationNs gap = op.range.startNs - it->second;
            if (op.launchNs != kUnknown && op.launchNs > it->second) {
                s.hostWaitNs += gap;
            } else if (gap < options.consecutiveKernelDelayNs) {
                s.kernelWaitNs += gap;
            } else {
                s.otherNs += gap;
            }
        }
        prevEnd[key] = op.range.endNs;  // the previous op in start order, as HTA does
    }
    for (auto& [key, s] : streams) {
        result.streams.push_back(s);
    }
    for (std::size_t i = 0; i < result.streams.size(); ++i) {
        if (result.busiestStream < 0 ||
            result.streams[i].busyNs >
                result.streams[static_cast<std::size_t>(result.busiestStream)].busyNs) {
            result.busiestStream = static_cast<std::int32_t>(i);
        }
    }
    return result;
}

}  // namespace chokepoint::analysis
