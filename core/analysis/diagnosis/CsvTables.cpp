#include "core/analysis/diagnosis/CsvTables.h"

#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace chokepoint::analysis {

namespace {

std::string number(double v) {
    if (!std::isfinite(v)) {
        return {};
    }
    if (v == std::floor(v) && std::abs(v) < 9e15) {
        return std::to_string(static_cast<long long>(v));
    }
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.9g", v);
    return buffer;
}

std::string row(std::initializer_list<std::string> fields) {
    std::string out;
    bool first = true;
    for (const std::string& f : fields) {
        if (!first) {
            out += ',';
        }
        out += f;
        first = false;
    }
    return out + "\r\n";
}

}  // namespace

std::string csvField(std::string_view text) {
    const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                       (!text.empty() && (text.front() == ' ' || text.back() == ' '));
    if (!quote) {
        return std::string(text);
    }
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') {
            out += '"';
        }
        out += c;
    }
    return out + "\"";
}

std::string writeKernelsCsv(const AnalysisReport& report, const core::TraceModel& model) {
    const TraceMetrics& m = report.metrics;
    // FLOPs and bytes per kernel name from the shape-based costs (the roofline's inputs).
    struct Cost {
        double flops = 0, bytes = 0, timeNs = 0;
    };
    std::unordered_map<std::uint32_t, Cost> costs;
    const std::size_t n = std::min(model.kernels.size(), m.opCosts.kernelFlops.size());
    for (std::size_t k = 0; k < n; ++k) {
        if (m.opCosts.kernelFlops[k] <= 0) {  // as the roofline counts them
            continue;
        }
        Cost& c = costs[model.kernels.name[k].index];
        c.flops += m.opCosts.kernelFlops[k];
        c.bytes += m.opCosts.kernelBytes[k];
        c.timeNs += static_cast<double>(std::max<core::DurationNs>(0, model.kernels.durationNs(k)));
    }
    std::string out = row({"name", "class", "tensorCore", "calls", "totalNs", "meanNs", "minNs", "maxNs",
                           "shareOfKernelTimeFraction", "flops", "bytes", "costedTimeNs", "flopsPerSecond"});
    for (const KernelStatsRow& k : m.kernels.kernels) {
        const auto it = costs.find(k.name.index);
        const Cost c = it != costs.end() ? it->second : Cost{};
        out += row({csvField(model.text(k.name)), std::string(toString(k.kernelClass)),
                    k.tensorCore ? "1" : "0", number(static_cast<double>(k.count)),
                    number(static_cast<double>(k.totalNs)), number(static_cast<double>(k.meanNs)),
                    number(static_cast<double>(k.minNs)), number(static_cast<double>(k.maxNs)),
                    number(k.shareOfKernelTime), number(c.flops), number(c.bytes), number(c.timeNs),
                    c.flops > 0 && c.timeNs > 0 ? number(c.flops / (c.timeNs * 1e-9)) : std::string()});
    }
    return out;
}

std::string writeOpsCsv(const AnalysisReport& report, const core::TraceModel& model) {
    std::string out = row({"name", "class", "calls", "kernels", "gpuTimeNs", "meanGpuTimeNs", "maxGpuTimeNs",
                           "shareOfKernelTimeFraction"});
    for (const OpStatsRow& o : report.metrics.kernels.ops) {
        out += row({csvField(model.text(o.name)), std::string(toString(o.kernelClass)),
                    number(static_cast<double>(o.count)), number(static_cast<double>(o.kernelCount)),
                    number(static_cast<double>(o.gpuTimeNs)), number(static_cast<double>(o.meanGpuTimeNs)),
                    number(static_cast<double>(o.maxGpuTimeNs)), number(o.shareOfKernelTime)});
    }
    return out;
}

}  // namespace chokepoint::analysis
