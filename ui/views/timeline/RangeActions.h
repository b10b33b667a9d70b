#pragma once
// RangeActions: what the timeline does with a time range. It computes the range's statistics
// (core's analysis::computeRangeStats with the document's analysis: idle causes, kernel classes)
// and shows them in the details panel, and builds the timeline's context menu: zoom to the range,
// bookmark it (the review sidecar, through TraceDocument::bookmarkRange), copy its statistics as
// text, remember it as range A and compare another range with A. Without a range selection the
// menu offers what fits the clicked event.
//
// The current range is the timeline's range selection (Shift+drag, a step, a bookmark shown), else
// the time span of the selected CPU op or annotation range.

#include <QObject>
#include <QPoint>
#include <optional>

#include "core/analysis/metrics/RangeStats.h"
#include "core/timeline/EventRef.h"

class QMenu;

namespace chokepoint::ui {

class DetailsPanel;
class TimelineWidget;
class TraceDocument;

class RangeActions : public QObject {
    Q_OBJECT
public:
    RangeActions(TimelineWidget* timeline, DetailsPanel* details, QObject* parent = nullptr);

    void setDocument(TraceDocument* document) { m_document = document; }

    // The statistics of `range` over the timeline's trace, with the document's analysis when done.
    analysis::RangeStats statsOf(core::TimeRange range) const;
    // The range the menu acts on (see the file comment); nullopt when there is none.
    std::optional<core::TimeRange> currentRange() const;

    // Shows the range selection's statistics in the details panel (nothing without a selection).
    void showSelectedRange();
    // Adds the statistics of a selected op's or annotation range's span below its fields.
    void showEventRange(timeline::EventRef ref);

    // Fills the context menu for a right-click at `pos` (timeline widget coordinates).
    void fillMenu(QMenu& menu, QPoint pos);

    void zoomToRange();
    // Opens the bookmark dialog for the current range and bookmarks it when accepted.
    void bookmarkRange();
    // Puts the shown statistics (or the comparison) on the clipboard as a plain-text table; returns
    // the text (empty when there is no range).
    QString copyStatistics();
    // Remembers the current range as range A.
    void rememberAsA();
    // Shows the current range (B) side by side with range A in the details panel.
    void compareWithA();
    std::optional<core::TimeRange> rangeA() const { return m_rangeA; }
    // Forgets range A and the comparison (another trace was opened).
    void reset();

private:
    QString describe(core::TimeRange range) const;
    core::TimestampNs originNs() const;

    TimelineWidget* m_timeline = nullptr;
    DetailsPanel* m_details = nullptr;
    TraceDocument* m_document = nullptr;
    std::optional<core::TimeRange> m_rangeA;
    bool m_comparing = false;  // the details panel shows the comparison of A with the current range
};

}  // namespace chokepoint::ui
