#pragma once
// TimelinePage (page id "timeline"): the search bar and zoom buttons, the TimelineWidget, the
// details panel for the selection and the colour legend. It fills the widget from the document's
// model and tracks, turns the analysis report into overlays (steps by verdict, idle gaps by
// cause), and answers the document's navigation requests (show range, select kernel). A selected
// range (Shift+drag, a step, a bookmark) or op fills the details panel with the range's statistics;
// right-click opens the range menu (RangeActions), or on a track label / group header the track
// menu (TrackMenu). Above the timeline, an overview strip of the whole trace moves the view; below
// it, the search results list. Hidden, collapsed and reordered tracks are saved in the review sidecar.

#include <memory>
#include <vector>

#include "core/timeline/TimelineSearch.h"
#include "ui/base/Page.h"

class QLabel;
class QShortcut;
class QTableView;
class QSplitter;
class QTimer;

namespace chokepoint::ui {

class DetailsPanel;
class ElidedLabel;
class OverviewStrip;
class RangeActions;
class SearchResultsModel;
class SearchBar;
class TimelineLegend;
class TimelineWidget;

class TimelinePage : public Page {
    Q_OBJECT
public:
    explicit TimelinePage(QWidget* parent = nullptr);

    QString pageId() const override { return QStringLiteral("timeline"); }
    QString title() const override { return tr("Timeline"); }
    void setDocument(TraceDocument* document) override;

    TimelineWidget* timeline() const { return m_timeline; }
    DetailsPanel* details() const { return m_details; }
    SearchBar* searchBar() const { return m_search; }
    TimelineLegend* legend() const { return m_legend; }
    RangeActions* rangeActions() const { return m_rangeActions; }
    OverviewStrip* overviewStrip() const { return m_overview; }
    QTableView* searchResultsView() const { return m_resultsView; }
    SearchResultsModel* searchResultsModel() const { return m_resultsModel; }
    // The warning about the track layout in the sidecar (empty when none).
    QString trackLayoutNotice() const;
    // Selects the GPU work launched by the selected call or op and shows all of it; false when none.
    bool showLaunchedWork();
    // Selects the launch call of the selected GPU work; false when none.
    bool showLaunchCall();

    // Search: runs the query and selects the first match after the view start; next/previous
    // walk the matches from the current selection, wrapping around.
    void search(const QString& text);
    void findNext();
    void findPrevious();
    void activateSearch();
    // A window that registers Ctrl+F, F3 and Shift+F3 itself (MainWindow's Go menu) calls this: the
    // page's own shortcuts, for a page shown alone, are removed so each key is registered once.
    void useWindowSearchShortcuts();
    const timeline::SearchResults& searchResults() const { return m_results; }

private:
    std::vector<QShortcut*> m_searchShortcuts;
    std::weak_ptr<const core::TraceModel> m_lastModel;  // the trace the search text belongs to
    void refreshModel();
    void refreshOverlays();
    void showHit(std::size_t index);
    void updateSearchPosition();
    // Shows the statistics of the range selection once it settles (a drag changes it per move).
    void onRangeSelectionSettled();
    void showContextMenu(QPoint pos);
    void loadTrackLayout();
    void saveTrackLayout();
    void setSearchResults(timeline::SearchResults results);

    TimelineWidget* m_timeline = nullptr;
    DetailsPanel* m_details = nullptr;
    SearchBar* m_search = nullptr;
    TimelineLegend* m_legend = nullptr;
    ElidedLabel* m_info = nullptr;
    QSplitter* m_splitter = nullptr;
    QSplitter* m_column = nullptr;  // the timeline over the search results
    RangeActions* m_rangeActions = nullptr;
    OverviewStrip* m_overview = nullptr;
    QTableView* m_resultsView = nullptr;
    SearchResultsModel* m_resultsModel = nullptr;
    QLabel* m_layoutNotice = nullptr;
    QTimer* m_rangeTimer = nullptr;
    timeline::SearchResults m_results;
    QMetaObject::Connection m_connections[5];
};

}  // namespace chokepoint::ui
