#include "ui/base/models/BookmarksModel.h"

#include "core/base/Format.h"
#include "ui/base/models/ModelRoles.h"

namespace chokepoint::ui {

BookmarksModel::BookmarksModel(QObject* parent) : QAbstractTableModel(parent) {}

void BookmarksModel::setNotes(core::ReviewNotes notes) {
    beginResetModel();
    m_notes = std::move(notes);
    endResetModel();
}

void BookmarksModel::setTraceStartNs(core::TimestampNs startNs) {
    m_traceStartNs = startNs;
    if (!m_notes.empty()) {
        emit dataChanged(index(0, StartColumn), index(rowCount() - 1, StartColumn));
    }
}

std::uint64_t BookmarksModel::addBookmark(core::Bookmark bookmark) {
    // ReviewNotes keeps timeline order, so a reset is the simplest correct notification.
    beginResetModel();
    const std::uint64_t id = m_notes.add(std::move(bookmark));
    endResetModel();
    emit notesChanged();
    return id;
}

bool BookmarksModel::removeBookmark(std::uint64_t id) {
    const int row = rowOf(id);
    if (row < 0) {
        return false;
    }
    beginRemoveRows({}, row, row);
    m_notes.remove(id);
    endRemoveRows();
    emit notesChanged();
    return true;
}

bool BookmarksModel::updateBookmark(const core::Bookmark& bookmark) {
    if (rowOf(bookmark.id) < 0) {
        return false;
    }
    beginResetModel();
    m_notes.update(bookmark);
    endResetModel();
    emit notesChanged();
    return true;
}

int BookmarksModel::rowOf(std::uint64_t id) const {
    const auto& list = m_notes.bookmarks();
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (list[i].id == id) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

int BookmarksModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_notes.size());
}

int BookmarksModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : NumColumns;
}

QVariant BookmarksModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const core::Bookmark& b = bookmarkAt(index.row());
    if (role == Qt::DisplayRole || role == Qt::EditRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
            case StartColumn:
                return QString::fromStdString(core::formatDuration(b.range.startNs - m_traceStartNs));
            case DurationColumn:
                return QString::fromStdString(core::formatDuration(b.range.durationNs()));
            case KindColumn:
                return b.kind == core::BookmarkKind::Kernel
                           ? tr("kernel: %1").arg(QString::fromStdString(b.kernelName))
                           : tr("time range");
            case TitleColumn:
                return QString::fromStdString(b.title);
            case NoteColumn:
                return QString::fromStdString(b.note);
        }
    }
    switch (role) {
        case SortRole:
            switch (index.column()) {
                case StartColumn:
                    return static_cast<qlonglong>(b.range.startNs);
                case DurationColumn:
                    return static_cast<qlonglong>(b.range.durationNs());
                default:
                    return data(index, Qt::DisplayRole);
            }
        case IdRole:
            return static_cast<qulonglong>(b.id);
        case TimeRangeStartRole:
            return static_cast<qlonglong>(b.range.startNs);
        case TimeRangeEndRole:
            return static_cast<qlonglong>(b.range.endNs);
        default:
            return {};
    }
}

bool BookmarksModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole ||
        !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        (index.column() != TitleColumn && index.column() != NoteColumn)) {
        return false;
    }
    core::Bookmark b = bookmarkAt(index.row());
    const std::string text = value.toString().toStdString();
    std::string& field = index.column() == TitleColumn ? b.title : b.note;
    if (field == text) {
        return true;
    }
    field = text;
    m_notes.update(b);  // same start time, so the row does not move
    emit dataChanged(index, index);
    emit notesChanged();
    return true;
}

Qt::ItemFlags BookmarksModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && (index.column() == TitleColumn || index.column() == NoteColumn)) {
        f |= Qt::ItemIsEditable;
    }
    return f;
}

QVariant BookmarksModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
        case StartColumn:
            return tr("Start");
        case DurationColumn:
            return tr("Duration");
        case KindColumn:
            return tr("Marks");
        case TitleColumn:
            return tr("Title");
        case NoteColumn:
            return tr("Note");
    }
    return {};
}

}  // namespace chokepoint::ui
