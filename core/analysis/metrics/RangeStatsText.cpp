#include "core/analysis/metrics/RangeStatsText.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/base/Format.h"

namespace chokepoint::analysis {
namespace {

using Table = std::vector<std::vector<std::string>>;

// Display width of UTF-8 text (code points; "µs" is two columns wide, not three bytes).
std::size_t displayWidth(const std::string& text) {
    return static_cast<std::size_t>(std::count_if(
        text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Aligned columns: the first `leftColumns` left-aligned, the others right-aligned, two spaces
// apart. A row with one cell is a heading written as is.
void appendTable(std::string& out, const Table& table, std::size_t leftColumns = 1) {
    std::vector<std::size_t> widths;
    for (const auto& row : table) {
        if (row.size() < 2) {
            continue;
        }
        widths.resize(std::max(widths.size(), row.size()), 0);
        for (std::size_t c = 0; c < row.size(); ++c) {
            widths[c] = std::max(widths[c], displayWidth(row[c]));
        }
    }
    for (const auto& row : table) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c) {
            const std::string pad(row.size() < 2 ? 0 : widths[c] - displayWidth(row[c]), ' ');
            if (c > 0) {
                line += "  ";
            }
            line += c < leftColumns ? row[c] + pad : pad + row[c];
        }
        while (!line.empty() && line.back() == ' ') {
            line.pop_back();
        }
        out += line + '\n';
    }
}

std::string position(core::TimestampNs ns, core::TimestampNs originNs) {
    return core::formatFixed(static_cast<double>(ns - originNs) / 1e6, 3) + " ms";
}

std::string rangeLine(const RangeStats& stats, core::TimestampNs originNs) {
    return position(stats.range.startNs, originNs) + " to " + position(stats.range.endNs, originNs) + " (" +
           core::formatDuration(stats.durationNs) + ")";
}

std::string deviceTitle(std::int16_t device) {
    return "GPU " + std::to_string(device);
}

void addDevice(Table& t, const RangeDeviceStats& d, std::size_t maxRows) {
    t.push_back({deviceTitle(d.deviceIndex)});
    t.push_back({"  busy", core::formatDuration(d.busyNs), core::formatPercent(d.busyShare)});
    const double whole = static_cast<double>(d.busyNs + d.idleNs);  // the range's duration
    t.push_back({"  idle", core::formatDuration(d.idleNs),
                 core::formatPercent(whole > 0 ? static_cast<double>(d.idleNs) / whole : 0.0)});
    for (std::size_t c = 0; c < kIdleCauseCount; ++c) {
        if (d.idleByCauseNs[c] > 0) {
            t.push_back({"    " + std::string(toString(static_cast<IdleCause>(c))),
                         core::formatDuration(d.idleByCauseNs[c]),
                         core::formatPercent(static_cast<double>(d.idleByCauseNs[c]) / whole)});
        }
    }
    if (d.idleUnclassifiedNs > 0) {
        t.push_back({"    not classified (outside the analysed steps)",
                     core::formatDuration(d.idleUnclassifiedNs),
                     core::formatPercent(static_cast<double>(d.idleUnclassifiedNs) / whole)});
    }
    t.push_back({"  kernels: " + core::formatCount(d.kernelCount) + " in " +
                 core::formatCount(static_cast<std::int64_t>(d.kernels.size())) + " names"});
    if (!d.kernels.empty()) {
        t.push_back({"    name", "count", "total", "mean", "of busy"});
    }
    for (std::size_t i = 0; i < d.kernels.size() && (maxRows == 0 || i < maxRows); ++i) {
        const RangeKernelGroup& k = d.kernels[i];
        t.push_back({"    " + k.shortName, core::formatCount(k.count), core::formatDuration(k.totalNs),
                     core::formatDuration(k.meanNs), core::formatPercent(k.shareOfBusy)});
    }
    if (maxRows > 0 && d.kernels.size() > maxRows) {
        t.push_back({"    ... " + std::to_string(d.kernels.size() - maxRows) + " more names"});
    }
    if (!d.copies.empty()) {
        t.push_back({"  copies", "count", "bytes", "time"});
        for (const RangeCopyGroup& c : d.copies) {
            t.push_back({"    " + copyGroupName(c), core::formatCount(c.count),
                         core::formatBytes(static_cast<double>(c.sizeBytes)),
                         core::formatDuration(c.totalNs)});
        }
    }
    t.push_back(
        {"  collectives", core::formatCount(d.collectiveCount), core::formatDuration(d.collectiveNs)});
}

void addOps(Table& t, const RangeStats& stats, const core::TraceModel& model, std::size_t maxRows) {
    t.push_back({"CPU ops: " + core::formatCount(stats.cpuOpCount) + " in " +
                 core::formatCount(static_cast<std::int64_t>(stats.cpuOps.size())) + " names"});
    if (stats.cpuOps.empty()) {
        return;
    }
    t.push_back({"  name", "count", "total", "mean"});
    for (std::size_t i = 0; i < stats.cpuOps.size() && (maxRows == 0 || i < maxRows); ++i) {
        const RangeOpGroup& op = stats.cpuOps[i];
        t.push_back({"  " + std::string(model.text(op.name)), core::formatCount(op.count),
                     core::formatDuration(op.totalNs), core::formatDuration(op.meanNs)});
    }
    if (maxRows > 0 && stats.cpuOps.size() > maxRows) {
        t.push_back({"  ... " + std::to_string(stats.cpuOps.size() - maxRows) + " more names"});
    }
}

// Adds rows name -> value for one range (A or B) into `rows`, matched by (section, name).
class Matcher {
public:
    void add(const std::string& section, const std::string& name, RangeValueUnit unit, double value,
             bool isB) {
        const auto key = std::make_pair(section, name);
        auto it = m_index.find(key);
        if (it == m_index.end()) {
            it = m_index.emplace(key, m_rows.size()).first;
            m_rows.push_back({section, name, unit, 0, 0});
        }
        (isB ? m_rows[it->second].b : m_rows[it->second].a) += value;
    }
    std::vector<RangeComparisonRow> take() { return std::move(m_rows); }

private:
    std::map<std::pair<std::string, std::string>, std::size_t> m_index;
    std::vector<RangeComparisonRow> m_rows;
};

void addRange(Matcher& m, const RangeStats& s, const core::TraceModel& model, bool isB) {
    m.add("Range", "duration", RangeValueUnit::Ns, static_cast<double>(s.durationNs), isB);
    for (const RangeDeviceStats& d : s.devices) {
        const std::string gpu = deviceTitle(d.deviceIndex);
        m.add(gpu, "busy", RangeValueUnit::Ns, static_cast<double>(d.busyNs), isB);
        m.add(gpu, "busy share", RangeValueUnit::Fraction, d.busyShare, isB);
        m.add(gpu, "idle", RangeValueUnit::Ns, static_cast<double>(d.idleNs), isB);
        m.add(gpu, "kernels", RangeValueUnit::Count, static_cast<double>(d.kernelCount), isB);
        m.add(gpu, "collectives", RangeValueUnit::Ns, static_cast<double>(d.collectiveNs), isB);
        for (std::size_t c = 0; c < kIdleCauseCount; ++c) {
            if (d.idleByCauseNs[c] > 0) {
                m.add(gpu + " idle", std::string(toString(static_cast<IdleCause>(c))), RangeValueUnit::Ns,
                      static_cast<double>(d.idleByCauseNs[c]), isB);
            }
        }
        if (d.idleUnclassifiedNs > 0) {
            m.add(gpu + " idle", "not classified", RangeValueUnit::Ns,
                  static_cast<double>(d.idleUnclassifiedNs), isB);
        }
        for (const RangeKernelGroup& k : d.kernels) {
            m.add(gpu + " kernels", k.shortName, RangeValueUnit::Ns, static_cast<double>(k.totalNs), isB);
        }
        for (const RangeCopyGroup& c : d.copies) {
            m.add(gpu + " copies", copyGroupName(c), RangeValueUnit::Ns, static_cast<double>(c.totalNs), isB);
        }
    }
    for (const RangeOpGroup& op : s.cpuOps) {
        m.add("CPU ops", std::string(model.text(op.name)), RangeValueUnit::Ns,
              static_cast<double>(op.totalNs), isB);
    }
}

}  // namespace

std::vector<RangeComparisonRow> compareRangeStats(const RangeStats& a, const RangeStats& b,
                                                  const core::TraceModel& model) {
    Matcher matcher;
    addRange(matcher, a, model, false);
    addRange(matcher, b, model, true);
    return matcher.take();
}

std::string formatRangeValue(RangeValueUnit unit, double value, bool signedDelta) {
    std::string sign = signedDelta && value > 0 ? "+" : "";
    switch (unit) {
        case RangeValueUnit::Ns:
            return sign + core::formatDuration(static_cast<core::DurationNs>(std::llround(value)));
        case RangeValueUnit::Fraction:
            return signedDelta ? sign + core::formatFixed(value * 100.0, 1) + " pp"
                               : core::formatPercent(value);
        case RangeValueUnit::Count:
            return sign + core::formatCount(static_cast<std::int64_t>(std::llround(value)));
        case RangeValueUnit::Bytes:
            return sign + core::formatBytes(value);
    }
    return {};
}

std::string formatRangeStatsText(const RangeStats& stats, const core::TraceModel& model,
                                 core::TimestampNs originNs, std::size_t maxRowsPerGroup) {
    std::string out = "Range " + rangeLine(stats, originNs) + " from the trace start\n";
    Table table;
    for (const RangeDeviceStats& d : stats.devices) {
        addDevice(table, d, maxRowsPerGroup);
    }
    addOps(table, stats, model, maxRowsPerGroup);
    appendTable(out, table);
    return out;
}

std::string formatRangeComparisonText(const std::vector<RangeComparisonRow>& rows, const RangeStats& a,
                                      const RangeStats& b, core::TimestampNs originNs) {
    std::string out = "A: " + rangeLine(a, originNs) + "\nB: " + rangeLine(b, originNs) + "\n";
    Table table{{"section", "name", "A", "B", "B - A"}};
    for (const RangeComparisonRow& row : rows) {
        table.push_back({row.section, row.name, formatRangeValue(row.unit, row.a),
                         formatRangeValue(row.unit, row.b), formatRangeValue(row.unit, row.delta(), true)});
    }
    appendTable(out, table, 2);
    return out;
}

}  // namespace chokepoint::analysis
