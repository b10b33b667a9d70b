#include "ui/views/job/CollectivesTableModel.h"

#include <QBrush>
#include <QColor>

#include "core/base/Format.h"
#include "core/job/JobAnalysis.h"
#include "ui/base/models/ModelRoles.h"
#include "ui/base/theme/ThemeColors.h"

namespace chokepoint::ui {
namespace {

QString text(const std::string& s) {
    return QString::fromStdString(s);
}

QString duration(core::DurationNs ns) {
    return text(core::formatDuration(ns));
}

}  // namespace

void CollectivesTableModel::setReport(std::shared_ptr<const job::JobReport> report) {
    beginResetModel();
    m_report = std::move(report);
    endResetModel();
}

int CollectivesTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_report ? 0 : static_cast<int>(m_report->collectiveStats.size());
}

int CollectivesTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : NumColumns;
}

QVariant CollectivesTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_report) {
        return {};
    }
    const job::CollectiveStats& s = m_report->collectiveStats[static_cast<std::size_t>(index.row())];
    const double share = s.linkBytesPerSecond > 0 && s.busBytesPerSecond > 0
                             ? s.busBytesPerSecond / s.linkBytesPerSecond
                             : -1.0;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case KindColumn:
                return text(s.kind);
            case SizeColumn:
                return s.sizeBytes >= 0 ? text(core::formatBytes(static_cast<double>(s.sizeBytes)))
                                        : tr("unknown");
            case RanksColumn:
                return s.groupSize > 0 ? QString::number(s.groupSize) : tr("unknown");
            case CountColumn:
                return text(core::formatCount(s.count));
            case SkewP50Column:
                return duration(s.p50SkewNs);
            case SkewP95Column:
                return duration(s.p95SkewNs);
            case WaitColumn:
                return duration(s.totalWaitNs);
            case TransferColumn:
                return duration(s.totalTransferNs);
            case BusBandwidthColumn:
                return s.busBytesPerSecond > 0 ? text(core::formatBandwidth(s.busBytesPerSecond))
                                               : tr("unknown");
            case LinkColumn:
                return s.linkBytesPerSecond > 0 ? text(core::formatBandwidth(s.linkBytesPerSecond))
                                                : tr("unknown");
            case LinkShareColumn:
                return share >= 0 ? text(core::formatPercent(share, 0)) : tr("n/a");
            default:
                return {};
        }
    }
    if (role == SortRole) {
        switch (index.column()) {
            case KindColumn:
                return text(s.kind);
            case SizeColumn:
                return static_cast<qlonglong>(s.sizeBytes);
            case RanksColumn:
                return s.groupSize;
            case CountColumn:
                return static_cast<qlonglong>(s.count);
            case SkewP50Column:
                return static_cast<qlonglong>(s.p50SkewNs);
            case SkewP95Column:
                return static_cast<qlonglong>(s.p95SkewNs);
            case WaitColumn:
                return static_cast<qlonglong>(s.totalWaitNs);
            case TransferColumn:
                return static_cast<qlonglong>(s.totalTransferNs);
            case BusBandwidthColumn:
                return s.busBytesPerSecond;
            case LinkColumn:
                return s.linkBytesPerSecond;
            case LinkShareColumn:
                return share;
            default:
                return {};
        }
    }
    if (role == Qt::TextAlignmentRole) {
        return index.column() == KindColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                            : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role == Qt::ForegroundRole && index.column() == LinkShareColumn && share >= 0 &&
        share < job::JobOptions{}.lowBusBandwidthShare) {
        // Far below the link, by the job analysis's own threshold.
        return QBrush(themeColors().error);
    }
    if (role == Qt::ToolTipRole) {
        switch (index.column()) {
            case SkewP50Column:
            case SkewP95Column:
                return tr("Last arrival minus first arrival across the ranks of one call");
            case WaitColumn:
                return tr("Time ranks spent waiting for the last arriver, summed over ranks and calls");
            case TransferColumn:
                return tr("The shared transfer part (the last arriver's duration), summed over calls");
            case BusBandwidthColumn:
                return tr("Median bus bandwidth over calls (algorithm bandwidth × bus factor)");
            case LinkColumn:
                return tr("One-direction peak of the link between the ranks");
            default:
                return {};
        }
    }
    return {};
}

QVariant CollectivesTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (section) {
        case KindColumn:
            return tr("Collective");
        case SizeColumn:
            return tr("Size");
        case RanksColumn:
            return tr("Ranks");
        case CountColumn:
            return tr("Calls");
        case SkewP50Column:
            return tr("Skew p50");
        case SkewP95Column:
            return tr("Skew p95");
        case WaitColumn:
            return tr("Wait");
        case TransferColumn:
            return tr("Transfer");
        case BusBandwidthColumn:
            return tr("Bus bandwidth");
        case LinkColumn:
            return tr("Link peak");
        case LinkShareColumn:
            return tr("Of link");
        default:
            return {};
    }
}

}  // namespace chokepoint::ui
