#include "collectors/agent/ClockSync.h"

#include <algorithm>
#include <ctime>

namespace chokepoint::collectors {

namespace {
__extension__ typedef __int128 Int128;  // products of two ns spans overflow 64 bits

std::int64_t readClock(clockid_t id) {
    timespec ts{};
    ::clock_gettime(id, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * core::kNsPerSecond + ts.tv_nsec;
}
}  // namespace

std::int64_t monotonicNowNs() {
    return readClock(CLOCK_MONOTONIC);
}

std::int64_t realtimeNowNs() {
    return readClock(CLOCK_REALTIME);
}

ClockAnchor takeAnchor(const std::function<std::uint64_t()>& cuptiNow) {
    ClockAnchor a;
    std::int64_t before = monotonicNowNs();
    a.cuptiNs = static_cast<std::int64_t>(cuptiNow());
    std::int64_t after = monotonicNowNs();
    a.realNs = realtimeNowNs();
    a.monoNs = before + (after - before) / 2;
    return a;
}

void ClockMap::addAnchor(const ClockAnchor& anchor) {
    auto it = std::lower_bound(m_anchors.begin(), m_anchors.end(), anchor.cuptiNs,
                               [](const ClockAnchor& a, std::int64_t t) { return a.cuptiNs < t; });
    if (it != m_anchors.end() && it->cuptiNs == anchor.cuptiNs) {
        return;
    }
    m_anchors.insert(it, anchor);
}

core::TimestampNs ClockMap::toMonotonic(std::uint64_t cuptiNs) const {
    auto t = static_cast<std::int64_t>(cuptiNs);
    if (m_anchors.empty()) {
        return t;
    }
    if (t <= m_anchors.front().cuptiNs) {
        return t + (m_anchors.front().monoNs - m_anchors.front().cuptiNs);
    }
    if (t >= m_anchors.back().cuptiNs) {
        return t + (m_anchors.back().monoNs - m_anchors.back().cuptiNs);
    }
    auto hi = std::upper_bound(m_anchors.begin(), m_anchors.end(), t,
                               [](std::int64_t v, const ClockAnchor& a) { return v < a.cuptiNs; });
    const ClockAnchor& b = *hi;
    const ClockAnchor& a = *(hi - 1);
    Int128 num = static_cast<Int128>(t - a.cuptiNs) * (b.monoNs - a.monoNs);
    return a.monoNs + static_cast<std::int64_t>(num / (b.cuptiNs - a.cuptiNs));
}

std::int64_t ClockMap::realtimeOfMonotonicZero() const {
    if (m_anchors.empty()) {
        return 0;
    }
    const ClockAnchor& a = m_anchors.back();
    return a.realNs - a.monoNs;
}

}  // namespace chokepoint::collectors
