#pragma once
// Diagnostics that travel with the data: named counters with a severity, such as
// "import.negative_duration_clamped" or "correlation.kernel_without_launch". Importers, the format
// reader and the collector add to them; the CLI and the GUI show them.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/Enums.h"

namespace chokepoint::core {

struct TraceStat {
    std::string name;  // dotted, stable, machine-readable
    Severity severity = Severity::Info;
    std::int64_t count = 0;
    std::string detail;  // first example or explanation, human-readable
};

class TraceStats {
public:
    // Adds `count` to the counter `name`, creating it with `severity` and `detail` when new.
    // When the counter exists, the higher severity wins and the first detail is kept.
    void add(std::string_view name, Severity severity, std::int64_t count = 1, std::string_view detail = {});
    std::int64_t count(std::string_view name) const;
    const TraceStat* find(std::string_view name) const;
    const std::vector<TraceStat>& entries() const { return m_entries; }
    bool hasAtLeast(Severity severity) const;
    // The stat saying the file was cut short (a Kineto JSON or a .cptrace), or null: figures cover
    // only what was written.
    const TraceStat* truncation() const;
    // Per-kernel records of CUPTI's range profiler (torch.profiler's counter mode): kernels ran, but
    // the trace holds counters, not a timeline. 0 for any other trace.
    std::int64_t counterModeRecords() const;
    bool empty() const { return m_entries.empty(); }

private:
    std::vector<TraceStat> m_entries;
};

}  // namespace chokepoint::core
