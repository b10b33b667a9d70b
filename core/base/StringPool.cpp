#include "core/base/StringPool.h"

#include <cstring>

namespace chokepoint::core {

StringPool::StringPool() {
    intern(std::string_view{});
}

std::string_view StringPool::store(std::string_view text) {
    if (text.empty()) {
        return {};
    }
    if (text.size() > kBlockBytes / 4) {
        // Very long strings get a block of their own so they do not waste the shared block's tail.
        auto block = std::make_unique<char[]>(text.size());
        std::memcpy(block.get(), text.data(), text.size());
        std::string_view stored{block.get(), text.size()};
        m_blockBytesTotal += text.size();
        m_blocks.insert(m_blocks.end() - (m_blocks.empty() ? 0 : 1), std::move(block));
        return stored;
    }
    if (m_blockUsed + text.size() > kBlockBytes) {
        m_blocks.push_back(std::make_unique<char[]>(kBlockBytes));
        m_blockUsed = 0;
        m_blockBytesTotal += kBlockBytes;
    }
    char* dest = m_blocks.back().get() + m_blockUsed;
    std::memcpy(dest, text.data(), text.size());
    m_blockUsed += text.size();
    return {dest, text.size()};
}

StringId StringPool::intern(std::string_view text) {
    if (auto it = m_index.find(text); it != m_index.end()) {
        return StringId{it->second};
    }
    std::string_view stored = store(text);
    auto id = static_cast<std::uint32_t>(m_views.size());
    m_views.push_back(stored);
    m_index.emplace(stored, id);
    return StringId{id};
}

StringId StringPool::find(std::string_view text) const {
    auto it = m_index.find(text);
    return it == m_index.end() ? StringId{} : StringId{it->second};
}

std::string_view StringPool::view(StringId id) const {
    if (!id.valid() || id.index >= m_views.size()) {
        return {};
    }
    return m_views[id.index];
}

std::size_t StringPool::memoryBytes() const {
    return m_blockBytesTotal + m_views.capacity() * sizeof(std::string_view) +
           m_index.size() * (sizeof(std::string_view) + sizeof(std::uint32_t) + 2 * sizeof(void*));
}

}  // namespace chokepoint::core
