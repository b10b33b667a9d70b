#pragma once
// Data exports: every kernel name and every launching op of a trace as CSV (RFC 4180, CRLF line
// ends, UTF-8), numbers in base units (ns, counts, fractions 0..1, FLOPs, bytes) with the unit in
// the column name. The GUI tables hold the same rows, formatted; these are for spreadsheets and scripts.
//
// kernels: name, class, tensorCore, calls, totalNs, meanNs, minNs, maxNs, shareOfKernelTimeFraction,
//          flops, bytes, costedTimeNs, flopsPerSecond (FLOPs and bytes from recorded shapes, 0 when
//          unknown; flopsPerSecond = flops / costedTimeNs, the kernel's throughput as the roofline
//          shows it, empty when no FLOPs are known)
// ops:     name, class, calls, kernels, gpuTimeNs, meanGpuTimeNs, maxGpuTimeNs, shareOfKernelTimeFraction

#include <string>
#include <string_view>

#include "core/analysis/diagnosis/AnalysisReport.h"

namespace chokepoint::analysis {

std::string writeKernelsCsv(const AnalysisReport& report, const core::TraceModel& model);
std::string writeOpsCsv(const AnalysisReport& report, const core::TraceModel& model);

// One CSV field, quoted when it holds a comma, a quote, a line break or surrounding spaces.
std::string csvField(std::string_view text);

}  // namespace chokepoint::analysis
