#include "ui/base/widgets/TableFilter.h"

#include <QAbstractItemView>
#include <QLineEdit>
#include <QSortFilterProxyModel>

namespace chokepoint::ui {

QLineEdit* makeTableFilter(QAbstractItemView* view, const QString& placeholder, QWidget* parent, int column) {
    auto* proxy = view != nullptr ? qobject_cast<QSortFilterProxyModel*>(view->model()) : nullptr;
    if (proxy == nullptr) {
        return nullptr;
    }
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy->setFilterKeyColumn(column);
    proxy->setRecursiveFilteringEnabled(true);
    auto* edit = new QLineEdit(parent);
    edit->setPlaceholderText(placeholder);
    edit->setClearButtonEnabled(true);
    edit->setAccessibleName(placeholder);
    QObject::connect(edit, &QLineEdit::textChanged, proxy, &QSortFilterProxyModel::setFilterFixedString);
    return edit;
}

}  // namespace chokepoint::ui
