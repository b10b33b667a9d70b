#include "ui/base/models/OpStatsModel.h"

#include "core/base/Format.h"
#include "ui/base/models/ModelRoles.h"

namespace chokepoint::ui {

namespace {

QString durationText(core::DurationNs ns) {
    return QString::fromStdString(core::formatDuration(ns));
}

}  // namespace

OpStatsModel::OpStatsModel(QObject* parent) : QAbstractTableModel(parent) {}

void OpStatsModel::setTable(calltree::OpStatsTable table, std::shared_ptr<const core::TraceModel> model) {
    beginResetModel();
    m_model = std::move(model);
    m_table = m_model ? std::move(table) : calltree::OpStatsTable{};
    endResetModel();
}

core::CpuOpId OpStatsModel::longestOpAt(int row) const {
    if (row < 0 || row >= rowCount()) {
        return {};
    }
    return m_table.rows[static_cast<std::size_t>(row)].longestOp;
}

int OpStatsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_table.rows.size());
}

int OpStatsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : NumColumns;
}

QVariant OpStatsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !m_model || index.row() >= rowCount()) {
        return {};
    }
    const calltree::OpStatsRow& row = m_table.rows[static_cast<std::size_t>(index.row())];
    const QString name = QString::fromUtf8(m_model->text(row.name));
    const QString shapes =
        row.inputShapes.valid() ? QString::fromUtf8(m_model->text(row.inputShapes)) : QString();
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case NameColumn:
                return name;
            case ShapesColumn:
                return shapes;
            case KindColumn:
                return row.category == core::CpuOpCategory::PythonFunction ? tr("python") : tr("op");
            case CallsColumn:
                return QString::fromStdString(core::formatCount(row.calls));
            case SelfColumn:
                return durationText(row.selfNs);
            case TotalColumn:
                return durationText(row.totalNs);
            case MeanColumn:
                return durationText(row.meanTotalNs());
            case GpuColumn:
                return row.gpuNs > 0 ? durationText(row.gpuNs) : QString();
            default:
                return {};
        }
    }
    if (role == SortRole) {
        switch (index.column()) {
            case NameColumn:
                return name;
            case ShapesColumn:
                return shapes;
            case KindColumn:
                return static_cast<int>(row.category);
            case CallsColumn:
                return static_cast<qint64>(row.calls);
            case SelfColumn:
                return static_cast<qint64>(row.selfNs);
            case TotalColumn:
                return static_cast<qint64>(row.totalNs);
            case MeanColumn:
                return static_cast<qint64>(row.meanTotalNs());
            case GpuColumn:
                return static_cast<qint64>(row.gpuNs);
            default:
                return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        return tr("%1%2\n%3 calls · self %4 · total %5 · GPU launched %6 (directly %7) · longest call %8")
            .arg(name, shapes.isEmpty() ? QString() : QStringLiteral("\n") + shapes,
                 QString::fromStdString(core::formatCount(row.calls)), durationText(row.selfNs),
                 durationText(row.totalNs), durationText(row.gpuNs), durationText(row.gpuSelfNs),
                 durationText(row.longestNs));
    }
    if (role == Qt::TextAlignmentRole && index.column() >= CallsColumn) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role == TimeRangeStartRole && row.longestOp.valid()) {
        return static_cast<qint64>(m_model->cpuOps.startNs[row.longestOp.index]);
    }
    if (role == TimeRangeEndRole && row.longestOp.valid()) {
        return static_cast<qint64>(m_model->cpuOps.endNs[row.longestOp.index]);
    }
    return {};
}

QVariant OpStatsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) {
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (section) {
            case NameColumn:
                return tr("Op");
            case ShapesColumn:
                return tr("Input shapes");
            case KindColumn:
                return tr("Kind");
            case CallsColumn:
                return tr("Calls");
            case SelfColumn:
                return tr("Self CPU");
            case TotalColumn:
                return tr("Total CPU");
            case MeanColumn:
                return tr("Mean CPU");
            case GpuColumn:
                return tr("GPU launched");
            default:
                return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case SelfColumn:
                return tr("CPU time in the op itself, not in the ops it called");
            case TotalColumn:
                return tr("CPU time from the op's start to its end, summed over calls");
            case MeanColumn:
                return tr("Total CPU time per call");
            case GpuColumn:
                return tr("GPU kernel time launched by the op and the ops it called");
            default:
                return {};
        }
    }
    return {};
}

}  // namespace chokepoint::ui
