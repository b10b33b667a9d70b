// Timeline conventions (issue 15 item 4): collapsing, hiding and reordering tracks and groups, kept
// in the review sidecar across reopening; the overview strip; the search results list with
// highlighting; flows followed both ways (launch -> kernels, kernel -> launch).
#include <gtest/gtest.h>

#include <QFile>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "core/review/ReviewSidecar.h"
#include "core/timeline/LaunchedWork.h"
#include "tests/ui/PageTestSupport.h"
#include "tests/ui/UiTestModels.h"
#include "ui/base/document/TraceDocument.h"
#include "ui/base/widgets/DetailsPanel.h"
#include "ui/views/timeline/OverviewStrip.h"
#include "ui/views/timeline/SearchResultsModel.h"
#include "ui/views/timeline/TimelinePage.h"
#include "ui/views/timeline/TimelineWidget.h"
#include "ui/views/timeline/TrackMenu.h"

namespace chokepoint::ui {
namespace {

using timeline::EventKind;
using timeline::EventRef;

// With CHOKEPOINT_TEST_IMAGES_DIR set, saves a picture of `widget` there to look at.
void saveImage(QWidget& widget, const QString& name) {
    if (!qEnvironmentVariableIsEmpty("CHOKEPOINT_TEST_IMAGES_DIR")) {
        widget.grab().save(qEnvironmentVariable("CHOKEPOINT_TEST_IMAGES_DIR") + QStringLiteral("/") + name);
    }
}

void waitForAnalysis(TraceDocument& document) {
    QSignalSpy done(&document, &TraceDocument::analysisAvailable);
    QSignalSpy failed(&document, &TraceDocument::analysisFailed);
    QSignalSpy loadFailed(&document, &TraceDocument::loadFailed);
    for (int i = 0; i < 1200 && done.isEmpty() && failed.isEmpty() && loadFailed.isEmpty(); ++i) {
        QTest::qWait(25);
    }
}

struct ModelPage {
    bool appReady = (testutils::guiApp(), true);
    TraceDocument document;
    TimelinePage page;
    std::shared_ptr<const core::TraceModel> model = testutils::timelineTestModel();

    ModelPage() {
        page.resize(1400, 800);
        page.setDocument(&document);
        page.show();
        QSignalSpy done(&document, &TraceDocument::analysisAvailable);
        document.setModel(model, QStringLiteral("test model"));
        waitForAnalysis(document);
    }
};

// A copy of the real ResNet-50 trace in a temporary folder, opened in a timeline page.
struct FilePage {
    bool appReady = (testutils::guiApp(), true);
    TraceDocument document;
    TimelinePage page;

    explicit FilePage(const QString& path) {
        page.resize(1400, 900);
        page.setDocument(&document);
        page.show();
        document.open(path);
        waitForAnalysis(document);
    }
};

class TrackLayoutPersistenceTest : public ::testing::Test {
protected:
    void SetUp() override {
        testutils::guiApp();
        ASSERT_TRUE(m_dir.isValid());
        m_trace = m_dir.filePath(QStringLiteral("resnet.pt.trace.json.gz"));
        ASSERT_TRUE(QFile::copy(
            QStringLiteral(CHOKEPOINT_SOURCE_DIR "/samples/real/resnet50-nw0.pt.trace.json.gz"), m_trace));
    }
    QTemporaryDir m_dir;
    QString m_trace;
};

TEST_F(TrackLayoutPersistenceTest, CollapseHideAndReorderChangeThePaintedTracksAndPersist) {
    std::vector<std::size_t> before, after;
    std::vector<std::string> groupsAfter;
    {
        FilePage f(m_trace);
        TimelineWidget* t = f.page.timeline();
        ASSERT_NE(t->tracks(), nullptr);
        ASSERT_GE(t->trackGroups().size(), 2u);
        before = t->displayedTracks();
        ASSERT_GE(before.size(), 3u);  // one GPU stream, two host threads
        const int heightBefore = t->fullHeight();

        // A click on the host group's header collapses it: its tracks leave the painted list.
        const QRect header = t->groupHeaderRect(1);
        ASSERT_FALSE(header.isNull());
        QTest::mouseClick(t, Qt::LeftButton, {}, header.center());
        EXPECT_TRUE(t->trackGroups()[1].collapsed);
        EXPECT_LT(t->displayedTracks().size(), before.size());
        EXPECT_LT(t->fullHeight(), heightBefore);
        QTest::mouseClick(t, Qt::LeftButton, {}, t->groupHeaderRect(1).center());
        EXPECT_FALSE(t->trackGroups()[1].collapsed);
        EXPECT_EQ(t->displayedTracks(), before);
        // A collapsed GPU group keeps one summary row: it leaves the track list, not the picture.
        t->setGroupCollapsed(0, true);
        EXPECT_EQ(t->displayedTracks().size(), before.size() - t->trackGroups()[0].tracks.size());
        t->setGroupCollapsed(0, false);

        // The track menu on a thread label hides it; moving the host group up puts it first.
        const timeline::TrackGroupView host = t->trackGroups()[1];
        ASSERT_GE(host.tracks.size(), 2u);
        const std::size_t hidden = host.tracks.back();
        t->setTrackHidden(hidden, true);
        const std::vector<std::size_t> shown = t->displayedTracks();
        EXPECT_EQ(std::count(shown.begin(), shown.end(), hidden), 0);
        EXPECT_EQ(shown.size(), before.size() - 1);
        EXPECT_TRUE(t->moveGroup(1, -1));
        EXPECT_EQ(t->trackGroups()[0].key, host.key);
        t->grab();  // paints with the new layout
        after = t->displayedTracks();
        for (const auto& g : t->trackGroups()) {
            groupsAfter.push_back(g.key);
        }
        EXPECT_TRUE(QFile::exists(m_trace + QStringLiteral(".chokepoint-review.json")));
    }
    // Reopened: the same layout.
    {
        FilePage f(m_trace);
        TimelineWidget* t = f.page.timeline();
        EXPECT_EQ(t->displayedTracks(), after);
        std::vector<std::string> groups;
        for (const auto& g : t->trackGroups()) {
            groups.push_back(g.key);
        }
        EXPECT_EQ(groups, groupsAfter);
        EXPECT_TRUE(f.page.trackLayoutNotice().isEmpty());
        // "Show all hidden tracks" from the menu of a track label.
        QMenu menu;
        const QRect header = t->groupHeaderRect(0);
        QMenu overPlot;
        EXPECT_FALSE(fillTrackMenu(overPlot, t, QPoint(t->plotLeft() + 20, header.center().y())));
        EXPECT_TRUE(fillTrackMenu(menu, t, QPoint(20, header.center().y())));
        QAction* showAll = menu.findChild<QAction*>(QStringLiteral("showAllTracks"));
        ASSERT_NE(showAll, nullptr);
        showAll->trigger();
        EXPECT_EQ(t->displayedTracks().size(), before.size());
    }
}

TEST_F(TrackLayoutPersistenceTest, ABadLayoutInTheSidecarIsAWarningNamingTheFile) {
    const QString sidecar = m_trace + QStringLiteral(".chokepoint-review.json");
    QFile f(sidecar);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(
        R"({"format": "chokepoint-review", "version": 1, "bookmarks": [], "trackLayout": {"hidden": [3]}})");
    f.close();
    FilePage page(m_trace);
    EXPECT_TRUE(page.page.trackLayoutNotice().contains(sidecar))
        << page.page.trackLayoutNotice().toStdString();
    EXPECT_GE(page.page.timeline()->displayedTracks().size(), 3u);
}

// A point in the label column on `track`'s rows (scanning down the widget), or (-1, -1).
QPoint labelPointOf(const TimelineWidget& t, std::size_t track) {
    for (int y = 0; y < t.height(); ++y) {
        if (t.trackAt(QPoint(20, y)) == static_cast<int>(track)) {
            return {20, y + 2};
        }
    }
    return {-1, -1};
}

void dragInLabels(TimelineWidget* t, QPoint from, QPoint to) {
    QTest::mousePress(t, Qt::LeftButton, {}, from);
    QTest::mouseMove(t, (from + to) / 2);
    QTest::mouseMove(t, to);
    QTest::mouseRelease(t, Qt::LeftButton, {}, to);
}

TEST(TimelineConventionsTest, DraggingLabelsReordersTracksAndGroups) {
    ModelPage f;
    TimelineWidget* t = f.page.timeline();
    ASSERT_GE(t->trackGroups().size(), 2u);
    // A group header dropped on the first group's header: that group comes first.
    const std::string second = t->trackGroups()[1].key;
    dragInLabels(t, t->groupHeaderRect(1).topLeft() + QPoint(20, 4),
                 t->groupHeaderRect(0).topLeft() + QPoint(20, 4));
    ASSERT_EQ(t->trackGroups()[0].key, second);
    EXPECT_FALSE(t->trackGroups()[0].collapsed);  // a drag is not a click
    // Within a group of two or more tracks: the last track dropped on the first goes first.
    const std::vector<timeline::TrackGroupView> groups = t->trackGroups();  // the drag rebuilds them
    for (const timeline::TrackGroupView& g : groups) {
        if (g.tracks.size() < 2) {
            continue;
        }
        const std::size_t first = g.tracks.front();
        const std::size_t last = g.tracks.back();
        t->grab();  // lay out the rows
        const QPoint from = labelPointOf(*t, last);
        const QPoint to = labelPointOf(*t, first);
        ASSERT_GE(from.y(), 0);
        ASSERT_GE(to.y(), 0);
        dragInLabels(t, from, to);
        const auto it = std::find_if(t->trackGroups().begin(), t->trackGroups().end(),
                                     [&](const timeline::TrackGroupView& v) { return v.key == g.key; });
        ASSERT_NE(it, t->trackGroups().end());
        EXPECT_EQ(it->tracks.front(), last);
        return;
    }
    GTEST_SKIP() << "no group with two tracks in the test model";
}

TEST(TimelineConventionsTest, OverviewStripClickMovesTheView) {
    ModelPage f;
    TimelineWidget* t = f.page.timeline();
    OverviewStrip* strip = f.page.overviewStrip();
    ASSERT_NE(strip, nullptr);
    EXPECT_FALSE(strip->overview().gpuBusy.empty());
    t->zoomBy(8, t->plotLeft());  // look at the start
    const core::TimeRange zoomed = t->visibleRange();
    EXPECT_EQ(strip->view(), zoomed);
    // Click near the right end of the strip: the view moves there, keeping its width.
    const int x = strip->width() - 10;
    QTest::mouseClick(strip, Qt::LeftButton, {}, QPoint(x, strip->height() / 2));
    const core::TimeRange moved = t->visibleRange();
    EXPECT_GT(moved.startNs, zoomed.endNs);
    EXPECT_NEAR(static_cast<double>(moved.durationNs()), static_cast<double>(zoomed.durationNs()),
                zoomed.durationNs() * 0.01);
    EXPECT_EQ(strip->view(), moved);
}

TEST(TimelineConventionsTest, SearchListShowsResultsAndClickingARowSelectsIt) {
    ModelPage f;
    f.page.search(QStringLiteral("relu"));
    QTableView* list = f.page.searchResultsView();
    ASSERT_TRUE(list->isVisible());
    EXPECT_GT(list->height(), 60);
    ASSERT_EQ(list->model()->rowCount(), 15);
    EXPECT_EQ(list->model()->index(0, SearchResultsModel::NameColumn).data().toString(),
              QStringLiteral("vectorized_elementwise_relu"));
    EXPECT_TRUE(
        list->model()->index(0, SearchResultsModel::TrackColumn).data().toString().startsWith("GPU 0"));
    EXPECT_EQ(f.page.timeline()->highlights().size(), 15u);
    // Clicking the 5th row selects that match on the timeline.
    list->scrollTo(list->model()->index(4, 0));
    const QRect cell = list->visualRect(list->model()->index(4, 0));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, cell.center());
    EXPECT_EQ(f.page.timeline()->selectedEvent(), f.page.searchResults()[4].ref);
    // Find next moves the list's current row along.
    f.page.findNext();
    EXPECT_EQ(list->currentIndex().row(), 5);
    f.page.timeline()->showAll();
    saveImage(f.page, QStringLiteral("timeline-search-list.png"));
    // Clearing the search hides the list and the highlights.
    f.page.search(QString());
    EXPECT_FALSE(list->isVisible());
    EXPECT_TRUE(f.page.timeline()->highlights().empty());
}

TEST(TimelineConventionsTest, LaunchToKernelsAndBack) {
    ModelPage f;
    const core::TraceModel& model = *f.model;
    // The op "aten::linear" launched kernels through its runtime calls.
    EventRef op;
    for (std::uint32_t i = 0; i < model.cpuOps.size() && !op.valid(); ++i) {
        if (model.strings.view(model.cpuOps.name[i]) == "aten::linear") {
            op = {EventKind::CpuOp, i};
        }
    }
    ASSERT_TRUE(op.valid());
    const std::vector<EventRef> work = timeline::launchedWork(model, op);
    ASSERT_FALSE(work.empty());
    f.page.timeline()->selectEvent(op);
    QPushButton* showKernels = f.page.details()->showLaunchedButton();
    EXPECT_TRUE(showKernels->isVisibleTo(f.page.details()));
    showKernels->click();
    EXPECT_EQ(f.page.timeline()->selectedEvent(), work.front());
    EXPECT_EQ(work.front().kind, EventKind::Kernel);
    const core::TimeRange view = f.page.timeline()->visibleRange();
    for (const EventRef ref : work) {
        EXPECT_TRUE(view.overlaps(timeline::eventTimes(model, ref)));
    }
    f.page.timeline()->selectEvent(op);
    saveImage(f.page, QStringLiteral("timeline-op-flows.png"));
    showKernels->click();
    // Back: kernel -> its launch call -> the same kernel.
    ASSERT_TRUE(f.page.showLaunchCall());
    const EventRef call = f.page.timeline()->selectedEvent();
    EXPECT_EQ(call.kind, EventKind::ApiCall);
    EXPECT_TRUE(f.page.details()->showLaunchedButton()->isVisibleTo(f.page.details()));
    EXPECT_EQ(f.page.details()->showLaunchedButton()->text(), QStringLiteral("Show kernel"));
    ASSERT_TRUE(f.page.showLaunchedWork());
    EXPECT_EQ(f.page.timeline()->selectedEvent(), work.front());
    // A kernel offers no "Show kernels".
    EXPECT_FALSE(f.page.details()->showLaunchedButton()->isVisibleTo(f.page.details()));
}

}  // namespace
}  // namespace chokepoint::ui
