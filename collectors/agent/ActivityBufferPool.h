#pragma once
// A bounded pool of CUPTI activity buffers. CUPTI asks for a buffer whenever one fills (per thread
// with CUPTI 13's per-thread buffers, so on training threads); we hand out blocks of `blockBytes`
// (8-byte aligned, zeroed, so CUPTI can be told not to zero them again:
// CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER). acquire() never allocates or clears memory: it
// pops a ready block under a short lock, or returns nullptr when none is ready, which makes CUPTI
// drop records and count them (safe since CUPTI 12.9). Blocks are allocated and zeroed by
// topUp() (capture start and every worker tick, never on a training thread) until `maxBlocks`
// exist, and kept for reuse until trim().
// Thread-safe: acquire() runs on CUPTI/application threads, release()/topUp() on the worker.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace chokepoint::collectors {

class ActivityBufferPool {
public:
    ActivityBufferPool(std::size_t blockBytes, std::size_t maxBlocks);
    ~ActivityBufferPool();
    ActivityBufferPool(const ActivityBufferPool&) = delete;
    ActivityBufferPool& operator=(const ActivityBufferPool&) = delete;

    // A zeroed block, or nullptr when none is ready (counted in exhaustedCount()).
    std::uint8_t* acquire();
    // Allocates and zeroes blocks until `spare` are ready or maxBlocks exist. Returns the ready count.
    std::size_t topUp(std::size_t spare);
    // A new capture: the exhausted count starts again at 0.
    void resetCounters() { m_exhausted.store(0); }
    // Returns a block from acquire(); zeroes it for the next use. Unknown pointers are ignored.
    void release(std::uint8_t* block);
    // Frees idle blocks (between captures).
    void trim();

    std::size_t blockBytes() const { return m_blockBytes; }
    std::size_t maxBlocks() const { return m_maxBlocks; }
    std::size_t blocksOut() const;
    std::size_t blocksAllocated() const;
    std::uint64_t exhaustedCount() const { return m_exhausted.load(); }

private:
    const std::size_t m_blockBytes;
    const std::size_t m_maxBlocks;
    mutable std::mutex m_mutex;
    std::vector<std::uint8_t*> m_free;
    std::vector<std::uint8_t*> m_all;
    std::size_t m_out = 0;
    std::atomic<std::uint64_t> m_exhausted{0};
};

}  // namespace chokepoint::collectors
