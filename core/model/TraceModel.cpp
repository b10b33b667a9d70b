#include "core/model/TraceModel.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace chokepoint::core {

namespace {

// Sort order for every event table: by start, and for equal starts the longer row first, so that
// an enclosing range precedes what it encloses. Stable, so equal rows keep import order.
std::vector<std::uint32_t> startOrder(const std::vector<TimestampNs>& startNs,
                                      const std::vector<TimestampNs>& endNs) {
    std::vector<std::uint32_t> order(startNs.size());
    std::iota(order.begin(), order.end(), 0u);
    bool sorted = true;
    for (std::size_t i = 1; i < startNs.size() && sorted; ++i) {
        sorted = startNs[i - 1] < startNs[i] || (startNs[i - 1] == startNs[i] && endNs[i - 1] >= endNs[i]);
    }
    if (sorted) {
        return order;
    }
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (startNs[a] != startNs[b]) {
            return startNs[a] < startNs[b];
        }
        return endNs[a] > endNs[b];
    });
    return order;
}

bool isIdentity(const std::vector<std::uint32_t>& order) {
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (order[i] != i) {
            return false;
        }
    }
    return true;
}

// oldToNew[old] = new position.
std::vector<std::uint32_t> inverse(const std::vector<std::uint32_t>& order) {
    std::vector<std::uint32_t> result(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        result[order[i]] = static_cast<std::uint32_t>(i);
    }
    return result;
}

template <class Id>
void remapIds(std::vector<Id>& column, const std::vector<std::uint32_t>& oldToNew) {
    for (Id& id : column) {
        if (id.valid() && id.index < oldToNew.size()) {
            id = Id{oldToNew[id.index]};
        } else if (id.valid()) {
            id = Id{};
        }
    }
}

// Computes depth and parent for rows already sorted by start, grouped by `groupKey(row)`.
// Returns the number of rows that overlap their parent only partially (badly nested input).
template <class Id, class KeyFn>
std::int64_t nest(const std::vector<TimestampNs>& startNs, const std::vector<TimestampNs>& endNs,
                  std::vector<std::uint16_t>& depth, std::vector<Id>& parent, KeyFn groupKey) {
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> stacks;
    std::int64_t partial = 0;
    for (std::uint32_t i = 0; i < startNs.size(); ++i) {
        std::vector<std::uint32_t>& stack = stacks[groupKey(i)];
        while (!stack.empty() && endNs[stack.back()] <= startNs[i]) {
            stack.pop_back();
        }
        if (!stack.empty() && endNs[i] > endNs[stack.back()]) {
            ++partial;
        }
        parent[i] = stack.empty() ? Id{} : Id{stack.back()};
        depth[i] = static_cast<std::uint16_t>(std::min<std::size_t>(stack.size(), 0xFFFF));
        stack.push_back(i);
    }
    return partial;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h;
}

std::uint64_t frameHash(const StackFrame& f) {
    return mix(mix(mix(0, f.file.index), f.function.index), static_cast<std::uint32_t>(f.line));
}

std::uint64_t stackHash(std::span<const FrameIndex> frames) {
    std::uint64_t h = frames.size();
    for (FrameIndex f : frames) {
        h = mix(h, f);
    }
    return h;
}

}  // namespace

void TraceModel::syncStackIndex() {
    for (; m_framesIndexed < stackFrames.size(); ++m_framesIndexed) {
        m_frameIndex.emplace(frameHash(stackFrames[m_framesIndexed]),
                             static_cast<FrameIndex>(m_framesIndexed));
    }
    if (stackOffsets.empty()) {
        stackOffsets.push_back(0);
    }
    for (; m_stacksIndexed < stackCount(); ++m_stacksIndexed) {
        m_stackIndex.emplace(stackHash(stack(static_cast<StackIndex>(m_stacksIndexed))),
                             static_cast<StackIndex>(m_stacksIndexed));
    }
}

FrameIndex TraceModel::internFrame(std::string_view file, std::string_view function, std::int32_t line) {
    syncStackIndex();
    StackFrame frame{intern(file), intern(function), line};
    std::uint64_t h = frameHash(frame);
    auto [lo, hi] = m_frameIndex.equal_range(h);
    for (auto it = lo; it != hi; ++it) {
        if (stackFrames[it->second] == frame) {
            return it->second;
        }
    }
    auto index = static_cast<FrameIndex>(stackFrames.size());
    stackFrames.push_back(frame);
    m_frameIndex.emplace(h, index);
    m_framesIndexed = stackFrames.size();
    return index;
}

StackIndex TraceModel::internStack(const std::vector<FrameIndex>& frameIdsLeafFirst) {
    syncStackIndex();
    std::span<const FrameIndex> frames(frameIdsLeafFirst);
    std::uint64_t h = stackHash(frames);
    auto [lo, hi] = m_stackIndex.equal_range(h);
    for (auto it = lo; it != hi; ++it) {
        std::span<const FrameIndex> known = stack(it->second);
        if (std::equal(known.begin(), known.end(), frames.begin(), frames.end())) {
            return it->second;
        }
    }
    auto index = static_cast<StackIndex>(stackCount());
    stackFrameIds.insert(stackFrameIds.end(), frames.begin(), frames.end());
    stackOffsets.push_back(static_cast<std::uint32_t>(stackFrameIds.size()));
    m_stackIndex.emplace(h, index);
    m_stacksIndexed = stackCount();
    return index;
}

std::span<const FrameIndex> TraceModel::stack(StackIndex s) const {
    if (static_cast<std::size_t>(s) + 1 >= stackOffsets.size()) {
        return {};
    }
    std::uint32_t begin = stackOffsets[s];
    std::uint32_t end = stackOffsets[s + 1];
    if (begin > end || end > stackFrameIds.size()) {
        return {};
    }
    return std::span<const FrameIndex>(stackFrameIds).subspan(begin, end - begin);
}

ThreadIndex TraceModel::threadIndex(std::int64_t pid, std::int64_t tid, std::string_view nameIfNew) {
    for (std::size_t i = 0; i < threads.size(); ++i) {
        if (threads[i].pid == pid && threads[i].tid == tid) {
            return static_cast<ThreadIndex>(i);
        }
    }
    threads.push_back(ThreadInfo{pid, tid, std::string(nameIfNew)});
    return static_cast<ThreadIndex>(threads.size() - 1);
}

std::size_t TraceModel::streamIndex(std::int32_t deviceIndex, std::int32_t streamId) {
    for (std::size_t i = 0; i < streams.size(); ++i) {
        if (streams[i].deviceIndex == deviceIndex && streams[i].streamId == streamId) {
            return i;
        }
    }
    streams.push_back(StreamInfo{deviceIndex, streamId, {}});
    return streams.size() - 1;
}

const DeviceInfo* TraceModel::device(std::int32_t deviceIndex) const {
    for (const DeviceInfo& d : devices) {
        if (d.deviceIndex == deviceIndex) {
            return &d;
        }
    }
    return nullptr;
}

DeviceInfo& TraceModel::deviceOrAdd(std::int32_t deviceIndex) {
    for (DeviceInfo& d : devices) {
        if (d.deviceIndex == deviceIndex) {
            return d;
        }
    }
    DeviceInfo info;
    info.deviceIndex = deviceIndex;
    devices.push_back(std::move(info));
    return devices.back();
}

void TraceModel::finalize() {
    sortTables();
    computeNesting();
    joinCorrelations();
    attachApiCallsToOps();
    // Every GPU (device, stream) pair appears in `streams`, so views can list tracks without scanning.
    // A hash set keeps this linear even for hostile traces with very many streams.
    auto streamKey = [](std::int32_t device, std::int32_t stream) {
        return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(device)) << 32) |
               static_cast<std::uint32_t>(stream);
    };
    std::unordered_set<std::uint64_t> knownStreams;
    for (const StreamInfo& info : streams) {
        knownStreams.insert(streamKey(info.deviceIndex, info.streamId));
    }
    auto addStreams = [&](const std::vector<std::int16_t>& dev, const std::vector<std::int32_t>& stream) {
        for (std::size_t i = 0; i < dev.size(); ++i) {
            if (knownStreams.insert(streamKey(dev[i], stream[i])).second) {
                streams.push_back(StreamInfo{dev[i], stream[i], {}});
            }
        }
    };
    addStreams(kernels.deviceIndex, kernels.streamId);
    addStreams(memcpys.deviceIndex, memcpys.streamId);
    addStreams(memsets.deviceIndex, memsets.streamId);
    std::sort(streams.begin(), streams.end(), [](const StreamInfo& a, const StreamInfo& b) {
        return a.deviceIndex != b.deviceIndex ? a.deviceIndex < b.deviceIndex : a.streamId < b.streamId;
    });
    std::sort(devices.begin(), devices.end(),
              [](const DeviceInfo& a, const DeviceInfo& b) { return a.deviceIndex < b.deviceIndex; });
    m_finalized = true;
}

void TraceModel::sortTables() {
    auto apiOrder = startOrder(apiCalls.startNs, apiCalls.endNs);
    if (!isIdentity(apiOrder)) {
        apiCalls.permute(apiOrder);
        auto oldToNew = inverse(apiOrder);
        remapIds(kernels.launchCall, oldToNew);
        remapIds(memcpys.launchCall, oldToNew);
        remapIds(memsets.launchCall, oldToNew);
        remapIds(syncs.apiCall, oldToNew);
    }
    auto opOrder = startOrder(cpuOps.startNs, cpuOps.endNs);
    if (!isIdentity(opOrder)) {
        cpuOps.permute(opOrder);
        remapIds(apiCalls.cpuOp, inverse(opOrder));
    }
    if (auto order = startOrder(kernels.startNs, kernels.endNs); !isIdentity(order)) {
        kernels.permute(order);
    }
    if (auto order = startOrder(memcpys.startNs, memcpys.endNs); !isIdentity(order)) {
        memcpys.permute(order);
    }
    if (auto order = startOrder(memsets.startNs, memsets.endNs); !isIdentity(order)) {
        memsets.permute(order);
    }
    if (auto order = startOrder(syncs.startNs, syncs.endNs); !isIdentity(order)) {
        syncs.permute(order);
    }
    if (auto order = startOrder(ranges.startNs, ranges.endNs); !isIdentity(order)) {
        ranges.permute(order);
    }
    if (!std::is_sorted(stackSamples.timeNs.begin(), stackSamples.timeNs.end())) {
        std::vector<std::uint32_t> order(stackSamples.size());
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            return stackSamples.timeNs[a] < stackSamples.timeNs[b];
        });
        stackSamples.permute(order);
    }
    for (CounterTrack& track : counters) {
        if (!std::is_sorted(track.timesNs.begin(), track.timesNs.end())) {
            std::vector<std::uint32_t> order(track.timesNs.size());
            std::iota(order.begin(), order.end(), 0u);
            std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
                return track.timesNs[a] < track.timesNs[b];
            });
            permuteColumn(track.timesNs, order);
            permuteColumn(track.values, order);
        }
    }
}

void TraceModel::computeNesting() {
    std::int64_t partialRanges =
        nest(ranges.startNs, ranges.endNs, ranges.depth, ranges.parent, [this](std::uint32_t i) {
            if (ranges.source[i] == RangeSource::GpuUserAnnotation) {
                return (std::uint64_t{1} << 63) |
                       (std::uint64_t(std::uint16_t(ranges.deviceIndex[i])) << 32) |
                       std::uint32_t(ranges.streamId[i]);
            }
            return std::uint64_t{ranges.thread[i]};
        });
    std::int64_t partialOps = nest(cpuOps.startNs, cpuOps.endNs, cpuOps.depth, cpuOps.parent,
                                   [this](std::uint32_t i) { return std::uint64_t{cpuOps.thread[i]}; });
    if (partialRanges > 0) {
        stats.add("nesting.range_partial_overlap", Severity::Info, partialRanges,
                  "ranges on one thread overlap without nesting; treated as nested");
    }
    if (partialOps > 0) {
        stats.add("nesting.cpu_op_partial_overlap", Severity::Info, partialOps,
                  "CPU ops on one thread overlap without nesting; treated as nested");
    }
}

void TraceModel::joinCorrelations() {
    std::unordered_map<std::int64_t, std::uint32_t> byCorrelation;
    byCorrelation.reserve(apiCalls.size());
    for (std::uint32_t i = 0; i < apiCalls.size(); ++i) {
        if (apiCalls.correlationId[i] != 0) {
            byCorrelation.emplace(apiCalls.correlationId[i], i);
        }
    }
    auto join = [&](const std::vector<std::int64_t>& correlation, std::vector<ApiCallId>& launch) {
        std::int64_t unmatched = 0;
        for (std::size_t i = 0; i < correlation.size(); ++i) {
            if (launch[i].valid()) {
                continue;
            }
            auto it = correlation[i] != 0 ? byCorrelation.find(correlation[i]) : byCorrelation.end();
            if (it == byCorrelation.end()) {
                ++unmatched;
            } else {
                launch[i] = ApiCallId{it->second};
            }
        }
        return unmatched;
    };
    std::int64_t unmatched = join(kernels.correlationId, kernels.launchCall) +
                             join(memcpys.correlationId, memcpys.launchCall) +
                             join(memsets.correlationId, memsets.launchCall);
    join(syncs.correlationId, syncs.apiCall);
    if (unmatched > 0 && apiCalls.size() > 0) {
        stats.add("correlation.gpu_event_without_launch_call", Severity::Warning, unmatched,
                  "GPU records whose launching runtime/driver call is not in the trace (launch delays, "
                  "\"Show launch call\" and launch-time figures cover only the joined ones)");
    }
}

void TraceModel::attachApiCallsToOps() {
    if (cpuOps.size() == 0 || apiCalls.size() == 0) {
        return;
    }
    std::unordered_map<ThreadIndex, std::vector<std::uint32_t>> opsByThread;
    for (std::uint32_t i = 0; i < cpuOps.size(); ++i) {
        opsByThread[cpuOps.thread[i]].push_back(i);
    }
    std::unordered_map<ThreadIndex, std::size_t> nextOp;
    std::unordered_map<ThreadIndex, std::vector<std::uint32_t>> openOps;
    for (std::uint32_t call = 0; call < apiCalls.size(); ++call) {
        if (apiCalls.cpuOp[call].valid()) {
            continue;
        }
        ThreadIndex thread = apiCalls.thread[call];
        auto opsIt = opsByThread.find(thread);
        if (opsIt == opsByThread.end()) {
            continue;
        }
        const std::vector<std::uint32_t>& ops = opsIt->second;
        std::size_t& next = nextOp[thread];
        std::vector<std::uint32_t>& open = openOps[thread];
        TimestampNs t = apiCalls.startNs[call];
        while (next < ops.size() && cpuOps.startNs[ops[next]] <= t) {
            std::uint32_t op = ops[next++];
            while (!open.empty() && cpuOps.endNs[open.back()] <= cpuOps.startNs[op]) {
                open.pop_back();
            }
            open.push_back(op);
        }
        while (!open.empty() && cpuOps.endNs[open.back()] <= t) {
            open.pop_back();
        }
        if (!open.empty()) {
            apiCalls.cpuOp[call] = CpuOpId{open.back()};
        }
    }
}

TimeRange TraceModel::timeSpan() const {
    TimestampNs lo = std::numeric_limits<TimestampNs>::max();
    TimestampNs hi = std::numeric_limits<TimestampNs>::min();
    auto cover = [&](const std::vector<TimestampNs>& starts, const std::vector<TimestampNs>& ends) {
        if (starts.empty()) {
            return;
        }
        lo = std::min(lo, *std::min_element(starts.begin(), starts.end()));
        hi = std::max(hi, *std::max_element(ends.begin(), ends.end()));
    };
    cover(kernels.startNs, kernels.endNs);
    cover(memcpys.startNs, memcpys.endNs);
    cover(memsets.startNs, memsets.endNs);
    cover(apiCalls.startNs, apiCalls.endNs);
    cover(syncs.startNs, syncs.endNs);
    cover(ranges.startNs, ranges.endNs);
    cover(cpuOps.startNs, cpuOps.endNs);
    cover(stackSamples.timeNs, stackSamples.timeNs);
    for (const CounterTrack& track : counters) {
        cover(track.timesNs, track.timesNs);
    }
    if (lo > hi) {
        return {};
    }
    return {lo, hi};
}

std::size_t TraceModel::memoryBytes() const {
    auto bytes = [](const auto& column) { return column.capacity() * sizeof(column[0]); };
    std::size_t total = strings.memoryBytes();
    total += bytes(kernels.startNs) * 2 + bytes(kernels.deviceIndex) + bytes(kernels.streamId) +
             bytes(kernels.name) + bytes(kernels.gridX) * 9 + bytes(kernels.correlationId) +
             bytes(kernels.launchCall);
    total += bytes(memcpys.startNs) * 2 + bytes(memcpys.deviceIndex) + bytes(memcpys.streamId) +
             bytes(memcpys.kind) * 3 + bytes(memcpys.sizeBytes) * 2 + bytes(memcpys.launchCall);
    total += bytes(memsets.startNs) * 2 + bytes(memsets.deviceIndex) + bytes(memsets.streamId) +
             bytes(memsets.memoryKind) + bytes(memsets.sizeBytes) * 2 + bytes(memsets.launchCall);
    total += bytes(apiCalls.startNs) * 2 + bytes(apiCalls.thread) + bytes(apiCalls.name) +
             bytes(apiCalls.domain) + bytes(apiCalls.correlationId) + bytes(apiCalls.cpuOp);
    total += bytes(syncs.startNs) * 2 + bytes(syncs.deviceIndex) + bytes(syncs.streamId) +
             bytes(syncs.thread) + bytes(syncs.kind) + bytes(syncs.correlationId) + bytes(syncs.apiCall);
    total += bytes(ranges.startNs) * 2 + bytes(ranges.source) + bytes(ranges.thread) +
             bytes(ranges.deviceIndex) + bytes(ranges.streamId) + bytes(ranges.name) * 2 +
             bytes(ranges.depth) + bytes(ranges.parent);
    total += bytes(cpuOps.startNs) * 2 + bytes(cpuOps.thread) + bytes(cpuOps.name) + bytes(cpuOps.category) +
             bytes(cpuOps.inputShapes) * 2 + bytes(cpuOps.externalId) + bytes(cpuOps.depth) +
             bytes(cpuOps.parent);
    for (const CounterTrack& track : counters) {
        total += bytes(track.timesNs) + bytes(track.values);
    }
    total += bytes(stackFrames) + bytes(stackOffsets) + bytes(stackFrameIds) + bytes(stackSamples.timeNs) +
             bytes(stackSamples.thread) + bytes(stackSamples.stack);
    return total;
}

}  // namespace chokepoint::core
