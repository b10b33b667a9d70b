#include "ui/base/models/TopKernelsModel.h"

#include <cmath>
#include <unordered_map>

#include "core/base/Format.h"
#include "core/base/KernelName.h"
#include "ui/base/models/ModelRoles.h"

namespace chokepoint::ui {
namespace {

QString duration(double ns) {
    return QString::fromStdString(core::formatDuration(static_cast<core::DurationNs>(std::llround(ns))));
}

QVariant rightAligned() {
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
}

// A tooltip shows one line per paragraph: a kernel's full name (hundreds of characters) is broken
// after the commas of its argument lists so that it fits on the screen.
QString wrappedName(const QString& name) {
    constexpr int kLineChars = 100;
    QString out;
    int lineLength = 0;
    for (const QChar c : name) {
        out += c;
        ++lineLength;
        if (c == QLatin1Char(',') && lineLength >= kLineChars) {
            out += QLatin1Char('\n');
            lineLength = 0;
        }
    }
    return out;
}

}  // namespace

TopKernelsModel::TopKernelsModel(QObject* parent) : QAbstractTableModel(parent) {}

void TopKernelsModel::setReport(std::shared_ptr<const analysis::AnalysisReport> report,
                                const core::TraceModel* model) {
    beginResetModel();
    m_report = std::move(report);
    m_longest.clear();
    m_shortNames.clear();
    if (m_report) {
        std::unordered_map<std::string_view, core::KernelId> longestByName;
        if (model != nullptr) {
            for (const analysis::KernelStatsRow& row : m_report->metrics.kernels.kernels) {
                longestByName.emplace(model->text(row.name), row.longest);
            }
        }
        m_longest.reserve(m_report->kernelsByName.size());
        m_shortNames.reserve(m_report->kernelsByName.size());
        for (const analysis::TopKernel& k : m_report->kernelsByName) {
            const auto it = longestByName.find(k.name);
            m_longest.push_back(it != longestByName.end() ? it->second : core::KernelId{});
            m_shortNames.push_back(QString::fromStdString(core::shortKernelName(k.name)));
        }
    }
    endResetModel();
}

core::KernelId TopKernelsModel::kernelAt(int row) const {
    return row >= 0 && row < static_cast<int>(m_longest.size()) ? m_longest[static_cast<std::size_t>(row)]
                                                                : core::KernelId{};
}

QString TopKernelsModel::fullNameAt(int row) const {
    return m_report && row >= 0 && row < static_cast<int>(m_report->kernelsByName.size())
               ? QString::fromStdString(m_report->kernelsByName[static_cast<std::size_t>(row)].name)
               : QString();
}

int TopKernelsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_report ? 0 : static_cast<int>(m_report->kernelsByName.size());
}

int TopKernelsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : NumColumns;
}

QVariant TopKernelsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const auto row = static_cast<std::size_t>(index.row());
    const analysis::TopKernel& k = m_report->kernelsByName[row];
    if (index.column() == NameColumn && (role == Qt::ToolTipRole || role == FullTextRole)) {
        const QString full = QString::fromStdString(k.name);
        return role == FullTextRole ? full : wrappedName(full);
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case NameColumn:
                return m_shortNames[row];
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

void TopOpsModel::setReport(std::shared_ptr<const analysis::AnalysisReport> report) {
    beginResetModel();
    m_report = std::move(report);
    endResetModel();
}

int TopOpsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_report ? 0 : static_cast<int>(m_report->opsByGpuTime.size());
}

int TopOpsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : NumColumns;
}

QVariant TopOpsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const analysis::TopOp& op = m_report->opsByGpuTime[static_cast<std::size_t>(index.row())];
    if (index.column() == NameColumn && (role == Qt::ToolTipRole || role == FullTextRole)) {
        return QString::fromStdString(op.name);
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case NameColumn:
                return QString::fromStdString(op.name);
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
