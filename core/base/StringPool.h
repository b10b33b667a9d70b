#pragma once
// One pool of interned strings per trace. Kernel and op names repeat millions of times in a trace;
// every table stores a 4-byte StringId instead. Strings live in large append-only blocks, so a
// string_view returned by view() stays valid for the pool's lifetime.

#include <cstddef>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/base/Ids.h"

namespace chokepoint::core {

class StringPool {
public:
    StringPool();
    StringPool(const StringPool&) = delete;
    StringPool& operator=(const StringPool&) = delete;
    StringPool(StringPool&&) noexcept = default;
    StringPool& operator=(StringPool&&) noexcept = default;

    // Returns the id of `text`, adding it when new. Amortised O(length).
    StringId intern(std::string_view text);
    // Id of `text` if it is already in the pool, else an invalid id. Never adds.
    StringId find(std::string_view text) const;
    // The text of `id`; the empty string for an invalid or out-of-range id.
    std::string_view view(StringId id) const;

    // Id 0 is always the empty string.
    static constexpr StringId emptyId() { return StringId{0}; }
    std::size_t size() const { return m_views.size(); }
    // Bytes held by the pool (blocks plus index), for memory reports.
    std::size_t memoryBytes() const;

private:
    std::string_view store(std::string_view text);

    static constexpr std::size_t kBlockBytes = 1 << 20;
    std::vector<std::unique_ptr<char[]>> m_blocks;
    std::size_t m_blockUsed = kBlockBytes;
    std::size_t m_blockBytesTotal = 0;
    std::vector<std::string_view> m_views;
    std::unordered_map<std::string_view, std::uint32_t> m_index;
};

}  // namespace chokepoint::core
