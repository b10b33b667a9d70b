#pragma once
// The timeline widget's row and strip sizes and two small helpers, shared by the files that make up
// TimelineWidget (TimelineWidget.cpp, TimelineLayout.cpp, TimelinePainter.cpp, TimelineHitTest.cpp,
// TimelineInteraction.cpp). Not meant for other classes.

#include <QColor>
#include <QString>
#include <string>

#include "core/timeline/TimelineTracks.h"

namespace chokepoint::ui::timelinemetrics {

inline constexpr int kRulerHeight = 28;
inline constexpr int kStepStripHeight = 18;
inline constexpr int kGroupHeaderHeight = 22;
inline constexpr int kLaneHeight = 17;
inline constexpr int kWorkLaneHeight = 22;
inline constexpr int kCounterHeight = 44;
inline constexpr int kIdleStripHeight = 12;
// The band along the bottom of a GPU stream's track where the host waits on the stream.
inline constexpr int kStreamSyncBandHeight = 5;
inline constexpr int kTrackGap = 5;
inline constexpr double kMinNsPerPixel = 0.01;
inline constexpr double kMinWidthPx = 2.0;  // narrower events fold into level-of-detail blocks

inline const QColor kHighlightColor(0xd0, 0x1c, 0x8b);  // search matches (magenta reads on light and dark)

inline QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

inline int laneHeightFor(timeline::LaneRole role) {
    return role == timeline::LaneRole::GpuWork ? kWorkLaneHeight : kLaneHeight;
}

}  // namespace chokepoint::ui::timelinemetrics
