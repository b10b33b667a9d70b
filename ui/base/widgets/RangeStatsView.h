#pragma once
// RangeStatsView: the statistics of a time range (analysis::RangeStats) as a sortable tree: the
// range, then per GPU busy, idle by cause, kernels by short name, copies and collectives, then the
// CPU ops by name. Or two ranges side by side (A, B, B - A). Sorting a column orders the rows of
// each group (kernels, ops, causes, copies) by that column; the sections keep their order.

#include <QTreeWidget>

#include "core/analysis/metrics/RangeStats.h"
#include "core/analysis/metrics/RangeStatsText.h"

namespace chokepoint::ui {

class RangeStatsView : public QTreeWidget {
    Q_OBJECT
public:
    // The role holding a cell's numeric value (ns, fraction, count) for sorting.
    static constexpr int SortRole = Qt::UserRole + 1;
    // Set on rows that keep their place when sorting (sections and fixed figures).
    static constexpr int FixedOrderRole = Qt::UserRole + 2;

    explicit RangeStatsView(QWidget* parent = nullptr);

    // Shows `stats`; times are shown relative to `originNs` (the trace start).
    void setStats(const analysis::RangeStats& stats, const core::TraceModel& model,
                  core::TimestampNs originNs);
    // Shows range A and range B side by side with the difference.
    void setComparison(const std::vector<analysis::RangeComparisonRow>& rows);
    void clearStats();

    // The first top-level or nested row whose first column is `text` (tests, navigation); null when none.
    QTreeWidgetItem* findRow(const QString& text) const;
    // The narrowest the name column gets: its section labels ("Range", "GPU 0", "CPU ops · N names")
    // stay whole; a narrower panel scrolls sideways instead of cutting them to "Ra…".
    int minimumNameWidth() const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    // Column 0 takes the room the value columns leave, but never less than minimumNameWidth().
    void fitNameColumn();
};

}  // namespace chokepoint::ui
