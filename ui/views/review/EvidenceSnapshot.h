#pragma once
// EvidenceSnapshot: a picture of the timeline over one time range, for the presenter's slides.
// During a review the presenter covers the screen, so the room cannot see the main window's
// timeline; the evidence slides carry a snapshot of it instead. Draws with the same TimelineWidget
// (tracks, step bands, idle causes) on a window that is never put on screen.

#include <QPixmap>
#include <QSize>
#include <memory>

#include "core/base/Time.h"
#include "core/model/TraceModel.h"
#include "core/timeline/TimelineTracks.h"
#include "ui/base/document/AnalysisReportQt.h"

namespace chokepoint::ui {

class TimelineWidget;

class EvidenceSnapshot {
public:
    EvidenceSnapshot();
    ~EvidenceSnapshot();
    EvidenceSnapshot(const EvidenceSnapshot&) = delete;
    EvidenceSnapshot& operator=(const EvidenceSnapshot&) = delete;

    // The trace to draw. `tracks` may be null: they are then built from the model. `report` (may be
    // null) adds its step verdicts and idle causes.
    void setTrace(std::shared_ptr<const core::TraceModel> model,
                  std::shared_ptr<const timeline::TrackSet> tracks, const analysis::AnalysisReport* report);
    bool hasTrace() const;

    // The timeline over `range` (with a small margin, the range itself highlighted), `size` pixels
    // wide and at most that high (less when the tracks need less), drawn `scale` times larger than
    // on screen so a room can read it. With `fillHeight`, drawn larger still when the tracks need
    // less than `size`'s height, so that they fill it (up to 4×, keeping at least 480 pixels of
    // time across). A null pixmap when there is no trace or the range is empty.
    QPixmap render(core::TimeRange range, QSize size, double scale = 1.0, bool fillHeight = false);

private:
    std::unique_ptr<TimelineWidget> m_timeline;
};

}  // namespace chokepoint::ui
