#pragma once
// TopKernelsModel: the report's top kernels by total GPU time (AnalysisReport::topKernels, names
// already resolved). Columns: kernel, class, calls, total, mean, share of kernel time, tensor core.
// KernelRowRole gives the longest instance's row in the model (for "select on the timeline") when
// the trace model is available, else -1.

#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "ui/models/AnalysisReportQt.h"

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

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const analysis::AnalysisReport> m_report;
    std::vector<core::KernelId> m_longest;  // per row
};

// TopOpsModel: CPU ops by the GPU time of the kernels they launched (metrics.kernels.ops).
// Columns: op, calls, kernels, GPU time, mean per call, share, dominant class. Needs the trace model
// for names (rows show "?" without it).
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

    // Shows at most `maxRows` ops (the table in the report is sorted by GPU time).
    void setReport(std::shared_ptr<const analysis::AnalysisReport> report,
                   std::shared_ptr<const core::TraceModel> model, int maxRows = 50);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const analysis::AnalysisReport> m_report;
    std::shared_ptr<const core::TraceModel> m_model;
    int m_rows = 0;
};

}  // namespace chokepoint::ui
