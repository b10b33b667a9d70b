#pragma once
// A filter box for a table or tree whose model is a QSortFilterProxyModel: rows whose `column`
// contains the typed text (case-insensitive) stay; trees keep the ancestors of a match.

#include <QString>

class QAbstractItemView;
class QLineEdit;
class QWidget;

namespace chokepoint::ui {

// Returns a new line edit (child of `parent`) wired to `view`'s proxy, or nullptr when the view's
// model is not a QSortFilterProxyModel.
QLineEdit* makeTableFilter(QAbstractItemView* view, const QString& placeholder, QWidget* parent,
                           int column = 0);

}  // namespace chokepoint::ui
