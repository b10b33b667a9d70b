#pragma once
// Bookmarks and notes a team attaches to one trace during a bottleneck review. Plain data, no Qt,
// no I/O (ReviewSidecar.h reads and writes them). Times are int64 nanoseconds on the trace clock,
// the same clock as the TraceModel they annotate.
//
// A bookmark marks either a time range or one kernel. A kernel bookmark stores the kernel's start,
// end, device, stream and name rather than its row index, so it can be found again after the trace
// is re-imported (row indices depend on the importer's sort); see resolveKernel().

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/diagnosis/AnalysisSettings.h"
#include "core/base/Ids.h"
#include "core/base/Time.h"
#include "core/timeline/TrackLayout.h"

namespace chokepoint::core {

class TraceModel;

enum class BookmarkKind : std::uint8_t {
    TimeRange = 0,  // any [startNs, endNs) on the trace clock
    Kernel,         // one GPU kernel, identified by (range, deviceIndex, streamId, kernelName)
};

std::string_view toString(BookmarkKind kind);
// Inverse of toString(BookmarkKind); nullopt for an unknown name.
std::optional<BookmarkKind> bookmarkKindFromString(std::string_view name);

struct Bookmark {
    std::uint64_t id = 0;  // unique within one ReviewNotes, assigned by ReviewNotes::add
    BookmarkKind kind = BookmarkKind::TimeRange;
    TimeRange range;                 // the marked time range (a kernel's own start and end)
    std::string kernelName;          // Kernel bookmarks only
    std::int32_t deviceIndex = -1;   // Kernel bookmarks only, else -1
    std::int32_t streamId = -1;      // Kernel bookmarks only, else -1
    std::string title;               // one line shown in lists ("Input stall before step 12")
    std::string note;                // free text, may span lines
    std::int64_t createdUnixMs = 0;  // wall clock when it was made; 0 when unknown

    bool operator==(const Bookmark&) const = default;
};

// The bookmarks of one trace, kept sorted by (range.startNs, id) so lists and the presenter show
// them in timeline order. Sizes are small (a review has tens of bookmarks); operations are linear.
class ReviewNotes {
public:
    // Identity of the trace file the notes were made on, used to warn when a sidecar is reused for
    // a different file of the same name. Empty / 0 when unknown.
    std::string traceFileName;
    std::int64_t traceSizeBytes = 0;
    // How the trace is analysed (device override, model FLOPs, thresholds); stored in the same
    // sidecar. Not touched by the bookmark operations below (clear() included).
    AnalysisSettings analysisSettings;
    // The timeline's hidden, collapsed and reordered tracks for this trace (sidecar "trackLayout").
    timeline::TrackLayout trackLayout;

    // Adds a copy of `bookmark` with a fresh id (the given id is ignored); returns the new id.
    std::uint64_t add(Bookmark bookmark);
    // Adds `bookmark` keeping its id; false when the id is 0 or already used (used by the reader).
    bool insertWithId(Bookmark bookmark);
    // Replaces the bookmark with the same id; false when there is none.
    bool update(const Bookmark& bookmark);
    // Removes the bookmark `id`; false when there is none.
    bool remove(std::uint64_t id);
    const Bookmark* find(std::uint64_t id) const;

    const std::vector<Bookmark>& bookmarks() const { return m_bookmarks; }
    std::size_t size() const { return m_bookmarks.size(); }
    bool empty() const { return m_bookmarks.empty(); }
    void clear();

    bool operator==(const ReviewNotes&) const = default;

private:
    void sort();
    std::vector<Bookmark> m_bookmarks;
    std::uint64_t m_nextId = 1;
};

// Builds a Kernel bookmark for row `kernel` of `model` (range, device, stream and name copied).
Bookmark makeKernelBookmark(const TraceModel& model, KernelId kernel, std::string title = {},
                            std::string note = {});
// Finds the kernel a Kernel bookmark refers to: the row with the same start, end, device and
// stream (and name, when the bookmark has one). Invalid id when the trace has no such kernel.
// O(log n + k) over the finalized, start-sorted kernel table.
KernelId resolveKernel(const TraceModel& model, const Bookmark& bookmark);

}  // namespace chokepoint::core
