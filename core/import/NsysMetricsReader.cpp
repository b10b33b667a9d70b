// Nsight Systems GPU metrics (counters): GPU_METRICS samples named by TARGET_INFO_GPU_METRICS
// (NsysImporter.h).
#include "core/import/NsysImporter.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string_view>
#include <utility>

namespace chokepoint::core::nsys {

namespace {

// "DRAM Read Bandwidth [Throughput %]" -> {"DRAM Read Bandwidth", "%"}; "SM Frequency [MHz]" ->
// {"SM Frequency", "MHz"}; a name without a bracket keeps an empty unit.
std::pair<std::string, std::string> splitMetricName(std::string_view full) {
    const std::size_t open = full.rfind(" [");
    if (open == std::string_view::npos || full.back() != ']') {
        return {std::string(full), std::string()};
    }
    std::string_view unit = full.substr(open + 2, full.size() - open - 3);
    return {std::string(full.substr(0, open)),
            unit.find('%') != std::string_view::npos ? std::string("%") : std::string(unit)};
}

}  // namespace

std::int16_t Importer::deviceOfGpuId(std::int64_t gpuId) const {
    if (auto it = m_ordinalOfGpuId.find(gpuId); it != m_ordinalOfGpuId.end()) {
        return static_cast<std::int16_t>(it->second);
    }
    if (m_model.devices.size() == 1) {
        return static_cast<std::int16_t>(m_model.devices.front().deviceIndex);
    }
    return static_cast<std::int16_t>(std::clamp<std::int64_t>(gpuId, 0, 0x7FFF));
}

// GPU_METRICS (nsys profile --gpu-metrics-devices): periodic samples (timestamp, typeId, metricId,
// value), named by TARGET_INFO_GPU_METRICS (typeId, metricId, metricName). One counter track per
// (GPU, metric). The low byte of typeId is the GPU's id in TARGET_INFO_GPU, mapped to its CUDA
// ordinal like the kernels' devices; with one GPU in the report the samples belong to it.
Status Importer::readGpuMetrics() {
    if (!m_db.hasTable("GPU_METRICS")) {
        return Ok{};
    }
    std::map<std::int64_t, std::string> metricNames;  // metricId -> name
    Result<std::optional<Query>> names =
        select("TARGET_INFO_GPU_METRICS", {{{"metricId"}, true}, {{"metricName"}, true}});
    if (!names.ok()) {
        return names.error();
    }
    if (names->has_value()) {
        Status s = scan(**names, [&](sqlite3_stmt* st, std::int64_t) {
            IntCell id = readInt(st, 0);
            CellState state = CellState::Null;
            std::string_view name = readText(st, 1, state);
            if (id.ok() && state == CellState::Ok && !name.empty()) {
                metricNames.emplace(id.value, std::string(name));
            }
        });
        if (!s.ok()) {
            return s;
        }
    }
    const std::string table = "GPU_METRICS";
    Result<std::optional<Query>> q =
        select(table, {{{"timestamp"}, true}, {{"typeId"}, true}, {{"metricId"}, true}, {{"value"}, true}});
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    std::map<std::pair<std::int16_t, std::int64_t>, std::size_t> trackOf;  // (device, metricId) -> track
    const std::size_t firstTrack = m_model.counters.size();
    std::int64_t samples = 0;
    Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        IntCell ts = readInt(st, 0);
        IntCell type = readInt(st, 1);
        IntCell metric = readInt(st, 2);
        if (!ts.ok() || !type.ok() || !metric.ok()) {
            badRow(table, row,
                   !ts.ok()     ? "timestamp"
                   : !type.ok() ? "typeId"
                                : "metricId",
                   !ts.ok()     ? ts.state
                   : !type.ok() ? type.state
                                : metric.state);
            return;
        }
        const int valueType = sqlite3_column_type(st, 3);
        const double value = sqlite3_column_double(st, 3);
        if ((valueType != SQLITE_INTEGER && valueType != SQLITE_FLOAT) || !std::isfinite(value)) {
            m_model.stats.add("import.nsys_bad_row", Severity::DataLoss, 1,
                              m_db.displayName() + ": table " + table + ": row " + std::to_string(row) +
                                  ": column value is not a number; the row was dropped");
            return;
        }
        const std::int16_t device = deviceOfGpuId(type.value & 0xFF);
        auto [it, added] = trackOf.try_emplace({device, metric.value}, m_model.counters.size());
        if (added) {
            CounterTrack track;
            const auto named = metricNames.find(metric.value);
            const std::string full =
                named != metricNames.end() ? named->second : "GPU metric " + std::to_string(metric.value);
            std::tie(track.name, track.unit) = splitMetricName(full);
            track.deviceIndex = device;
            m_model.counters.push_back(std::move(track));
        }
        CounterTrack& track = m_model.counters[it->second];
        track.timesNs.push_back(ts.value);
        track.values.push_back(value);
        ++samples;
    });
    if (!s.ok()) {
        return s;
    }
    // Exports write samples in time order; sort a track that is not.
    for (std::size_t t = firstTrack; t < m_model.counters.size(); ++t) {
        CounterTrack& track = m_model.counters[t];
        if (std::is_sorted(track.timesNs.begin(), track.timesNs.end())) {
            continue;
        }
        std::vector<std::size_t> order(track.timesNs.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return track.timesNs[a] < track.timesNs[b]; });
        CounterTrack sorted = track;
        for (std::size_t i = 0; i < order.size(); ++i) {
            sorted.timesNs[i] = track.timesNs[order[i]];
            sorted.values[i] = track.values[order[i]];
        }
        track = std::move(sorted);
    }
    if (samples > 0) {
        m_model.stats.add("import.nsys_gpu_metrics", Severity::Info, samples,
                          "GPU metric samples imported from GPU_METRICS into " +
                              std::to_string(m_model.counters.size() - firstTrack) + " counter tracks");
    }
    return Ok{};
}

}  // namespace chokepoint::core::nsys
