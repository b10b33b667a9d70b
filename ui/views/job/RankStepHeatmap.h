#pragma once
// RankStepHeatmap: one row per rank, one column per step, each cell coloured by a figure of that
// rank in that step (step time, collective wait, or device idle time by cause). Every figure is
// read from the JobReport and its rank summaries; only units change. Painted from one image (one
// pixel per cell, scaled), never a widget per cell: rows get at least kMinRowPx pixels and scroll
// beyond the view, so a 1,024-rank job stays readable and every row stays reachable. Ranks the job
// lacks get a hatched row, one per run of consecutive missing ranks (2 of 128 ranks loaded: three
// rows). Click a row to select its rank, double-click to open it.

#include <QAbstractScrollArea>
#include <QImage>
#include <QString>
#include <cstdint>
#include <vector>

#include "core/job/JobReport.h"

namespace chokepoint::ui {

class JobDocument;

enum class HeatmapMetric : int {
    StepTime = 0,
    CollectiveWait,
    IdleDataWait,
    IdleHostWork,
    IdleSynchronization,
    IdleGarbageCollection,
    IdleUnexplained,
};
inline constexpr int kHeatmapMetricCount = 7;
QString heatmapMetricName(HeatmapMetric metric);

// The cells of the heatmap: plain numbers in ns, NaN where the rank has no such step.
struct HeatmapData {
    std::vector<std::int32_t> rowRank;      // rank number of each row, by rank number
    std::vector<std::int32_t> rowLastRank;  // the last rank of the row: consecutive missing ranks share one
    std::vector<bool> rowMissing;           // the rank(s) are part of the job but were not loaded
    std::vector<std::int64_t> colStep;      // step number of each column
    std::vector<double> valuesNs;           // row-major, rows x columns
    double lowNs = 0;                       // colour scale
    double highNs = 0;
    int rows() const { return static_cast<int>(rowRank.size()); }
    int columns() const { return static_cast<int>(colStep.size()); }
    double value(int row, int column) const {
        return valuesNs[static_cast<std::size_t>(row * columns() + column)];
    }
};
HeatmapData buildHeatmapData(const job::JobReport& report, HeatmapMetric metric);
// The step-time scale spans at least this share of its low end, so ranks within a few percent of
// each other stay pale instead of running pale-to-dark over a 4 % spread (607 to 631 ms).
inline constexpr double kStepTimeMinRelativeSpan = 0.25;
// What a click on the cell (row, column) tells the side panel, as rich text: the rank's figure in
// that step against the median rank's, its collective wait, and who was last at the step's
// collectives. Empty for a missing rank.
QString heatmapCellText(const job::JobReport& report, const HeatmapData& data, HeatmapMetric metric, int row,
                        int column);

class RankStepHeatmap : public QAbstractScrollArea {
    Q_OBJECT
public:
    static constexpr int kMinRowPx = 3;
    static constexpr int kMaxRowPx = 22;

    explicit RankStepHeatmap(QWidget* parent = nullptr);

    void setDocument(JobDocument* document);
    void setMetric(HeatmapMetric metric);
    HeatmapMetric metric() const { return m_metric; }
    const HeatmapData& data() const { return m_data; }

    // Geometry, for tests and hit testing: the row under a viewport y, -1 outside.
    int rowAt(int y) const;
    int columnAt(int x) const;
    int rowHeight() const;
    // Scrolls so that `rank`'s row is visible.
    void ensureRankVisible(int rank);

    QSize sizeHint() const override { return {520, 320}; }

signals:
    void rankClicked(int rank);
    // A click on a cell: its row and column in data().
    void cellClicked(int row, int column);
    void rankActivated(int rank);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool viewportEvent(QEvent* event) override;

private:
    void rebuild();
    void updateScrollBar();
    QRect cellsRect() const;  // in viewport coordinates: the visible cell area
    int rowOfRank(int rank) const;
    QString rowLabel(int row) const;

    JobDocument* m_document = nullptr;
    HeatmapMetric m_metric = HeatmapMetric::StepTime;
    HeatmapData m_data;
    QImage m_image;                 // one pixel per cell
    std::vector<bool> m_straggler;  // per row
};

}  // namespace chokepoint::ui
