#include "ui/models/TopKernelsModel.h"

#include <cmath>
#include <unordered_map>

#include "core/base/Format.h"
#include "ui/models/ModelRoles.h"

namespace chokepoint::ui {
namespace {

QString duration(double ns) {
    return QString::fromStdString(core::formatDuration(static_cast<core::DurationNs>(std::llround(ns))));
}

QVariant rightAligned() {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
}

}  // namespace

TopKernelsModel::TopKernelsModel(QObject* parent) : QAbstractTableModel(parent) {}

void TopKernelsModel::setReport(std::shared_ptr<const analysis::AnalysisReport> report,
                                const core::TraceModel* model) {
    beginResetModel();
    m_report = std::move(report);
    m_longest.clear();
    if (m_report) {
        std::unordered_map<std::string_view, core::KernelId> longestByName;
        if (model != nullptr) {
            for (const analysis::KernelStatsRow& row : m_report->metrics.kernels.kernels) {
                longestByName.emplace(model->text(row.name), row.longest);
            }
        }
        for (const analysis::TopKernel& k : m_report->topKernels) {
            const auto it = longestByName.find(k.name);
            m_longest.push_back(it != longestByName.end() ? it->second : core::KernelId{});
        }
    }
    endResetModel();
}

core::KernelId TopKernelsModel::kernelAt(int row) const {
    return row >= 0 && row < static_cast<int>(m_longest.size()) ? m_longest[static_cast<std::size_t>(row)]
                                                                : core::KernelId{};
}

int TopKernelsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_report ? 0 : static_cast<int>(m_report->topKernels.size());
}

int TopKernelsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : NumColumns;
}

QVariant TopKernelsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const analysis::TopKernel& k = m_report->topKernels[static_cast<std::size_t>(index.row())];
    if (role == Qt::DisplayRole || (role == Qt::ToolTipRole && index.column() == NameColumn)) {
        switch (index.column()) {
            case NameColumn:
                return QString::fromStdString(k.name);
            case ClassColumn:
                return QString::fromUtf8(analysis::toString(k.kernelClass));
            case CallsColumn:
                return QString::fromStdString(core::formatCount(k.count));
            case TotalColumn:
                return duration(k.totalNs);
            case MeanColumn:
                return duration(k.meanNs);
            case ShareColumn:
                return QString::fromStdString(core::formatPercent(k.shareOfKernelTime));
            case TensorCoreColumn:
                return k.tensorCore ? tr("yes") : tr("no");
        }
    }
    if (role == SortRole) {
        switch (index.column()) {
            case CallsColumn:
                return static_cast<qlonglong>(k.count);
            case TotalColumn:
                return k.totalNs;
            case MeanColumn:
                return k.meanNs;
            case ShareColumn:
                return k.shareOfKernelTime;
            default:
                return data(index, Qt::DisplayRole);
        }
    }
    if (role == KernelRowRole) {
        const core::KernelId id = kernelAt(index.row());
        return id.valid() ? static_cast<qlonglong>(id.index) : qlonglong{-1};
    }
    if (role == Qt::TextAlignmentRole && index.column() >= CallsColumn && index.column() <= ShareColumn) {
        return rightAligned();
    }
    return {};
}

QVariant TopKernelsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
        case NameColumn:
            return tr("Kernel");
        case ClassColumn:
            return tr("Class");
        case CallsColumn:
            return tr("Calls");
        case TotalColumn:
            return tr("Total");
        case MeanColumn:
            return tr("Mean");
        case ShareColumn:
            return tr("Share");
        case TensorCoreColumn:
            return tr("Tensor cores");
    }
    return {};
}

TopOpsModel::TopOpsModel(QObject* parent) : QAbstractTableModel(parent) {}

void TopOpsModel::setReport(std::shared_ptr<const analysis::AnalysisReport> report,
                            std::shared_ptr<const core::TraceModel> model, int maxRows) {
    beginResetModel();
    m_report = std::move(report);
    m_model = std::move(model);
    m_rows = m_report ? std::min(maxRows, static_cast<int>(m_report->metrics.kernels.ops.size())) : 0;
    endResetModel();
}

int TopOpsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : m_rows;
}

int TopOpsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : NumColumns;
}

QVariant TopOpsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const analysis::OpStatsRow& op = m_report->metrics.kernels.ops[static_cast<std::size_t>(index.row())];
    if (role == Qt::DisplayRole || (role == Qt::ToolTipRole && index.column() == NameColumn)) {
        switch (index.column()) {
            case NameColumn:
                return m_model ? QString::fromUtf8(m_model->text(op.name)) : QStringLiteral("?");
            case CallsColumn:
                return QString::fromStdString(core::formatCount(op.count));
            case KernelsColumn:
                return QString::fromStdString(core::formatCount(op.kernelCount));
            case GpuTimeColumn:
                return duration(static_cast<double>(op.gpuTimeNs));
            case MeanColumn:
                return duration(static_cast<double>(op.meanGpuTimeNs));
            case ShareColumn:
                return QString::fromStdString(core::formatPercent(op.shareOfKernelTime));
            case ClassColumn:
                return QString::fromUtf8(analysis::toString(op.kernelClass));
        }
    }
    if (role == SortRole) {
        switch (index.column()) {
            case CallsColumn:
                return static_cast<qlonglong>(op.count);
            case KernelsColumn:
                return static_cast<qlonglong>(op.kernelCount);
            case GpuTimeColumn:
                return static_cast<qlonglong>(op.gpuTimeNs);
            case MeanColumn:
                return static_cast<qlonglong>(op.meanGpuTimeNs);
            case ShareColumn:
                return op.shareOfKernelTime;
            default:
                return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() >= CallsColumn && index.column() <= ShareColumn) {
        return rightAligned();
    }
    return {};
}

QVariant TopOpsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
        case NameColumn:
            return tr("Op");
        case CallsColumn:
            return tr("Calls");
        case KernelsColumn:
            return tr("Kernels");
        case GpuTimeColumn:
            return tr("GPU time");
        case MeanColumn:
            return tr("Mean / call");
        case ShareColumn:
            return tr("Share");
        case ClassColumn:
            return tr("Class");
    }
    return {};
}

}  // namespace chokepoint::ui
