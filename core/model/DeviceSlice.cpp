#include "core/model/DeviceSlice.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace chokepoint::core {
namespace {

// A device holding less than this share of a thread's launches does not take the thread along
// (a stray cudaSetDevice / peer copy); the busiest device always does.
constexpr double kMinLaunchShare = 0.1;

}  // namespace

std::vector<std::int16_t> devicesWithGpuWork(const TraceModel& model) {
    std::set<std::int16_t> devices(model.kernels.deviceIndex.begin(), model.kernels.deviceIndex.end());
    devices.insert(model.memcpys.deviceIndex.begin(), model.memcpys.deviceIndex.end());
    devices.insert(model.memsets.deviceIndex.begin(), model.memsets.deviceIndex.end());
    devices.erase(static_cast<std::int16_t>(-1));
    return {devices.begin(), devices.end()};
}

DeviceThreads::DeviceThreads(const TraceModel& model) : m_model(model) {
    std::map<ThreadIndex, std::map<std::int16_t, std::int64_t>> counts;
    auto count = [&](ApiCallId call, std::int16_t device) {
        if (call.valid() && call.index < model.apiCalls.size()) {
            ++counts[model.apiCalls.thread[call.index]][device];
        }
    };
    for (std::size_t i = 0; i < model.kernels.size(); ++i) {
        count(model.kernels.launchCall[i], model.kernels.deviceIndex[i]);
    }
    for (std::size_t i = 0; i < model.memcpys.size(); ++i) {
        count(model.memcpys.launchCall[i], model.memcpys.deviceIndex[i]);
    }
    for (std::size_t i = 0; i < model.memsets.size(); ++i) {
        count(model.memsets.launchCall[i], model.memsets.deviceIndex[i]);
    }
    for (const auto& [thread, perDevice] : counts) {
        if (thread == kNoThread || thread >= model.threads.size()) {
            continue;
        }
        std::int64_t total = 0;
        for (const auto& entry : perDevice) {
            total += entry.second;
        }
        const auto busiest =
            std::max_element(perDevice.begin(), perDevice.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        m_threadBusiest[thread] = busiest->first;
        std::set<std::int16_t>& devices = m_threadDevices[thread];
        for (const auto& [device, n] : perDevice) {
            if (device == busiest->first ||
                static_cast<double>(n) >= kMinLaunchShare * static_cast<double>(total)) {
                devices.insert(device);
            }
        }
        m_processDevices[model.threads[thread].pid].insert(devices.begin(), devices.end());
    }
}

bool DeviceThreads::goesWith(ThreadIndex thread, std::int16_t device) const {
    if (thread == kNoThread || thread >= m_model.threads.size()) {
        return false;
    }
    if (auto it = m_threadDevices.find(thread); it != m_threadDevices.end()) {
        return it->second.count(device) > 0;
    }
    return devicesOfProcess(m_model.threads[thread].pid).count(device) > 0;
}

std::int16_t DeviceThreads::busiestDeviceOf(ThreadIndex thread) const {
    auto it = m_threadBusiest.find(thread);
    return it == m_threadBusiest.end() ? std::int16_t{-1} : it->second;
}

const std::set<std::int16_t>& DeviceThreads::devicesOfProcess(std::int64_t pid) const {
    static const std::set<std::int16_t> kNone;
    auto it = m_processDevices.find(pid);
    return it == m_processDevices.end() ? kNone : it->second;
}

TraceModel sliceDevice(const TraceModel& model, std::int16_t device, const DeviceThreads& threads) {
    TraceModel m;
    m.metadata = model.metadata;
    m.distributed = model.distributed;
    m.stats = model.stats;
    if (const DeviceInfo* info = model.device(device)) {
        m.devices.push_back(*info);
    }
    std::unordered_map<ThreadIndex, ThreadIndex> threadMap;
    std::set<std::int64_t> pids;
    auto thread = [&](ThreadIndex from) -> ThreadIndex {
        if (from == kNoThread) {
            return kNoThread;
        }
        if (auto it = threadMap.find(from); it != threadMap.end()) {
            return it->second;
        }
        const ThreadInfo& t = model.threads[from];
        const ThreadIndex to = m.threadIndex(t.pid, t.tid, t.name);
        threadMap.emplace(from, to);
        pids.insert(t.pid);
        return to;
    };
    auto mine = [&](ThreadIndex t) { return threads.goesWith(t, device); };
    auto name = [&](StringId id) { return m.intern(model.text(id)); };

    std::unordered_set<std::int64_t> correlations;
    for (std::size_t i = 0; i < model.kernels.size(); ++i) {
        if (model.kernels.deviceIndex[i] != device) {
            continue;
        }
        KernelRow row = model.kernels.row(KernelId(static_cast<std::uint32_t>(i)));
        row.name = name(row.name);
        row.launchCall = {};
        correlations.insert(row.correlationId);
        m.kernels.add(row);
    }
    for (std::size_t i = 0; i < model.memcpys.size(); ++i) {
        if (model.memcpys.deviceIndex[i] == device) {
            MemcpyRow row = model.memcpys.row(MemcpyId(static_cast<std::uint32_t>(i)));
            row.launchCall = {};
            m.memcpys.add(row);
        }
    }
    for (std::size_t i = 0; i < model.memsets.size(); ++i) {
        if (model.memsets.deviceIndex[i] == device) {
            MemsetRow row = model.memsets.row(MemsetId(static_cast<std::uint32_t>(i)));
            row.launchCall = {};
            m.memsets.add(row);
        }
    }
    for (std::size_t i = 0; i < model.apiCalls.size(); ++i) {
        if (mine(model.apiCalls.thread[i])) {
            ApiCallRow row = model.apiCalls.row(ApiCallId(static_cast<std::uint32_t>(i)));
            row.thread = thread(row.thread);
            row.name = name(row.name);
            row.cpuOp = {};
            m.apiCalls.add(row);
        }
    }
    for (std::size_t i = 0; i < model.syncs.size(); ++i) {
        if (mine(model.syncs.thread[i]) ||
            (model.syncs.thread[i] == kNoThread && model.syncs.deviceIndex[i] == device)) {
            SyncRow row = model.syncs.row(SyncId(static_cast<std::uint32_t>(i)));
            row.thread = thread(row.thread);
            row.apiCall = {};
            m.syncs.add(row);
        }
    }
    for (std::size_t i = 0; i < model.ranges.size(); ++i) {
        const bool gpuRange = model.ranges.deviceIndex[i] >= 0;
        if (gpuRange ? model.ranges.deviceIndex[i] == device : mine(model.ranges.thread[i])) {
            RangeRow row = model.ranges.row(RangeId(static_cast<std::uint32_t>(i)));
            row.thread = thread(row.thread);
            row.name = name(row.name);
            row.domain = name(row.domain);
            row.parent = {};
            row.depth = 0;
            m.ranges.add(row);
        }
    }
    for (std::size_t i = 0; i < model.cpuOps.size(); ++i) {
        if (mine(model.cpuOps.thread[i])) {
            CpuOpRow row = model.cpuOps.row(CpuOpId(static_cast<std::uint32_t>(i)));
            row.thread = thread(row.thread);
            row.name = name(row.name);
            row.inputShapes = name(row.inputShapes);
            row.inputTypes = name(row.inputTypes);
            row.concreteInputs = name(row.concreteInputs);
            row.parent = {};
            row.depth = 0;
            m.cpuOps.add(row);
        }
    }
    // Stack samples of the device's threads, their frames and stacks interned again.
    std::unordered_map<StackIndex, StackIndex> stackMap;
    std::vector<FrameIndex> frames;
    for (std::size_t i = 0; i < model.stackSamples.size(); ++i) {
        if (!mine(model.stackSamples.thread[i])) {
            continue;
        }
        const StackIndex from = model.stackSamples.stack[i];
        auto it = stackMap.find(from);
        if (it == stackMap.end()) {
            frames.clear();
            for (FrameIndex f : model.stack(from)) {
                if (f < model.stackFrames.size()) {
                    const StackFrame& frame = model.stackFrames[f];
                    frames.push_back(
                        m.internFrame(model.text(frame.file), model.text(frame.function), frame.line));
                }
            }
            it = stackMap.emplace(from, m.internStack(frames)).first;
        }
        m.stackSamples.add({model.stackSamples.timeNs[i], thread(model.stackSamples.thread[i]), it->second});
    }
    for (const CounterTrack& track : model.counters) {
        if (track.deviceIndex == device || (track.deviceIndex < 0 && pids.count(track.pid) > 0)) {
            m.counters.push_back(track);
        }
    }
    for (const CollectiveCallRow& call : model.collectiveCalls) {
        if (correlations.count(call.correlationId) > 0) {
            CollectiveCallRow copy = call;
            copy.collectiveName = name(call.collectiveName);
            copy.processGroupName = name(call.processGroupName);
            copy.processGroupDescription = name(call.processGroupDescription);
            copy.processGroupRanks = name(call.processGroupRanks);
            copy.dtype = name(call.dtype);
            m.collectiveCalls.push_back(copy);
        }
    }
    for (const ProcessInfo& process : model.processes) {
        if (pids.count(process.pid) > 0) {
            m.processes.push_back(process);
        }
    }
    for (const StreamInfo& stream : model.streams) {
        if (stream.deviceIndex == device) {
            m.streams.push_back(stream);
        }
    }
    m.finalize();
    return m;
}

}  // namespace chokepoint::core
