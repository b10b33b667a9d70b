#pragma once
// A bounded pool of CUPTI activity buffers. CUPTI asks for a buffer whenever one fills (per thread
// with CUPTI 13's per-thread buffers); we hand out blocks of `blockBytes` (8-byte aligned, zeroed)
// until `maxBlocks` are out, then return nullptr, which makes CUPTI drop records and count them
// (safe since CUPTI 12.9). Blocks are allocated lazily and kept for reuse until trim().
// Thread-safe: acquire() runs on CUPTI/application threads, release() on the decoder thread.

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

    // A zeroed block, or nullptr when all blocks are out (counted in exhaustedCount()).
    std::uint8_t* acquire();
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
