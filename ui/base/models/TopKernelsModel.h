#pragma once
// TopKernelsModel: every kernel of the report by total GPU time (AnalysisReport::kernelsByName,
// names already resolved), not a top N. Columns: kernel, class, calls, total, mean, share of kernel
// time, tensor core. The kernel column shows the short name (core::shortKernelName); its tooltip
// and FullTextRole give the full name. KernelRowRole gives the longest instance's row in the model
// (for "select on the timeline") when the trace model is available, else -1.

#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "ui/base/document/AnalysisReportQt.h"

namespace chokepoint::ui {

class TopKernelsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn = 0,
        ClassColumn,
        CallsColumn,
        TotalColumn,
        MeanColumn,
        ShareColumn,
        TensorCoreColumn,
        NumColumns
    };

    explicit TopKernelsModel(QObject* parent = nullptr);

    // `model` may be null (no kernel rows then); the report is kept alive by the model.
    void setReport(std::shared_ptr<const analysis::AnalysisReport> report, const core::TraceModel* model);
    // Longest instance of row `row`'s kernel, invalid when unknown.
    core::KernelId kernelAt(int row) const;
    // Row `row`'s full kernel name, empty when out of range.
    QString fullNameAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const analysis::AnalysisReport> m_report;
    std::vector<core::KernelId> m_longest;  // per row
    std::vector<QString> m_shortNames;      // per row
};

// TopOpsModel: every CPU op that launched GPU work, by the GPU time of the kernels it launched
// (AnalysisReport::opsByGpuTime), not a top N. Columns: op, calls, kernels, GPU time, mean per call,
// share, dominant class.
class TopOpsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn = 0,
        CallsColumn,
        KernelsColumn,
        GpuTimeColumn,
        MeanColumn,
        ShareColumn,
        ClassColumn,
        NumColumns
    };

    explicit TopOpsModel(QObject* parent = nullptr);

    void setReport(std::shared_ptr<const analysis::AnalysisReport> report);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const analysis::AnalysisReport> m_report;
};

}  // namespace chokepoint::ui
