#pragma once
// Kernel classification by name and by the CPU op that launched it (kernel -> launch call ->
// enclosing op), and the top-kernels / top-ops tables.
//
// Classes: GEMM, convolution, attention (flash / fmha / sdpa / mem-efficient), elementwise,
// normalization, reduction/softmax, communication (NCCL/RCCL), copy, memset, other. The name rules
// (classes, families, tensor-core marks) are core/names/NameRules.h's token table. Name rules
// win; the launching op decides only when the name says nothing (an old "triton__0d1d" or a
// generic kernel launched by aten::mm).
// Units: durations in ns. Pure functions; computeKernelStats is linear in kernels + hash lookups.

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/base/Ids.h"
#include "core/base/Time.h"
#include "core/model/TraceModel.h"
#include "core/names/NameRules.h"

namespace chokepoint::analysis {

// The classes are the name table's (core/names/NameRules.h).
using names::KernelClass;
using names::kKernelClassCount;

std::string_view toString(KernelClass kernelClass);

struct KernelClassification {
    KernelClass kernelClass = KernelClass::Other;
    bool tensorCore = false;  // name shows a tensor-core (MMA) implementation
    bool fromOp = false;      // decided by the launching op rather than the kernel name
};

// Classification from the kernel name alone.
KernelClassification classifyKernelName(std::string_view kernelName);
// Classification from the kernel name, falling back to the launching op's name (may be empty).
KernelClassification classifyKernel(std::string_view kernelName, std::string_view launchingOpName);
// True for NCCL/RCCL/HCCL/MSCCL collective kernels (NameRules).
bool isCommunicationKernelName(std::string_view kernelName);

struct KernelStatsRow {
    core::StringId name;  // kernel name (string in the model's pool)
    KernelClass kernelClass = KernelClass::Other;
    bool tensorCore = false;
    std::int64_t count = 0;
    core::DurationNs totalNs = 0;
    core::DurationNs meanNs = 0;
    core::DurationNs minNs = 0;
    core::DurationNs maxNs = 0;
    double shareOfKernelTime = 0;  // totalNs / sum of all kernel durations
    core::KernelId longest;        // the longest instance, for "select in timeline"
};

struct OpStatsRow {
    core::StringId name;             // the CPU op that launched the GPU work (innermost op)
    std::int64_t count = 0;          // distinct op calls that launched GPU work
    std::int64_t kernelCount = 0;    // kernels launched
    core::DurationNs gpuTimeNs = 0;  // sum of its kernels' durations
    core::DurationNs meanGpuTimeNs = 0;
    core::DurationNs maxGpuTimeNs = 0;  // largest GPU time of one call
    double shareOfKernelTime = 0;
    KernelClass kernelClass = KernelClass::Other;  // class with most GPU time among its kernels
    core::CpuOpId example;                         // the call with the largest GPU time
};

struct KernelStatsResult {
    std::vector<KernelStatsRow> kernels;  // by totalNs descending, every name
    std::vector<OpStatsRow> ops;          // by gpuTimeNs descending
    // Per kernel row of the model: its classification.
    std::vector<KernelClass> kernelClass;
    std::vector<std::uint8_t> kernelTensorCore;                       // 1 = tensor core
    std::array<core::DurationNs, kKernelClassCount> timeByClassNs{};  // summed durations
    core::DurationNs totalKernelTimeNs = 0;  // sum of all kernel durations (not a union)
    core::DurationNs tensorCoreTimeNs = 0;   // sum of tensor-core kernel durations
    std::int64_t kernelsWithOp = 0;          // kernels whose launching op is known
};

// Name of the innermost CPU op that launched kernel `k`, or empty when unknown.
core::CpuOpId launchingOp(const core::TraceModel& model, core::KernelId k);

KernelStatsResult computeKernelStats(const core::TraceModel& model);

}  // namespace chokepoint::analysis
