#include "core/timeline/Lane.h"

#include <algorithm>
#include <numeric>

#include "core/model/Tables.h"

namespace chokepoint::timeline {

void Lane::add(core::TimestampNs startNs, core::TimestampNs endNs, EventRef ref) {
    m_startNs.push_back(startNs);
    m_endNs.push_back(std::max(startNs, endNs));  // an inverted event is drawn as an instant
    m_rows.push_back(ref.row);
    m_kinds.push_back(ref.kind);
}

void Lane::reserve(std::size_t n) {
    m_startNs.reserve(n);
    m_endNs.reserve(n);
    m_rows.reserve(n);
    m_kinds.reserve(n);
}

void Lane::finish() {
    const std::size_t n = m_startNs.size();
    if (!std::is_sorted(m_startNs.begin(), m_startNs.end())) {
        std::vector<std::uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(),
                         [this](std::uint32_t a, std::uint32_t b) { return m_startNs[a] < m_startNs[b]; });
        core::permuteColumn(m_startNs, order);
        core::permuteColumn(m_endNs, order);
        core::permuteColumn(m_rows, order);
        core::permuteColumn(m_kinds, order);
    }
    m_maxEndNs.clear();
    if (!std::is_sorted(m_endNs.begin(), m_endNs.end())) {
        m_maxEndNs.resize(n);
        core::TimestampNs running = m_endNs.empty() ? 0 : m_endNs[0];
        for (std::size_t i = 0; i < n; ++i) {
            running = std::max(running, m_endNs[i]);
            m_maxEndNs[i] = running;
        }
    }
    m_coarseStartNs.clear();
    for (std::size_t i = 0; i < n; i += kCoarseStride) {
        m_coarseStartNs.push_back(m_startNs[i]);
    }
    m_startNs.shrink_to_fit();
    m_endNs.shrink_to_fit();
    m_rows.shrink_to_fit();
    m_kinds.shrink_to_fit();
}

std::size_t Lane::firstEndingAfter(core::TimestampNs timeNs) const {
    const std::vector<core::TimestampNs>& ends = m_maxEndNs.empty() ? m_endNs : m_maxEndNs;
    // Ends (or their prefix maximum) are non-decreasing, so this is a plain binary search.
    return static_cast<std::size_t>(std::upper_bound(ends.begin(), ends.end(), timeNs) - ends.begin());
}

std::size_t Lane::firstStartingAtOrAfter(core::TimestampNs timeNs, std::size_t from) const {
    const std::size_t n = m_startNs.size();
    from = std::min(from, n);
    if (from == n || m_startNs[from] >= timeNs) {
        return from;
    }
    // Gallop over the coarse index (every kCoarseStride-th start) from the block after `from`:
    // callers mostly look a pixel ahead, so the probes stay in a few nearby cache lines of a small
    // array, then one short binary search inside the block finds the event.
    const std::size_t blocks = m_coarseStartNs.size();
    const std::size_t firstBlock = from / kCoarseStride + 1;
    std::size_t low = firstBlock;
    std::size_t high = firstBlock;
    std::size_t step = 1;
    while (high < blocks && m_coarseStartNs[high] < timeNs) {
        low = high + 1;
        high = firstBlock + step;
        step *= 2;
    }
    high = std::min(high, blocks);
    const auto block = static_cast<std::size_t>(
        std::lower_bound(m_coarseStartNs.begin() + static_cast<std::ptrdiff_t>(low),
                         m_coarseStartNs.begin() + static_cast<std::ptrdiff_t>(high), timeNs) -
        m_coarseStartNs.begin());
    // The answer lies after the previous block's first start and at or before this block's first.
    const std::size_t lo = std::max(from, (block - 1) * kCoarseStride);
    const std::size_t hi = block < blocks ? block * kCoarseStride : n;
    return static_cast<std::size_t>(std::lower_bound(m_startNs.begin() + static_cast<std::ptrdiff_t>(lo),
                                                     m_startNs.begin() + static_cast<std::ptrdiff_t>(hi),
                                                     timeNs) -
                                    m_startNs.begin());
}

std::size_t Lane::find(EventRef ref) const {
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i] == ref.row && m_kinds[i] == ref.kind) {
            return i;
        }
    }
    return m_rows.size();
}

core::TimeRange Lane::span() const {
    if (m_startNs.empty()) {
        return {};
    }
    return {m_startNs.front(), maxEndThrough(m_startNs.size() - 1)};
}

std::size_t Lane::memoryBytes() const {
    return (m_startNs.capacity() + m_endNs.capacity() + m_maxEndNs.capacity() + m_coarseStartNs.capacity()) *
               sizeof(core::TimestampNs) +
           m_rows.capacity() * sizeof(std::uint32_t) + m_kinds.capacity() * sizeof(EventKind);
}

}  // namespace chokepoint::timeline
