// A stream's syncs are drawn under that stream on the timeline (issue 25): Kineto's sync rows on
// the virtual "stream N (sync)" thread come back to stream N, and the widget paints them as a band
// along the bottom of the stream's track, in the legend's colour.
#include <gtest/gtest.h>

#include <QImage>

#include "tests/ui/PageTestSupport.h"
#include "ui/base/theme/TimelineColors.h"
#include "ui/views/timeline/TimelineLegend.h"
#include "ui/views/timeline/TimelineWidget.h"
// After the ui headers (Qt's `signals` macro is suspended around core's reports there).
#include "core/import/TraceLoader.h"
#include "core/timeline/TimelineTracks.h"

namespace chokepoint::ui {
namespace {

QImage renderTimeline(std::shared_ptr<const core::TraceModel> model) {
    auto tracks = std::make_shared<const timeline::TrackSet>(timeline::buildTracks(*model));
    TimelineWidget widget;
    widget.resize(1200, 400);
    widget.setData(model, tracks);
    return testutils::renderWidget(widget, {1200, 400});
}

TEST(StreamSyncBandTest, KinetoSyncRowsAreDrawnUnderTheirStream) {
    testutils::guiApp();
    const std::string path =
        std::string(CHOKEPOINT_SOURCE_DIR) + "/tests/data/kineto-2025/sync-rows.pt.trace.json";
    auto loaded = core::loadTrace(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    auto model = std::make_shared<const core::TraceModel>(std::move(loaded).value());
    ASSERT_GT(model->syncs.size(), 0u);

    auto tracks = std::make_shared<const timeline::TrackSet>(timeline::buildTracks(*model));
    TimelineWidget widget;
    widget.setData(model, tracks);
    std::size_t onStreams = 0;
    for (std::size_t t = 0; t < tracks->tracks.size(); ++t) {
        if (!widget.streamSyncs()[t].empty()) {
            EXPECT_EQ(tracks->tracks[t].kind, timeline::TrackKind::GpuStream);
            onStreams += widget.streamSyncs()[t].size();
        }
    }
    EXPECT_GT(onStreams, 0u);

    // The same trace with its syncs on no stream: the only pixels that change are the band's.
    auto again = core::loadTrace(path);
    ASSERT_TRUE(again.ok());
    core::TraceModel stripped = std::move(again).value();
    // Same rows and time span (the view's scale), but on no stream: nothing to draw under one.
    for (auto& stream : stripped.syncs.streamId) {
        stream = -1;
    }
    auto withoutSyncs = std::make_shared<const core::TraceModel>(std::move(stripped));
    const QImage with = renderTimeline(model);
    const QImage without = renderTimeline(withoutSyncs);
    testutils::saveIfRequested(with, QStringLiteral("timeline-stream-syncs"));
    ASSERT_EQ(with.size(), without.size());
    const QRgb band = streamSyncColor().rgb();
    int changed = 0;
    int bandColoured = 0;
    QRect where;
    for (int y = 0; y < with.height(); ++y) {
        for (int x = 0; x < with.width(); ++x) {
            if (with.pixel(x, y) != without.pixel(x, y)) {
                ++changed;
                bandColoured += with.pixel(x, y) == band ? 1 : 0;
                where |= QRect(x, y, 1, 1);
            }
        }
    }
    EXPECT_GT(changed, 0) << "the syncs are drawn";
    // A hatched band: about half its pixels carry the band's colour, and it is a few pixels tall.
    EXPECT_GT(bandColoured, changed / 4) << "in the band's colour";
    EXPECT_LE(where.height(), 12) << "a band, rows " << where.top() << ".." << where.bottom();

    // The legend names the band.
    TimelineLegend legend;
    bool named = false;
    for (const LegendEntry& entry : legend.entries()) {
        named = named || entry.color == streamSyncColor();
    }
    EXPECT_TRUE(named);
}

}  // namespace
}  // namespace chokepoint::ui
