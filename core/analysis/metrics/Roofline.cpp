#include "core/analysis/metrics/Roofline.h"
#include "core/base/Strings.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <unordered_map>

#include "core/model/NameMemo.h"
#include "core/names/NameRules.h"

namespace chokepoint::analysis {

using core::DurationNs;

namespace {

constexpr std::size_t kPrecisionCount = 7;

struct Accum {
    double flops = 0;
    double bytes = 0;
    DurationNs timeNs = 0;
    DurationNs tensorCoreNs = 0;
    DurationNs sharedOpNs = 0;       // kernels whose op's FLOPs were split over several kernels
    DurationNs convolutionOpNs = 0;  // kernels a convolution op launched (a Winograd GEMM included)
    std::array<DurationNs, kPrecisionCount> byPrecision{};
    std::vector<std::pair<DurationNs, std::uint32_t>> kernels;  // (duration, kernel row)
    std::vector<core::CpuOpId> ops;

    // One costed kernel.
    struct Kernel {
        double flops = 0;
        double bytes = 0;
        DurationNs durationNs = 0;
        std::int8_t precision = -1;
        bool tensorCore = false;
        bool sharedOp = false;
        bool convolutionOp = false;
        std::uint32_t row = 0;
    };

    void add(const Kernel& k) {
        flops += k.flops;
        bytes += k.bytes;
        timeNs += k.durationNs;
        if (k.sharedOp) {
            sharedOpNs += k.durationNs;
        }
        if (k.convolutionOp) {
            convolutionOpNs += k.durationNs;
        }
        if (k.tensorCore) {
            tensorCoreNs += k.durationNs;
        }
        if (k.precision >= 0 && static_cast<std::size_t>(k.precision) < kPrecisionCount) {
            byPrecision[static_cast<std::size_t>(k.precision)] += k.durationNs;
        }
        kernels.emplace_back(k.durationNs, k.row);
    }
};

double peakFor(const DeviceSpec* device, Precision p) {
    return device != nullptr ? device->peakFlopsPerSecond(p) : 0.0;
}

RooflinePoint makePoint(Accum& acc, RooflinePoint::Kind kind, std::string label, core::StringId name,
                        KernelClass kernelClass, DurationNs totalKernelNs, const DeviceSpec* device,
                        double bandwidth, std::size_t maxIds, double aboveTolerance) {
    RooflinePoint p;
    p.kind = kind;
    p.label = std::move(label);
    p.name = name;
    p.kernelClass = kernelClass;
    p.flops = acc.flops;
    p.bytes = acc.bytes;
    p.timeNs = acc.timeNs;
    p.timeShare =
        totalKernelNs > 0 ? static_cast<double>(acc.timeNs) / static_cast<double>(totalKernelNs) : 0;
    p.arithmeticIntensity = acc.bytes > 0 ? acc.flops / acc.bytes : 0;
    double seconds = static_cast<double>(acc.timeNs) * 1e-9;
    p.achievedFlopsPerSecond = seconds > 0 ? acc.flops / seconds : 0;
    p.achievedBytesPerSecond = seconds > 0 ? acc.bytes / seconds : 0;
    std::size_t best = kPrecisionCount;
    for (std::size_t i = 0; i < kPrecisionCount; ++i) {
        if (acc.byPrecision[i] > 0 &&
            (best == kPrecisionCount || acc.byPrecision[i] > acc.byPrecision[best])) {
            best = i;
        }
    }
    if (best < kPrecisionCount) {
        Precision precision = static_cast<Precision>(best);
        // FP32 ops that ran on tensor cores used TF32 (the trace shows it only in the kernel name).
        if (precision == Precision::FP32 && acc.tensorCoreNs * 2 > acc.timeNs &&
            peakFor(device, Precision::TF32) > 0) {
            precision = Precision::TF32;
        }
        p.precision = precision;
    }
    double peak = p.precision ? peakFor(device, *p.precision) : 0.0;
    if (peak > 0 && bandwidth > 0) {
        p.attainableFlopsPerSecond = attainableFlopsPerSecond(p.arithmeticIntensity, peak, bandwidth);
        p.fractionOfAttainable =
            p.attainableFlopsPerSecond > 0 ? p.achievedFlopsPerSecond / p.attainableFlopsPerSecond : 0;
        p.memoryBound = p.arithmeticIntensity < ridgeFlopsPerByte(peak, bandwidth);
        if (p.fractionOfAttainable > 1.0 + aboveTolerance) {
            p.aboveRoof = true;
            const bool fp32OnTensorCores =
                (*p.precision == Precision::FP32 || *p.precision == Precision::FP64) &&
                acc.tensorCoreNs * 2 > acc.timeNs;
            // cuDNN's Winograd runs its batched products as GEMM kernels: their op's class decides.
            const KernelClass reasonClass =
                acc.convolutionOpNs * 2 > acc.timeNs ? KernelClass::Convolution : kernelClass;
            p.aboveRoofReason = aboveRoofReason(reasonClass, fp32OnTensorCores,
                                                acc.sharedOpNs * 2 > acc.timeNs, p.memoryBound);
        }
    }
    // Only the longest maxIds are kept: a partial sort keeps this linear in the class size.
    const std::size_t keep = std::min(maxIds, acc.kernels.size());
    std::partial_sort(acc.kernels.begin(), acc.kernels.begin() + static_cast<std::ptrdiff_t>(keep),
                      acc.kernels.end(), [](const auto& a, const auto& b) {
                          return a.first != b.first ? a.first > b.first : a.second < b.second;
                      });
    for (std::size_t i = 0; i < keep; ++i) {
        p.kernels.push_back(core::KernelId{acc.kernels[i].second});
    }
    for (std::size_t i = 0; i < acc.ops.size() && i < maxIds; ++i) {
        p.ops.push_back(acc.ops[i]);
    }
    return p;
}

bool isConvolutionOp(std::string_view opName) {
    return names::kernelClassFromOpName(opName) == KernelClass::Convolution;
}

}  // namespace

std::string aboveRoofReason(KernelClass kernelClass, bool fp32OnTensorCores, bool sharedOp,
                            bool memoryBound) {
    if (memoryBound) {
        // Under the memory roof the bytes decide: the estimate reads every input and writes the
        // output once, more than reaches HBM when an op works in place, fuses or hits in cache.
        return "above its roof, the memory one: the bytes counted from the shapes (each input read and the "
               "output "
               "written once) exceed what reached memory (an in-place or fused op, or reuse in cache)";
    }
    if (kernelClass == KernelClass::Convolution) {
        return "above its roof: the convolution likely uses Winograd or FFT, which do fewer FLOPs than the "
               "direct formula counts";
    }
    if (fp32OnTensorCores) {
        return "above its roof: FP32-recorded math ran on tensor cores (TF32/FP16), whose roof is higher";
    }
    if (sharedOp) {
        return "above its roof: the op's FLOPs, estimated from its shapes, are split over its kernels by "
               "time "
               "and this kernel likely did less than its share";
    }
    return "above its roof: the FLOPs estimated from the recorded shapes exceed the work the kernel did";
}

double ridgeFlopsPerByte(double peakFlopsPerSecond, double bandwidthBytesPerSecond) {
    return bandwidthBytesPerSecond > 0 ? peakFlopsPerSecond / bandwidthBytesPerSecond : 0;
}

double attainableFlopsPerSecond(double arithmeticIntensity, double peakFlopsPerSecond,
                                double bandwidthBytesPerSecond) {
    return std::min(peakFlopsPerSecond, arithmeticIntensity * bandwidthBytesPerSecond);
}

std::vector<RooflineCeiling> rooflineCeilings(const DeviceSpec& device) {
    const double bandwidth = device.memoryBandwidthBytesPerSecond;
    std::vector<RooflineCeiling> ceilings;
    for (const PeakFlops& peak : device.peaks) {
        if (peak.flopsPerSecond <= 0) {
            continue;
        }
        RooflineCeiling c;
        c.precision = peak.precision;
        c.peakFlopsPerSecond = peak.flopsPerSecond;
        c.ridgeFlopsPerByte = ridgeFlopsPerByte(peak.flopsPerSecond, bandwidth);
        c.tensorCore = peak.tensorCore;
        ceilings.push_back(c);
    }
    std::sort(ceilings.begin(), ceilings.end(), [](const RooflineCeiling& a, const RooflineCeiling& b) {
        return a.peakFlopsPerSecond < b.peakFlopsPerSecond;
    });
    return ceilings;
}

MeasuredRoofs measuredRoofs(const DeviceSpec& measured) {
    MeasuredRoofs roofs;
    roofs.present = true;
    roofs.deviceId = measured.id;
    roofs.source = measured.source;
    roofs.memoryBandwidthBytesPerSecond = measured.memoryBandwidthBytesPerSecond;
    roofs.ceilings = rooflineCeilings(measured);
    return roofs;
}

RooflineResult computeRoofline(const core::TraceModel& model, const KernelStatsResult& kernels,
                               const OpCostResult& costs, const StepsResult& steps,
                               const std::vector<CounterAverage>& counters, const DeviceSpec* device,
                               const RooflineOptions& options) {
    RooflineResult result;
    const double bandwidth = device != nullptr ? device->memoryBandwidthBytesPerSecond : 0.0;
    result.hasDevice = device != nullptr;
    result.memoryBandwidthBytesPerSecond = bandwidth;
    if (device != nullptr) {
        result.ceilings = rooflineCeilings(*device);
    }

    // Aggregate costed kernels by class, by kernel name and by launching op name.
    std::array<Accum, kKernelClassCount> byClass;
    std::unordered_map<std::uint32_t, Accum> byName;
    std::unordered_map<std::uint32_t, Accum> byOp;
    core::NameMemo convolutionOpName(model, isConvolutionOp);
    const std::size_t n = std::min(model.kernels.size(), costs.kernelFlops.size());
    for (std::uint32_t k = 0; k < n; ++k) {
        if (costs.kernelFlops[k] <= 0) {
            continue;
        }
        const core::CpuOpId op = launchingOp(model, core::KernelId{k});
        Accum::Kernel facts;
        facts.flops = costs.kernelFlops[k];
        facts.bytes = costs.kernelBytes[k];
        facts.durationNs = std::max<DurationNs>(0, model.kernels.durationNs(k));
        facts.precision = k < costs.kernelPrecision.size() ? costs.kernelPrecision[k] : std::int8_t{-1};
        facts.tensorCore = k < kernels.kernelTensorCore.size() && kernels.kernelTensorCore[k] != 0;
        facts.sharedOp = k < costs.kernelSharers.size() && costs.kernelSharers[k] > 1;
        facts.convolutionOp = op.valid() && convolutionOpName(model.cpuOps.name[op.index]);
        facts.row = k;
        const KernelClass cls = k < kernels.kernelClass.size() ? kernels.kernelClass[k] : KernelClass::Other;
        byClass[static_cast<std::size_t>(cls)].add(facts);
        byName[model.kernels.name[k].index].add(facts);
        if (op.valid()) {
            Accum& acc = byOp[model.cpuOps.name[op.index].index];
            acc.add(facts);
            if (acc.ops.size() < options.maxIdsPerPoint && (acc.ops.empty() || acc.ops.back() != op)) {
                acc.ops.push_back(op);
            }
        }
    }
    const DurationNs total = kernels.totalKernelTimeNs;
    for (std::size_t c = 0; c < kKernelClassCount; ++c) {
        if (byClass[c].timeNs > 0 && byClass[c].bytes > 0) {
            result.points.push_back(makePoint(byClass[c], RooflinePoint::Kind::KernelClass,
                                              std::string(toString(static_cast<KernelClass>(c))), {},
                                              static_cast<KernelClass>(c), total, device, bandwidth,
                                              options.maxIdsPerPoint, options.aboveRoofTolerance));
        }
    }
    std::size_t added = 0;
    for (const KernelStatsRow& row : kernels.kernels) {  // already by total time, descending
        if (added >= options.topKernels) {
            break;
        }
        auto it = byName.find(row.name.index);
        if (it == byName.end() || it->second.bytes <= 0) {
            continue;
        }
        result.points.push_back(makePoint(
            it->second, RooflinePoint::Kind::Kernel, std::string(model.text(row.name)), row.name,
            row.kernelClass, total, device, bandwidth, options.maxIdsPerPoint, options.aboveRoofTolerance));
        ++added;
    }
    std::vector<std::pair<DurationNs, std::uint32_t>> opOrder;
    for (const auto& [name, acc] : byOp) {
        if (acc.bytes > 0) {
            opOrder.emplace_back(acc.timeNs, name);
        }
    }
    std::sort(opOrder.begin(), opOrder.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (std::size_t i = 0; i < opOrder.size() && i < options.topOps; ++i) {
        Accum& acc = byOp[opOrder[i].second];
        std::array<DurationNs, kKernelClassCount> classTime{};
        for (const auto& [d, k] : acc.kernels) {
            if (k < kernels.kernelClass.size()) {
                classTime[static_cast<std::size_t>(kernels.kernelClass[k])] += d;
            }
        }
        auto cls = static_cast<KernelClass>(std::max_element(classTime.begin(), classTime.end()) -
                                            classTime.begin());
        core::StringId name{opOrder[i].second};
        result.points.push_back(makePoint(acc, RooflinePoint::Kind::Op, std::string(model.text(name)), name,
                                          cls, total, device, bandwidth, options.maxIdsPerPoint,
                                          options.aboveRoofTolerance));
    }

    // Per-step HBM bandwidth: counters when the trace has DRAM throughput tracks, else shape estimates.
    std::vector<double> stepBytes(steps.steps.size(), 0.0);
    for (std::size_t k = 0; k < n && k < steps.kernelStep.size(); ++k) {
        if (steps.kernelStep[k] >= 0) {
            stepBytes[static_cast<std::size_t>(steps.kernelStep[k])] += costs.kernelBytes[k];
        }
    }
    for (std::size_t s = 0; s < steps.steps.size(); ++s) {
        StepBandwidth sb;
        sb.stepIndex = static_cast<std::int32_t>(s);
        sb.stepNs = steps.steps[s].durationNs();
        const double seconds = static_cast<double>(sb.stepNs) * 1e-9;
        // Prefer a total DRAM throughput in % of peak ("DRAM throughput", gpu__dram_throughput), then
        // any other DRAM % or B/s track; byte-count tracks ("DRAM bytes read") are not rates.
        const CounterAverage* dram = nullptr;
        int bestRank = 0;
        for (const CounterAverage& c : counters) {
            if (c.kind != CounterKind::DramThroughput || c.stepIndex != static_cast<std::int32_t>(s)) {
                continue;
            }
            const std::string name = core::toLower(c.name);
            const bool directional =
                name.find("read") != std::string::npos || name.find("write") != std::string::npos;
            int rank = 0;
            if (c.unit == "%") {
                rank = directional ? 2 : 3;
            } else if (c.unit.find("B/s") != std::string::npos) {
                rank = 1;
            }
            if (rank > bestRank) {
                bestRank = rank;
                dram = &c;
            }
        }
        if (dram != nullptr && dram->unit == "%") {
            sb.source = BandwidthSource::Counters;
            sb.fractionOfPeak = dram->mean / 100.0;
            if (bestRank == 2) {
                // Read and write tracks (Nsight Systems GPU_METRICS): each is a share of the same
                // peak, so the traffic is their sum.
                const MeasuredActivity m =
                    measuredActivity(counters, dram->deviceIndex, static_cast<std::int32_t>(s));
                sb.fractionOfPeak = m.dramThroughput.value_or(sb.fractionOfPeak);
            }
            sb.achievedBytesPerSecond = bandwidth > 0 ? sb.fractionOfPeak * bandwidth : 0;
            sb.bytes = sb.achievedBytesPerSecond * seconds;
        } else if (dram != nullptr && dram->unit.find("B/s") != std::string::npos) {
            double scale = dram->unit.rfind("GB/s", 0) == 0   ? 1e9
                           : dram->unit.rfind("MB/s", 0) == 0 ? 1e6
                                                              : 1.0;
            sb.source = BandwidthSource::Counters;
            sb.achievedBytesPerSecond = dram->mean * scale;
            sb.bytes = sb.achievedBytesPerSecond * seconds;
            sb.fractionOfPeak = bandwidth > 0 ? sb.achievedBytesPerSecond / bandwidth : -1;
        } else if (stepBytes[s] > 0 && seconds > 0) {
            sb.source = BandwidthSource::ShapeEstimate;
            sb.bytes = stepBytes[s];
            sb.achievedBytesPerSecond = stepBytes[s] / seconds;
            sb.fractionOfPeak = bandwidth > 0 ? sb.achievedBytesPerSecond / bandwidth : -1;
        }
        if (sb.source != BandwidthSource::None &&
            (result.bandwidthSource == BandwidthSource::None || sb.source == BandwidthSource::Counters)) {
            result.bandwidthSource = sb.source;
        }
        result.steps.push_back(sb);
    }
    return result;
}

}  // namespace chokepoint::analysis
