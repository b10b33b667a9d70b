#include "core/analysis/metrics/KernelClassifier.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace chokepoint::analysis {

namespace {

// The name rules live in core/names/NameRules (one table, token rules, regression corpus).
KernelClassification byName(std::string_view kernelName) {
    const names::KernelNameInfo info = names::classifyKernelName(kernelName);
    KernelClassification c;
    c.kernelClass = info.kernelClass;
    c.tensorCore = info.tensorCore;
    return c;
}

}  // namespace

std::string_view toString(KernelClass kernelClass) {
    switch (kernelClass) {
        case KernelClass::Gemm:
            return "GEMM";
        case KernelClass::Convolution:
            return "convolution";
        case KernelClass::Attention:
            return "attention";
        case KernelClass::Elementwise:
            return "elementwise";
        case KernelClass::Normalization:
            return "normalization";
        case KernelClass::Reduction:
            return "reduction/softmax";
        case KernelClass::Communication:
            return "communication";
        case KernelClass::Copy:
            return "copy";
        case KernelClass::Memset:
            return "memset";
        case KernelClass::Other:
            return "other";
    }
    return "other";
}

bool isCommunicationKernelName(std::string_view kernelName) {
    return names::isCommunicationKernelName(kernelName);
}

KernelClassification classifyKernelName(std::string_view kernelName) {
    return byName(kernelName);
}

KernelClassification classifyKernel(std::string_view kernelName, std::string_view launchingOpName) {
    KernelClassification c = byName(kernelName);
    if (c.kernelClass == KernelClass::Other && !launchingOpName.empty()) {
        KernelClass fromOp = names::kernelClassFromOpName(launchingOpName);
        if (fromOp != KernelClass::Other) {
            c.kernelClass = fromOp;
            c.fromOp = true;
        }
    }
    return c;
}

core::CpuOpId launchingOp(const core::TraceModel& model, core::KernelId k) {
    if (!k.valid() || k.index >= model.kernels.size()) {
        return {};
    }
    core::ApiCallId call = model.kernels.launchCall[k.index];
    if (!call.valid() || call.index >= model.apiCalls.size()) {
        return {};
    }
    core::CpuOpId op = model.apiCalls.cpuOp[call.index];
    return op.valid() && op.index < model.cpuOps.size() ? op : core::CpuOpId{};
}

KernelStatsResult computeKernelStats(const core::TraceModel& model) {
    KernelStatsResult result;
    const core::KernelTable& kt = model.kernels;
    const std::size_t n = kt.size();
    result.kernelClass.resize(n, KernelClass::Other);
    result.kernelTensorCore.resize(n, 0);

    // Classify each distinct (kernel name, launching op name) pair once.
    std::unordered_map<std::uint64_t, KernelClassification> cache;
    std::unordered_map<std::uint32_t, std::size_t> rowOfName;
    // Per op call (dense arrays over the op table): GPU time and kernels it launched. The class
    // split is accumulated per op name directly, since names are few.
    std::vector<core::DurationNs> callGpuNs(model.cpuOps.size(), 0);
    std::vector<std::int32_t> callKernels(model.cpuOps.size(), 0);
    std::unordered_map<std::uint32_t, std::array<core::DurationNs, kKernelClassCount>> classByOpName;

    for (std::size_t i = 0; i < n; ++i) {
        core::DurationNs d = std::max<core::DurationNs>(0, kt.endNs[i] - kt.startNs[i]);
        core::CpuOpId op = launchingOp(model, core::KernelId{static_cast<std::uint32_t>(i)});
        core::StringId opName = op.valid() ? model.cpuOps.name[op.index] : core::StringId{};
        std::uint64_t key = (std::uint64_t{kt.name[i].index} << 32) | opName.index;
        auto it = cache.find(key);
        if (it == cache.end()) {
            it = cache
                     .emplace(key, classifyKernel(model.text(kt.name[i]),
                                                  opName.valid() ? model.text(opName) : std::string_view{}))
                     .first;
        }
        const KernelClassification& c = it->second;
        result.kernelClass[i] = c.kernelClass;
        result.kernelTensorCore[i] = c.tensorCore ? 1 : 0;
        result.timeByClassNs[static_cast<std::size_t>(c.kernelClass)] += d;
        result.totalKernelTimeNs += d;
        if (c.tensorCore) {
            result.tensorCoreTimeNs += d;
        }

        auto [rowIt, inserted] = rowOfName.emplace(kt.name[i].index, result.kernels.size());
        if (inserted) {
            KernelStatsRow row;
            row.name = kt.name[i];
            row.kernelClass = c.kernelClass;
            row.tensorCore = c.tensorCore;
            row.minNs = d;
            row.maxNs = d;
            row.longest = core::KernelId{static_cast<std::uint32_t>(i)};
            result.kernels.push_back(row);
        }
        KernelStatsRow& row = result.kernels[rowIt->second];
        ++row.count;
        row.totalNs += d;
        row.minNs = std::min(row.minNs, d);
        if (d > row.maxNs) {
            row.maxNs = d;
            row.longest = core::KernelId{static_cast<std::uint32_t>(i)};
        }
        if (op.valid()) {
            ++result.kernelsWithOp;
            callGpuNs[op.index] += d;
            ++callKernels[op.index];
            classByOpName[model.cpuOps.name[op.index].index][static_cast<std::size_t>(c.kernelClass)] += d;
        }
    }
    const double total = static_cast<double>(std::max<core::DurationNs>(1, result.totalKernelTimeNs));
    for (KernelStatsRow& row : result.kernels) {
        row.meanNs = row.count > 0 ? row.totalNs / row.count : 0;
        row.shareOfKernelTime = static_cast<double>(row.totalNs) / total;
    }
    std::sort(result.kernels.begin(), result.kernels.end(),
              [](const KernelStatsRow& a, const KernelStatsRow& b) {
                  return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.name.index < b.name.index;
              });

    // Ops: aggregate the per-call sums by op name.
    struct NameAccum {
        OpStatsRow row;
        std::array<core::DurationNs, kKernelClassCount> byClass{};
    };
    std::unordered_map<std::uint32_t, NameAccum> perName;
    for (std::uint32_t opIndex = 0; opIndex < callKernels.size(); ++opIndex) {
        if (callKernels[opIndex] == 0) {
            continue;
        }
        const core::DurationNs gpuNs = callGpuNs[opIndex];
        core::StringId name = model.cpuOps.name[opIndex];
        NameAccum& na = perName[name.index];
        na.row.name = name;
        ++na.row.count;
        na.row.kernelCount += callKernels[opIndex];
        na.row.gpuTimeNs += gpuNs;
        if (!na.row.example.valid() || gpuNs > na.row.maxGpuTimeNs) {  // ascending index: first longest wins
            na.row.maxGpuTimeNs = gpuNs;
            na.row.example = core::CpuOpId{opIndex};
        }
    }
    for (auto& [nameIndex, na] : perName) {
        na.byClass = classByOpName[nameIndex];
    }
    result.ops.reserve(perName.size());
    for (auto& [nameIndex, na] : perName) {
        OpStatsRow row = na.row;
        row.meanGpuTimeNs = row.count > 0 ? row.gpuTimeNs / row.count : 0;
        row.shareOfKernelTime = static_cast<double>(row.gpuTimeNs) / total;
        std::size_t best = static_cast<std::size_t>(KernelClass::Other);
        core::DurationNs bestNs = -1;
        for (std::size_t c = 0; c < kKernelClassCount; ++c) {
            if (na.byClass[c] > bestNs) {
                bestNs = na.byClass[c];
                best = c;
            }
        }
        row.kernelClass = static_cast<KernelClass>(best);
        result.ops.push_back(row);
    }
    std::sort(result.ops.begin(), result.ops.end(), [](const OpStatsRow& a, const OpStatsRow& b) {
        return a.gpuTimeNs != b.gpuTimeNs ? a.gpuTimeNs > b.gpuTimeNs : a.name.index < b.name.index;
    });
    return result;
}

}  // namespace chokepoint::analysis
