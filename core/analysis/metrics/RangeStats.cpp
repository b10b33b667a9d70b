#include "core/analysis/metrics/RangeStats.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/analysis/metrics/IntervalSet.h"
#include "core/base/KernelName.h"

namespace chokepoint::analysis {
namespace {

using core::DurationNs;
using core::TimeRange;
using core::TimestampNs;

// Rows [0, end) of a table sorted by start hold every row that starts before the range's end.
std::size_t rowsStartingBefore(const std::vector<TimestampNs>& startNs, TimestampNs endNs) {
    return static_cast<std::size_t>(std::lower_bound(startNs.begin(), startNs.end(), endNs) -
                                    startNs.begin());
}

// The part of [startNs, endNs) inside `range`; nullopt-like -1 when the event does not touch the
// range. A zero-length event at a point inside the range counts with 0 ns.
DurationNs clippedNs(TimestampNs startNs, TimestampNs endNs, TimeRange range) {
    if (endNs <= startNs) {
        return range.contains(startNs) ? 0 : -1;
    }
    const TimeRange part = TimeRange{startNs, endNs}.intersect(range);
    return part.empty() ? -1 : part.durationNs();
}

double share(DurationNs part, DurationNs whole) {
    return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// Devices with GPU work anywhere in the trace, ascending.
std::vector<std::int16_t> gpuDevices(const core::TraceModel& model) {
    std::vector<std::int16_t> devices;
    for (const auto* column :
         {&model.kernels.deviceIndex, &model.memcpys.deviceIndex, &model.memsets.deviceIndex}) {
        devices.insert(devices.end(), column->begin(), column->end());
    }
    std::sort(devices.begin(), devices.end());
    devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
    return devices;
}

struct KernelAccumulator {
    RangeKernelGroup group;
    DurationNs longestNs = -1;
};

class DeviceBuilder {
public:
    DeviceBuilder(const core::TraceModel& model, TimeRange range, const RangeStatsInputs& inputs,
                  std::int16_t device)
        : m_model(model), m_range(range), m_inputs(inputs) {
        m_stats.deviceIndex = device;
    }

    RangeDeviceStats build() {
        addKernels();
        addCopies();
        m_stats.busyNs = IntervalSet::fromUnsorted(std::move(m_busy)).totalNs();
        const DurationNs durationNs = m_range.durationNs();
        m_stats.busyShare = share(m_stats.busyNs, durationNs);
        m_stats.idleNs = durationNs - m_stats.busyNs;
        addIdleCauses();
        for (RangeKernelGroup& group : m_stats.kernels) {
            group.shareOfBusy = share(group.totalNs, m_stats.busyNs);
        }
        return std::move(m_stats);
    }

private:
    void addKernels() {
        const core::KernelTable& k = m_model.kernels;
        std::unordered_map<std::uint32_t, std::string> shortNames;  // by name id
        std::map<std::string, KernelAccumulator> groups;
        const std::size_t end = rowsStartingBefore(k.startNs, m_range.endNs);
        for (std::size_t i = 0; i < end; ++i) {
            if (k.deviceIndex[i] != m_stats.deviceIndex) {
                continue;
            }
            const DurationNs ns = clippedNs(k.startNs[i], k.endNs[i], m_range);
            if (ns < 0) {
                continue;
            }
            m_busy.push_back(TimeRange{k.startNs[i], k.endNs[i]}.intersect(m_range));
            auto [it, added] = shortNames.try_emplace(k.name[i].index);
            if (added) {
                it->second = core::shortKernelName(m_model.text(k.name[i]));
            }
            const KernelClass kernelClass = classOf(i);
            KernelAccumulator& acc = groups[it->second];
            acc.group.count += 1;
            acc.group.totalNs += ns;
            if (ns > acc.longestNs) {
                acc.longestNs = ns;
                acc.group.longest = core::KernelId{static_cast<std::uint32_t>(i)};
                acc.group.exampleName = k.name[i];
                acc.group.kernelClass = kernelClass;
            }
            m_stats.kernelCount += 1;
            m_stats.kernelTimeNs += ns;
            if (kernelClass == KernelClass::Communication) {
                m_stats.collectiveCount += 1;
                m_stats.collectiveNs += ns;
            }
        }
        for (auto& [name, acc] : groups) {
            acc.group.shortName = name;
            acc.group.meanNs = acc.group.totalNs / acc.group.count;
            m_stats.kernels.push_back(std::move(acc.group));
        }
        std::stable_sort(
            m_stats.kernels.begin(), m_stats.kernels.end(),
            [](const RangeKernelGroup& a, const RangeKernelGroup& b) { return a.totalNs > b.totalNs; });
    }

    KernelClass classOf(std::size_t kernelRow) {
        const KernelStatsResult* stats = m_inputs.kernelStats;
        if (stats && kernelRow < stats->kernelClass.size()) {
            return stats->kernelClass[kernelRow];
        }
        const core::StringId name = m_model.kernels.name[kernelRow];
        auto [it, added] = m_classByName.try_emplace(name.index, KernelClass::Other);
        if (added) {
            it->second = classifyKernelName(m_model.text(name)).kernelClass;
        }
        return it->second;
    }

    void addCopies() {
        std::array<RangeCopyGroup, kCopyKindCount> byKind{};
        const core::MemcpyTable& c = m_model.memcpys;
        for (std::size_t i = 0, end = rowsStartingBefore(c.startNs, m_range.endNs); i < end; ++i) {
            if (c.deviceIndex[i] != m_stats.deviceIndex) {
                continue;
            }
            const DurationNs ns = clippedNs(c.startNs[i], c.endNs[i], m_range);
            if (ns < 0) {
                continue;
            }
            m_busy.push_back(TimeRange{c.startNs[i], c.endNs[i]}.intersect(m_range));
            RangeCopyGroup& group =
                byKind[std::min<std::size_t>(static_cast<std::size_t>(c.kind[i]), kCopyKindCount - 1)];
            group.kind = c.kind[i];
            group.count += 1;
            group.sizeBytes += std::max<std::int64_t>(0, c.sizeBytes[i]);
            group.totalNs += ns;
        }
        for (const RangeCopyGroup& group : byKind) {
            if (group.count > 0) {
                m_stats.copies.push_back(group);
            }
        }
        RangeCopyGroup memsets;
        memsets.memset = true;
        const core::MemsetTable& m = m_model.memsets;
        for (std::size_t i = 0, end = rowsStartingBefore(m.startNs, m_range.endNs); i < end; ++i) {
            if (m.deviceIndex[i] != m_stats.deviceIndex) {
                continue;
            }
            const DurationNs ns = clippedNs(m.startNs[i], m.endNs[i], m_range);
            if (ns < 0) {
                continue;
            }
            m_busy.push_back(TimeRange{m.startNs[i], m.endNs[i]}.intersect(m_range));
            memsets.count += 1;
            memsets.sizeBytes += std::max<std::int64_t>(0, m.sizeBytes[i]);
            memsets.totalNs += ns;
        }
        if (memsets.count > 0) {
            m_stats.copies.push_back(memsets);
        }
    }

    void addIdleCauses() {
        DurationNs classified = 0;
        if (m_inputs.accounting) {
            for (const IdleInterval& gap : m_inputs.accounting->idleIntervals) {
                if (gap.deviceIndex != m_stats.deviceIndex || gap.streamId != -1) {
                    continue;
                }
                const DurationNs ns = gap.range.intersect(m_range).durationNs();
                m_stats.idleByCauseNs[static_cast<std::size_t>(gap.cause)] += ns;
                classified += ns;
            }
        }
        // The listed gaps are gaps of the same busy union, so they never exceed the idle time.
        m_stats.idleUnclassifiedNs = std::max<DurationNs>(0, m_stats.idleNs - classified);
    }

    const core::TraceModel& m_model;
    TimeRange m_range;
    const RangeStatsInputs& m_inputs;
    RangeDeviceStats m_stats;
    std::vector<TimeRange> m_busy;
    std::unordered_map<std::uint32_t, KernelClass> m_classByName;
};

void addCpuOps(const core::TraceModel& model, TimeRange range, const RangeStatsOptions& options,
               RangeStats& out) {
    struct Accumulator {
        RangeOpGroup group;
        DurationNs longestNs = -1;
    };
    std::unordered_map<std::uint32_t, Accumulator> groups;  // by name id
    const core::CpuOpTable& ops = model.cpuOps;
    for (std::size_t i = 0, end = rowsStartingBefore(ops.startNs, range.endNs); i < end; ++i) {
        if (!options.includePythonFrames && ops.category[i] == core::CpuOpCategory::PythonFunction) {
            continue;
        }
        const DurationNs ns = clippedNs(ops.startNs[i], ops.endNs[i], range);
        if (ns < 0) {
            continue;
        }
        Accumulator& acc = groups[ops.name[i].index];
        acc.group.name = ops.name[i];
        acc.group.category = ops.category[i];
        acc.group.count += 1;
        acc.group.totalNs += ns;
        if (ns > acc.longestNs) {
            acc.longestNs = ns;
            acc.group.longest = core::CpuOpId{static_cast<std::uint32_t>(i)};
        }
        out.cpuOpCount += 1;
    }
    for (auto& [id, acc] : groups) {
        acc.group.meanNs = acc.group.totalNs / acc.group.count;
        out.cpuOps.push_back(acc.group);
    }
    std::sort(out.cpuOps.begin(), out.cpuOps.end(), [&](const RangeOpGroup& a, const RangeOpGroup& b) {
        if (a.totalNs != b.totalNs) {
            return a.totalNs > b.totalNs;
        }
        return model.text(a.name) < model.text(b.name);
    });
}

}  // namespace

RangeStats computeRangeStats(const core::TraceModel& model, core::TimeRange range,
                             const RangeStatsInputs& inputs, const RangeStatsOptions& options) {
    RangeStats out;
    out.range = range;
    out.durationNs = range.durationNs();
    for (std::int16_t device : gpuDevices(model)) {
        if (options.deviceIndex >= 0 && device != options.deviceIndex) {
            continue;
        }
        if (range.empty()) {
            RangeDeviceStats empty;
            empty.deviceIndex = device;
            out.devices.push_back(empty);
            continue;
        }
        out.devices.push_back(DeviceBuilder(model, range, inputs, device).build());
    }
    if (!range.empty()) {
        addCpuOps(model, range, options, out);
    }
    return out;
}

std::string copyGroupName(const RangeCopyGroup& group) {
    if (group.memset) {
        return "Memset";
    }
    return "Memcpy " + std::string(core::toString(group.kind));
}

}  // namespace chokepoint::analysis
