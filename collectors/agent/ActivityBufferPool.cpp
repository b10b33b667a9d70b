#include "collectors/agent/ActivityBufferPool.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace chokepoint::collectors {

ActivityBufferPool::ActivityBufferPool(std::size_t blockBytes, std::size_t maxBlocks)
    : m_blockBytes((std::max<std::size_t>(blockBytes, 4096) + 7) & ~std::size_t{7}), m_maxBlocks(maxBlocks) {}

ActivityBufferPool::~ActivityBufferPool() {
    for (std::uint8_t* b : m_all) {
        std::free(b);
    }
}

std::uint8_t* ActivityBufferPool::acquire() {
    std::lock_guard lock(m_mutex);
    if (!m_free.empty()) {
        std::uint8_t* b = m_free.back();
        m_free.pop_back();
        ++m_out;
        return b;
    }
    m_exhausted.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
}

std::size_t ActivityBufferPool::topUp(std::size_t spare) {
    for (;;) {
        {
            std::lock_guard lock(m_mutex);
            if (m_free.size() >= spare || m_all.size() >= m_maxBlocks) {
                return m_free.size();
            }
        }
        // Allocated and touched outside the lock: acquire() never waits for this.
        void* p = std::aligned_alloc(8, m_blockBytes);
        if (p == nullptr) {
            std::lock_guard lock(m_mutex);
            return m_free.size();
        }
        std::memset(p, 0, m_blockBytes);
        auto* b = static_cast<std::uint8_t*>(p);
        std::lock_guard lock(m_mutex);
        m_all.reserve(m_maxBlocks);
        m_free.reserve(m_maxBlocks);
        m_all.push_back(b);
        m_free.push_back(b);
    }
}

void ActivityBufferPool::release(std::uint8_t* block) {
    if (block == nullptr) {
        return;
    }
    {
        std::lock_guard lock(m_mutex);
        if (std::find(m_all.begin(), m_all.end(), block) == m_all.end()) {
            return;
        }
    }
    std::memset(block, 0, m_blockBytes);  // outside the lock: 4-8 MiB take ~1 ms
    std::lock_guard lock(m_mutex);
    m_free.push_back(block);
    --m_out;
}

void ActivityBufferPool::trim() {
    std::lock_guard lock(m_mutex);
    for (std::uint8_t* b : m_free) {
        std::free(b);
        m_all.erase(std::find(m_all.begin(), m_all.end(), b));
    }
    m_free.clear();
}

std::size_t ActivityBufferPool::blocksOut() const {
    std::lock_guard lock(m_mutex);
    return m_out;
}

std::size_t ActivityBufferPool::blocksAllocated() const {
    std::lock_guard lock(m_mutex);
    return m_all.size();
}

}  // namespace chokepoint::collectors
