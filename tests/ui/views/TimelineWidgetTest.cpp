// The timeline widget offscreen: it renders non-blank at two sizes and two zoom levels, and wheel,
// W/S, drag, A/D, click, Shift+drag and Z do what they say.
#include <gtest/gtest.h>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>

#include "core/timeline/TimelineTracks.h"
#include "tests/ui/PageTestSupport.h"
#include "tests/ui/UiTestModels.h"
#include "ui/views/timeline/TimelineWidget.h"

namespace chokepoint::ui {
namespace {

using timeline::EventKind;
using timeline::EventRef;

struct Fixture {
    bool appReady = (testutils::guiApp(), true);  // before any widget member
    std::shared_ptr<const core::TraceModel> model = testutils::timelineTestModel();
    std::shared_ptr<const timeline::TrackSet> tracks =
        std::make_shared<const timeline::TrackSet>(timeline::buildTracks(*model));
    TimelineWidget widget;

    explicit Fixture(QSize size = {1000, 600}) {
        testutils::guiApp();
        widget.resize(size);
        widget.setData(model, tracks);
    }
};

void sendWheel(QWidget& w, QPoint pos, int deltaY, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
    QWheelEvent event(QPointF(pos), QPointF(w.mapToGlobal(pos)), QPoint(), QPoint(0, deltaY), Qt::NoButton,
                      modifiers, Qt::NoScrollPhase, false);
    QApplication::sendEvent(&w, &event);
}

void sendPixelWheel(QWidget& w, QPoint pos, QPoint pixels, QPoint angle, Qt::KeyboardModifiers modifiers) {
    QWheelEvent event(QPointF(pos), QPointF(w.mapToGlobal(pos)), pixels, angle, Qt::NoButton, modifiers,
                      Qt::ScrollUpdate, false);
    QApplication::sendEvent(&w, &event);
}

void sendMouse(QWidget& w, QEvent::Type type, QPoint pos, Qt::MouseButtons buttons,
               Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
    const Qt::MouseButton button = type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton;
    QMouseEvent event(type, QPointF(pos), QPointF(w.mapToGlobal(pos)), button, buttons, modifiers);
    QApplication::sendEvent(&w, &event);
}

void drag(QWidget& w, QPoint from, QPoint to, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
    sendMouse(w, QEvent::MouseButtonPress, from, Qt::LeftButton, modifiers);
    const QPoint mid = (from + to) / 2;
    sendMouse(w, QEvent::MouseMove, mid, Qt::LeftButton, modifiers);
    sendMouse(w, QEvent::MouseMove, to, Qt::LeftButton, modifiers);
    sendMouse(w, QEvent::MouseButtonRelease, to, Qt::NoButton, modifiers);
}

TEST(TimelineWidgetTest, RendersNonBlankAtTwoSizesAndTwoZoomLevels) {
    for (QSize size : {QSize(800, 500), QSize(1600, 1000)}) {
        Fixture f(size);
        const QImage all = testutils::renderWidget(f.widget, size);
        testutils::saveIfRequested(all, QStringLiteral("timeline-all-%1").arg(size.width()));
        EXPECT_GT(testutils::distinctColours(all), 20) << size.width();
        EXPECT_GT(testutils::inkFraction(all), 0.05) << size.width();
        // Every event is accounted for when everything is in view.
        EXPECT_GT(f.widget.lastFrameStats().itemsPainted, 0u);
        EXPECT_EQ(f.widget.lastFrameStats().eventsCovered, f.model->gpuEventCount() + f.model->cpuOps.size() +
                                                               f.model->apiCalls.size() +
                                                               f.model->ranges.size());

        // Deep zoom on the first kernel: a different picture, still not blank.
        const core::TimeRange first{f.model->kernels.startNs[0] - 2'000, f.model->kernels.endNs[0] + 2'000};
        f.widget.showRange(first);
        const QImage deep = testutils::renderWidget(f.widget, size);
        testutils::saveIfRequested(deep, QStringLiteral("timeline-deep-%1").arg(size.width()));
        EXPECT_GT(testutils::distinctColours(deep), 10);
        EXPECT_NE(all, deep);
        EXPECT_LT(f.widget.lastFrameStats().eventsCovered, 20u);  // only a few events remain visible
    }
}

TEST(TimelineWidgetTest, EmptyTimelineSaysSo) {
    testutils::guiApp();
    TimelineWidget widget;
    const QImage image = testutils::renderWidget(widget, {600, 300});
    EXPECT_GT(testutils::distinctColours(image), 2);  // the hint text is drawn
    EXPECT_EQ(widget.lastFrameStats().lanesPainted, 0u);
}

TEST(TimelineWidgetTest, WheelAndKeysZoomAroundTheCursor) {
    Fixture f;
    f.widget.show();
    const double before = f.widget.nsPerPixel();
    const QPoint anchor(f.widget.plotLeft() + 300, 200);
    const core::TimestampNs anchorTime = f.widget.timeForX(anchor.x());
    sendWheel(f.widget, anchor, 120);
    EXPECT_LT(f.widget.nsPerPixel(), before);
    // The time under the cursor stays put (within a pixel).
    EXPECT_NEAR(static_cast<double>(f.widget.timeForX(anchor.x())), static_cast<double>(anchorTime),
                2 * f.widget.nsPerPixel() + 1);
    sendWheel(f.widget, anchor, -120);
    EXPECT_NEAR(f.widget.nsPerPixel(), before, before * 0.01);

    const double w0 = f.widget.nsPerPixel();
    QTest::keyClick(&f.widget, Qt::Key_W);
    EXPECT_LT(f.widget.nsPerPixel(), w0);
    QTest::keyClick(&f.widget, Qt::Key_S);
    QTest::keyClick(&f.widget, Qt::Key_S);
    EXPECT_NEAR(f.widget.nsPerPixel(), w0, w0 * 0.01);  // zooming out stops at the whole trace
    QTest::keyClick(&f.widget, Qt::Key_0);
    EXPECT_NEAR(f.widget.nsPerPixel(), before, before * 0.01);
}

TEST(TimelineWidgetTest, DragAndKeysPan) {
    Fixture f;
    f.widget.show();
    f.widget.zoomBy(8, f.widget.plotLeft());  // zoom in so there is room to pan
    QSignalSpy viewSpy(&f.widget, &TimelineWidget::viewChanged);
    const core::TimestampNs start = f.widget.visibleRange().startNs;
    QTest::keyClick(&f.widget, Qt::Key_D);
    const core::TimestampNs afterD = f.widget.visibleRange().startNs;
    EXPECT_GT(afterD, start);
    QTest::keyClick(&f.widget, Qt::Key_A);
    EXPECT_LT(f.widget.visibleRange().startNs, afterD);

    const core::TimestampNs beforeDrag = f.widget.visibleRange().startNs;
    const QPoint from(f.widget.plotLeft() + 400, 150);
    drag(f.widget, from, from - QPoint(200, 0));  // dragging left shows later times
    EXPECT_NEAR(static_cast<double>(f.widget.visibleRange().startNs - beforeDrag),
                200 * f.widget.nsPerPixel(), 2 * f.widget.nsPerPixel() + 1);
    EXPECT_GE(viewSpy.count(), 3);
    EXPECT_FALSE(f.widget.selectedEvent().valid());  // a drag is not a click
}

TEST(TimelineWidgetTest, ClickSelectsTheEventUnderTheCursorAndShowsItsLaunchFlow) {
    Fixture f;
    f.widget.show();
    // Zoom to step 1 so kernels are wide.
    f.widget.showRange({0, 1'000'000});
    const EventRef kernel{EventKind::Kernel, 3};
    const core::TimeRange times = timeline::eventTimes(*f.model, kernel);
    const QRect lane = f.widget.laneRectOf(kernel);
    ASSERT_FALSE(lane.isNull());
    const int x = static_cast<int>(f.widget.xForTime(times.startNs + times.durationNs() / 2));
    QSignalSpy spy(&f.widget, &TimelineWidget::selectionChanged);
    QTest::mouseClick(&f.widget, Qt::LeftButton, Qt::NoModifier, QPoint(x, lane.center().y()));
    EXPECT_EQ(spy.count(), 1);
    EXPECT_EQ(f.widget.selectedEvent(), kernel);
    ASSERT_TRUE(f.model->kernels.launchCall[kernel.row].valid());  // the flow arrow has a source

    // Clicking empty space clears the selection.
    QTest::mouseClick(&f.widget, Qt::LeftButton, Qt::NoModifier,
                      QPoint(f.widget.width() - 20, f.widget.height() - 5));
    EXPECT_FALSE(f.widget.selectedEvent().valid());

    // Esc clears too.
    f.widget.selectEvent(kernel);
    QTest::keyClick(&f.widget, Qt::Key_Escape);
    EXPECT_FALSE(f.widget.selectedEvent().valid());
}

TEST(TimelineWidgetTest, ShiftDragSelectsARangeAndZZoomsToIt) {
    Fixture f;
    f.widget.show();
    const QPoint from(f.widget.plotLeft() + 100, 120);
    const QPoint to(f.widget.plotLeft() + 300, 120);
    drag(f.widget, from, to, Qt::ShiftModifier);
    ASSERT_TRUE(f.widget.rangeSelection().has_value());
    const core::TimeRange selected = *f.widget.rangeSelection();
    EXPECT_NEAR(static_cast<double>(selected.durationNs()), 200 * f.widget.nsPerPixel(),
                2 * f.widget.nsPerPixel() + 1);
    QTest::keyClick(&f.widget, Qt::Key_Z);
    const core::TimeRange view = f.widget.visibleRange();
    EXPECT_LE(view.startNs, selected.startNs);
    EXPECT_GE(view.endNs, selected.endNs);
    EXPECT_LT(view.durationNs(), selected.durationNs() * 12 / 10);  // the range fills the view
}

TEST(TimelineWidgetTest, StepNavigationUsesOverlaySteps) {
    Fixture f;
    f.widget.show();
    EXPECT_FALSE(f.widget.zoomToStep(+1));  // no steps yet
    TimelineOverlays overlays;
    for (int i = 0; i < 3; ++i) {
        overlays.steps.push_back({{i * 1'000'000, i * 1'000'000 + 900'000},
                                  QStringLiteral("Step %1").arg(i + 1),
                                  QStringLiteral("Compute-bound"),
                                  QColor(0x27, 0xae, 0x60)});
    }
    overlays.idleGaps.push_back(
        {{900'000, 1'000'000}, 0, QStringLiteral("Waiting for data"), QColor(0xf3, 0x9c, 0x12)});
    f.widget.setOverlays(overlays);
    QTest::keyClick(&f.widget, Qt::Key_BracketRight);  // from "everything": the step at the centre
    const core::TimestampNs firstCentre =
        f.widget.visibleRange().startNs + f.widget.visibleRange().durationNs() / 2;
    QTest::keyClick(&f.widget, Qt::Key_BracketRight);
    const core::TimestampNs secondCentre =
        f.widget.visibleRange().startNs + f.widget.visibleRange().durationNs() / 2;
    EXPECT_GT(secondCentre, firstCentre);
    EXPECT_TRUE(overlays.steps[2].range.contains(secondCentre));
    QTest::keyClick(&f.widget, Qt::Key_BracketLeft);
    const core::TimestampNs back = f.widget.visibleRange().startNs + f.widget.visibleRange().durationNs() / 2;
    EXPECT_TRUE(overlays.steps[1].range.contains(back));
    const QImage image = testutils::renderWidget(f.widget, {1000, 600});
    testutils::saveIfRequested(image, QStringLiteral("timeline-steps"));
    EXPECT_GT(testutils::distinctColours(image), 20);
}

// The idle strip shows how much of each pixel is idle: gaps of a few microseconds between busy
// kernels tint it faintly, where painting every pixel a gap touched showed a 96 % busy GPU as a solid
// idle strip. A long gap is still drawn solid.
TEST(TimelineWidgetTest, IdleStripTintsPixelsByTheShareOfTheirTimeThatIsIdle) {
    auto countStrongRed = [](const QImage& image) {
        int n = 0;
        for (int y = 0; y < image.height(); ++y) {
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                n += c.red() > 200 && c.green() < 90 && c.blue() < 90 ? 1 : 0;
            }
        }
        return n;
    };
    const QColor red(0xff, 0x10, 0x10);
    Fixture f;
    const core::TimeRange all = f.widget.visibleRange();
    ASSERT_GT(all.durationNs(), 1'000'000);
    const core::DurationNs period = all.durationNs() / 2000;  // a few gaps per pixel
    TimelineOverlays shortGaps;
    for (core::TimestampNs t = all.startNs; t + period <= all.endNs; t += period) {
        shortGaps.idleGaps.push_back({{t, t + period / 25}, 0, QStringLiteral("Host launch overhead"), red});
    }
    f.widget.setOverlays(shortGaps);
    const int faint = countStrongRed(testutils::renderWidget(f.widget, {1000, 600}));
    EXPECT_EQ(faint, 0) << "4 % idle per pixel is drawn as solid idle";
    TimelineOverlays longGap;
    longGap.idleGaps.push_back({{all.startNs + all.durationNs() / 4, all.startNs + all.durationNs() / 2},
                                0,
                                QStringLiteral("Waiting for data"),
                                red});
    f.widget.setOverlays(longGap);
    EXPECT_GT(countStrongRed(testutils::renderWidget(f.widget, {1000, 600})), 100);
}

TEST(TimelineWidgetTest, SelectEventWithRevealBringsItIntoView) {
    Fixture f;
    f.widget.show();
    f.widget.showRange({0, 10'000});
    const EventRef kernel{EventKind::Kernel, static_cast<std::uint32_t>(f.model->kernels.size() - 1)};
    f.widget.selectEvent(kernel, true);
    const core::TimeRange times = timeline::eventTimes(*f.model, kernel);
    EXPECT_TRUE(f.widget.visibleRange().overlaps(times));
    EXPECT_EQ(f.widget.selectedEvent(), kernel);
    f.widget.selectEvent({EventKind::Kernel, 100'000});  // no such row: cleared, no crash
    EXPECT_FALSE(f.widget.selectedEvent().valid());
}

TEST(TimelineWidgetTest, FractionalWheelDeltasScrollTheTracks) {
    // A short widget, so the tracks overflow and Shift+wheel scrolls them.
    Fixture f(QSize(1000, 160));
    f.widget.show();
    auto* bar = f.widget.findChild<QScrollBar*>();
    ASSERT_NE(bar, nullptr);
    ASSERT_GT(bar->maximum(), 0);
    bar->setValue(bar->maximum());
    const int start = bar->value();
    const QPoint at(f.widget.plotLeft() + 100, 100);
    // One notch (120) in one event, then the same in eight touchpad-sized events of 15.
    sendWheel(f.widget, at, 120, Qt::ShiftModifier);
    const int oneNotch = start - bar->value();
    ASSERT_GT(oneNotch, 0);
    bar->setValue(bar->maximum());
    for (int i = 0; i < 8; ++i) {
        sendWheel(f.widget, at, 15, Qt::ShiftModifier);
    }
    EXPECT_EQ(start - bar->value(), oneNotch) << "small deltas add up instead of rounding to nothing";
    // Touchpads that report pixels scroll by those pixels.
    bar->setValue(bar->maximum());
    for (int i = 0; i < 4; ++i) {
        sendPixelWheel(f.widget, at, QPoint(0, 5), QPoint(0, 3), Qt::ShiftModifier);
    }
    EXPECT_EQ(start - bar->value(), 20);
}

TEST(TimelineWidgetTest, ZoomAndPanStopAtTheTrace) {
    Fixture f;
    f.widget.show();
    const core::TimeRange span = f.tracks->span;
    const core::DurationNs pad = std::max<core::DurationNs>(1, span.durationNs() / 40);
    for (int i = 0; i < 20; ++i) {
        QTest::keyClick(&f.widget, Qt::Key_S);
    }
    core::TimeRange view = f.widget.visibleRange();
    EXPECT_GE(view.startNs, span.startNs - pad - 2 * static_cast<core::DurationNs>(f.widget.nsPerPixel()));
    EXPECT_LE(view.endNs, span.endNs + pad + 2 * static_cast<core::DurationNs>(f.widget.nsPerPixel()));
    // Zoomed in, panning stops at the trace's end and start.
    f.widget.zoomBy(20, f.widget.plotLeft());
    for (int i = 0; i < 200; ++i) {
        QTest::keyClick(&f.widget, Qt::Key_D);
    }
    view = f.widget.visibleRange();
    EXPECT_LE(view.endNs, span.endNs + pad + 2 * static_cast<core::DurationNs>(f.widget.nsPerPixel()));
    EXPECT_GT(view.endNs, span.endNs - pad);
    for (int i = 0; i < 200; ++i) {
        QTest::keyClick(&f.widget, Qt::Key_A);
    }
    view = f.widget.visibleRange();
    EXPECT_GE(view.startNs, span.startNs - pad - 1);
    EXPECT_LT(view.startNs, span.startNs + pad);
}

}  // namespace
}  // namespace chokepoint::ui
