#pragma once
// BookmarksModel: the review's bookmarks (core::ReviewNotes) as a table in timeline order.
// Columns: start (relative to the trace start), duration, kind, title, note. Title and note are
// editable in place; every change (edit, add, remove) emits notesChanged so the owner can save the
// sidecar. The model owns its ReviewNotes copy.

#include <QAbstractTableModel>

#include "core/review/ReviewNotes.h"

namespace chokepoint::ui {

class BookmarksModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { StartColumn = 0, DurationColumn, KindColumn, TitleColumn, NoteColumn, NumColumns };

    explicit BookmarksModel(QObject* parent = nullptr);

    void setNotes(core::ReviewNotes notes);
    const core::ReviewNotes& notes() const { return m_notes; }
    // Times are shown relative to this (the trace's first event), in ns.
    void setTraceStartNs(core::TimestampNs startNs);

    std::uint64_t addBookmark(core::Bookmark bookmark);
    bool removeBookmark(std::uint64_t id);
    bool updateBookmark(const core::Bookmark& bookmark);
    // Row of bookmark `id`, or -1.
    int rowOf(std::uint64_t id) const;
    const core::Bookmark& bookmarkAt(int row) const {
        return m_notes.bookmarks()[static_cast<std::size_t>(row)];
    }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void notesChanged();

private:
    core::ReviewNotes m_notes;
    core::TimestampNs m_traceStartNs = 0;
};

}  // namespace chokepoint::ui
