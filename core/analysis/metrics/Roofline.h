#pragma once
// Roofline: arithmetic intensity AI = FLOPs / bytes, achieved FLOP/s and bytes/s, one point per
// kernel class and per top kernel name (and per top op), against ceilings per precision:
//   memory roof  attainable(AI) = AI × BW,  compute roof = peak(precision),
//   ridge(precision) = peak(precision) / BW          (seed spec §1.4; A100 312e12 / 2.0e12 = 156).
// FLOPs/bytes come from OpCost's shape estimates; points without estimates are not drawn.
// Also each step's achieved HBM bandwidth fraction = bytes moved / step time / peak BW, with the
// source: hardware counters when the trace has them (a total DRAM throughput track in % of peak,
// else a read/write one, else a B/s track; byte-count tracks are not rates), else shape estimates.
// A null DeviceSpec gives points without ceilings (hasDevice = false). Units: FLOPs, bytes, seconds.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/DeviceSpec.h"
#include "core/analysis/metrics/CounterSummary.h"
#include "core/analysis/metrics/KernelClassifier.h"
#include "core/analysis/metrics/OpCost.h"
#include "core/analysis/metrics/StepDetection.h"
#include "core/base/Ids.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

struct RooflineCeiling {
    Precision precision = Precision::FP32;
    double peakFlopsPerSecond = 0;
    double ridgeFlopsPerByte = 0;  // peak / bandwidth
    bool tensorCore = false;
};

// Why a point can sit above its roof, most specific first: under the memory roof, bytes counted
// that never reached memory; a convolution computed with fewer FLOPs than the direct formula
// (Winograd, FFT), FP32-recorded math that ran on tensor cores, or an op whose shape-based FLOPs
// were split over its kernels by time.
std::string aboveRoofReason(KernelClass kernelClass, bool fp32OnTensorCores, bool sharedOp,
                            bool memoryBound = false);

// The ridge point, peak / bandwidth (FLOP/byte; 0 without a bandwidth): kernels whose arithmetic
// intensity is below it are memory-bound (Williams et al., Roofline, CACM 2009). The one ridge.
double ridgeFlopsPerByte(double peakFlopsPerSecond, double bandwidthBytesPerSecond);

// Attainable FLOP/s at `arithmeticIntensity` under a roof: min(peak, AI × BW).
double attainableFlopsPerSecond(double arithmeticIntensity, double peakFlopsPerSecond,
                                double bandwidthBytesPerSecond);

struct RooflinePoint {
    enum class Kind : std::uint8_t { KernelClass = 0, Kernel, Op };
    Kind kind = Kind::Kernel;
    std::string label;    // class name, kernel name or op name
    core::StringId name;  // kernel/op name in the model's pool (empty for classes)
    KernelClass kernelClass = KernelClass::Other;
    std::optional<Precision> precision;  // dominant precision of its costed ops
    double flops = 0;
    double bytes = 0;
    core::DurationNs timeNs = 0;  // summed kernel time of the costed kernels
    double timeShare = 0;         // timeNs / total kernel time (for sizing)
    double arithmeticIntensity = 0;
    double achievedFlopsPerSecond = 0;
    double achievedBytesPerSecond = 0;
    double attainableFlopsPerSecond = 0;  // under its precision's roof; 0 without a device
    double fractionOfAttainable = 0;      // achieved / attainable; 0 without a device
    bool memoryBound = false;             // AI below its precision's ridge (needs a device)
    // Achieved above the roof (more than RooflineOptions::aboveRoofTolerance over attainable): the
    // estimate, not the kernel, is off. `aboveRoofReason` names the likely cause; outputs flag the
    // point and never show the excess as a plain "> 100 %".
    bool aboveRoof = false;
    std::string aboveRoofReason;
    std::vector<core::KernelId> kernels;  // up to RooflineOptions::maxIdsPerPoint, longest first
    std::vector<core::CpuOpId> ops;       // for Kind::Op: example calls
};

enum class BandwidthSource : std::uint8_t { None = 0, Counters, ShapeEstimate };

struct StepBandwidth {
    std::int32_t stepIndex = 0;
    double bytes = 0;  // estimated bytes moved (ShapeEstimate) or counter-derived bytes
    core::DurationNs stepNs = 0;
    double achievedBytesPerSecond = 0;
    double fractionOfPeak = -1;  // -1 when unknown (no device bandwidth or no estimate)
    BandwidthSource source = BandwidthSource::None;
};

struct RooflineOptions {
    std::size_t topKernels = 20;
    std::size_t topOps = 20;
    std::size_t maxIdsPerPoint = 64;
    double aboveRoofTolerance = 0.02;  // achieved / attainable above 1 + this is flagged
};

// The roofs a calibration measured on this machine (`chokepoint-cli calibrate`), drawn beside the
// datasheet's. Points keep their attainable figures against the datasheet.
struct MeasuredRoofs {
    bool present = false;
    std::string deviceId;  // the measured entry's id ("measured-nvidia-h100-80gb-hbm3")
    std::string source;    // "chokepoint-cli calibrate"
    double memoryBandwidthBytesPerSecond = 0;
    std::vector<RooflineCeiling> ceilings;  // ascending peak
};

struct RooflineResult {
    bool hasDevice = false;
    double memoryBandwidthBytesPerSecond = 0;
    std::vector<RooflineCeiling> ceilings;  // per precision with a known peak, ascending peak
    std::vector<RooflinePoint> points;      // classes first, then kernels, then ops
    std::vector<StepBandwidth> steps;
    BandwidthSource bandwidthSource = BandwidthSource::None;  // of the step figures
    MeasuredRoofs measured;
};

// One ceiling per precision with a known peak, ascending, with ridge points against the device's
// memory bandwidth.
std::vector<RooflineCeiling> rooflineCeilings(const DeviceSpec& device);
// The measured roofs of a calibration entry.
MeasuredRoofs measuredRoofs(const DeviceSpec& measured);

RooflineResult computeRoofline(const core::TraceModel& model, const KernelStatsResult& kernels,
                               const OpCostResult& costs, const StepsResult& steps,
                               const std::vector<CounterAverage>& counters, const DeviceSpec* device,
                               const RooflineOptions& options = {});

}  // namespace chokepoint::analysis
