#pragma once
// Hash key of a merged node: its parent node, name, (when grouped) input shapes, and a sampled
// frame's file.

#include <cstddef>
#include <cstdint>
#include <functional>

namespace chokepoint::calltree::detail {

struct NodeKey {
    std::uint32_t parent = 0;
    std::uint32_t name = 0;
    std::uint32_t shapes = 0;
    std::uint32_t file = 0;
    bool operator==(const NodeKey&) const = default;
};

struct NodeKeyHash {
    std::size_t operator()(const NodeKey& k) const noexcept {
        const std::uint64_t a = (std::uint64_t{k.parent} << 32) | k.name;
        const std::uint64_t b = (std::uint64_t{k.shapes} << 32) | k.file;
        return std::hash<std::uint64_t>{}(a * 0x9E3779B97F4A7C15ull ^ b);
    }
};

}  // namespace chokepoint::calltree::detail
