#include "core/model/TraceStats.h"

#include <algorithm>

namespace chokepoint::core {

void TraceStats::add(std::string_view name, Severity severity, std::int64_t count, std::string_view detail) {
    for (TraceStat& entry : m_entries) {
        if (entry.name == name) {
            entry.count += count;
            entry.severity = std::max(entry.severity, severity);
            if (entry.detail.empty()) {
                entry.detail = detail;
            }
            return;
        }
    }
    m_entries.push_back(TraceStat{std::string(name), severity, count, std::string(detail)});
}

std::int64_t TraceStats::count(std::string_view name) const {
    const TraceStat* entry = find(name);
    return entry ? entry->count : 0;
}

const TraceStat* TraceStats::find(std::string_view name) const {
    for (const TraceStat& entry : m_entries) {
        if (entry.name == name) {
            return &entry;
        }
    }
    return nullptr;
}

bool TraceStats::hasAtLeast(Severity severity) const {
    return std::any_of(m_entries.begin(), m_entries.end(),
                       [severity](const TraceStat& e) { return e.severity >= severity; });
}

const TraceStat* TraceStats::truncation() const {
    for (const char* name : {"import.truncated", "format.truncated_tail"}) {
        if (const TraceStat* cut = find(name)) {
            return cut;
        }
    }
    return nullptr;
}

std::int64_t TraceStats::counterModeRecords() const {
    return count("import.range_profiler_records");
}

}  // namespace chokepoint::core
