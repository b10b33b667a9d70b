#include "ui/views/timeline/SearchResultsModel.h"

#include "core/base/Format.h"
#include "core/base/KernelName.h"
#include "ui/base/models/ModelRoles.h"

namespace chokepoint::ui {

SearchResultsModel::SearchResultsModel(QObject* parent) : QAbstractTableModel(parent) {}

void SearchResultsModel::setResults(std::shared_ptr<const core::TraceModel> model,
                                    std::shared_ptr<const timeline::TrackSet> tracks,
                                    timeline::SearchResults results) {
    beginResetModel();
    m_model = std::move(model);
    m_tracks = std::move(tracks);
    m_results = std::move(results);
    endResetModel();
}

timeline::EventRef SearchResultsModel::refAt(int row) const {
    if (row < 0 || static_cast<std::size_t>(row) >= m_results.size()) {
        return {};
    }
    return m_results[static_cast<std::size_t>(row)].ref;
}

int SearchResultsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_model || !m_tracks ? 0 : static_cast<int>(m_results.size());
}

int SearchResultsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SearchResultsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() ||
        (role != Qt::DisplayRole && role != Qt::ToolTipRole && role != FullTextRole)) {
        return {};
    }
    const timeline::SearchRow row =
        timeline::searchRow(*m_model, *m_tracks, m_results[static_cast<std::size_t>(index.row())]);
    switch (index.column()) {
        case NameColumn: {
            const QString full = QString::fromStdString(row.name);
            if (role != Qt::DisplayRole) {
                return full;
            }
            return refAt(index.row()).kind == timeline::EventKind::Kernel
                       ? QString::fromStdString(core::shortKernelName(row.name))
                       : full;
        }
        case TrackColumn:
            return QString::fromStdString(row.track);
        case StartColumn:
            return QString::fromStdString(core::formatDuration(row.startFromTraceNs));
        case DurationColumn:
            return QString::fromStdString(core::formatDuration(row.durationNs));
        default:
            return {};
    }
}

QVariant SearchResultsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (section) {
        case NameColumn:
            return tr("Name");
        case TrackColumn:
            return tr("Track");
        case StartColumn:
            return tr("Start");
        case DurationColumn:
            return tr("Duration");
        default:
            return {};
    }
}

}  // namespace chokepoint::ui
