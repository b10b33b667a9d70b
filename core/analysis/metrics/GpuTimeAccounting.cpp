#include "core/analysis/metrics/GpuTimeAccounting.h"

#include <algorithm>
#include <map>
#include <optional>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "core/analysis/metrics/IntervalSet.h"
#include "core/analysis/metrics/PhaseDetection.h"
#include "core/analysis/metrics/SampledStacks.h"
#include "core/model/CounterSemantics.h"
#include "core/model/NameMemo.h"
#include "core/model/ThreadLabels.h"
#include "core/names/NameRules.h"

namespace chokepoint::analysis {

using core::DurationNs;
using core::TimeRange;
using core::TimestampNs;

namespace {

// The host-activity categories, in precedence order (see the header). kHost is any host activity;
// a gap it explains is LaunchOverhead or HostWork by its launch density (classifyHostGap).
// kOnCpu and kWorkerCpu come from the threads' CPU-use samples, after every recorded activity:
// a launching thread on the CPU (host time on it, split like kHost), an input-pipeline thread on the
// CPU (data wait).
enum Category : std::size_t {
    kData = 0,
    kCollective,
    kCompile,
    kGc,
    kHousekeeping,
    kSync,
    kHost,
    kOnCpu,
    kWorkerCpu,
    kCategoryCount
};
constexpr IdleCause kCauseOf[kCategoryCount] = {
    IdleCause::DataWait,          IdleCause::Collective,     IdleCause::Compilation,
    IdleCause::GarbageCollection, IdleCause::Housekeeping,   IdleCause::Synchronization,
    IdleCause::LaunchOverhead,    IdleCause::LaunchOverhead, IdleCause::DataWait};
constexpr std::int8_t kNoCategory = -1;

struct Item {
    TimeRange range;
    IdleEvidence::Kind kind;
    std::uint32_t row;
    core::StringId name;
};

// Finds, for probe times given in ascending order, the latest-starting item still running at the
// probe time (the innermost one for nested host activity). Each item enters and leaves the heap
// once, so a whole sweep is O(n log n).
class InnermostSweeper {
public:
    explicit InnermostSweeper(std::vector<Item> items) : m_items(std::move(items)) {
        auto byStart = [](const Item& a, const Item& b) { return a.range.startNs < b.range.startNs; };
        if (!std::is_sorted(m_items.begin(), m_items.end(), byStart)) {
            std::sort(m_items.begin(), m_items.end(), byStart);
        }
    }
    const Item* at(TimestampNs t) {
        while (m_next < m_items.size() && m_items[m_next].range.startNs <= t) {
            if (m_items[m_next].range.endNs > t) {  // items already over never enter the heap
                m_heap.push({m_items[m_next].range.startNs, m_next});
            }
            ++m_next;
        }
        while (!m_heap.empty() && m_items[m_heap.top().second].range.endNs <= t) {
            m_heap.pop();
        }
        return m_heap.empty() ? nullptr : &m_items[m_heap.top().second];
    }
    const std::vector<Item>& items() const { return m_items; }

private:
    std::vector<Item> m_items;
    std::size_t m_next = 0;
    std::priority_queue<std::pair<TimestampNs, std::size_t>> m_heap;
};

// For probe times given in ascending order, the synchronizing call the host was in at the probe
// time or had left at most `toleranceNs` before it: the outermost framework op among those (the
// user's aten::item rather than the cudaMemcpyAsync inside it), else the outermost call.
class SyncCallSweeper {
public:
    SyncCallSweeper(std::vector<Item> items, DurationNs toleranceNs)
        : m_items(std::move(items)), m_toleranceNs(toleranceNs) {
        std::sort(m_items.begin(), m_items.end(),
                  [](const Item& a, const Item& b) { return a.range.startNs < b.range.startNs; });
    }
    const Item* at(TimestampNs t) {
        while (m_next < m_items.size() && m_items[m_next].range.startNs < t) {
            m_active.push_back(m_next++);
        }
        std::erase_if(m_active, [&](std::size_t i) { return m_items[i].range.endNs + m_toleranceNs < t; });
        const Item* best = nullptr;
        for (std::size_t i : m_active) {
            const Item& item = m_items[i];
            const bool op = item.kind == IdleEvidence::Kind::CpuOp;
            const bool bestOp = best != nullptr && best->kind == IdleEvidence::Kind::CpuOp;
            if (best == nullptr || (op && !bestOp) ||
                (op == bestOp && item.range.startNs < best->range.startNs)) {
                best = &item;
            }
        }
        return best;
    }

private:
    std::vector<Item> m_items;
    DurationNs m_toleranceNs;
    std::size_t m_next = 0;
    std::vector<std::size_t> m_active;  // started before the last probe, not yet over (few: nesting)
};

struct DeviceSets {
    IntervalSet busy, compute, communication, copy, memset;
    std::array<IntervalSet, kCopyKindCount> copyByKind;
    IntervalSet pageableHostCopy;  // H2D/D2H copies with a pageable host side
    IntervalSet exposedHostCopy;   // H2D/D2H copies not overlapped by compute (set once built)
    std::map<std::int32_t, IntervalSet> perStream;  // busy per stream
    std::map<std::int32_t, DurationNs> streamTime;  // summed durations per stream
    std::unordered_set<core::ThreadIndex> launchThreads;
    // Every GPU op with a launch call: (start, end of its launch call, kernel row or -1), sorted by
    // start. A gap is a queued wait when the op that ends it had been launched before it began.
    struct Launched {
        TimestampNs startNs;
        TimestampNs launchEndNs;
        std::int64_t kernelRow;
    };
    std::vector<Launched> launched;
};

// GPU rows of one device as sorted interval sets (tables are sorted by start after finalize()).
std::map<std::int16_t, DeviceSets> buildDeviceSets(const core::TraceModel& model,
                                                   const KernelStatsResult& ks) {
    std::map<std::int16_t, DeviceSets> out;
    // Tables are sorted by start, so every per-table subset is built by appending in order and the
    // subsets are combined with linear merges.
    std::map<std::pair<std::int16_t, std::int32_t>, std::array<IntervalSet, 3>> byStream;
    auto noteLaunch = [&](DeviceSets& d, core::ApiCallId call, TimestampNs startNs, std::int64_t kernelRow) {
        if (call.valid() && call.index < model.apiCalls.size()) {
            d.launchThreads.insert(model.apiCalls.thread[call.index]);
            d.launched.push_back({startNs, model.apiCalls.endNs[call.index], kernelRow});
        }
    };
    const core::KernelTable& kt = model.kernels;
    for (std::size_t i = 0; i < kt.size(); ++i) {
        DeviceSets& d = out[kt.deviceIndex[i]];
        TimeRange r{kt.startNs[i], kt.endNs[i]};
        bool comm = i < ks.kernelClass.size() ? ks.kernelClass[i] == KernelClass::Communication
                                              : isCommunicationKernelName(model.text(kt.name[i]));
        (comm ? d.communication : d.compute).appendSorted(r);
        byStream[{kt.deviceIndex[i], kt.streamId[i]}][0].appendSorted(r);
        d.streamTime[kt.streamId[i]] += r.durationNs();
        noteLaunch(d, kt.launchCall[i], r.startNs, static_cast<std::int64_t>(i));
    }
    const core::MemcpyTable& mt = model.memcpys;
    for (std::size_t i = 0; i < mt.size(); ++i) {
        DeviceSets& d = out[mt.deviceIndex[i]];
        TimeRange r{mt.startNs[i], mt.endNs[i]};
        d.copy.appendSorted(r);
        std::size_t kind = static_cast<std::size_t>(mt.kind[i]);
        if (kind < kCopyKindCount) {
            d.copyByKind[kind].appendSorted(r);
        }
        const bool hostDevice =
            mt.kind[i] == core::MemcpyKind::HostToDevice || mt.kind[i] == core::MemcpyKind::DeviceToHost;
        if (hostDevice &&
            (mt.srcKind[i] == core::MemoryKind::Pageable || mt.dstKind[i] == core::MemoryKind::Pageable)) {
            d.pageableHostCopy.appendSorted(r);
        }
        byStream[{mt.deviceIndex[i], mt.streamId[i]}][1].appendSorted(r);
        d.streamTime[mt.streamId[i]] += r.durationNs();
        noteLaunch(d, mt.launchCall[i], r.startNs, -1);
    }
    const core::MemsetTable& st = model.memsets;
    for (std::size_t i = 0; i < st.size(); ++i) {
        DeviceSets& d = out[st.deviceIndex[i]];
        TimeRange r{st.startNs[i], st.endNs[i]};
        d.memset.appendSorted(r);
        byStream[{st.deviceIndex[i], st.streamId[i]}][2].appendSorted(r);
        d.streamTime[st.streamId[i]] += r.durationNs();
        noteLaunch(d, st.launchCall[i], r.startNs, -1);
    }
    for (auto& [device, d] : out) {
        d.busy = d.compute.unionWith(d.communication).unionWith(d.copy).unionWith(d.memset);
        std::sort(d.launched.begin(), d.launched.end(),
                  [](const DeviceSets::Launched& a, const DeviceSets::Launched& b) {
                      return a.startNs < b.startNs;
                  });
    }
    for (auto& [key, sets] : byStream) {
        out[key.first].perStream[key.second] = sets[0].unionWith(sets[1]).unionWith(sets[2]);
    }
    return out;
}

// The GPU op that ends `gap` if it had been launched (its launch call had returned) before the gap
// began: the work was queued and the device idled anyway.
const DeviceSets::Launched* queuedOpEnding(const DeviceSets& d, TimeRange gap) {
    auto it = std::lower_bound(d.launched.begin(), d.launched.end(), gap.endNs,
                               [](const DeviceSets::Launched& l, TimestampNs t) { return l.startNs < t; });
    for (; it != d.launched.end() && it->startNs == gap.endNs; ++it) {
        if (it->launchEndNs <= gap.startNs) {
            return &*it;
        }
    }
    return nullptr;
}

// Host activity of the threads in `threads` (all threads when empty), by category.
struct HostActivity {
    std::array<IntervalSet, kCategoryCount> sets;
    std::array<std::vector<Item>, kCategoryCount> items;
    std::vector<TimestampNs> launchStarts;  // sorted
    IntervalSet dispatch;                   // launch calls and the ops that issued them
};

// The category a host op or range's name puts it in (NameRules' host role), kNoCategory for none.
std::int8_t categoryOfRole(names::HostRole role) {
    switch (role) {
        case names::HostRole::DataLoading:
        case names::HostRole::DataPreparation:
            return kData;
        case names::HostRole::Collective:
            return kCollective;
        case names::HostRole::Compilation:
            return kCompile;
        case names::HostRole::GarbageCollection:
            return kGc;
        case names::HostRole::Housekeeping:
            return kHousekeeping;
        case names::HostRole::Synchronization:
            return kSync;
        default:
            return kNoCategory;
    }
}

// Per distinct name, classified once by the name table: its host category and its runtime-API role.
class NameRoleCache {
public:
    explicit NameRoleCache(const core::TraceModel& model)
        : m_model(model),
          m_category(model.strings.size(), kUnset),
          m_api(model.strings.size(), kUnset),
          m_framework(model, names::isFrameworkOpName) {}
    std::int8_t category(core::StringId id) {
        if (!id.valid() || id.index >= m_category.size()) {
            return kNoCategory;
        }
        std::int8_t& c = m_category[id.index];
        if (c == kUnset) {
            c = categoryOfRole(names::hostRoleOf(m_model.text(id)));
        }
        return c;
    }
    names::ApiRole api(core::StringId id) {
        if (!id.valid() || id.index >= m_api.size()) {
            return names::ApiRole::Other;
        }
        std::int8_t& a = m_api[id.index];
        if (a == kUnset) {
            a = static_cast<std::int8_t>(names::apiRoleOf(m_model.text(id)));
        }
        return static_cast<names::ApiRole>(a);
    }
    bool syncApi(core::StringId id) {
        const names::ApiRole r = api(id);
        return r == names::ApiRole::Synchronize || r == names::ApiRole::CopyBlocking;
    }
    bool frameworkOp(core::StringId id) {
        return id.valid() && id.index < m_model.strings.size() && m_framework(id);
    }
    bool launchApi(core::StringId id) {
        const names::ApiRole r = api(id);
        return r != names::ApiRole::Other && r != names::ApiRole::Synchronize;
    }

private:
    static constexpr std::int8_t kUnset = -2;
    const core::TraceModel& m_model;
    std::vector<std::int8_t> m_category;
    std::vector<std::int8_t> m_api;
    core::NameMemo<bool> m_framework;
};

HostActivity buildHostActivity(const core::TraceModel& model,
                               const std::unordered_set<core::ThreadIndex>& threads, NameRoleCache& roles,
                               core::DurationNs blockingCallNs, const SampledStacks* stacks = nullptr) {
    HostActivity h;
    auto wanted = [&](core::ThreadIndex t) { return threads.empty() || threads.count(t) > 0; };
    // Each table is sorted by start, so each category is a few sorted runs: merged below in
    // linear time instead of sorted again.
    std::array<std::vector<std::size_t>, kCategoryCount> runs;
    auto markRun = [&] {
        for (std::size_t c = 0; c < kCategoryCount; ++c) {
            runs[c].push_back(h.items[c].size());
        }
    };
    h.items[kHost].reserve(model.apiCalls.size() + model.cpuOps.size());
    std::vector<TimeRange> dispatch;
    markRun();
    for (std::uint32_t i = 0; i < model.apiCalls.size(); ++i) {
        if (!wanted(model.apiCalls.thread[i])) {
            continue;
        }
        Item item{{model.apiCalls.startNs[i], model.apiCalls.endNs[i]},
                  IdleEvidence::Kind::ApiCall,
                  i,
                  model.apiCalls.name[i]};
        if (roles.syncApi(model.apiCalls.name[i])) {
            h.items[kSync].push_back(item);
        }
        if (roles.launchApi(model.apiCalls.name[i])) {
            h.launchStarts.push_back(item.range.startNs);
            dispatch.push_back(item.range);
        }
        h.items[kHost].push_back(item);
    }
    markRun();
    for (std::uint32_t i = 0; i < model.cpuOps.size(); ++i) {
        if (!wanted(model.cpuOps.thread[i])) {
            continue;
        }
        Item item{{model.cpuOps.startNs[i], model.cpuOps.endNs[i]},
                  IdleEvidence::Kind::CpuOp,
                  i,
                  model.cpuOps.name[i]};
        if (const std::int8_t category = roles.category(model.cpuOps.name[i]); category != kNoCategory) {
            h.items[static_cast<std::size_t>(category)].push_back(item);
        }
        if (model.cpuOps.category[i] == core::CpuOpCategory::Operator &&
            roles.frameworkOp(model.cpuOps.name[i])) {
            dispatch.push_back(item.range);  // the eager op stream
        }
        h.items[kHost].push_back(item);
    }
    markRun();
    for (std::uint32_t i = 0; i < model.ranges.size(); ++i) {
        if (model.ranges.source[i] == core::RangeSource::GpuUserAnnotation ||
            !wanted(model.ranges.thread[i])) {
            continue;
        }
        Item item{{model.ranges.startNs[i], model.ranges.endNs[i]},
                  IdleEvidence::Kind::Range,
                  i,
                  model.ranges.name[i]};
        if (const std::int8_t category = roles.category(model.ranges.name[i]); category != kNoCategory) {
            h.items[static_cast<std::size_t>(category)].push_back(item);
        }
        // Other ranges (ProfilerStep, "## forward ##") enclose work rather than being work.
    }
    markRun();
    // Copy calls that block the host: cudaMemcpy (no Async), pageable host memory (the runtime then
    // copies synchronously even for cudaMemcpyAsync), or an "async" call that lasted long enough to
    // have waited for the stream. A blocking host-to-device copy is the batch upload (data); any
    // other blocking copy is a synchronization.
    for (std::uint32_t i = 0; i < model.memcpys.size(); ++i) {
        core::ApiCallId call = model.memcpys.launchCall[i];
        if (!call.valid() || call.index >= model.apiCalls.size() ||
            !wanted(model.apiCalls.thread[call.index])) {
            continue;
        }
        const TimeRange callRange{model.apiCalls.startNs[call.index], model.apiCalls.endNs[call.index]};
        core::StringId name = model.apiCalls.name[call.index];
        const bool blocking = roles.syncApi(name) || model.memcpys.srcKind[i] == core::MemoryKind::Pageable ||
                              model.memcpys.dstKind[i] == core::MemoryKind::Pageable ||
                              callRange.durationNs() >= blockingCallNs;
        if (!blocking) {
            continue;
        }
        const Category category = model.memcpys.kind[i] == core::MemcpyKind::HostToDevice ? kData : kSync;
        h.items[category].push_back({callRange, IdleEvidence::Kind::ApiCall, call.index, name});
    }
    markRun();
    for (std::uint32_t i = 0; i < model.syncs.size(); ++i) {
        if (model.syncs.thread[i] != core::kNoThread && !wanted(model.syncs.thread[i])) {
            continue;
        }
        h.items[kSync].push_back(
            {{model.syncs.startNs[i], model.syncs.endNs[i]}, IdleEvidence::Kind::Sync, i, {}});
    }
    markRun();
    // Sampled stacks: each sample for the time it stands for, in its stack's category and as host
    // activity, named by the leaf frame's function.
    if (stacks != nullptr) {
        const core::StackSampleTable& t = model.stackSamples;
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            const TimeRange span = stacks->span(i);
            if (span.empty() || !wanted(t.thread[i])) {
                continue;
            }
            const Item item{span, IdleEvidence::Kind::StackSample, i, stacks->leafFunction(t.stack[i])};
            if (const std::int8_t category = categoryOfRole(stacks->role(t.stack[i]).role);
                category != kNoCategory) {
                h.items[static_cast<std::size_t>(category)].push_back(item);
            }
            h.items[kHost].push_back(item);
        }
    }
    markRun();
    auto byStart = [](const Item& a, const Item& b) { return a.range.startNs < b.range.startNs; };
    for (std::size_t c = 0; c < kCategoryCount; ++c) {
        std::vector<Item>& items = h.items[c];
        for (std::size_t r = 2; r < runs[c].size(); ++r) {
            std::inplace_merge(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(runs[c][r - 1]),
                               items.begin() + static_cast<std::ptrdiff_t>(runs[c][r]), byStart);
        }
        if (!std::is_sorted(items.begin(), items.end(), byStart)) {  // tables not finalized
            std::sort(items.begin(), items.end(), byStart);
        }
        for (const Item& item : items) {
            h.sets[c].appendSorted(item.range);
        }
    }
    std::sort(h.launchStarts.begin(), h.launchStarts.end());
    h.dispatch = IntervalSet::fromUnsorted(std::move(dispatch));
    return h;
}

// Per thread of the model: the intervals in which its "CPU %" samples say it was on the CPU (a
// sample covers the interval since the previous one; the first sample of a track has none).
std::unordered_map<core::ThreadIndex, std::vector<TimeRange>> onCpuByThread(const core::TraceModel& model,
                                                                            double minPercent) {
    std::unordered_map<core::ThreadIndex, std::vector<TimeRange>> out;
    std::map<std::pair<std::int64_t, std::int64_t>, core::ThreadIndex> index;
    for (std::size_t t = 0; t < model.threads.size(); ++t) {
        index[{model.threads[t].pid, model.threads[t].tid}] = static_cast<core::ThreadIndex>(t);
    }
    for (const core::CounterTrack& track : model.counters) {
        if (!core::isThreadCpuTrack(track)) {
            continue;
        }
        const auto it = index.find({track.pid, track.tid});
        if (it == index.end()) {
            continue;
        }
        std::vector<TimeRange>& ranges = out[it->second];
        for (std::size_t i = 1; i < track.timesNs.size() && i < track.values.size(); ++i) {
            if (track.values[i] < minPercent || track.timesNs[i] <= track.timesNs[i - 1]) {
                continue;
            }
            const TimeRange r{track.timesNs[i - 1], track.timesNs[i]};
            if (!ranges.empty() && ranges.back().endNs >= r.startNs) {
                ranges.back().endNs = std::max(ranges.back().endNs, r.endNs);
            } else {
                ranges.push_back(r);
            }
        }
    }
    return out;
}

// The on-CPU intervals of `threads` as category items (evidence kind Thread), added to `h`.
void addOnCpu(HostActivity& h, Category category,
              const std::unordered_map<core::ThreadIndex, std::vector<TimeRange>>& onCpu,
              const std::vector<core::ThreadIndex>& threads) {
    std::vector<Item>& items = h.items[category];
    for (core::ThreadIndex t : threads) {
        const auto it = onCpu.find(t);
        if (it == onCpu.end()) {
            continue;
        }
        for (const TimeRange& r : it->second) {
            items.push_back({r, IdleEvidence::Kind::Thread, t, {}});
        }
    }
    std::sort(items.begin(), items.end(),
              [](const Item& a, const Item& b) { return a.range.startNs < b.range.startNs; });
    std::vector<TimeRange> ranges;
    ranges.reserve(items.size());
    for (const Item& item : items) {
        ranges.push_back(item.range);
    }
    h.sets[category] = IntervalSet::fromUnsorted(std::move(ranges));
}

// The longest piece of `set` inside `window` (empty when none).
TimeRange longestPiece(const IntervalSet& set, TimeRange window) {
    const std::vector<TimeRange>& v = set.intervals();
    auto it = std::lower_bound(v.begin(), v.end(), window.startNs,
                               [](const TimeRange& r, TimestampNs t) { return r.endNs <= t; });
    TimeRange best;
    for (; it != v.end() && it->startNs < window.endNs; ++it) {
        TimeRange piece = it->intersect(window);
        if (piece.durationNs() > best.durationNs()) {
            best = piece;
        }
    }
    return best;
}

// Latest-starting step whose stretched range contains t, -1 if none.
std::int32_t owningStep(const std::vector<Step>& steps, TimestampNs t) {
    auto it = std::upper_bound(steps.begin(), steps.end(), t,
                               [](TimestampNs v, const Step& s) { return v < s.range.startNs; });
    for (std::ptrdiff_t i = (it - steps.begin()) - 1, tried = 0; i >= 0 && tried < 8; --i, ++tried) {
        if (steps[static_cast<std::size_t>(i)].range.contains(t)) {
            return static_cast<std::int32_t>(i);
        }
    }
    return -1;
}

GpuTimeBreakdown breakdown(const DeviceSets& d, const IntervalSet& exposedComm,
                           const IntervalSet& exposedCopy, TimeRange window, std::int16_t device,
                           std::int32_t step) {
    GpuTimeBreakdown b;
    b.stepIndex = step;
    b.deviceIndex = device;
    b.window = window;
    b.windowNs = window.durationNs();
    b.busyNs = d.busy.coveredNs(window);
    b.computeNs = d.compute.coveredNs(window);
    b.communicationNs = d.communication.coveredNs(window);
    b.copyNs = d.copy.coveredNs(window);
    for (std::size_t k = 0; k < kCopyKindCount; ++k) {
        b.copyByKindNs[k] = d.copyByKind[k].coveredNs(window);
    }
    b.memsetNs = d.memset.coveredNs(window);
    b.exposedCommunicationNs = exposedComm.coveredNs(window);
    b.exposedCopyNs = exposedCopy.coveredNs(window);
    b.exposedHostCopyNs = d.exposedHostCopy.coveredNs(window);
    b.pageableHostCopyNs = d.pageableHostCopy.coveredNs(window);
    b.idleNs = b.windowNs - b.busyNs;
    return b;
}

// Time of `gap` in stretches longer than `silenceNs` in which the host runs neither a launch call
// nor a framework op (`dispatch`: the eager op stream, NameRules::isFrameworkOpName). A slow
// hipLaunchKernel, or an aten op busy for 300 us before its launch, is dispatching all along;
// Python code between ops is not.
DurationNs silentNs(const IntervalSet& dispatch, TimeRange gap, DurationNs silenceNs) {
    DurationNs silent = 0;
    const IntervalSet stretches = dispatch.gapsWithin(gap);
    for (const TimeRange& stretch : stretches.intervals()) {
        if (stretch.durationNs() > silenceNs) {
            silent += stretch.durationNs();
        }
    }
    return silent;
}

// Samples the innermost host frame at `samples` evenly spaced points of `gap` (probes ascend, as
// the sweeper needs), adds each frame's share to `frameNs` and returns the most-sampled frame as
// the gap's evidence.
IdleEvidence sampleFrames(InnermostSweeper& sweeper, TimeRange gap, int samples,
                          std::unordered_map<std::uint32_t, DurationNs>& frameNs) {
    const DurationNs length = gap.durationNs();
    const auto count =
        static_cast<DurationNs>(std::clamp<DurationNs>(length / 1'000, 1, std::max(1, samples)));
    const DurationNs step = length / count;
    std::vector<std::pair<const Item*, int>> hits;
    for (DurationNs j = 0; j < count; ++j) {
        const Item* item = sweeper.at(gap.startNs + j * step + step / 2);
        if (item == nullptr) {
            continue;
        }
        frameNs[item->name.index] += step;
        auto it = std::find_if(hits.begin(), hits.end(), [&](const auto& h) { return h.first == item; });
        if (it == hits.end()) {
            hits.emplace_back(item, 1);
        } else {
            ++it->second;
        }
    }
    IdleEvidence evidence;
    auto best = std::max_element(hits.begin(), hits.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    if (best != hits.end()) {
        evidence.kind = best->first->kind;
        evidence.row = best->first->row;
        evidence.name = best->first->name;
        evidence.overlapNs = best->first->range.intersect(gap).durationNs();
    }
    return evidence;
}

// The device's frames by exclusive HostWork time, largest first (ties by name id, then thread), at
// most 20; `threadNs` adds threads known only from their CPU use.
void appendTopFrames(const std::unordered_map<std::uint32_t, DurationNs>& frameNs,
                     const std::unordered_map<core::ThreadIndex, DurationNs>& threadNs, std::int16_t device,
                     DurationNs wholeNs, std::vector<HostFrameTime>& out) {
    std::vector<HostFrameTime> frames;
    frames.reserve(frameNs.size() + threadNs.size());
    for (const auto& [name, ns] : frameNs) {
        frames.push_back({device, core::StringId{name}, ns, core::kNoThread, wholeNs});
    }
    for (const auto& [thread, ns] : threadNs) {
        frames.push_back({device, core::StringId{}, ns, thread, wholeNs});
    }
    std::sort(frames.begin(), frames.end(), [](const HostFrameTime& a, const HostFrameTime& b) {
        if (a.exclusiveNs != b.exclusiveNs) {
            return a.exclusiveNs > b.exclusiveNs;
        }
        return a.name.index != b.name.index ? a.name.index < b.name.index : a.thread < b.thread;
    });
    constexpr std::size_t kTopFrames = 20;
    out.insert(out.end(), frames.begin(),
               frames.begin() + static_cast<std::ptrdiff_t>(std::min(kTopFrames, frames.size())));
}

}  // namespace

std::string_view toString(IdleCause cause) {
    switch (cause) {
        case IdleCause::DataWait:
            return "waiting for data";
        case IdleCause::LaunchOverhead:
            return "launch overhead";
        case IdleCause::Synchronization:
            return "synchronization";
        case IdleCause::OtherStream:
            return "waiting on another stream";
        case IdleCause::Collective:
            return "waiting on a collective";
        case IdleCause::Unexplained:
            return "unexplained";
        case IdleCause::HostWork:
            return "host work (not launching)";
        case IdleCause::Compilation:
            return "compilation";
        case IdleCause::Housekeeping:
            return "checkpointing/logging/evaluation";
        case IdleCause::GarbageCollection:
            return "garbage collection";
    }
    return "unexplained";
}

GpuTimeAccountingResult computeGpuTimeAccounting(const core::TraceModel& model, const StepsResult& steps,
                                                 const KernelStatsResult& kernels,
                                                 const AccountingOptions& options,
                                                 const std::vector<bool>& steadySteps,
                                                 const SampledStacks* stacks) {
    GpuTimeAccountingResult result;
    std::optional<SampledStacks> ownStacks;
    if (stacks == nullptr && model.stackSamples.size() > 0) {
        stacks = &ownStacks.emplace(model);
    }
    const TimeRange span = steps.span();
    std::map<std::int16_t, DeviceSets> devices = buildDeviceSets(model, kernels);
    NameRoleCache nameRoles(model);
    // The threads' CPU use (agent captures), and which threads feed the input pipeline.
    const auto onCpu = onCpuByThread(model, options.onCpuMinPercent);
    std::vector<core::ThreadIndex> pipelineThreads;
    if (!onCpu.empty()) {
        const core::ThreadLabels labels(model);
        for (std::size_t t = 0; t < model.threads.size(); ++t) {
            if (labels.of(static_cast<core::ThreadIndex>(t)).inputPipeline()) {
                pipelineThreads.push_back(static_cast<core::ThreadIndex>(t));
            }
        }
    }
    if (span.empty()) {
        for (const auto& [device, sets] : devices) {
            result.devices.push_back(device);
            if (!sets.busy.empty()) {
                TimeRange gpuSpan{sets.busy.intervals().front().startNs, sets.busy.intervals().back().endNs};
                result.perDeviceGpuSpan.push_back(breakdown(sets, sets.communication.subtract(sets.compute),
                                                            sets.copy.subtract(sets.compute), gpuSpan, device,
                                                            -1));
            }
        }
        return result;
    }
    // Per-step kernel counts per device (short kernels are launch-overhead evidence); slot 0 holds
    // the rows outside every step, slot s + 1 step s.
    using Counts = std::array<std::int64_t, 4>;  // kernels, memcpys, memsets, short kernels
    std::map<std::int16_t, std::vector<Counts>> counts;
    auto slot = [&](const std::vector<std::int32_t>& stepOf, std::size_t i, std::int16_t device) -> Counts& {
        std::vector<Counts>& v = counts[device];
        if (v.empty()) {
            v.resize(steps.steps.size() + 1, Counts{});
        }
        std::int32_t s = i < stepOf.size() ? stepOf[i] : -1;
        return v[static_cast<std::size_t>(s + 1)];
    };
    for (std::size_t i = 0; i < model.kernels.size(); ++i) {
        Counts& c = slot(steps.kernelStep, i, model.kernels.deviceIndex[i]);
        ++c[0];
        if (model.kernels.durationNs(i) < options.shortKernelNs) {
            ++c[3];
        }
    }
    for (std::size_t i = 0; i < model.memcpys.size(); ++i) {
        ++slot(steps.memcpyStep, i, model.memcpys.deviceIndex[i])[1];
    }
    for (std::size_t i = 0; i < model.memsets.size(); ++i) {
        ++slot(steps.memsetStep, i, model.memsets.deviceIndex[i])[2];
    }

    for (auto& [device, d] : devices) {
        result.devices.push_back(device);
        IntervalSet exposedComm = d.communication.subtract(d.compute);
        IntervalSet exposedCopy = d.copy.subtract(d.compute);
        const auto h2d = static_cast<std::size_t>(core::MemcpyKind::HostToDevice);
        const auto d2h = static_cast<std::size_t>(core::MemcpyKind::DeviceToHost);
        d.exposedHostCopy = d.copyByKind[h2d].unionWith(d.copyByKind[d2h]).subtract(d.compute);
        if (!d.busy.empty()) {
            TimeRange gpuSpan{d.busy.intervals().front().startNs, d.busy.intervals().back().endNs};
            result.perDeviceGpuSpan.push_back(breakdown(d, exposedComm, exposedCopy, gpuSpan, device, -1));
        }

        // --- Device-level idle intervals over the span, with causes --------------------------------
        HostActivity host =
            buildHostActivity(model, d.launchThreads, nameRoles, options.blockingCopyCallNs, stacks);
        if (!onCpu.empty()) {
            std::vector<core::ThreadIndex> launching(d.launchThreads.begin(), d.launchThreads.end());
            std::sort(launching.begin(), launching.end());
            addOnCpu(host, kOnCpu, onCpu, launching);
            addOnCpu(host, kWorkerCpu, onCpu, pipelineThreads);
        }
        // Host work on the launch path, per launching thread: a thread's work is serial, so the step
        // cannot be shorter than any one thread's; threads that run in parallel do not add up.
        std::vector<IntervalSet> hostWorkByThread;
        for (core::ThreadIndex thread : d.launchThreads) {
            HostActivity one = buildHostActivity(model, {thread}, nameRoles, options.blockingCopyCallNs);
            hostWorkByThread.push_back(one.sets[kHost].subtract(one.sets[kData]).subtract(one.sets[kSync]));
        }
        auto hostWorkIn = [&](TimeRange window) {
            DurationNs longest = 0;
            for (const IntervalSet& work : hostWorkByThread) {
                longest = std::max(longest, work.coveredNs(window));
            }
            return longest;
        };
        // A sync record has no name of its own: it is named by the API call that made it.
        const auto syncCallName = [&](const Item& item) {
            if (item.kind == IdleEvidence::Kind::Sync && item.row < model.syncs.size() &&
                model.syncs.apiCall[item.row].valid() &&
                model.syncs.apiCall[item.row].index < model.apiCalls.size()) {
                return model.apiCalls.name[model.syncs.apiCall[item.row].index];
            }
            return item.name;
        };
        std::vector<Item> syncItems = host.items[kSync];
        for (Item& item : syncItems) {
            item.name = syncCallName(item);
        }
        SyncCallSweeper syncCalls(std::move(syncItems), options.syncDrainToleranceNs);
        std::unordered_map<std::uint32_t, DurationNs> afterSyncNs;  // idle after a sync, per call name
        DurationNs afterSyncWholeNs = 0;
        std::array<InnermostSweeper, kCategoryCount> sweepers{
            InnermostSweeper(std::move(host.items[kData])),
            InnermostSweeper(std::move(host.items[kCollective])),
            InnermostSweeper(std::move(host.items[kCompile])),
            InnermostSweeper(std::move(host.items[kGc])),
            InnermostSweeper(std::move(host.items[kHousekeeping])),
            InnermostSweeper(std::move(host.items[kSync])),
            InnermostSweeper(std::move(host.items[kHost])),
            InnermostSweeper(std::move(host.items[kOnCpu])),
            InnermostSweeper(std::move(host.items[kWorkerCpu]))};
        std::unordered_map<std::uint32_t, DurationNs> frameNs;  // HostWork exclusive time per frame name
        // Gaps explained by a thread's CPU use alone: their time per thread (HostWork / DataWait).
        std::unordered_map<core::ThreadIndex, DurationNs> hostThreadNs, dataThreadNs;
        // DataWait gaps: the innermost frame among the data items and every host frame nested in
        // them (the transforms, collate and copies inside DataLoader.__next__), built at the first
        // such gap. Its own sweeper: the cause sweepers are only ever asked about later times.
        std::optional<InnermostSweeper> dataFrames;
        std::unordered_map<std::uint32_t, DurationNs> dataFrameNs;
        // The gap time the frames above were sampled in (HostWork and DataWait gaps counted).
        DurationNs hostFramesWholeNs = 0, dataFramesWholeNs = 0;
        const std::size_t firstInterval = result.idleIntervals.size();
        IntervalSet gaps = d.busy.gapsWithin(span);
        result.idleIntervals.reserve(result.idleIntervals.size() + gaps.size() + d.perStream.size() * 16);
        // Per step: from its first collective kernel's start to its last one's end on this device.
        std::vector<TimeRange> collectiveSpan(steps.steps.size());
        for (std::size_t s = 0; s < steps.steps.size(); ++s) {
            const IntervalSet comm = d.communication.clippedTo(steps.steps[s].range);
            if (!comm.empty()) {
                collectiveSpan[s] = {comm.intervals().front().startNs, comm.intervals().back().endNs};
            }
        }
        for (const TimeRange& gap : gaps.intervals()) {
            IdleInterval idle;
            idle.deviceIndex = device;
            idle.range = gap;
            idle.stepIndex = owningStep(steps.steps, gap.startNs);
            auto first = std::lower_bound(host.launchStarts.begin(), host.launchStarts.end(), gap.startNs);
            auto last = std::lower_bound(first, host.launchStarts.end(), gap.endNs);
            idle.launchCount = static_cast<std::int32_t>(last - first);
            // Before the queued check: a host blocked in a sync has nothing queued behind the drain.
            const Item* syncCall = syncCalls.at(gap.startNs);
            if (const DeviceSets::Launched* next = queuedOpEnding(d, gap)) {
                // A queued wait: the op that ends the gap had been launched before the gap began, so
                // the device was not waiting for the host, whatever the host was doing. Inside the
                // span of the step's collective kernels the queued work waits on communication;
                // elsewhere the trace does not show what it waited on.
                idle.queued = true;
                const bool communication =
                    idle.stepIndex >= 0 &&
                    collectiveSpan[static_cast<std::size_t>(idle.stepIndex)].contains(gap.startNs);
                idle.cause = communication ? IdleCause::Collective : IdleCause::Unexplained;
                idle.coverage = communication ? 1.0 : 0.0;
                if (next->kernelRow >= 0) {
                    const auto row = static_cast<std::uint32_t>(next->kernelRow);
                    idle.evidence = {IdleEvidence::Kind::Kernel, row, model.kernels.name[row], 0};
                }
                result.idleIntervals.push_back(idle);
                continue;
            }
            // Frames are counted over the steady steps' gaps only, when those are known.
            const bool framesCounted =
                steadySteps.empty() ||
                (idle.stepIndex >= 0 && static_cast<std::size_t>(idle.stepIndex) < steadySteps.size() &&
                 steadySteps[static_cast<std::size_t>(idle.stepIndex)]);
            std::unordered_map<std::uint32_t, DurationNs> uncounted;
            const double length = static_cast<double>(gap.durationNs());
            double bestCoverage = 0;
            std::size_t winner = kCategoryCount;
            for (std::size_t c = 0; c < kCategoryCount; ++c) {
                double coverage = static_cast<double>(host.sets[c].coveredNs(gap)) / length;
                bestCoverage = std::max(bestCoverage, coverage);
                if (winner == kCategoryCount && coverage >= options.minCoverage) {
                    winner = c;
                    idle.coverage = coverage;
                }
            }
            if (winner == kCategoryCount) {
                idle.cause = IdleCause::Unexplained;
                idle.coverage = bestCoverage;
            } else if (winner == kHost &&
                       silentNs(host.dispatch, gap, options.launchSilenceNs) * 2 >= gap.durationNs()) {
                idle.cause = IdleCause::HostWork;
                idle.evidence = sampleFrames(sweepers[kHost], gap, options.frameSamplesPerGap,
                                             framesCounted ? frameNs : uncounted);
                if (framesCounted) {
                    hostFramesWholeNs += gap.durationNs();
                }
            } else if (winner == kOnCpu || winner == kWorkerCpu) {
                // Known from CPU use only: the thread on the CPU longest in the gap is the evidence.
                const bool silent =
                    silentNs(host.dispatch, gap, options.launchSilenceNs) * 2 >= gap.durationNs();
                idle.cause = winner == kWorkerCpu ? IdleCause::DataWait
                             : silent             ? IdleCause::HostWork
                                                  : IdleCause::LaunchOverhead;
                const TimeRange piece = longestPiece(host.sets[winner], gap);
                if (const Item* item = sweepers[winner].at(piece.startNs + piece.durationNs() / 2)) {
                    idle.evidence = {
                        IdleEvidence::Kind::Thread, item->row, {}, item->range.intersect(gap).durationNs()};
                    if (framesCounted && idle.cause == IdleCause::HostWork) {
                        hostThreadNs[item->row] += gap.durationNs();
                        hostFramesWholeNs += gap.durationNs();
                    } else if (framesCounted && idle.cause == IdleCause::DataWait) {
                        dataThreadNs[item->row] += gap.durationNs();
                        dataFramesWholeNs += gap.durationNs();
                    }
                }
            } else {
                idle.cause = kCauseOf[winner];
                if (idle.cause == IdleCause::DataWait) {
                    if (!dataFrames) {
                        std::vector<Item> items = sweepers[kData].items();
                        const std::vector<Item>& hostItems = sweepers[kHost].items();
                        items.insert(items.end(), hostItems.begin(), hostItems.end());
                        dataFrames.emplace(std::move(items));
                    }
                    sampleFrames(*dataFrames, gap, options.frameSamplesPerGap,
                                 framesCounted ? dataFrameNs : uncounted);
                    if (framesCounted) {
                        dataFramesWholeNs += gap.durationNs();
                    }
                }
                TimeRange piece = longestPiece(host.sets[winner], gap);
                if (const Item* item = sweepers[winner].at(piece.startNs + piece.durationNs() / 2)) {
                    idle.evidence.kind = item->kind;
                    idle.evidence.row = item->row;
                    idle.evidence.name = item->name;
                    idle.evidence.overlapNs = item->range.intersect(gap).durationNs();
                }
            }
            // Idle during a synchronization (its cause) or right after one (the queue it drained).
            if (syncCall != nullptr || idle.cause == IdleCause::Synchronization) {
                idle.afterSync = true;
                idle.afterSyncName =
                    syncCall != nullptr
                        ? syncCall->name
                        : syncCallName({{}, idle.evidence.kind, idle.evidence.row, idle.evidence.name});
                if (framesCounted) {
                    afterSyncNs[idle.afterSyncName.index] += gap.durationNs();
                    afterSyncWholeNs += gap.durationNs();
                }
            }
            result.idleIntervals.push_back(idle);
        }
        appendTopFrames(frameNs, hostThreadNs, device, hostFramesWholeNs, result.hostWorkFrames);
        appendTopFrames(dataFrameNs, dataThreadNs, device, dataFramesWholeNs, result.dataWaitFrames);
        appendTopFrames(afterSyncNs, {}, device, afterSyncWholeNs, result.afterSyncCalls);
        const std::size_t endInterval = result.idleIntervals.size();

        auto addCauses = [&](GpuTimeBreakdown& b) {
            auto begin = result.idleIntervals.begin() + static_cast<std::ptrdiff_t>(firstInterval);
            auto end = result.idleIntervals.begin() + static_cast<std::ptrdiff_t>(endInterval);
            auto it =
                std::lower_bound(begin, end, b.window.startNs,
                                 [](const IdleInterval& v, TimestampNs t) { return v.range.endNs <= t; });
            for (; it != end && it->range.startNs < b.window.endNs; ++it) {
                DurationNs overlap = it->range.intersect(b.window).durationNs();
                b.idleByCauseNs[static_cast<std::size_t>(it->cause)] += overlap;
                b.idleAfterSyncNs += it->afterSync ? overlap : 0;
                b.idleIntervalCount += overlap > 0 ? 1 : 0;
            }
            // Idle time outside the span (cannot happen for windows inside it) stays unexplained.
            DurationNs listed = 0;
            for (DurationNs v : b.idleByCauseNs) {
                listed += v;
            }
            b.idleByCauseNs[static_cast<std::size_t>(IdleCause::Unexplained)] +=
                std::max<DurationNs>(0, b.idleNs - listed);
        };

        // --- Per-step rows ----------------------------------------------------------------------
        for (std::size_t s = 0; s < steps.steps.size(); ++s) {
            GpuTimeBreakdown b = breakdown(d, exposedComm, exposedCopy, steps.steps[s].range, device,
                                           static_cast<std::int32_t>(s));
            const Counts& c = counts[device][s + 1];
            b.kernelCount = c[0];
            b.memcpyCount = c[1];
            b.memsetCount = c[2];
            b.shortKernelCount = c[3];
            b.hostWorkNs = hostWorkIn(b.window);
            b.hostSyncNs = host.sets[kSync].coveredNs(b.window);
            addCauses(b);
            result.perStep.push_back(b);
        }
        // --- Whole span row -----------------------------------------------------------------------
        GpuTimeBreakdown total = breakdown(d, exposedComm, exposedCopy, span, device, -1);
        const std::vector<Counts>& perStepCounts = counts[device];
        for (std::size_t s = 1; s < perStepCounts.size(); ++s) {
            total.kernelCount += perStepCounts[s][0];
            total.memcpyCount += perStepCounts[s][1];
            total.memsetCount += perStepCounts[s][2];
            total.shortKernelCount += perStepCounts[s][3];
        }
        total.hostWorkNs = hostWorkIn(total.window);
        total.hostSyncNs = host.sets[kSync].coveredNs(total.window);
        addCauses(total);
        result.perDevice.push_back(total);

        // --- Stream-level waits on the busiest stream ----------------------------------------------
        if (d.perStream.size() > 1) {
            std::int32_t busiest = d.perStream.begin()->first;
            for (const auto& [stream, time] : d.streamTime) {
                if (time > d.streamTime[busiest]) {
                    busiest = stream;
                }
            }
            const IntervalSet& mine = d.perStream[busiest];
            IntervalSet others;
            for (const auto& [stream, set] : d.perStream) {
                if (stream != busiest) {
                    others = others.unionWith(set);
                }
            }
            IntervalSet otherComm = d.communication.subtract(mine);
            // Only between the stream's first and last op: before/after it the stream is not waiting.
            TimeRange active =
                mine.empty() ? TimeRange{}
                             : TimeRange{mine.intervals().front().startNs, mine.intervals().back().endNs};
            IntervalSet streamGaps = mine.gapsWithin(span.intersect(active));
            for (const TimeRange& gap : streamGaps.intervals()) {
                DurationNs covered = others.coveredNs(gap);
                double coverage = static_cast<double>(covered) / static_cast<double>(gap.durationNs());
                if (coverage < options.minCoverage) {
                    continue;
                }
                IdleInterval idle;
                idle.deviceIndex = device;
                idle.streamId = busiest;
                idle.range = gap;
                idle.stepIndex = owningStep(steps.steps, gap.startNs);
                idle.coverage = coverage;
                idle.cause =
                    otherComm.coveredNs(gap) * 2 >= covered ? IdleCause::Collective : IdleCause::OtherStream;
                result.idleIntervals.push_back(idle);
            }
        }
    }
    if (options.minIdleNs > 0) {  // short gaps stay in the sums above but are not listed
        std::erase_if(result.idleIntervals,
                      [&](const IdleInterval& v) { return v.range.durationNs() < options.minIdleNs; });
    }
    return result;
}

}  // namespace chokepoint::analysis
