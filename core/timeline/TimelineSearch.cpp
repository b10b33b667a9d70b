#include "core/timeline/TimelineSearch.h"
#include "core/base/Strings.h"

#include <algorithm>
#include <cctype>

namespace chokepoint::timeline {

namespace {

bool hitLess(const SearchHit& a, const SearchHit& b) {
    if (a.startNs != b.startNs) {
        return a.startNs < b.startNs;
    }
    if (a.ref.kind != b.ref.kind) {
        return a.ref.kind < b.ref.kind;
    }
    return a.ref.row < b.ref.row;
}

}  // namespace

bool containsIgnoreCase(std::string_view text, std::string_view needle) {
    if (needle.empty()) {
        return true;
    }
    auto it = std::search(text.begin(), text.end(), needle.begin(), needle.end(),
                          [](char a, char b) { return core::toLower(a) == core::toLower(b); });
    return it != text.end();
}

SearchResults::SearchResults(const core::TraceModel& model, std::string_view query) {
    if (query.empty()) {
        return;
    }
    // Which interned strings match: one pass over the pool.
    std::vector<bool> matching(model.strings.size(), false);
    for (std::size_t id = 1; id < model.strings.size(); ++id) {
        matching[id] =
            containsIgnoreCase(model.strings.view(core::StringId{static_cast<std::uint32_t>(id)}), query);
    }
    auto scan = [&](const auto& table, EventKind kind) {
        for (std::size_t i = 0; i < table.size(); ++i) {
            const std::uint32_t id = table.name[i].index;
            if (id < matching.size() && matching[id]) {
                m_hits.push_back({table.startNs[i], {kind, static_cast<std::uint32_t>(i)}});
            }
        }
    };
    scan(model.kernels, EventKind::Kernel);
    scan(model.ranges, EventKind::Range);
    scan(model.cpuOps, EventKind::CpuOp);
    scan(model.apiCalls, EventKind::ApiCall);
    for (std::size_t i = 0; i < model.memcpys.size(); ++i) {
        const EventRef ref{EventKind::Memcpy, static_cast<std::uint32_t>(i)};
        if (containsIgnoreCase(eventName(model, ref), query)) {
            m_hits.push_back({model.memcpys.startNs[i], ref});
        }
    }
    if (containsIgnoreCase("Memset", query)) {
        for (std::size_t i = 0; i < model.memsets.size(); ++i) {
            m_hits.push_back({model.memsets.startNs[i], {EventKind::Memset, static_cast<std::uint32_t>(i)}});
        }
    }
    std::sort(m_hits.begin(), m_hits.end(), hitLess);
}

std::size_t SearchResults::nextAfter(core::TimestampNs startNs, EventRef ref) const {
    if (m_hits.empty()) {
        return 0;
    }
    const SearchHit key{startNs, ref};
    auto it = std::upper_bound(m_hits.begin(), m_hits.end(), key, hitLess);
    return it == m_hits.end() ? 0 : static_cast<std::size_t>(it - m_hits.begin());
}

std::size_t SearchResults::previousBefore(core::TimestampNs startNs, EventRef ref) const {
    if (m_hits.empty()) {
        return 0;
    }
    const SearchHit key{startNs, ref};
    auto it = std::lower_bound(m_hits.begin(), m_hits.end(), key, hitLess);
    return it == m_hits.begin() ? m_hits.size() - 1 : static_cast<std::size_t>(it - m_hits.begin()) - 1;
}

std::size_t SearchResults::indexOf(core::TimestampNs startNs, EventRef ref) const {
    const SearchHit key{startNs, ref};
    auto it = std::lower_bound(m_hits.begin(), m_hits.end(), key, hitLess);
    if (it != m_hits.end() && it->ref == ref) {
        return static_cast<std::size_t>(it - m_hits.begin());
    }
    return m_hits.size();
}

}  // namespace chokepoint::timeline
