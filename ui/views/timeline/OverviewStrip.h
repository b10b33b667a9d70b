#pragma once
// OverviewStrip: a thin bar above the timeline showing the whole trace: GPU busy share (top row)
// and host busy share (bottom row) per pixel column, from core's computeOverview(), with the
// timeline's visible window drawn as a rectangle. Click or drag to move the view there; the wheel
// zooms the view around that point. Colours come from the widget's palette.

#include <QWidget>
#include <memory>

#include "core/timeline/Overview.h"

namespace chokepoint::ui {

class OverviewStrip : public QWidget {
    Q_OBJECT
public:
    explicit OverviewStrip(QWidget* parent = nullptr);

    // The tracks to summarise (null: an empty strip). Recomputed when the width changes.
    void setTracks(std::shared_ptr<const timeline::TrackSet> tracks);
    // The timeline's visible window, drawn as a rectangle.
    void setView(core::TimeRange view);
    core::TimeRange view() const { return m_view; }
    // Lines the bar up with the timeline's plot: `left` pixels of label column, `right` at the end.
    void setPlotMargins(int left, int right);
    const timeline::Overview& overview() const { return m_overview; }
    // The trace time at widget x, and back.
    core::TimestampNs timeForX(double x) const;
    double xForTime(core::TimestampNs t) const;

    QSize sizeHint() const override { return {600, 30}; }
    QSize minimumSizeHint() const override { return {100, 30}; }

signals:
    // The user asked to centre the view on `centreNs` (click or drag).
    void centreRequested(chokepoint::core::TimestampNs centreNs);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    void recompute();
    QRect barRect() const;

    std::shared_ptr<const timeline::TrackSet> m_tracks;
    timeline::Overview m_overview;
    core::TimeRange m_view;
    int m_leftMargin = 2;
    int m_rightMargin = 2;
};

}  // namespace chokepoint::ui
