#pragma once
// The in-memory trace: columnar event tables, one string pool, dimension tables, TraceStats and
// capture metadata. Every timestamp is int64 nanoseconds on one trace clock.
//
// Lifecycle: an importer (or the .cptrace reader, or a test's TraceBuilder) appends rows in any
// order, then calls finalize(), which sorts every table by start time, computes range and op
// nesting, joins GPU work to its launch call by correlation id and API calls to their enclosing op.
// After finalize() the model is treated as immutable and shared as shared_ptr<const TraceModel>.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/base/StringPool.h"
#include "core/base/Time.h"
#include "core/model/Dimensions.h"
#include "core/model/Stacks.h"
#include "core/model/Tables.h"
#include "core/model/TraceStats.h"

namespace chokepoint::core {

class TraceModel {
public:
    TraceModel() = default;
    TraceModel(const TraceModel&) = delete;
    TraceModel& operator=(const TraceModel&) = delete;
    TraceModel(TraceModel&&) noexcept = default;
    TraceModel& operator=(TraceModel&&) noexcept = default;

    StringPool strings;

    KernelTable kernels;
    MemcpyTable memcpys;
    MemsetTable memsets;
    ApiCallTable apiCalls;
    SyncTable syncs;
    RangeTable ranges;
    CpuOpTable cpuOps;
    std::vector<CounterTrack> counters;
    std::vector<CollectiveCallRow> collectiveCalls;  // by correlation id of the collective kernel

    // Sampled call stacks (see Stacks.h). Stack s = stackFrameIds[stackOffsets[s] ..
    // stackOffsets[s + 1]), leaf first; every entry indexes stackFrames. stackOffsets starts {0}.
    std::vector<StackFrame> stackFrames;
    std::vector<std::uint32_t> stackOffsets{0};
    std::vector<FrameIndex> stackFrameIds;
    StackSampleTable stackSamples;

    std::vector<DeviceInfo> devices;
    std::vector<ProcessInfo> processes;
    std::vector<ThreadInfo> threads;
    std::vector<StreamInfo> streams;
    DistributedInfo distributed;
    CaptureMetadata metadata;
    TraceStats stats;

    // Convenience for builders: interns a string.
    StringId intern(std::string_view text) { return strings.intern(text); }
    std::string_view text(StringId id) const { return strings.view(id); }

    // Interns a frame / a stack (frame ids leaf first), returning its index; equal input returns
    // the same index. Amortised O(1) / O(depth). Callers may also append to the vectors directly
    // (the .cptrace reader does); the intern index catches up on the next call.
    FrameIndex internFrame(std::string_view file, std::string_view function, std::int32_t line);
    StackIndex internStack(const std::vector<FrameIndex>& frameIdsLeafFirst);
    std::size_t stackCount() const { return stackOffsets.empty() ? 0 : stackOffsets.size() - 1; }
    // Frame ids of stack s, leaf first; empty for an out-of-range s.
    std::span<const FrameIndex> stack(StackIndex s) const;

    // Index of the thread (pid, tid), adding it when new. Linear in the number of threads, which
    // stays small; importers cache the result.
    ThreadIndex threadIndex(std::int64_t pid, std::int64_t tid, std::string_view nameIfNew = {});
    // Adds the stream when new; returns its index in `streams`.
    std::size_t streamIndex(std::int32_t deviceIndex, std::int32_t streamId);
    // The device with this ordinal, or nullptr.
    const DeviceInfo* device(std::int32_t deviceIndex) const;
    DeviceInfo& deviceOrAdd(std::int32_t deviceIndex);

    // Sorts, nests and joins (see the file comment). Idempotent; adds to stats what it repairs.
    void finalize();
    bool finalized() const { return m_finalized; }

    // Total GPU records (kernels + memcpys + memsets).
    std::size_t gpuEventCount() const { return kernels.size() + memcpys.size() + memsets.size(); }
    // Earliest start and latest end over all event tables; empty range for an empty trace.
    TimeRange timeSpan() const;
    // Approximate heap bytes held by the model, for memory reports.
    std::size_t memoryBytes() const;

private:
    void sortTables();
    void computeNesting();
    void joinCorrelations();
    void attachApiCallsToOps();
    void syncStackIndex();
    bool m_finalized = false;
    // Intern indexes for frames and stacks (hash -> candidate indices), built lazily.
    std::unordered_multimap<std::uint64_t, FrameIndex> m_frameIndex;
    std::unordered_multimap<std::uint64_t, StackIndex> m_stackIndex;
    std::size_t m_framesIndexed = 0;
    std::size_t m_stacksIndexed = 0;
};

}  // namespace chokepoint::core
