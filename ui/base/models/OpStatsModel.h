#pragma once
// OpStatsModel: the full Ops table (calltree::buildOpStats), one row per op name (or name +
// input shapes). Columns: op, input shapes, kind, calls, self CPU, total CPU, mean CPU per call,
// GPU time launched. SortRole gives raw numbers; a QSortFilterProxyModel filters on the name.

#include <QAbstractTableModel>
#include <memory>

#include "core/calltree/OpStats.h"
#include "core/model/TraceModel.h"

namespace chokepoint::ui {

class OpStatsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn = 0,
        ShapesColumn,
        KindColumn,
        CallsColumn,
        SelfColumn,
        TotalColumn,
        MeanColumn,
        GpuColumn,
        NumColumns
    };

    explicit OpStatsModel(QObject* parent = nullptr);

    // `model` may be null (empty table); the trace model is kept alive for names.
    void setTable(calltree::OpStatsTable table, std::shared_ptr<const core::TraceModel> model);
    const calltree::OpStatsTable& table() const { return m_table; }
    // Row `row`'s longest call (its op row in the trace model), invalid when none.
    core::CpuOpId longestOpAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    calltree::OpStatsTable m_table;
    std::shared_ptr<const core::TraceModel> m_model;
};

}  // namespace chokepoint::ui
