#include "ui/base/models/TraceStatsModel.h"

#include <QBrush>
#include <QColor>
#include <algorithm>

#include "core/base/Format.h"
#include "ui/base/models/ModelRoles.h"
#include "ui/base/theme/ThemeColors.h"

namespace chokepoint::ui {

TraceStatsModel::TraceStatsModel(QObject* parent) : QAbstractTableModel(parent) {}

void TraceStatsModel::setStats(const core::TraceStats& stats) {
    beginResetModel();
    m_entries = stats.entries();
    std::stable_sort(
        m_entries.begin(), m_entries.end(),
        [](const core::TraceStat& a, const core::TraceStat& b) { return a.severity > b.severity; });
    endResetModel();
}

int TraceStatsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

int TraceStatsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : NumColumns;
}

QVariant TraceStatsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const core::TraceStat& e = m_entries[static_cast<std::size_t>(index.row())];
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
            case SeverityColumn:
                return QString::fromUtf8(core::toString(e.severity));
            case NameColumn:
                return QString::fromStdString(e.name);
            case CountColumn:
                return QString::fromStdString(core::formatCount(e.count));
            case DetailColumn:
                return QString::fromStdString(e.detail);
        }
    }
    if (role == SortRole) {
        switch (index.column()) {
            case SeverityColumn:
                return static_cast<int>(e.severity);
            case CountColumn:
                return static_cast<qlonglong>(e.count);
            default:
                return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::ForegroundRole && index.column() == SeverityColumn) {
        const ThemeColors colors = themeColors();  // the application palette, read when drawn
        switch (e.severity) {
            case core::Severity::Info:
                return QBrush(colors.mutedText);
            case core::Severity::Warning:
                return QBrush(colors.warning);
            case core::Severity::DataLoss:
            case core::Severity::Error:
                return QBrush(colors.error);
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() == CountColumn) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant TraceStatsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
        case SeverityColumn:
            return tr("Severity");
        case NameColumn:
            return tr("Diagnostic");
        case CountColumn:
            return tr("Count");
        case DetailColumn:
            return tr("Detail");
    }
    return {};
}

}  // namespace chokepoint::ui
