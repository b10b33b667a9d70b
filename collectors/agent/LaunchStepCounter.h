#pragma once
// Training steps from kernel launches, for a job without step markers. While a capture needs steps
// (`--after-steps`, `--at-step`, `--steps`), CUPTI's launch callbacks hand the agent each launched
// kernel's name. The names become ids, and the repeating part of the id sequence
// (core/base/SequencePeriod, the rule the analyzer uses for steps without markers) gives the
// period and its anchor, the kernel that starts each repetition. From then on each launch of the
// anchor is stamped with its time as it happens, so a window opens and ends on a step boundary as
// it does at a step marker.
//
// The launch side hashes the name and appends it under a mutex that the worker holds only to swap
// buffers; finding the period runs on the agent's worker, at most every kMinRecountNs.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/base/Time.h"

namespace chokepoint::collectors {

class LaunchStepCounter {
public:
    // The most launches kept for the period search (16 MiB of ids); past that the search stops.
    static constexpr std::size_t kMaxLaunches = std::size_t{1} << 22;
    static constexpr core::DurationNs kMinRecountNs = 200 * core::kNsPerMs;
    static constexpr std::size_t kShortSequence = std::size_t{1} << 16;
    // Reserved at reset so that launch threads append without allocating.
    static constexpr std::size_t kPendingReserve = std::size_t{1} << 16;
    static constexpr std::size_t kMaxAnchorTimes = 4096;  // as many as NVTX step times
    // Fewest launches a step is taken to have. Start-up has short loops too (initialising each
    // layer's weights launches the same two or three kernels again and again); a training step
    // launches more kernels than that (a forward, a backward and an optimizer step).
    static constexpr std::size_t kMinLaunchesPerStep = 8;

    // Any thread (a launch callback). A null name (a launch CUPTI names none) is one id of its own.
    void onLaunch(const char* kernelName) noexcept;

    // Worker: folds the launches seen since the last call in and returns the repetitions started so
    // far (0 until the sequence repeats): the anchor of the last search counted as it comes, and
    // the period searched again when launches arrived and kMinRecountNs passed (once the sequence
    // is long, only after it grew by an eighth). A search that finds another anchor restarts the
    // stamps, unless the anchor is frozen.
    std::uint64_t repetitionsStarted(core::TimestampNs nowNs);

    std::size_t period() const { return m_period; }  // launches per step, 0 before found
    std::size_t launches() const { return m_sequence.size(); }
    bool full() const { return m_full; }  // kMaxLaunches reached

    // Launches of the anchor stamped since it was found (or last changed), and the time of the n-th
    // (1-based; -1 when not yet seen or past kMaxAnchorTimes). Any thread.
    std::uint64_t anchorLaunchesSeen() const;
    core::TimestampNs anchorLaunchTimeNs(std::uint64_t n) const;
    // Changes each time a search moves the stamps to another anchor.
    std::uint64_t anchorGeneration() const;
    // A window relies on the stamps: later searches keep this anchor, and the period search ends
    // (launches are no longer kept, only the anchor's stamped).
    void freezeAnchor();

    void reset();  // also before the first use: reserves the launch side's room

private:
    std::vector<std::uint64_t> m_taken;  // the worker's side of the swap
    std::unordered_map<std::uint64_t, std::uint32_t> m_ids;
    std::vector<std::uint64_t> m_hashOfId;
    std::vector<std::uint32_t> m_sequence;
    std::size_t m_searchedAt = 0;  // sequence length at the last search
    core::TimestampNs m_lastSearchNs = 0;
    std::uint64_t m_repetitions = 0;
    std::size_t m_period = 0;
    std::uint32_t m_anchor = 0;
    bool m_full = false;

    mutable std::mutex m_pendingMutex;     // guards everything below
    std::vector<std::uint64_t> m_pending;  // name hashes from the launch threads
    bool m_keepLaunches = true;            // false once the anchor is frozen
    bool m_stamping = false;               // m_anchorHash is set
    bool m_frozen = false;
    std::uint64_t m_anchorHash = 0;
    std::uint64_t m_anchorLaunches = 0;
    std::uint64_t m_generation = 0;
    std::vector<core::TimestampNs> m_anchorTimes;
};

}  // namespace chokepoint::collectors
