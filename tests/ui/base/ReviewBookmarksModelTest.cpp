// BookmarksModel and TraceStatsModel under QAbstractItemModelTester.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>

#include "tests/ui/PageTestSupport.h"
#include "ui/base/models/BookmarksModel.h"
#include "ui/base/models/ModelRoles.h"
#include "ui/base/models/TraceStatsModel.h"

namespace chokepoint::ui {
namespace {

TEST(ReviewBookmarksModelTest, AddEditRemoveNotify) {
    testutils::guiApp();
    BookmarksModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setTraceStartNs(1'000);
    QSignalSpy changed(&model, &BookmarksModel::notesChanged);

    core::Bookmark late;
    late.range = {5'000'000, 6'000'000};
    late.title = "late";
    core::Bookmark early;
    early.range = {2'000, 3'000};
    early.title = "early";
    const auto lateId = model.addBookmark(late);
    model.addBookmark(early);
    ASSERT_EQ(model.rowCount(), 2);
    EXPECT_EQ(model.data(model.index(0, BookmarksModel::TitleColumn)).toString(), "early");
    EXPECT_EQ(model.data(model.index(0, BookmarksModel::StartColumn)).toString(), "1.00 µs");
    EXPECT_EQ(model.data(model.index(1, BookmarksModel::DurationColumn)).toString(), "1.00 ms");

    EXPECT_TRUE(model.flags(model.index(1, BookmarksModel::NoteColumn)) & Qt::ItemIsEditable);
    EXPECT_FALSE(model.flags(model.index(1, BookmarksModel::StartColumn)) & Qt::ItemIsEditable);
    EXPECT_TRUE(model.setData(model.index(1, BookmarksModel::NoteColumn), "look here"));
    EXPECT_EQ(model.notes().find(lateId)->note, "look here");
    EXPECT_FALSE(model.setData(model.index(1, BookmarksModel::StartColumn), "x"));

    EXPECT_TRUE(model.removeBookmark(lateId));
    EXPECT_EQ(model.rowCount(), 1);
    EXPECT_EQ(changed.count(), 4);  // two adds, one edit, one remove

    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(SortRole);
    proxy.sort(BookmarksModel::StartColumn);
    EXPECT_EQ(proxy.rowCount(), 1);
}

TEST(ReviewBookmarksModelTest, TraceStatsMostSevereFirst) {
    testutils::guiApp();
    core::TraceStats stats;
    stats.add("import.info", core::Severity::Info, 3, "fyi");
    stats.add("import.dropped", core::Severity::DataLoss, 12, "12 events dropped");
    TraceStatsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setStats(stats);
    ASSERT_EQ(model.rowCount(), 2);
    EXPECT_EQ(model.data(model.index(0, TraceStatsModel::NameColumn)).toString(), "import.dropped");
    EXPECT_EQ(model.data(model.index(0, TraceStatsModel::CountColumn)).toString(), "12");
}

}  // namespace
}  // namespace chokepoint::ui
