#include "collectors/agent/LaunchStepCounter.h"

#include <functional>
#include <string_view>

#include "collectors/agent/ClockSync.h"
#include "core/base/SequencePeriod.h"

namespace chokepoint::collectors {

namespace {

// Kernel names run to hundreds of bytes (mangled templates); libstdc++'s string hash takes them
// eight bytes at a time, after a vectorised strlen.
std::uint64_t hashName(const char* name) noexcept {
    if (name == nullptr) {
        return 0;
    }
    return std::hash<std::string_view>{}(std::string_view(name));
}

}  // namespace

void LaunchStepCounter::onLaunch(const char* kernelName) noexcept {
    const std::uint64_t h = hashName(kernelName);
    std::lock_guard lock(m_pendingMutex);
    if (m_keepLaunches && m_pending.size() < kMaxLaunches) {
        try {
            m_pending.push_back(h);
        } catch (...) {  // out of memory: the launch is not counted, the job goes on
        }
    }
    if (m_stamping && h == m_anchorHash) {
        ++m_anchorLaunches;
        if (m_anchorTimes.size() < kMaxAnchorTimes) {
            m_anchorTimes.push_back(monotonicNowNs());  // reserved at reset: no allocation
        }
    }
}

std::uint64_t LaunchStepCounter::repetitionsStarted(core::TimestampNs nowNs) {
    {
        std::lock_guard lock(m_pendingMutex);
        m_taken.swap(m_pending);
    }
    const std::size_t before = m_sequence.size();
    for (std::uint64_t h : m_taken) {
        if (m_sequence.size() >= kMaxLaunches) {
            m_full = true;
            break;
        }
        auto [it, inserted] = m_ids.try_emplace(h, static_cast<std::uint32_t>(m_ids.size()));
        if (inserted) {
            m_hashOfId.push_back(h);
        }
        m_sequence.push_back(it->second);
    }
    m_taken.clear();
    // Between searches the anchor found last is counted as it comes.
    if (m_period != 0) {
        for (std::size_t i = before; i < m_sequence.size(); ++i) {
            m_repetitions += m_sequence[i] == m_anchor ? 1 : 0;
        }
    }
    // A search costs O(launches): again after kMinRecountNs while the sequence is short, else once
    // it has grown by an eighth (a period found early, in model set-up, is checked again there).
    const std::size_t grown = m_sequence.size() - m_searchedAt;
    const bool searchDue = grown > 0 && nowNs - m_lastSearchNs >= kMinRecountNs &&
                           (m_searchedAt < kShortSequence || grown * 8 >= m_searchedAt);
    if (searchDue) {
        core::SequencePeriodOptions options;
        options.minPeriod = kMinLaunchesPerStep;
        const core::SequencePeriod found = core::findSequencePeriod(m_sequence, options);
        m_period = found.period;
        m_anchor = found.anchor;
        m_repetitions = found.repetitionStarts.size();
        m_searchedAt = m_sequence.size();
        m_lastSearchNs = nowNs;
        if (m_period != 0) {
            const std::uint64_t anchorHash = m_hashOfId[m_anchor];
            std::lock_guard lock(m_pendingMutex);
            if (!m_frozen && (!m_stamping || anchorHash != m_anchorHash)) {
                m_anchorHash = anchorHash;
                m_stamping = true;
                m_anchorLaunches = 0;
                m_anchorTimes.clear();
                ++m_generation;
            }
        }
    }
    return m_repetitions;
}

std::uint64_t LaunchStepCounter::anchorLaunchesSeen() const {
    std::lock_guard lock(m_pendingMutex);
    return m_anchorLaunches;
}

core::TimestampNs LaunchStepCounter::anchorLaunchTimeNs(std::uint64_t n) const {
    std::lock_guard lock(m_pendingMutex);
    if (n == 0 || n > m_anchorTimes.size()) {
        return -1;
    }
    return m_anchorTimes[n - 1];
}

std::uint64_t LaunchStepCounter::anchorGeneration() const {
    std::lock_guard lock(m_pendingMutex);
    return m_generation;
}

void LaunchStepCounter::freezeAnchor() {
    std::lock_guard lock(m_pendingMutex);
    m_frozen = true;
    m_keepLaunches = false;
    m_pending.clear();
}

void LaunchStepCounter::reset() {
    {
        std::lock_guard lock(m_pendingMutex);
        m_pending.clear();
        m_pending.reserve(kPendingReserve);
        m_keepLaunches = true;
        m_stamping = false;
        m_frozen = false;
        m_anchorHash = 0;
        m_anchorLaunches = 0;
        m_anchorTimes.clear();
        m_anchorTimes.reserve(kMaxAnchorTimes);
        ++m_generation;
    }
    m_taken.clear();
    m_taken.reserve(kPendingReserve);
    m_ids.clear();
    m_hashOfId.clear();
    m_sequence.clear();
    m_searchedAt = 0;
    m_lastSearchNs = 0;
    m_repetitions = 0;
    m_period = 0;
    m_anchor = 0;
    m_full = false;
}

}  // namespace chokepoint::collectors
