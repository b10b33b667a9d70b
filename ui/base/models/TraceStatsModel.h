#pragma once
// TraceStatsModel: the trace's diagnostics (core::TraceStats: repaired or dropped data, unmatched
// correlations) as a table, most severe first. Columns: severity, name, count, detail.

#include <QAbstractTableModel>
#include <vector>

#include "core/model/TraceStats.h"

namespace chokepoint::ui {

class TraceStatsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { SeverityColumn = 0, NameColumn, CountColumn, DetailColumn, NumColumns };

    explicit TraceStatsModel(QObject* parent = nullptr);

    // Copies the entries (a few dozen at most).
    void setStats(const core::TraceStats& stats);
    const core::TraceStat& entry(int row) const { return m_entries[static_cast<std::size_t>(row)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<core::TraceStat> m_entries;
};

}  // namespace chokepoint::ui
