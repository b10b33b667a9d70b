#pragma once
// SearchResultsModel: the matches of the timeline search as a table (name, track, start from the
// trace start, duration), in result order. Rows are described on demand (core searchRow), so a
// search with a million matches fills the list at once.

#include <QAbstractTableModel>
#include <memory>

#include "core/timeline/SearchRows.h"

namespace chokepoint::ui {

class SearchResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, TrackColumn, StartColumn, DurationColumn, ColumnCount };

    explicit SearchResultsModel(QObject* parent = nullptr);

    void setResults(std::shared_ptr<const core::TraceModel> model,
                    std::shared_ptr<const timeline::TrackSet> tracks, timeline::SearchResults results);
    const timeline::SearchResults& results() const { return m_results; }
    timeline::EventRef refAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const core::TraceModel> m_model;
    std::shared_ptr<const timeline::TrackSet> m_tracks;
    timeline::SearchResults m_results;
};

}  // namespace chokepoint::ui
