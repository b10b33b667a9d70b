#include "core/model/SampleSpans.h"

#include <algorithm>

namespace chokepoint::core {

namespace {

// Median gap between consecutive samples of one thread (0 when it has fewer than two).
DurationNs medianInterval(const StackSampleTable& t, const std::vector<std::uint32_t>& samples) {
    std::vector<DurationNs> gaps;
    gaps.reserve(samples.size());
    for (std::size_t i = 1; i < samples.size(); ++i) {
        const DurationNs gap = t.timeNs[samples[i]] - t.timeNs[samples[i - 1]];
        if (gap > 0) {
            gaps.push_back(gap);
        }
    }
    if (gaps.empty()) {
        return 0;
    }
    auto middle = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
    std::nth_element(gaps.begin(), middle, gaps.end());
    return *middle;
}

}  // namespace

SampleSpans stackSampleSpans(const TraceModel& model) {
    const StackSampleTable& t = model.stackSamples;
    SampleSpans out;
    out.span.assign(t.size(), TimeRange{});
    out.byThread.resize(model.threads.size());
    for (std::uint32_t i = 0; i < t.size(); ++i) {
        if (t.thread[i] < out.byThread.size() && t.stack[i] < model.stackCount()) {
            out.byThread[t.thread[i]].push_back(i);
        }
    }
    for (std::vector<std::uint32_t>& samples : out.byThread) {
        // Sorted by time already after finalize(); a stable sort keeps a non-finalized model right.
        std::stable_sort(samples.begin(), samples.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return t.timeNs[a] < t.timeNs[b]; });
        const DurationNs median = medianInterval(t, samples);
        const DurationNs cap = 2 * median;
        for (std::size_t k = 0; k < samples.size(); ++k) {
            const TimestampNs start = t.timeNs[samples[k]];
            DurationNs length = median;
            if (k + 1 < samples.size()) {
                length = std::min(t.timeNs[samples[k + 1]] - start, cap);
            }
            out.span[samples[k]] = {start, start + std::max<DurationNs>(0, length)};
        }
    }
    return out;
}

}  // namespace chokepoint::core
