#pragma once
// Item-data roles shared by the analysis table models. Display text comes from core's formatting
// helpers (core/base/Format.h); SortRole carries the raw number so a QSortFilterProxyModel with
// setSortRole(SortRole) sorts "9 ms" after "10 µs" correctly.

#include <Qt>

namespace chokepoint::ui {

enum ModelRole : int {
    SortRole = Qt::UserRole + 1,  // raw value (qint64 ns, double share, counts, or text)
    KernelRowRole,                // qint64 row index in the model's kernel table, -1 when none
    TimeRangeStartRole,           // qint64 ns, for "show on timeline"
    TimeRangeEndRole,             // qint64 ns
    IdRole,                       // a row's own id (bookmark id, rule id)
    FullTextRole,                 // the whole text behind a shortened cell (a kernel's full name)
};

}  // namespace chokepoint::ui
