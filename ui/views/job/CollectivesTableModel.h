#pragma once
// CollectivesTableModel: the job's collectives by kind and message size (JobReport::
// collectiveStats): how many, the ranks' arrival skew (p50, p95), the time ranks spent waiting for
// the last arriver, the bus bandwidth reached and the link's peak. Display text from core's
// formatting helpers; SortRole carries the raw number.

#include <QAbstractTableModel>
#include <memory>

#include "core/job/JobReport.h"

namespace chokepoint::ui {

class CollectivesTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column : int {
        KindColumn = 0,
        SizeColumn,
        RanksColumn,
        CountColumn,
        SkewP50Column,
        SkewP95Column,
        WaitColumn,
        TransferColumn,
        BusBandwidthColumn,
        LinkColumn,
        LinkShareColumn,
        NumColumns
    };

    using QAbstractTableModel::QAbstractTableModel;

    void setReport(std::shared_ptr<const job::JobReport> report);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const job::JobReport> m_report;
};

}  // namespace chokepoint::ui
