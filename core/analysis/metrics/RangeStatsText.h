#pragma once
// RangeStats as rows and as plain text: the table the GUI shows and copies to the clipboard, and
// the side-by-side comparison of two ranges (A and B, delta = B - A). Pure functions.

#include <string>
#include <vector>

#include "core/analysis/metrics/RangeStats.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

enum class RangeValueUnit { Ns, Fraction, Count, Bytes };

// One figure of the comparison: a name in a section, its value in range A and in range B.
struct RangeComparisonRow {
    std::string section;  // "Range", "GPU 0", "GPU 0 idle", "GPU 0 kernels", "CPU ops", ...
    std::string name;     // "busy", a cause, a kernel's short name, an op's name
    RangeValueUnit unit = RangeValueUnit::Ns;
    double a = 0;
    double b = 0;
    double delta() const { return b - a; }
};

// Every figure of `a` and `b`: duration; per device busy, busy share, idle, idle by cause, kernel
// time by short name, copy time by kind, collective time; CPU op time by name. A name present in
// only one range is 0 in the other. Devices are matched by index.
std::vector<RangeComparisonRow> compareRangeStats(const RangeStats& a, const RangeStats& b,
                                                  const core::TraceModel& model);

// A value as the tables print it: "1.23 ms", "45.6 %", "1,234", "2.0 MiB". Deltas get a sign.
std::string formatRangeValue(RangeValueUnit unit, double value, bool signedDelta = false);

// The statistics as an aligned plain-text table (one section per device, then the CPU ops), times
// shown relative to `originNs` (the trace start). `maxRowsPerGroup` limits the kernel and op rows
// (0: all).
std::string formatRangeStatsText(const RangeStats& stats, const core::TraceModel& model,
                                 core::TimestampNs originNs, std::size_t maxRowsPerGroup = 0);
// The comparison as an aligned plain-text table: section, name, A, B, delta.
std::string formatRangeComparisonText(const std::vector<RangeComparisonRow>& rows, const RangeStats& a,
                                      const RangeStats& b, core::TimestampNs originNs);

}  // namespace chokepoint::analysis
