#include "core/review/ReviewNotes.h"

#include <gtest/gtest.h>

#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::core {
namespace {

Bookmark rangeBookmark(TimestampNs start, TimestampNs end, std::string title) {
    Bookmark b;
    b.range = {start, end};
    b.title = std::move(title);
    return b;
}

TEST(ReviewNotesTest, AddAssignsIdsAndKeepsTimelineOrder) {
    ReviewNotes notes;
    const auto late = notes.add(rangeBookmark(500, 600, "late"));
    const auto early = notes.add(rangeBookmark(100, 200, "early"));
    EXPECT_NE(late, early);
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_EQ(notes.bookmarks()[0].title, "early");
    EXPECT_EQ(notes.bookmarks()[1].title, "late");
    EXPECT_EQ(notes.find(late)->title, "late");
}

TEST(ReviewNotesTest, UpdateAndRemove) {
    ReviewNotes notes;
    const auto id = notes.add(rangeBookmark(100, 200, "a"));
    Bookmark changed = *notes.find(id);
    changed.note = "input stall";
    changed.range = {300, 400};
    EXPECT_TRUE(notes.update(changed));
    EXPECT_EQ(notes.find(id)->note, "input stall");
    EXPECT_EQ(notes.find(id)->range.startNs, 300);
    EXPECT_TRUE(notes.remove(id));
    EXPECT_FALSE(notes.remove(id));
    EXPECT_TRUE(notes.empty());
    Bookmark missing;
    missing.id = 42;
    EXPECT_FALSE(notes.update(missing));
}

TEST(ReviewNotesTest, InsertWithIdRejectsDuplicatesAndAdvancesNextId) {
    ReviewNotes notes;
    Bookmark b = rangeBookmark(0, 10, "x");
    b.id = 7;
    EXPECT_TRUE(notes.insertWithId(b));
    EXPECT_FALSE(notes.insertWithId(b));
    b.id = 0;
    EXPECT_FALSE(notes.insertWithId(b));
    EXPECT_EQ(notes.add(rangeBookmark(0, 1, "y")), 8u);
}

TEST(ReviewNotesTest, KernelBookmarkResolvesAfterRebuild) {
    auto buildTrace = [] {
        testutils::TraceBuilder b;
        b.device(0, "GPU", 100);
        b.kernel("gemm", 2'000, 3'000, 0, 7);
        b.kernel("relu", 1'000, 1'500, 0, 7);
        b.kernel("relu", 1'000, 1'500, 0, 9);  // same times, other stream
        return b.build();
    };
    TraceModel first = buildTrace();
    KernelId target;
    for (std::uint32_t i = 0; i < first.kernels.size(); ++i) {
        if (first.kernels.streamId[i] == 9) {
            target = KernelId{i};
        }
    }
    ASSERT_TRUE(target.valid());
    const Bookmark bookmark = makeKernelBookmark(first, target, "relu on stream 9");
    EXPECT_EQ(bookmark.kind, BookmarkKind::Kernel);
    EXPECT_EQ(bookmark.kernelName, "relu");
    EXPECT_EQ(bookmark.streamId, 9);

    TraceModel second = buildTrace();
    const KernelId found = resolveKernel(second, bookmark);
    ASSERT_TRUE(found.valid());
    EXPECT_EQ(second.kernels.streamId[found.index], 9);
    EXPECT_EQ(second.kernels.startNs[found.index], 1'000);

    Bookmark renamed = bookmark;
    renamed.kernelName = "other";
    EXPECT_FALSE(resolveKernel(second, renamed).valid());
    EXPECT_FALSE(resolveKernel(second, rangeBookmark(1'000, 1'500, "range")).valid());
}

}  // namespace
}  // namespace chokepoint::core
