#pragma once
// Columnar event tables. Each table keeps one std::vector per field, so analyses that scan one
// field (start times, device) touch only that memory, and a row costs a few dozen bytes instead of
// a heap object. Rows are sorted by startNs once the model is finalized (TraceModel::finalize).
// Each table has a *Row struct used to append rows and to read one row back for display.

#include <cstdint>
#include <vector>

#include "core/base/Ids.h"
#include "core/base/Time.h"
#include "core/model/Dimensions.h"
#include "core/model/Enums.h"

namespace chokepoint::core {

// Reorders every column of a table: new row i is old row order[i].
template <class T>
void permuteColumn(std::vector<T>& column, const std::vector<std::uint32_t>& order) {
    if (column.empty()) {
        return;
    }
    std::vector<T> sorted;
    sorted.reserve(order.size());
    for (std::uint32_t from : order) {
        sorted.push_back(column[from]);
    }
    column.swap(sorted);
}

// --- GPU kernels --------------------------------------------------------------------------------
struct KernelRow {
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
    std::int16_t deviceIndex = 0;
    std::int32_t streamId = 0;
    StringId name;
    std::int32_t gridX = 0, gridY = 0, gridZ = 0;
    std::int32_t blockX = 0, blockY = 0, blockZ = 0;
    std::int32_t registersPerThread = 0;
    std::int32_t staticSharedBytes = 0;
    std::int32_t dynamicSharedBytes = 0;
    std::int64_t correlationId = 0;  // 0 = none
    ApiCallId launchCall;            // the runtime/driver call that launched it, when known
};

struct KernelTable {
    std::vector<TimestampNs> startNs, endNs;
    std::vector<std::int16_t> deviceIndex;
    std::vector<std::int32_t> streamId;
    std::vector<StringId> name;
    std::vector<std::int32_t> gridX, gridY, gridZ, blockX, blockY, blockZ;
    std::vector<std::int32_t> registersPerThread, staticSharedBytes, dynamicSharedBytes;
    std::vector<std::int64_t> correlationId;
    std::vector<ApiCallId> launchCall;

    std::size_t size() const { return startNs.size(); }
    KernelId add(const KernelRow& row);
    KernelRow row(KernelId id) const;
    void permute(const std::vector<std::uint32_t>& order);
    void reserve(std::size_t n);
    DurationNs durationNs(std::size_t i) const { return endNs[i] - startNs[i]; }
};

// --- Memory copies --------------------------------------------------------------------------------
struct MemcpyRow {
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
    std::int16_t deviceIndex = 0;
    std::int32_t streamId = 0;
    MemcpyKind kind = MemcpyKind::Unknown;
    MemoryKind srcKind = MemoryKind::Unknown;
    MemoryKind dstKind = MemoryKind::Unknown;
    std::int64_t sizeBytes = 0;
    std::int64_t correlationId = 0;
    ApiCallId launchCall;
};

struct MemcpyTable {
    std::vector<TimestampNs> startNs, endNs;
    std::vector<std::int16_t> deviceIndex;
    std::vector<std::int32_t> streamId;
    std::vector<MemcpyKind> kind;
    std::vector<MemoryKind> srcKind, dstKind;
    std::vector<std::int64_t> sizeBytes, correlationId;
    std::vector<ApiCallId> launchCall;

    std::size_t size() const { return startNs.size(); }
    MemcpyId add(const MemcpyRow& row);
    MemcpyRow row(MemcpyId id) const;
    void permute(const std::vector<std::uint32_t>& order);
};

// --- Memsets --------------------------------------------------------------------------------------
struct MemsetRow {
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
    std::int16_t deviceIndex = 0;
    std::int32_t streamId = 0;
    MemoryKind memoryKind = MemoryKind::Unknown;
    std::int64_t sizeBytes = 0;
    std::int64_t correlationId = 0;
    ApiCallId launchCall;
};

struct MemsetTable {
    std::vector<TimestampNs> startNs, endNs;
    std::vector<std::int16_t> deviceIndex;
    std::vector<std::int32_t> streamId;
    std::vector<MemoryKind> memoryKind;
    std::vector<std::int64_t> sizeBytes, correlationId;
    std::vector<ApiCallId> launchCall;

    std::size_t size() const { return startNs.size(); }
    MemsetId add(const MemsetRow& row);
    MemsetRow row(MemsetId id) const;
    void permute(const std::vector<std::uint32_t>& order);
};

// --- CUDA runtime / driver API calls (host side) ------------------------------------------------
struct ApiCallRow {
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
    ThreadIndex thread = kNoThread;
    StringId name;  // "cudaLaunchKernel", "cuLaunchKernelEx", "cudaStreamSynchronize"
    ApiDomain domain = ApiDomain::Runtime;
    std::int64_t correlationId = 0;
    CpuOpId cpuOp;  // innermost framework op on the same thread that encloses the call
};

struct ApiCallTable {
    std::vector<TimestampNs> startNs, endNs;
    std::vector<ThreadIndex> thread;
    std::vector<StringId> name;
    std::vector<ApiDomain> domain;
    std::vector<std::int64_t> correlationId;
    std::vector<CpuOpId> cpuOp;

    std::size_t size() const { return startNs.size(); }
    ApiCallId add(const ApiCallRow& row);
    ApiCallRow row(ApiCallId id) const;
    void permute(const std::vector<std::uint32_t>& order);
};

// --- Synchronization (host waits on device work) ------------------------------------------------
struct SyncRow {
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
    std::int16_t deviceIndex = 0;
    std::int32_t streamId = -1;  // -1 when the sync is not stream-specific
    ThreadIndex thread = kNoThread;
    SyncKind kind = SyncKind::Unknown;
    std::int64_t correlationId = 0;
    ApiCallId apiCall;
};

struct SyncTable {
    std::vector<TimestampNs> startNs, endNs;
    std::vector<std::int16_t> deviceIndex;
    std::vector<std::int32_t> streamId;
    std::vector<ThreadIndex> thread;
    std::vector<SyncKind> kind;
    std::vector<std::int64_t> correlationId;
    std::vector<ApiCallId> apiCall;

    std::size_t size() const { return startNs.size(); }
    SyncId add(const SyncRow& row);
    SyncRow row(SyncId id) const;
    void permute(const std::vector<std::uint32_t>& order);
};

// --- Named ranges: NVTX and framework user annotations (ProfilerStep#N lives here) --------------
struct RangeRow {
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
    RangeSource source = RangeSource::UserAnnotation;
    ThreadIndex thread = kNoThread;  // host ranges
    std::int16_t deviceIndex = -1;   // GPU-projected ranges: device and stream, else -1
    std::int32_t streamId = -1;
    StringId name;
    StringId domain;          // NVTX domain, empty for the default domain
    std::uint16_t depth = 0;  // nesting depth on its thread/stream, 0 = outermost (set by finalize)
    RangeId parent;           // enclosing range on the same thread/stream (set by finalize)
};

struct RangeTable {
    std::vector<TimestampNs> startNs, endNs;
    std::vector<RangeSource> source;
    std::vector<ThreadIndex> thread;
    std::vector<std::int16_t> deviceIndex;
    std::vector<std::int32_t> streamId;
    std::vector<StringId> name, domain;
    std::vector<std::uint16_t> depth;
    std::vector<RangeId> parent;

    std::size_t size() const { return startNs.size(); }
    RangeId add(const RangeRow& row);
    RangeRow row(RangeId id) const;
    void permute(const std::vector<std::uint32_t>& order);
};

// --- Framework CPU ops (aten::mm, python frames) -----------------------------------------------
struct CpuOpRow {
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;
    ThreadIndex thread = kNoThread;
    StringId name;
    CpuOpCategory category = CpuOpCategory::Operator;
    StringId inputShapes;         // as recorded, e.g. "[[8, 1024], [1024, 4096]]"; empty when not recorded
    StringId inputTypes;          // e.g. "[\"float\", \"c10::BFloat16\"]"; empty when not recorded
    std::int64_t externalId = 0;  // Kineto "External id", links ops to their runtime calls
    std::uint16_t depth = 0;      // set by finalize
    CpuOpId parent;               // set by finalize
    // Scalar arguments as recorded ("Concrete Inputs", PyTorch 2.1+), e.g. "[\"\", \"[2, 2]\", \"True\"]":
    // an empty string for each tensor argument. Empty when not recorded.
    StringId concreteInputs;
};

struct CpuOpTable {
    std::vector<TimestampNs> startNs, endNs;
    std::vector<ThreadIndex> thread;
    std::vector<StringId> name;
    std::vector<CpuOpCategory> category;
    std::vector<StringId> inputShapes, inputTypes, concreteInputs;
    std::vector<std::int64_t> externalId;
    std::vector<std::uint16_t> depth;
    std::vector<CpuOpId> parent;

    std::size_t size() const { return startNs.size(); }
    CpuOpId add(const CpuOpRow& row);
    CpuOpRow row(CpuOpId id) const;
    void permute(const std::vector<std::uint32_t>& order);
};

// --- Collective call parameters (NCCL/RCCL), as the profiler recorded them on the kernel -------
// Joined to the collective kernel by correlation id (stable across finalize's sorting). Kineto
// writes these as args of NCCL kernel events ("Collective name", "In msg nelems", "Out msg nelems",
// "Group size", "dtype", "Process Group Name", "Process Group Description", "Process Group Ranks").
struct CollectiveCallRow {
    std::int64_t correlationId = 0;    // the kernel's correlation id
    StringId collectiveName;           // "allreduce", "_allgather_base", "all_to_allv", "send"
    StringId processGroupName;         // "0", "1", ... (unique per process group in the job)
    StringId processGroupDescription;  // "default_pg", "tp:0"
    StringId processGroupRanks;        // "[0, 1, 2, 3]" as recorded (may be truncated with "...")
    StringId dtype;                    // "Float", "BFloat16"
    std::int64_t inNelems = -1;        // elements in / out; -1 when not recorded
    std::int64_t outNelems = -1;
    std::int32_t groupSize = 0;  // ranks in the process group; 0 when not recorded
    // PyTorch/Kineto 2026 (kineto #1294, #1300): the process group's sequence number of the call
    // ("Seq") and "Comms Id", a hash of (group name, seq, point-to-point, rank start/stride, world
    // size) that is the same on every participant. -1 / 0 when not recorded.
    std::int64_t seq = -1;
    std::uint64_t commsId = 0;
    bool hasCommsId = false;
};

// --- Counter time series (GPU metrics, host CPU %, memory) --------------------------------------
struct CounterTrack {
    std::string name;               // "DRAM throughput", "SM active", "CPU % tid 1234"
    std::string unit;               // "%", "bytes", "B/s"
    std::int16_t deviceIndex = -1;  // -1 for host counters
    std::int64_t pid = 0;
    std::int64_t tid = 0;              // 0 for process- or device-wide counters
    std::vector<TimestampNs> timesNs;  // sorted ascending
    std::vector<double> values;
};

}  // namespace chokepoint::core
