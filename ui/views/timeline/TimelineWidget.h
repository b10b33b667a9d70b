#pragma once
// TimelineWidget: a custom QPainter timeline (no QGraphicsScene). Tracks come from
// core/timeline (buildTracks); each paint asks timeline::collect() for the visible window of each
// visible lane, so painting cost follows pixels, not events. Track geometry is cached and only
// rebuilt when the tracks or the height change.
//
// The class is written in five files, one per job: TimelineWidget.cpp (state, the view and the
// selection), TimelineLayout.cpp (track geometry, groups, the scroll bar), TimelinePainter.cpp
// (painting), TimelineHitTest.cpp (what lies under a point, tooltips) and TimelineInteraction.cpp
// (mouse, wheel and keys); TimelineMetrics.h holds the sizes they share.
//
// Controls: wheel or W/S zoom around the cursor (Shift+wheel scrolls tracks), drag or A/D pan,
// click selects (a click on the steps strip selects the step's range; on a group header, collapses
// or expands the group), Shift+drag selects a time
// range, right-click opens the page's context menu (TimelinePage), Z zooms to the range or the selected
// event, [ and ] zoom to the previous/next step, 0 or Home shows everything, Esc clears the selection.

#include <QWidget>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/model/TraceModel.h"
#include "core/timeline/TimelineQuery.h"
#include "core/timeline/TimelineTracks.h"
#include "core/timeline/TrackLayout.h"
#include "ui/views/timeline/TimelineOverlays.h"

class QScrollBar;

namespace chokepoint::ui {

class TimelineWidget : public QWidget {
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget* parent = nullptr);
    ~TimelineWidget() override;

    // Shows `model` with its prebuilt tracks (both may be null: an empty timeline). Resets the
    // view to the whole trace and clears the selection.
    void setData(std::shared_ptr<const core::TraceModel> model,
                 std::shared_ptr<const timeline::TrackSet> tracks);
    void setOverlays(TimelineOverlays overlays);
    const TimelineOverlays& overlays() const { return m_overlays; }
    // Per track: the syncs that wait on that GPU stream (drawn under it; empty for other tracks).
    const std::vector<std::vector<core::TimeRange>>& streamSyncs() const { return m_streamSyncs; }
    // What the empty timeline says when it has no trace (default: how to open one).
    void setNoTraceMessage(const QString& message) { m_noTraceMessage = message; }
    const core::TraceModel* model() const { return m_model.get(); }
    const timeline::TrackSet* tracks() const { return m_tracks.get(); }

    // --- Track layout: hidden, collapsed and reordered tracks (see core/timeline/TrackLayout.h). ---
    void setTrackLayout(timeline::TrackLayout layout);
    const timeline::TrackLayout& trackLayout() const { return m_layout; }
    // The groups as drawn, in order, with their visible tracks.
    const std::vector<timeline::TrackGroupView>& trackGroups() const { return m_groups; }
    // Tracks with painted rows, in display order (collapsed groups and hidden tracks left out).
    std::vector<std::size_t> displayedTracks() const;
    // The track whose label or rows are under `pos` (-1 when none) and the group whose header is.
    int trackAt(QPoint pos) const;
    int groupHeaderAt(QPoint pos) const;  // index into trackGroups(), -1 when none
    // Widget rectangle of a group's header row (for tests); null when the group is unknown.
    QRect groupHeaderRect(int group) const;
    void setGroupCollapsed(int group, bool collapsed);
    void setTrackHidden(std::size_t track, bool hidden);
    void showAllTracks();
    bool moveTrack(std::size_t track, int delta);
    bool moveGroup(int group, int delta);

    // Events outlined while a search is active (only those in view are drawn).
    void setHighlights(std::vector<timeline::EventRef> events);
    const std::vector<timeline::EventRef>& highlights() const { return m_highlights; }

    // --- View: the visible window is [viewStartNs, viewStartNs + plot width * nsPerPixel). ---
    core::TimeRange visibleRange() const;
    double nsPerPixel() const { return m_nsPerPixel; }
    // Shows `range` across the plot (with a small margin when `margin` is set).
    void showRange(core::TimeRange range, bool margin = false);
    void showAll();
    // Zooms by `factor` (> 1 zooms in) keeping the time under plot x `anchorX` fixed.
    void zoomBy(double factor, double anchorX);
    // Pans by a fraction of the plot width (positive = later).
    void panByFraction(double fraction);
    void zoomToSelection();
    // Zooms to the step after (+1) or before (-1) the one at the view centre; false when none.
    bool zoomToStep(int direction);

    // --- Selection ---
    timeline::EventRef selectedEvent() const { return m_selected; }
    // Selects `ref` (invalid clears); with `reveal`, zooms/scrolls so it is visible.
    void selectEvent(timeline::EventRef ref, bool reveal = false);
    std::optional<core::TimeRange> rangeSelection() const { return m_rangeSelection; }
    // True while a Shift+drag is drawing the range selection (the mouse button is still down).
    bool isSelectingRange() const { return m_drag == Drag::Select; }
    void setRangeSelection(std::optional<core::TimeRange> range);
    // A remembered range (range A of a comparison), drawn as a marked band behind the selection.
    std::optional<core::TimeRange> referenceRange() const { return m_referenceRange; }
    void setReferenceRange(std::optional<core::TimeRange> range);

    // Left edge of the plot area (after the track labels) and the top of the first track.
    int plotLeft() const { return m_labelWidth; }
    int plotWidth() const;
    // Height that shows every track without scrolling (ruler and step strip included).
    int fullHeight() const { return tracksTop() + m_contentHeight; }
    int tracksTop() const;
    // x in widget coordinates of time t, and back.
    double xForTime(core::TimestampNs t) const;
    core::TimestampNs timeForX(double x) const;
    // The event under a widget position, if any.
    timeline::EventRef eventAt(QPoint pos) const;
    // The step band of the steps strip under a widget position, if any.
    const StepBand* stepAt(QPoint pos) const;
    // Widget rectangle of the lane row that holds `ref` (invalid when not laid out or scrolled out).
    QRect laneRectOf(timeline::EventRef ref) const;

    // Paint statistics of the last frame (for the benchmark and tests).
    struct FrameStats {
        std::size_t lanesPainted = 0;
        std::size_t itemsPainted = 0;
        std::size_t foldedItems = 0;
        std::size_t eventsCovered = 0;
    };
    const FrameStats& lastFrameStats() const { return m_frameStats; }

    QSize sizeHint() const override { return {1000, 600}; }

signals:
    void selectionChanged(chokepoint::timeline::EventRef ref);
    void viewChanged(chokepoint::core::TimeRange visible);
    void rangeSelectionChanged();
    // The user hid, collapsed, expanded or moved a track or group.
    void trackLayoutChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct LaneGeometry {
        int y = 0;  // relative to the top of the track area, before scrolling
        int height = 0;
    };
    struct TrackGeometry {
        int y = 0;
        int height = 0;
        bool groupHeader = false;  // a group title row is drawn above this track
        int idleStripY = -1;       // per-device idle strip above the first stream of a device
        bool shown = false;        // painted (not hidden, not in a collapsed group)
        int group = -1;            // index into m_groups
        // A collapsed group's header carrier: its one summary row merges these tracks' GPU work.
        std::vector<std::size_t> summaryTracks;
        std::vector<LaneGeometry> lanes;
    };

    void rebuildLayout();
    void clampView();
    void updateScrollBar();
    void emitViewChanged();
    void paintRuler(QPainter& p, const QRect& rect);
    void paintSteps(QPainter& p, const QRect& plot);
    void paintTrack(QPainter& p, std::size_t trackIndex, int top, const QRect& plot);
    void paintLane(QPainter& p, const timeline::Lane& lane, const QRect& rowRect, const QRect& plot);
    void paintCounter(QPainter& p, const timeline::Track& track, const QRect& rowRect, const QRect& plot);
    void paintIdleStrip(QPainter& p, int deviceIndex, const QRect& rowRect, const QRect& plot);
    // The stream's syncs (sorted by start) as a band along the bottom of its track.
    void paintStreamSyncs(QPainter& p, const std::vector<core::TimeRange>& syncs, const QRect& band,
                          const QRect& plot);
    void paintSelection(QPainter& p, const QRect& plot);
    void paintFlowArrows(QPainter& p, const QRect& plot);
    void paintHighlights(QPainter& p, const QRect& plot);
    void layoutEdited();
    void computeFlows();
    QRect eventRect(const timeline::EventLocation& where) const;
    QString tooltipAt(QPoint pos) const;
    // The text on an event's block: a kernel's short name, else the event's name.
    QString eventLabel(timeline::EventRef ref) const;

    std::shared_ptr<const core::TraceModel> m_model;
    std::shared_ptr<const timeline::TrackSet> m_tracks;
    // Per track (same index): the syncs that wait on that GPU stream, drawn as a band under it.
    std::vector<std::vector<core::TimeRange>> m_streamSyncs;
    TimelineOverlays m_overlays;
    std::vector<TrackGeometry> m_geometry;  // by track index
    timeline::TrackLayout m_layout;
    std::vector<timeline::TrackGroupView> m_groups;
    std::vector<timeline::EventRef> m_highlights;
    int m_contentHeight = 0;
    QString m_noTraceMessage;

    core::TimestampNs m_viewStartNs = 0;
    double m_nsPerPixel = 1.0;
    // Kernel short names by name id, for the labels on the blocks (eventLabel).
    mutable std::unordered_map<std::uint32_t, QString> m_shortKernelNames;
    double m_wheelScrollRemainderPx = 0;  // vertical scroll not applied yet (fractional wheel deltas)
    int m_scrollY = 0;
    int m_labelWidth = 230;

    timeline::EventRef m_selected;
    std::optional<core::TimeRange> m_rangeSelection;
    std::optional<core::TimeRange> m_referenceRange;

    // Mouse interaction state.
    // Reorder: a track label or group header dragged in the label column onto another one of the
    // same kind (a track within its group, a group among groups).
    enum class Drag { None, Pan, Select, Reorder };
    Drag m_drag = Drag::None;
    int m_reorderTrack = -1;  // the dragged track, or -1 when a group header is dragged
    int m_reorderGroup = -1;  // the dragged group (header drag), or -1
    // Where a Reorder drag would drop: the track or group under the cursor (-1: nowhere valid).
    int reorderTargetAt(QPoint pos) const;
    void finishReorder(QPoint pos);
    QPoint m_pressPos;
    QPoint m_lastPos;
    bool m_moved = false;
    core::TimestampNs m_selectAnchorNs = 0;

    // Launch call -> GPU work pairs drawn as arrows for the selection (computed on selection).
    std::vector<std::pair<timeline::EventRef, timeline::EventRef>> m_flows;

    QScrollBar* m_scrollBar = nullptr;
    mutable std::vector<timeline::DrawItem> m_items;  // reused per lane while painting
    FrameStats m_frameStats;
};

}  // namespace chokepoint::ui
