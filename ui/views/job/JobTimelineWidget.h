#pragma once
// JobTimelineWidget: the job on one clock. One lane per loaded rank (by rank number) on the job
// clock (each rank's own times minus its clock offset), showing its steps as bands and its
// collective kernels coloured by kind, the part spent waiting for the last arriver hatched.
// Selecting a collective kernel selects the matched instance across ranks: a line joins its
// arrivals lane to lane and the last arriver is marked. Painted with QPainter over the visible
// lanes and time range only (sub-pixel kernels merged), so a 1,024-rank job scrolls smoothly.
// Wheel: zoom; Shift+wheel or wheel over the rank labels: scroll lanes; drag: pan; click: select;
// double-click a rank label: open that rank.

#include <QWidget>
#include <string>
#include <utility>
#include <vector>

#include "core/base/Time.h"
#include "core/job/JobReport.h"

class QScrollBar;

namespace chokepoint::ui {

class JobDocument;

class JobTimelineWidget : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMinLanePx = 10;
    static constexpr int kMaxLanePx = 30;

    explicit JobTimelineWidget(QWidget* parent = nullptr);

    void setDocument(JobDocument* document);

    // The visible time range on the job clock.
    core::TimeRange visibleRange() const;
    void setVisibleRange(core::TimeRange range);
    // The whole job: the union of the ranks' trace windows on the job clock.
    core::TimeRange fullRange() const { return m_full; }
    void showAll();
    // Shows `range` with a margin and scrolls `rank`'s lane into view.
    void showRange(core::TimeRange range, int rank);
    // Scrolls the lanes so that `rank`'s lane is visible.
    void ensureRankVisible(int rank);

    // Geometry (viewport coordinates), for hit testing and tests.
    int laneHeight() const;
    int laneAt(int y) const;  // index in the report's ranks, -1 outside
    int laneTop(int rankIndex) const;
    double xOf(core::TimestampNs jobNs) const;
    // The collective under `pos`: (rank index, index in that rank's collectives), or (-1, -1).
    std::pair<int, int> collectiveAt(QPoint pos) const;

    QSize sizeHint() const override { return {900, 300}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;

private:
    void rebuild();
    void updateScrollBar();
    QRect plotRect() const;
    int lanesHeight() const;  // the lanes' area between the time axis and the legend
    double nsAt(double x) const;
    void zoomAround(double factor, double x);
    void paintAxis(QPainter& p, const QRect& plot);
    void paintLane(QPainter& p, const QRect& plot, int rankIndex, int top, int height);
    void paintInstance(QPainter& p, const QRect& plot);
    void paintLegend(QPainter& p, const job::JobReport& report);

    JobDocument* m_document = nullptr;
    QScrollBar* m_lanes = nullptr;
    core::TimeRange m_full;
    std::vector<std::string> m_kinds;  // collective kinds on the lanes, for the legend
    double m_startNs = 0;
    double m_endNs = 1;
    QPoint m_pressPos;
    double m_pressStartNs = 0;
    int m_pressScroll = 0;
    bool m_dragging = false;
};

}  // namespace chokepoint::ui
