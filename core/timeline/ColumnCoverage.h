#pragma once
// Intervals binned into the pixel columns of a view: for each column, the share of its time the
// intervals cover and the key (a cause, a colour) that covers most of it. A strip drawn from this
// shows a column with a few microseconds of idle between busy kernels faintly, not as solid idle:
// painting every column an interval touches turned a GPU busy 96 % of the time into a solid idle
// strip at full zoom-out.
// The intervals are expected not to overlap (the idle gaps of one device); overlapping ones are
// summed, and a column's share is capped at 1. Linear in the intervals plus the columns they span.

#include <cstddef>
#include <vector>

#include "core/base/Time.h"

namespace chokepoint::timeline {

struct ColumnCover {
    float share = 0;  // 0..1 of the column's time covered
    int key = -1;     // the key covering most of the column; -1 when nothing covers it
};

class ColumnCoverage {
public:
    // `columns` columns of equal width over `view`; keys are 0 .. keyCount-1.
    ColumnCoverage(core::TimeRange view, int columns, int keyCount);

    void add(core::TimeRange interval, int key);

    // The share and dominant key of every column.
    std::vector<ColumnCover> columns() const;

private:
    core::TimeRange m_view;
    int m_columns = 0;
    int m_keyCount = 0;
    double m_nsPerColumn = 1;
    std::vector<double> m_coveredNs;  // column-major: [column * keyCount + key]
};

}  // namespace chokepoint::timeline
