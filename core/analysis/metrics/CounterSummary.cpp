#include "core/analysis/metrics/CounterSummary.h"
#include "core/base/Strings.h"

#include <algorithm>
#include <cctype>

namespace chokepoint::analysis {

using core::TimeRange;
using core::TimestampNs;

namespace {

// Time-weighted mean of a step-function track over `window`; samples = samples inside the window.
// A sample holds its value until the next sample; the last sample holds until the window's end.
std::pair<double, std::int64_t> windowMean(const core::CounterTrack& track, TimeRange window) {
    const auto& t = track.timesNs;
    const std::size_t n = std::min(t.size(), track.values.size());
    if (n == 0 || window.empty()) {
        return {0, 0};
    }
    auto first = std::lower_bound(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(n), window.startNs);
    auto last = std::lower_bound(first, t.begin() + static_cast<std::ptrdiff_t>(n), window.endNs);
    std::int64_t samples = last - first;
    // Start from the sample in force at the window start (the one before `first`), if any.
    std::size_t i = static_cast<std::size_t>(first - t.begin());
    if (i > 0) {
        --i;
    }
    double weighted = 0;
    double covered = 0;
    for (; i < n && t[i] < window.endNs; ++i) {
        TimestampNs from = std::max(t[i], window.startNs);
        TimestampNs to = i + 1 < n ? std::min(t[i + 1], window.endNs) : window.endNs;
        if (to > from) {
            weighted += track.values[i] * static_cast<double>(to - from);
            covered += static_cast<double>(to - from);
        }
    }
    if (covered <= 0) {
        return {samples > 0 ? track.values[static_cast<std::size_t>(first - t.begin())] : 0.0, samples};
    }
    return {weighted / covered, samples};
}

}  // namespace

CounterKind classifyCounterName(const std::string& name) {
    const std::string n = core::toLower(name);
    auto has = [&](const char* s) { return n.find(s) != std::string::npos; };
    if (has("dram") || has("hbm") || has("memory bandwidth") || has("mem bw") || has("memory throughput")) {
        return CounterKind::DramThroughput;
    }
    if (has("tensor") || has("hmma") || has("mma pipe")) {
        return CounterKind::TensorActivity;
    }
    if (has("pcie") && (has("throughput") || has("rx") || has("tx"))) {
        return CounterKind::PcieThroughput;
    }
    if (has("sm active") || has("sms active") || has("sm efficiency") || has("sm__") || has("sm occupancy") ||
        has("sm activity") || has("sm throughput") || has("gpu utilization")) {
        return CounterKind::SmActivity;
    }
    return CounterKind::Other;
}

std::vector<CounterAverage> summarizeCounters(const core::TraceModel& model, const StepsResult& steps) {
    std::vector<CounterAverage> out;
    for (std::size_t k = 0; k < model.counters.size(); ++k) {
        const core::CounterTrack& track = model.counters[k];
        if (track.timesNs.empty()) {
            continue;
        }
        CounterAverage base;
        base.track = k;
        base.name = track.name;
        base.unit = track.unit;
        base.kind = classifyCounterName(track.name);
        base.deviceIndex = track.deviceIndex;
        for (std::size_t s = 0; s < steps.steps.size(); ++s) {
            auto [mean, samples] = windowMean(track, steps.steps[s].range);
            if (samples == 0) {
                continue;
            }
            CounterAverage row = base;
            row.stepIndex = static_cast<std::int32_t>(s);
            row.mean = mean;
            row.samples = samples;
            out.push_back(std::move(row));
        }
        TimeRange whole{track.timesNs.front(), track.timesNs.back() + 1};
        auto [mean, samples] = windowMean(track, whole);
        base.stepIndex = -1;
        base.mean = mean;
        base.samples = samples;
        out.push_back(std::move(base));
    }
    return out;
}

MeasuredActivity measuredActivity(const std::vector<CounterAverage>& counters, std::int16_t deviceIndex,
                                  std::int32_t stepIndex) {
    MeasuredActivity m;
    std::optional<double> dramTotal, dramRead, dramWrite, pcieRx, pcieTx;
    const auto put = [](std::optional<double>& slot, double fraction) {
        slot = std::max(slot.value_or(0.0), fraction);
    };
    for (const CounterAverage& c : counters) {
        if (c.deviceIndex != deviceIndex || c.stepIndex != stepIndex || c.unit != "%" || c.samples == 0) {
            continue;
        }
        const std::string n = core::toLower(c.name);
        const auto has = [&](const char* s) { return n.find(s) != std::string::npos; };
        const double f = std::clamp(c.mean / 100.0, 0.0, 1.0);
        switch (c.kind) {
            case CounterKind::SmActivity:
                put(m.smActive, f);
                break;
            case CounterKind::TensorActivity:
                put(m.tensorActive, f);
                break;
            case CounterKind::DramThroughput:
                put(has("read") ? dramRead : has("write") ? dramWrite : dramTotal, f);
                break;
            case CounterKind::PcieThroughput:
                put(has("tx") || has("write") ? pcieTx : pcieRx, f);
                break;
            case CounterKind::Other:
                break;
        }
    }
    if (dramTotal) {
        m.dramThroughput = dramTotal;
    } else if (dramRead || dramWrite) {
        m.dramThroughput = std::min(1.0, dramRead.value_or(0.0) + dramWrite.value_or(0.0));
    }
    if (pcieRx || pcieTx) {
        m.pcieThroughput = std::max(pcieRx.value_or(0.0), pcieTx.value_or(0.0));
    }
    return m;
}

}  // namespace chokepoint::analysis
