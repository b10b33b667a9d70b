#include "core/analysis/diagnosis/DeviceMemoryText.h"

#include "core/base/Format.h"

namespace chokepoint::analysis {

std::string describeDeviceMemory(const DiagnosisSignals& s) {
    if (s.peakMemoryBytes) {
        std::string out = "peak " + core::formatBytes(*s.peakMemoryBytes);
        if (s.capacityBytes && *s.capacityBytes > 0) {
            out += " of " + core::formatBytes(*s.capacityBytes) + " (" +
                   core::formatPercent(*s.peakMemoryBytes / *s.capacityBytes) + ")";
        }
        return out;
    }
    if (s.memoryRiseBytes) {
        return "rises by up to " + core::formatBytes(*s.memoryRiseBytes) +
               " within the trace; the peak is unknown (the memory events carry no totals)";
    }
    return {};
}

}  // namespace chokepoint::analysis
