#pragma once
// Typed row ids: a KernelId cannot be passed where a MemcpyId is expected. An id is a row index
// into its table; kInvalid marks "no row" (for example a kernel whose launch call was not recorded).

#include <cstdint>
#include <functional>
#include <limits>

namespace chokepoint::core {

template <class Tag>
struct RowId {
    static constexpr std::uint32_t kInvalid = std::numeric_limits<std::uint32_t>::max();
    std::uint32_t index = kInvalid;

    constexpr RowId() = default;
    constexpr explicit RowId(std::uint32_t i) : index(i) {}
    constexpr bool valid() const { return index != kInvalid; }
    constexpr explicit operator bool() const { return valid(); }
    constexpr auto operator<=>(const RowId&) const = default;
};

struct KernelTag;
struct MemcpyTag;
struct MemsetTag;
struct ApiCallTag;
struct SyncTag;
struct RangeTag;
struct CpuOpTag;
struct StringTag;

using KernelId = RowId<KernelTag>;
using MemcpyId = RowId<MemcpyTag>;
using MemsetId = RowId<MemsetTag>;
using ApiCallId = RowId<ApiCallTag>;
using SyncId = RowId<SyncTag>;
using RangeId = RowId<RangeTag>;
using CpuOpId = RowId<CpuOpTag>;
using StringId = RowId<StringTag>;

}  // namespace chokepoint::core

template <class Tag>
struct std::hash<chokepoint::core::RowId<Tag>> {
    std::size_t operator()(const chokepoint::core::RowId<Tag>& id) const noexcept {
        return std::hash<std::uint32_t>{}(id.index);
    }
};
