#pragma once
// Datasheet (or measured) figures for one accelerator model, as stored in the device database
// (resources/devices/). Zero means "unknown": analyses must say so rather than invent a value.

#include <string>
#include <vector>

namespace chokepoint::analysis {

enum class Precision { FP64, FP32, TF32, BF16, FP16, FP8, INT8 };

struct PeakFlops {
    Precision precision = Precision::FP32;
    double flopsPerSecond = 0;  // dense (no sparsity)
    bool tensorCore = false;
};

struct DeviceSpec {
    std::string id;      // "h100-sxm"
    std::string name;    // "NVIDIA H100 SXM5 80GB"
    std::string vendor;  // "NVIDIA", "AMD"
    std::vector<PeakFlops> peaks;
    double memoryBandwidthBytesPerSecond = 0;  // HBM/GDDR peak
    double memoryCapacityBytes = 0;
    int smCount = 0;
    double interconnectBytesPerSecond = 0;  // per-GPU NVLink/Infinity Fabric, bidirectional
    std::string interconnect;               // "NVLink 4 (900 GB/s)"
    double tdpWatts = 0;
    std::string source;     // where the figures come from (URL / document), one per entry
    bool measured = false;  // written by `chokepoint-cli calibrate` rather than a datasheet

    // Peak for `precision`, or 0 when unknown.
    double peakFlopsPerSecond(Precision precision) const {
        for (const PeakFlops& p : peaks) {
            if (p.precision == precision) {
                return p.flopsPerSecond;
            }
        }
        return 0;
    }
};

}  // namespace chokepoint::analysis
