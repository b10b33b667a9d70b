#include "core/job/RankSplit.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/job/RankIdentity.h"

namespace chokepoint::job {
namespace {

// The device each host thread launches most of its GPU work on.
std::unordered_map<core::ThreadIndex, std::int16_t> launchDeviceOfThreads(const core::TraceModel& model) {
    std::unordered_map<core::ThreadIndex, std::map<std::int16_t, std::int64_t>> counts;
    auto count = [&](core::ApiCallId call, std::int16_t device) {
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
    std::unordered_map<core::ThreadIndex, std::int16_t> result;
    for (const auto& [thread, perDevice] : counts) {
        result[thread] =
            std::max_element(perDevice.begin(), perDevice.end(), [](const auto& a, const auto& b) {
                return a.second < b.second;
            })->first;
    }
    return result;
}

}  // namespace

std::vector<RankPart> splitRanks(const core::TraceModel& model, std::int32_t orderBase) {
    std::set<std::int16_t> devices;
    for (std::size_t i = 0; i < model.kernels.size(); ++i) {
        devices.insert(model.kernels.deviceIndex[i]);
    }
    if (devices.size() < 2) {
        return {};
    }
    const auto threadDevice = launchDeviceOfThreads(model);
    // Threads that launch nothing go with their process's device; threads of processes that launch
    // nothing (data-loader workers of another file) are left out: they hold no GPU time.
    std::unordered_map<std::int64_t, std::int16_t> processDevice;
    for (const auto& [thread, device] : threadDevice) {
        processDevice.emplace(model.threads[thread].pid, device);
    }
    // Several GPUs used by ONE process are one rank's devices, not ranks: not split here.
    std::set<std::int16_t> devicesOfProcesses;
    for (const auto& [pid, device] : processDevice) {
        devicesOfProcesses.insert(device);
    }
    if (processDevice.size() < 2 || devicesOfProcesses.size() < 2) {
        return {};
    }
    auto deviceOfThread = [&](core::ThreadIndex thread) -> int {
        if (thread == core::kNoThread || thread >= model.threads.size()) {
            return -1;
        }
        if (auto it = threadDevice.find(thread); it != threadDevice.end()) {
            return it->second;
        }
        if (auto it = processDevice.find(model.threads[thread].pid); it != processDevice.end()) {
            return it->second;
        }
        return -1;
    };

    std::vector<RankPart> parts;
    int position = 0;
    for (std::int16_t device : devices) {
        RankPart part;
        part.deviceIndex = device;
        core::TraceModel& m = part.model;
        m.metadata = model.metadata;
        m.distributed = model.distributed;
        m.stats = model.stats;
        if (const core::DeviceInfo* info = model.device(device)) {
            m.devices.push_back(*info);
        }
        std::unordered_map<core::ThreadIndex, core::ThreadIndex> threadMap;
        std::set<std::int64_t> pids;
        auto thread = [&](core::ThreadIndex from) -> core::ThreadIndex {
            if (from == core::kNoThread) {
                return core::kNoThread;
            }
            auto it = threadMap.find(from);
            if (it != threadMap.end()) {
                return it->second;
            }
            const core::ThreadInfo& t = model.threads[from];
            const core::ThreadIndex to = m.threadIndex(t.pid, t.tid, t.name);
            threadMap.emplace(from, to);
            pids.insert(t.pid);
            return to;
        };
        auto mine = [&](core::ThreadIndex t) { return deviceOfThread(t) == device; };
        auto name = [&](core::StringId id) { return m.intern(model.text(id)); };

        std::unordered_set<std::int64_t> correlations;
        for (std::size_t i = 0; i < model.kernels.size(); ++i) {
            if (model.kernels.deviceIndex[i] != device) {
                continue;
            }
            core::KernelRow row = model.kernels.row(core::KernelId(static_cast<std::uint32_t>(i)));
            row.name = name(row.name);
            row.launchCall = {};
            correlations.insert(row.correlationId);
            m.kernels.add(row);
        }
        for (std::size_t i = 0; i < model.memcpys.size(); ++i) {
            if (model.memcpys.deviceIndex[i] == device) {
                core::MemcpyRow row = model.memcpys.row(core::MemcpyId(static_cast<std::uint32_t>(i)));
                row.launchCall = {};
                m.memcpys.add(row);
            }
        }
        for (std::size_t i = 0; i < model.memsets.size(); ++i) {
            if (model.memsets.deviceIndex[i] == device) {
                core::MemsetRow row = model.memsets.row(core::MemsetId(static_cast<std::uint32_t>(i)));
                row.launchCall = {};
                m.memsets.add(row);
            }
        }
        for (std::size_t i = 0; i < model.apiCalls.size(); ++i) {
            if (mine(model.apiCalls.thread[i])) {
                core::ApiCallRow row = model.apiCalls.row(core::ApiCallId(static_cast<std::uint32_t>(i)));
                row.thread = thread(row.thread);
                row.name = name(row.name);
                row.cpuOp = {};
                m.apiCalls.add(row);
            }
        }
        for (std::size_t i = 0; i < model.syncs.size(); ++i) {
            if (mine(model.syncs.thread[i]) ||
                (model.syncs.thread[i] == core::kNoThread && model.syncs.deviceIndex[i] == device)) {
                core::SyncRow row = model.syncs.row(core::SyncId(static_cast<std::uint32_t>(i)));
                row.thread = thread(row.thread);
                row.apiCall = {};
                m.syncs.add(row);
            }
        }
        for (std::size_t i = 0; i < model.ranges.size(); ++i) {
            const bool gpuRange = model.ranges.deviceIndex[i] >= 0;
            if (gpuRange ? model.ranges.deviceIndex[i] == device : mine(model.ranges.thread[i])) {
                core::RangeRow row = model.ranges.row(core::RangeId(static_cast<std::uint32_t>(i)));
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
                core::CpuOpRow row = model.cpuOps.row(core::CpuOpId(static_cast<std::uint32_t>(i)));
                row.thread = thread(row.thread);
                row.name = name(row.name);
                row.inputShapes = name(row.inputShapes);
                row.inputTypes = name(row.inputTypes);
                row.parent = {};
                row.depth = 0;
                m.cpuOps.add(row);
            }
        }
        for (const core::CounterTrack& track : model.counters) {
            if (track.deviceIndex == device || (track.deviceIndex < 0 && pids.count(track.pid) > 0)) {
                m.counters.push_back(track);
            }
        }
        for (const core::CollectiveCallRow& call : model.collectiveCalls) {
            if (correlations.count(call.correlationId) > 0) {
                core::CollectiveCallRow copy = call;
                copy.collectiveName = name(call.collectiveName);
                copy.processGroupName = name(call.processGroupName);
                copy.processGroupDescription = name(call.processGroupDescription);
                copy.processGroupRanks = name(call.processGroupRanks);
                copy.dtype = name(call.dtype);
                m.collectiveCalls.push_back(copy);
            }
        }
        for (const core::ProcessInfo& process : model.processes) {
            if (pids.count(process.pid) > 0) {
                m.processes.push_back(process);
            }
        }
        for (const core::StreamInfo& stream : model.streams) {
            if (stream.deviceIndex == device) {
                m.streams.push_back(stream);
            }
        }
        m.finalize();

        // Rank: a process name when the part's processes carry one; else the device ordinal in
        // order (one rank per GPU of a single-node job).
        part.identity = {orderBase + position, RankSource::Order};
        for (const core::ProcessInfo& process : m.processes) {
            if (auto rank = rankFromProcessName(process.name)) {
                part.identity = {*rank, RankSource::ProcessName};
                break;
            }
        }
        m.distributed.present = false;  // the file's one distributedInfo does not name each part
        parts.push_back(std::move(part));
        ++position;
    }
    return parts;
}

}  // namespace chokepoint::job
