#pragma once
// Counts training steps from kernel launches, for `--after-steps N` in a job without step markers:
// while the agent waits, CUPTI's launch callbacks hand it each launched kernel's name; the names
// become ids, and the repeating part of the id sequence (core/base/SequencePeriod, the same rule
// the analyzer uses for steps without markers) gives the steps. The launch side is a hash and an
// append under a mutex no other launch thread holds for long; finding the period runs on the
// agent's worker, at most every kMinRecountNs.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/base/Time.h"

namespace chokepoint::collectors {

class LaunchStepCounter {
public:
    // The most launches kept (16 MiB of ids); past that the counter stops and says so.
    static constexpr std::size_t kMaxLaunches = std::size_t{1} << 22;
    static constexpr core::DurationNs kMinRecountNs = 200 * core::kNsPerMs;
    static constexpr std::size_t kShortSequence = std::size_t{1} << 16;
    // Reserved at reset so that launch threads append without allocating.
    static constexpr std::size_t kPendingReserve = std::size_t{1} << 16;

    // Any thread (a launch callback). A null name (a graph launch) counts as one id of its own.
    void onLaunch(const char* kernelName) noexcept;

    // Worker: folds the launches seen since the last call in and returns the repetitions started so
    // far (0 until the sequence repeats): the anchor of the last search counted as it comes, and
    // the period searched again when launches arrived and kMinRecountNs passed (once the sequence
    // is long, only after it grew by an eighth).
    std::uint64_t repetitionsStarted(core::TimestampNs nowNs);

    std::size_t period() const { return m_period; }  // launches per step, 0 before found
    std::size_t launches() const { return m_sequence.size(); }
    bool full() const { return m_full; }  // kMaxLaunches reached
    void reset();                         // also before the first use: reserves the launch side's room

private:
    std::mutex m_pendingMutex;
    std::vector<std::uint64_t> m_pending;  // name hashes from the launch threads
    std::vector<std::uint64_t> m_taken;    // the worker's side of the swap
    std::unordered_map<std::uint64_t, std::uint32_t> m_ids;
    std::vector<std::uint32_t> m_sequence;
    std::size_t m_searchedAt = 0;  // sequence length at the last search
    core::TimestampNs m_lastSearchNs = 0;
    std::uint64_t m_repetitions = 0;
    std::size_t m_period = 0;
    std::uint32_t m_anchor = 0;
    bool m_full = false;
};

}  // namespace chokepoint::collectors
