// The timeline page with a document: search with next/previous (keys and buttons), the details
// panel's model under QAbstractItemModelTester, and navigation requests from other pages.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "core/base/Format.h"
#include "tests/testutils/TraceBuilder.h"
#include "tests/ui/PageTestSupport.h"
#include "tests/ui/UiTestModels.h"
#include "ui/base/document/TraceDocument.h"
#include "ui/base/models/EventDetailsModel.h"
#include "ui/base/widgets/DetailsPanel.h"
#include "ui/base/widgets/SearchBar.h"
#include "ui/views/timeline/TimelinePage.h"
#include "ui/views/timeline/TimelineWidget.h"

namespace chokepoint::ui {
namespace {

using timeline::EventKind;
using timeline::EventRef;

struct PageFixture {
    bool appReady = (testutils::guiApp(), true);  // before any widget member
    TraceDocument document;
    TimelinePage page;
    std::shared_ptr<const core::TraceModel> model = testutils::timelineTestModel();

    PageFixture() {
        testutils::guiApp();
        page.resize(1400, 800);
        page.setDocument(&document);
        page.show();
        QSignalSpy done(&document, &TraceDocument::analysisAvailable);
        QSignalSpy failed(&document, &TraceDocument::analysisFailed);
        document.setModel(model, QStringLiteral("test model"));
        // The analysis runs on a worker thread; either outcome ends the wait.
        for (int i = 0; i < 200 && done.isEmpty() && failed.isEmpty(); ++i) {
            QTest::qWait(25);
        }
    }
};

TEST(TimelinePageTest, SearchFindsMatchesAndWalksThemWithF3AndShiftF3) {
    PageFixture f;
    ASSERT_EQ(f.page.timeline()->model(), f.model.get());
    f.page.search(QStringLiteral("SGEMM"));
    const timeline::SearchResults& hits = f.page.searchResults();
    ASSERT_EQ(hits.size(), 15u);  // 5 per step, case-insensitive
    EXPECT_EQ(f.page.timeline()->selectedEvent(), hits[0].ref);

    QTest::keyClick(f.page.timeline(), Qt::Key_F3);
    EXPECT_EQ(f.page.timeline()->selectedEvent(), hits[1].ref);
    QTest::keyClick(f.page.timeline(), Qt::Key_F3);
    EXPECT_EQ(f.page.timeline()->selectedEvent(), hits[2].ref);
    QTest::keyClick(f.page.timeline(), Qt::Key_F3, Qt::ShiftModifier);
    EXPECT_EQ(f.page.timeline()->selectedEvent(), hits[1].ref);
    // Previous from the first wraps to the last.
    f.page.findPrevious();
    f.page.findPrevious();
    EXPECT_EQ(f.page.timeline()->selectedEvent(), hits[hits.size() - 1].ref);
    f.page.findNext();
    EXPECT_EQ(f.page.timeline()->selectedEvent(), hits[0].ref);
    // The selected match is visible and in the details panel.
    EXPECT_TRUE(f.page.timeline()->visibleRange().overlaps(timeline::eventTimes(*f.model, hits[0].ref)));
    EXPECT_EQ(f.page.details()->detailsModel()->title(), QStringLiteral("ampere_sgemm_128x64_tn"));

    f.page.search(QStringLiteral("no such kernel"));
    EXPECT_TRUE(f.page.searchResults().empty());
}

TEST(TimelinePageTest, TypingInTheSearchFieldSearchesAfterAPause) {
    PageFixture f;
    auto* edit = f.page.searchBar()->findChild<QLineEdit*>();
    ASSERT_NE(edit, nullptr);
    QTest::keyClicks(edit, QStringLiteral("relu"));
    QTRY_COMPARE_WITH_TIMEOUT(f.page.searchResults().size(), std::size_t{15}, 3000);
    const EventRef first = f.page.timeline()->selectedEvent();
    EXPECT_EQ(first.kind, EventKind::Kernel);
    QTest::keyClick(edit, Qt::Key_Return);  // Enter on an unchanged query = next match
    EXPECT_NE(f.page.timeline()->selectedEvent(), first);
}

// A kernel's details show the scalar arguments of the op that launched it (Kineto's "Concrete
// Inputs"): is_causal and the scale are what its attention FLOPs were costed from.
TEST(TimelinePageTest, DetailsOfAKernelShowItsOpsScalarArguments) {
    testutils::guiApp();
    testutils::TraceBuilder b;
    b.cpuOp("aten::_scaled_dot_product_flash_attention", 0, 100'000, 1,
            "[[16, 16, 1024, 64], [16, 16, 1024, 64]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]",
            "[\"\", \"\", \"\", \"0.\", \"True\", \"False\"]");
    b.apiCall("cudaLaunchKernel", 10'000, 20'000, 5);
    b.kernel("pytorch_flash::flash_fwd_kernel", 30'000, 90'000, 0, 7, 5);
    auto trace = std::make_shared<const core::TraceModel>(b.build());
    EventDetailsModel model;
    model.setEvent(trace, {EventKind::Kernel, 0});
    EXPECT_EQ(model.value(QStringLiteral("Launching op")),
              QStringLiteral("aten::_scaled_dot_product_flash_attention"));
    EXPECT_EQ(model.value(QStringLiteral("Op scalar arguments")),
              QStringLiteral("[\"\", \"\", \"\", \"0.\", \"True\", \"False\"]"));
}

// A stack sample's details list its thread and frames, leaf first.
TEST(TimelinePageTest, DetailsOfAStackSampleListItsFrames) {
    testutils::guiApp();
    testutils::TraceBuilder b;
    b.sample(1000, "train.py:main;/site-packages/torch/utils/data/dataloader.py:_BaseDataLoaderIter.__next__",
             7);
    auto trace = std::make_shared<const core::TraceModel>(b.build());
    EventDetailsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setEvent(trace, {EventKind::StackSample, 0});
    EXPECT_EQ(model.value(QStringLiteral("Name")), QStringLiteral("_BaseDataLoaderIter.__next__"));
    EXPECT_EQ(model.value(QStringLiteral("Kind")), QStringLiteral("stack sample"));
    EXPECT_EQ(model.value(QStringLiteral("Depth")), QStringLiteral("2"));
    EXPECT_EQ(model.value(QStringLiteral("Leaf frame")),
              QStringLiteral("_BaseDataLoaderIter.__next__ (/site-packages/torch/utils/data/dataloader.py)"));
    EXPECT_EQ(model.value(QStringLiteral("Frame 1")), QStringLiteral("main (train.py)"));
}

TEST(TimelinePageTest, DetailsModelPassesTheModelTesterForEveryKind) {
    PageFixture f;
    EventDetailsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    for (EventKind kind :
         {EventKind::Kernel, EventKind::Memcpy, EventKind::Range, EventKind::CpuOp, EventKind::ApiCall}) {
        model.setEvent(f.model, {kind, 0});
        EXPECT_GT(model.rowCount(), 4) << timeline::toString(kind);
        EXPECT_EQ(model.columnCount(), 2);
        EXPECT_FALSE(model.data(model.index(0, 1)).toString().isEmpty());
    }
    // A kernel shows its launch call and the op around it.
    model.setEvent(f.model, {EventKind::Kernel, 0});
    EXPECT_EQ(model.value(QStringLiteral("Name")), QStringLiteral("ampere_sgemm_128x64_tn"));
    EXPECT_TRUE(model.value(QStringLiteral("Launched by")).startsWith(QStringLiteral("cudaLaunchKernel")));
    EXPECT_EQ(model.value(QStringLiteral("Launching op")), QStringLiteral("aten::linear"));
    EXPECT_EQ(model.value(QStringLiteral("Duration")), QStringLiteral("20.0 µs"));
    // Start and end exact to the nanosecond, in the unit of the offset's size; the launch-to-start
    // queue delay (HTA's launch delay: kernel start minus the launch call's end) in microseconds.
    const core::TimestampNs origin = f.model->timeSpan().startNs;
    const core::KernelRow kernel = f.model->kernels.row(core::KernelId{0});
    auto micros = [](core::DurationNs ns) {
        return QString::fromStdString(core::formatFixed(static_cast<double>(ns) / 1e3, 3)) +
               QStringLiteral(" µs");
    };
    EXPECT_EQ(model.value(QStringLiteral("Start")),
              QString::fromStdString(core::formatTimeOffset(kernel.startNs - origin)) +
                  QStringLiteral(" after trace start"));
    EXPECT_EQ(model.value(QStringLiteral("End")),
              QString::fromStdString(core::formatTimeOffset(kernel.endNs - origin)) +
                  QStringLiteral(" after trace start"));
    ASSERT_TRUE(kernel.launchCall.valid());
    const core::ApiCallRow launch = f.model->apiCalls.row(kernel.launchCall);
    EXPECT_TRUE(model.value(QStringLiteral("Queue delay")).startsWith(micros(kernel.startNs - launch.endNs)))
        << model.value(QStringLiteral("Queue delay")).toStdString();
    // A copy shows its size and bandwidth.
    const core::MemcpyRow copy = f.model->memcpys.row(core::MemcpyId{0});
    model.setEvent(f.model, {EventKind::Memcpy, 0});
    EXPECT_EQ(model.value(QStringLiteral("Size")),
              QString::fromStdString(core::formatBytes(static_cast<double>(copy.sizeBytes))));
    EXPECT_FALSE(model.value(QStringLiteral("Bandwidth")).isEmpty());
    // Invalid rows and null models give an empty table.
    model.setEvent(f.model, {EventKind::Kernel, 1'000'000});
    EXPECT_EQ(model.rowCount(), 0);
    model.setEvent(nullptr, {EventKind::Kernel, 0});
    EXPECT_EQ(model.rowCount(), 0);
}

TEST(TimelinePageTest, NavigationRequestsMoveTheTimeline) {
    PageFixture f;
    f.document.showRange({1'000'000, 1'900'000}, QStringLiteral("evidence"));
    const core::TimeRange view = f.page.timeline()->visibleRange();
    EXPECT_LE(view.startNs, 1'000'000);
    EXPECT_GE(view.endNs, 1'900'000);
    EXPECT_LT(view.durationNs(), 1'100'000);
    ASSERT_TRUE(f.page.timeline()->rangeSelection().has_value());

    f.document.selectKernel(core::KernelId{5});
    EXPECT_EQ(f.page.timeline()->selectedEvent(), (EventRef{EventKind::Kernel, 5}));
    EXPECT_EQ(f.page.details()->detailsModel()->event(), (EventRef{EventKind::Kernel, 5}));

    const QImage image = testutils::renderWidget(f.page, {1400, 800});
    testutils::saveIfRequested(image, QStringLiteral("timeline-page"));
    EXPECT_GT(testutils::distinctColours(image), 30);
}

// An agent capture samples every thread of the job; the threads that never ran are hidden until
// the user arranges the tracks, and "show all" is remembered for the trace like any arrangement.
TEST(TimelinePageTest, IdleThreadsAreHiddenUntilTheUserShowsThemAndThatIsRemembered) {
    testutils::guiApp();
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString trace = dir.filePath(QStringLiteral("gpt-nohelper-delay.cptrace"));
    ASSERT_TRUE(QFile::copy(
        QStringLiteral(CHOKEPOINT_SOURCE_DIR "/tests/data/h100-agent-2026-11-26/gpt-nohelper-delay.cptrace"),
        trace));
    auto openInPage = [&](TraceDocument& document, TimelinePage& page) {
        page.setDocument(&document);
        QSignalSpy model(&document, &TraceDocument::modelAvailable);
        document.open(trace);
        for (int i = 0; i < 400 && model.isEmpty(); ++i) {
            QTest::qWait(25);
        }
        return !model.isEmpty();
    };
    {
        TraceDocument document;
        TimelinePage page;
        ASSERT_TRUE(openInPage(document, page));
        // 24 threads were sampled; 19 of them never used 1 % of a core.
        EXPECT_EQ(page.timeline()->trackLayout().hiddenTracks.size(), 19u);
        page.timeline()->showAllTracks();
        EXPECT_TRUE(page.timeline()->trackLayout().hiddenTracks.empty());
    }
    TraceDocument document;
    TimelinePage page;
    ASSERT_TRUE(openInPage(document, page));
    EXPECT_TRUE(page.timeline()->trackLayout().hiddenTracks.empty()) << "showing them all was remembered";
}

}  // namespace
}  // namespace chokepoint::ui
