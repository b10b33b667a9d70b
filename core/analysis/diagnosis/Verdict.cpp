#include "core/analysis/diagnosis/Verdict.h"

namespace chokepoint::analysis {

std::string_view toString(Bottleneck bottleneck) {
    switch (bottleneck) {
        case Bottleneck::Undetermined:
            return "undetermined";
        case Bottleneck::NoGpuActivity:
            return "no-gpu-activity";
        case Bottleneck::Data:
            return "data-bound";
        case Bottleneck::Compute:
            return "compute-bound";
        case Bottleneck::MemoryBandwidth:
            return "memory-bandwidth-bound";
        case Bottleneck::MemoryCapacity:
            return "memory-capacity-bound";
        case Bottleneck::Communication:
            return "communication-bound";
        case Bottleneck::LaunchOverhead:
            return "launch-overhead-bound";
        case Bottleneck::HostBound:
            return "host-bound";
        case Bottleneck::CopyBound:
            return "copy-bound";
        case Bottleneck::ComputeMemoryMixed:
            return "mixed-compute-memory-bound";
    }
    return "undetermined";
}

std::string_view displayName(Bottleneck bottleneck) {
    switch (bottleneck) {
        case Bottleneck::Undetermined:
            return "Undetermined";
        case Bottleneck::NoGpuActivity:
            return "No GPU activity";
        case Bottleneck::Data:
            return "Data-bound";
        case Bottleneck::Compute:
            return "Compute-bound (Algorithm)";
        case Bottleneck::MemoryBandwidth:
            return "Memory-bandwidth-bound (Machine)";
        case Bottleneck::MemoryCapacity:
            return "Memory-capacity-bound (Machine)";
        case Bottleneck::Communication:
            return "Communication-bound";
        case Bottleneck::LaunchOverhead:
            return "Launch-overhead-bound";
        case Bottleneck::HostBound:
            return "Host-bound (host work between launches)";
        case Bottleneck::CopyBound:
            return "Copy-bound (host-device transfers)";
        case Bottleneck::ComputeMemoryMixed:
            return "Mixed compute- and memory-bound (Algorithm + Machine)";
    }
    return "Undetermined";
}

std::string_view toString(DamAxis axis) {
    switch (axis) {
        case DamAxis::None:
            return "none";
        case DamAxis::Data:
            return "Data";
        case DamAxis::Algorithm:
            return "Algorithm";
        case DamAxis::Machine:
            return "Machine";
        case DamAxis::Communication:
            return "Communication";
        case DamAxis::Overhead:
            return "Overhead";
    }
    return "none";
}

DamAxis axisOf(Bottleneck bottleneck) {
    switch (bottleneck) {
        case Bottleneck::Data:
        case Bottleneck::CopyBound:  // moving the input to the device is data movement
            return DamAxis::Data;
        case Bottleneck::Compute:
        case Bottleneck::ComputeMemoryMixed:  // both; the algorithm (fusion, precision) moves both shares
            return DamAxis::Algorithm;        // Table 7 pairs Algorithm with compute-bound
        case Bottleneck::MemoryBandwidth:
        case Bottleneck::MemoryCapacity:
            return DamAxis::Machine;  // ... and Machine with memory-bound
        case Bottleneck::Communication:
            return DamAxis::Communication;
        case Bottleneck::LaunchOverhead:
        case Bottleneck::HostBound:
            return DamAxis::Overhead;
        case Bottleneck::Undetermined:
        case Bottleneck::NoGpuActivity:
            break;
    }
    return DamAxis::None;
}

std::string evidenceName(std::string_view name, std::size_t maxBytes) {
    if (name.size() <= maxBytes || maxBytes < 4) {
        return std::string(name);
    }
    std::size_t cut = maxBytes - 3;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) {
        --cut;  // do not split a multi-byte character
    }
    return std::string(name.substr(0, cut)) + "...";
}

std::string_view Verdict::confidenceLabel() const {
    if (confidence >= 0.75) {
        return "high";
    }
    if (confidence >= 0.5) {
        return "medium";
    }
    return "low";
}

double Verdict::shareOf(Bottleneck b) const {
    for (const ConstraintShare& s : shares) {
        if (s.bottleneck == b) {
            return s.shareOfWindow;
        }
    }
    return 0;
}

}  // namespace chokepoint::analysis
