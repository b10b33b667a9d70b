#include "core/timeline/ColumnCoverage.h"

#include <algorithm>
#include <cmath>

namespace chokepoint::timeline {

ColumnCoverage::ColumnCoverage(core::TimeRange view, int columns, int keyCount)
    : m_view(view), m_columns(std::max(0, columns)), m_keyCount(std::max(0, keyCount)) {
    if (m_columns > 0 && !view.empty()) {
        m_nsPerColumn = static_cast<double>(view.durationNs()) / m_columns;
    }
    m_coveredNs.assign(static_cast<std::size_t>(m_columns) * static_cast<std::size_t>(m_keyCount), 0.0);
}

void ColumnCoverage::add(core::TimeRange interval, int key) {
    if (key < 0 || key >= m_keyCount || m_columns == 0 || m_view.empty()) {
        return;
    }
    const core::TimeRange r = interval.intersect(m_view);
    if (r.empty()) {
        return;
    }
    // Offsets from the view's start, in columns.
    const double from = static_cast<double>(r.startNs - m_view.startNs) / m_nsPerColumn;
    const double to = static_cast<double>(r.endNs - m_view.startNs) / m_nsPerColumn;
    const int first = std::clamp(static_cast<int>(std::floor(from)), 0, m_columns - 1);
    const int last = std::clamp(static_cast<int>(std::ceil(to)) - 1, first, m_columns - 1);
    for (int c = first; c <= last; ++c) {
        const double overlap = std::min(to, c + 1.0) - std::max(from, static_cast<double>(c));
        if (overlap > 0) {
            m_coveredNs[static_cast<std::size_t>(c) * static_cast<std::size_t>(m_keyCount) +
                        static_cast<std::size_t>(key)] += overlap * m_nsPerColumn;
        }
    }
}

std::vector<ColumnCover> ColumnCoverage::columns() const {
    std::vector<ColumnCover> out(static_cast<std::size_t>(m_columns));
    for (int c = 0; c < m_columns; ++c) {
        double total = 0;
        double best = 0;
        for (int k = 0; k < m_keyCount; ++k) {
            const double ns = m_coveredNs[static_cast<std::size_t>(c) * static_cast<std::size_t>(m_keyCount) +
                                          static_cast<std::size_t>(k)];
            total += ns;
            if (ns > best) {
                best = ns;
                out[static_cast<std::size_t>(c)].key = k;
            }
        }
        out[static_cast<std::size_t>(c)].share = static_cast<float>(std::min(1.0, total / m_nsPerColumn));
    }
    return out;
}

}  // namespace chokepoint::timeline
