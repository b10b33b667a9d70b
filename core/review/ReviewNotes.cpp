#include "core/review/ReviewNotes.h"

#include <algorithm>

#include "core/model/TraceModel.h"

namespace chokepoint::core {

std::string_view toString(BookmarkKind kind) {
    switch (kind) {
        case BookmarkKind::TimeRange:
            return "range";
        case BookmarkKind::Kernel:
            return "kernel";
    }
    return "range";
}

std::optional<BookmarkKind> bookmarkKindFromString(std::string_view name) {
    if (name == "range") {
        return BookmarkKind::TimeRange;
    }
    if (name == "kernel") {
        return BookmarkKind::Kernel;
    }
    return std::nullopt;
}

std::uint64_t ReviewNotes::add(Bookmark bookmark) {
    bookmark.id = m_nextId++;
    const std::uint64_t id = bookmark.id;
    m_bookmarks.push_back(std::move(bookmark));
    sort();
    return id;
}

bool ReviewNotes::insertWithId(Bookmark bookmark) {
    if (bookmark.id == 0 || find(bookmark.id) != nullptr) {
        return false;
    }
    m_nextId = std::max(m_nextId, bookmark.id + 1);
    m_bookmarks.push_back(std::move(bookmark));
    sort();
    return true;
}

bool ReviewNotes::update(const Bookmark& bookmark) {
    for (Bookmark& existing : m_bookmarks) {
        if (existing.id == bookmark.id) {
            existing = bookmark;
            sort();
            return true;
        }
    }
    return false;
}

bool ReviewNotes::remove(std::uint64_t id) {
    const auto it =
        std::find_if(m_bookmarks.begin(), m_bookmarks.end(), [id](const Bookmark& b) { return b.id == id; });
    if (it == m_bookmarks.end()) {
        return false;
    }
    m_bookmarks.erase(it);
    return true;
}

const Bookmark* ReviewNotes::find(std::uint64_t id) const {
    for (const Bookmark& b : m_bookmarks) {
        if (b.id == id) {
            return &b;
        }
    }
    return nullptr;
}

void ReviewNotes::clear() {
    m_bookmarks.clear();
    m_nextId = 1;
}

void ReviewNotes::sort() {
    std::stable_sort(m_bookmarks.begin(), m_bookmarks.end(), [](const Bookmark& a, const Bookmark& b) {
        if (a.range.startNs != b.range.startNs) {
            return a.range.startNs < b.range.startNs;
        }
        return a.id < b.id;
    });
}

Bookmark makeKernelBookmark(const TraceModel& model, KernelId kernel, std::string title, std::string note) {
    Bookmark b;
    b.kind = BookmarkKind::Kernel;
    if (kernel.valid() && kernel.index < model.kernels.size()) {
        const KernelRow row = model.kernels.row(kernel);
        b.range = {row.startNs, row.endNs};
        b.deviceIndex = row.deviceIndex;
        b.streamId = row.streamId;
        b.kernelName = std::string(model.text(row.name));
    }
    b.title = std::move(title);
    b.note = std::move(note);
    return b;
}

KernelId resolveKernel(const TraceModel& model, const Bookmark& bookmark) {
    if (bookmark.kind != BookmarkKind::Kernel) {
        return KernelId{};
    }
    const auto& starts = model.kernels.startNs;
    auto it = std::lower_bound(starts.begin(), starts.end(), bookmark.range.startNs);
    for (; it != starts.end() && *it == bookmark.range.startNs; ++it) {
        const auto i = static_cast<std::uint32_t>(it - starts.begin());
        if (model.kernels.endNs[i] == bookmark.range.endNs &&
            model.kernels.deviceIndex[i] == bookmark.deviceIndex &&
            model.kernels.streamId[i] == bookmark.streamId &&
            (bookmark.kernelName.empty() || model.text(model.kernels.name[i]) == bookmark.kernelName)) {
            return KernelId{i};
        }
    }
    return KernelId{};
}

}  // namespace chokepoint::core
