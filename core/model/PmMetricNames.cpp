#include "core/model/PmMetricNames.h"

#include <array>

namespace chokepoint::core {

namespace {

constexpr std::array<PmMetricInfo, 17> kKnown{{
    {"gpc__cycles_elapsed.avg.per_second", "GPC clock", "Hz"},
    {"gr__cycles_active.avg.pct_of_peak_sustained_elapsed", "GR active", "%"},
    {"sm__cycles_active.avg.pct_of_peak_sustained_elapsed", "SM active", "%"},
    {"sm__inst_executed_realtime.sum", "SM instructions", "inst"},
    {"sm__warps_active_realtime.avg.pct_of_peak_sustained_elapsed", "Warp occupancy", "%"},
    {"sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed", "Tensor pipe active", "%"},
    {"TPC.TriageCompute.sm__pipe_tensor_op_hmma_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
     "HMMA pipe active", "%"},
    {"TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM throughput", "%"},
    {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput", "%"},
    {"dram__read_throughput.avg.pct_of_peak_sustained_elapsed", "DRAM read throughput", "%"},
    {"dram__write_throughput.avg.pct_of_peak_sustained_elapsed", "DRAM write throughput", "%"},
    {"dram__bytes_read.sum", "DRAM bytes read", "bytes"},
    {"dram__bytes_write.sum", "DRAM bytes written", "bytes"},
    {"pcie__read_bytes.sum", "PCIe bytes read", "bytes"},
    {"pcie__write_bytes.sum", "PCIe bytes written", "bytes"},
    {"nvlrx__bytes.sum", "NVLink bytes received", "bytes"},
    {"nvltx__bytes.sum", "NVLink bytes sent", "bytes"},
}};

bool contains(std::string_view text, std::string_view part) {
    return text.find(part) != std::string_view::npos;
}

}  // namespace

std::span<const PmMetricInfo> defaultPmMetricSet() {
    return kKnown;
}

PmTrackName pmTrackForMetric(std::string_view cuptiName) {
    for (const PmMetricInfo& known : kKnown) {
        if (known.cupti == cuptiName) {
            return {std::string(known.name), std::string(known.unit)};
        }
    }
    PmTrackName out{std::string(cuptiName), {}};
    if (contains(cuptiName, ".pct_of_peak")) {
        out.unit = "%";
    } else if (cuptiName.ends_with(".per_second")) {
        out.unit = "Hz";
    } else if (contains(cuptiName, "bytes")) {
        out.unit = "bytes";
    }
    return out;
}

}  // namespace chokepoint::core
