#include "ui/views/timeline/TimelinePage.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QShortcut>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "core/base/Format.h"
#include "core/review/ReviewSidecar.h"
#include "core/timeline/LaunchedWork.h"
#include "ui/base/theme/Theme.h"
#include "ui/base/widgets/DetailsPanel.h"
#include "ui/base/widgets/ElidedLabel.h"
#include "ui/base/widgets/SearchBar.h"
#include "ui/views/timeline/OverviewStrip.h"
#include "ui/views/timeline/RangeActions.h"
#include "ui/views/timeline/ReportOverlays.h"
#include "ui/views/timeline/SearchResultsModel.h"
#include "ui/views/timeline/TimelineLegend.h"
#include "ui/views/timeline/TimelineWidget.h"
#include "ui/views/timeline/TrackMenu.h"

namespace chokepoint::ui {

TimelinePage::TimelinePage(QWidget* parent) : Page(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 0);
    layout->setSpacing(4);

    auto* bar = new QHBoxLayout;
    m_search = new SearchBar(this);
    bar->addWidget(m_search, 2);
    auto addButton = [&](const QString& text, const QString& tip, auto slot) {
        auto* b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        connect(b, &QToolButton::clicked, this, slot);
        bar->addWidget(b);
        return b;
    };
    bar->addSpacing(12);
    addButton(tr("Zoom in"), tr("Zoom in (W, wheel up)"),
              [this] { m_timeline->zoomBy(1.5, m_timeline->plotLeft() + m_timeline->plotWidth() / 2.0); });
    addButton(tr("Zoom out"), tr("Zoom out (S, wheel down)"), [this] {
        m_timeline->zoomBy(1 / 1.5, m_timeline->plotLeft() + m_timeline->plotWidth() / 2.0);
    });
    addButton(tr("Show all"), tr("Show the whole trace (0)"), [this] { m_timeline->showAll(); });
    addButton(tr("Zoom to selection"), tr("Zoom to the selected range or event (Z)"),
              [this] { m_timeline->zoomToSelection(); });
    addButton(tr("◀ Step"), tr("Zoom to the previous step ([)"), [this] { m_timeline->zoomToStep(-1); });
    addButton(tr("Step ▶"), tr("Zoom to the next step (])"), [this] { m_timeline->zoomToStep(+1); });
    bar->addStretch(1);
    // The counts give way in a narrow window: a plain label pushed the toolbar under its minimum
    // and Qt drew the search buttons over the search box.
    m_info = new ElidedLabel(this);
    m_info->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    useMutedText(m_info);
    bar->addWidget(m_info, 1);
    layout->addLayout(bar);

    m_layoutNotice = new QLabel(this);
    m_layoutNotice->setWordWrap(true);
    m_layoutNotice->setVisible(false);
    layout->addWidget(m_layoutNotice);

    auto* splitter = m_splitter = new QSplitter(Qt::Horizontal, this);
    // Left: the overview strip, then the timeline over the search results list.
    auto* left = new QWidget(splitter);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->setSpacing(2);
    m_overview = new OverviewStrip(left);
    leftLayout->addWidget(m_overview);
    auto* column = m_column = new QSplitter(Qt::Vertical, left);
    m_timeline = new TimelineWidget(column);
    m_resultsModel = new SearchResultsModel(this);
    m_resultsView = new QTableView(column);
    m_resultsView->setModel(m_resultsModel);
    m_resultsView->setAccessibleName(tr("Search results"));
    m_resultsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_resultsView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_resultsView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_resultsView->setWordWrap(false);
    m_resultsView->setTextElideMode(Qt::ElideRight);
    m_resultsView->verticalHeader()->setVisible(false);
    m_resultsView->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_resultsView->verticalHeader()->setDefaultSectionSize(m_resultsView->fontMetrics().height() + 6);
    m_resultsView->horizontalHeader()->setSectionResizeMode(SearchResultsModel::NameColumn,
                                                            QHeaderView::Stretch);
    m_resultsView->horizontalHeader()->setSectionResizeMode(SearchResultsModel::TrackColumn,
                                                            QHeaderView::Interactive);
    m_resultsView->horizontalHeader()->resizeSection(SearchResultsModel::TrackColumn, 260);
    m_resultsView->setVisible(false);
    column->addWidget(m_timeline);
    column->addWidget(m_resultsView);
    column->setStretchFactor(0, 4);
    column->setStretchFactor(1, 1);
    column->setCollapsible(0, false);
    leftLayout->addWidget(column, 1);
    m_details = new DetailsPanel(splitter);
    splitter->addWidget(left);
    splitter->addWidget(m_details);
    splitter->setStretchFactor(0, 4);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({900, 300});
    layout->addWidget(splitter, 1);
    m_legend = new TimelineLegend(this);
    layout->addWidget(m_legend);
    m_rangeActions = new RangeActions(m_timeline, m_details, this);
    m_rangeTimer = new QTimer(this);
    m_rangeTimer->setSingleShot(true);
    m_rangeTimer->setInterval(60);
    connect(m_rangeTimer, &QTimer::timeout, this, &TimelinePage::onRangeSelectionSettled);
    m_timeline->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_timeline, &QWidget::customContextMenuRequested, this, &TimelinePage::showContextMenu);

    connect(m_search, &SearchBar::queryChanged, this, &TimelinePage::search);
    connect(m_search, &SearchBar::nextRequested, this, &TimelinePage::findNext);
    connect(m_search, &SearchBar::previousRequested, this, &TimelinePage::findPrevious);
    connect(m_timeline, &TimelineWidget::selectionChanged, this, [this](timeline::EventRef ref) {
        m_details->setEvent(m_document ? m_document->model() : nullptr, ref);
        if (ref.kind == timeline::EventKind::Kernel && m_document && m_document->report() &&
            m_document->model()) {
            m_details->detailsModel()->setExtraRows(
                rooflineRows(*m_document->report(), *m_document->model(), core::KernelId{ref.row}));
        }
        if (const core::TraceModel* model = m_timeline->model();
            model && (ref.kind == timeline::EventKind::ApiCall || ref.kind == timeline::EventKind::CpuOp)) {
            m_details->setLaunchedWorkCount(timeline::launchedWork(*model, ref).size());
        }
        m_rangeActions->showEventRange(ref);
        updateSearchPosition();
        if (const core::TraceModel* model = m_timeline->model(); model && ref.valid() && m_document) {
            m_document->noteSelection(timeline::eventTimes(*model, ref),
                                      QString::fromStdString(timeline::eventName(*model, ref)));
        }
    });
    connect(m_timeline, &TimelineWidget::rangeSelectionChanged, this, [this] {
        if (const std::optional<core::TimeRange> range = m_timeline->rangeSelection(); range && m_document) {
            m_document->noteSelection(*range, tr("the selected range"));
        }
        m_rangeTimer->start();
    });
    connect(m_details, &DetailsPanel::zoomRequested, this, [this] { m_timeline->zoomToSelection(); });
    connect(m_details, &DetailsPanel::showLaunchRequested, this, [this] { showLaunchCall(); });
    connect(m_details, &DetailsPanel::showLaunchedRequested, this, [this] { showLaunchedWork(); });
    connect(m_timeline, &TimelineWidget::viewChanged, this, [this](core::TimeRange view) {
        m_overview->setPlotMargins(m_timeline->plotLeft(),
                                   m_timeline->width() - m_timeline->plotLeft() - m_timeline->plotWidth());
        m_overview->setView(view);
    });
    connect(m_overview, &OverviewStrip::centreRequested, this, [this](core::TimestampNs centreNs) {
        const core::DurationNs width = m_timeline->visibleRange().durationNs();
        m_timeline->showRange({centreNs - width / 2, centreNs - width / 2 + width});
    });
    connect(m_timeline, &TimelineWidget::trackLayoutChanged, this, &TimelinePage::saveTrackLayout);
    connect(m_resultsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                const timeline::EventRef ref = m_resultsModel->refAt(current.row());
                if (ref.valid() && ref != m_timeline->selectedEvent()) {
                    m_timeline->selectEvent(ref, true);
                }
            });

    // Page-local shortcuts (the main window's Go menu offers the same actions).
    auto* find = new QShortcut(QKeySequence::Find, this, [this] { activateSearch(); });
    find->setContext(Qt::WidgetWithChildrenShortcut);
    auto* next = new QShortcut(QKeySequence::FindNext, this, [this] { findNext(); });
    next->setContext(Qt::WidgetWithChildrenShortcut);
    auto* previous = new QShortcut(QKeySequence::FindPrevious, this, [this] { findPrevious(); });
    previous->setContext(Qt::WidgetWithChildrenShortcut);
    m_searchShortcuts = {find, next, previous};
}

void TimelinePage::useWindowSearchShortcuts() {
    for (QShortcut* shortcut : m_searchShortcuts) {
        delete shortcut;
    }
    m_searchShortcuts.clear();
}

void TimelinePage::setDocument(TraceDocument* document) {
    for (auto& c : m_connections) {
        disconnect(c);
    }
    Page::setDocument(document);
    m_rangeActions->setDocument(document);
    if (document) {
        // Slot order: a new model is set before the overlays drawn over it.
        m_connections[0] = connect(document, &TraceDocument::modelAvailable, this,
                                   [this] { refreshNowOrWhenShown(0, [this] { refreshModel(); }); });
        m_connections[1] = connect(document, &TraceDocument::analysisAvailable, this,
                                   [this] { refreshNowOrWhenShown(1, [this] { refreshOverlays(); }); });
        m_connections[2] = connect(document, &TraceDocument::requestShowRange, this,
                                   [this](core::TimeRange range, const QString&) {
                                       runPendingRefreshes();
                                       m_timeline->setRangeSelection(range);
                                       m_timeline->showRange(range, true);
                                   });
        m_connections[3] =
            connect(document, &TraceDocument::requestSelectKernel, this, [this](core::KernelId kernel) {
                runPendingRefreshes();
                m_timeline->selectEvent({timeline::EventKind::Kernel, kernel.index}, true);
            });
        m_connections[4] = connect(document, &TraceDocument::loadStarted, this, [this] {
            m_timeline->setData(nullptr, nullptr);
            m_details->setEvent(nullptr, {});
            m_info->setFullText(QString());
        });
    }
    refreshModel();
    refreshOverlays();
}

void TimelinePage::refreshModel() {
    auto model = m_document ? m_document->model() : nullptr;
    m_timeline->setData(model, m_document ? m_document->tracks() : nullptr);
    m_overview->setTracks(model ? m_document->tracks() : nullptr);
    m_overview->setPlotMargins(m_timeline->plotLeft(),
                               m_timeline->width() - m_timeline->plotLeft() - m_timeline->plotWidth());
    m_overview->setView(m_timeline->visibleRange());
    loadTrackLayout();
    m_details->setEvent(model, {});
    setSearchResults({});
    m_search->setResultPosition(0, 0);
    if (model && m_lastModel.lock() != model) {
        // Another trace: its search starts fresh (the same trace shown again keeps its query), and
        // range A belonged to the old one.
        m_lastModel = model;
        m_rangeActions->reset();
        m_search->setText(QString());
    }
    if (model) {
        const core::TimeRange span = model->timeSpan();
        auto count = [](std::size_t n) {
            return QString::fromStdString(core::formatCount(static_cast<std::int64_t>(n)));
        };
        const std::size_t gpuRecords = model->gpuEventCount();
        const std::size_t hostEvents = model->cpuOps.size() + model->apiCalls.size() + model->ranges.size();
        const std::size_t samples = model->stackSamples.size();
        // A host-only capture holds stack samples alone: "0 GPU records · 0 host events" read as empty.
        QStringList parts;
        if (gpuRecords > 0 || samples == 0) {
            parts << tr("%1 GPU records").arg(count(gpuRecords));
        }
        if (hostEvents > 0 || samples == 0) {
            parts << tr("%1 host events").arg(count(hostEvents));
        }
        if (samples > 0) {
            parts << tr("%1 stack samples").arg(count(samples));
        }
        parts << QString::fromStdString(core::formatDuration(span.durationNs()));
        m_info->setFullText(parts.join(QStringLiteral(" · ")));
        if (!m_search->text().isEmpty()) {
            search(m_search->text());
        }
    } else {
        m_info->setFullText(QString());
    }
}

void TimelinePage::refreshOverlays() {
    TimelineOverlays overlays;
    if (m_document && m_document->report()) {
        overlays = overlaysFromReport(*m_document->report());
    }
    m_timeline->setOverlays(overlays);
    m_legend->setOverlayEntries(overlays.legend);
}

void TimelinePage::onRangeSelectionSettled() {
    const std::optional<core::TimeRange> range = m_timeline->rangeSelection();
    if (!range || range->empty()) {
        if (m_details->showsRange() && m_details->detailsModel()->rowCount() == 0) {
            // The range is gone: back to the selected event (or the hint).
            m_details->setEvent(m_document ? m_document->model() : nullptr, m_timeline->selectedEvent());
            m_rangeActions->showEventRange(m_timeline->selectedEvent());
        }
        return;
    }
    m_rangeActions->showSelectedRange();
    if (m_timeline->isSelectingRange()) {
        // Not while the mouse draws the range: widening the panel would narrow the timeline under
        // the cursor and move the range's far end (the release settles the range again).
        return;
    }
    // The statistics need more room than an event's fields.
    const QList<int> sizes = m_splitter->sizes();
    const int total = sizes.size() == 2 ? sizes[0] + sizes[1] : 0;
    const int wanted = std::max(420, total * 2 / 5);
    if (total > 1000 && sizes[1] < wanted) {
        m_splitter->setSizes({total - wanted, wanted});
    }
}

void TimelinePage::showContextMenu(QPoint pos) {
    QMenu menu(this);
    if (fillTrackMenu(menu, m_timeline, pos)) {
        menu.exec(m_timeline->mapToGlobal(pos));
        return;
    }
    menu.clear();
    // Flows from the event under the cursor, both ways.
    if (const core::TraceModel* model = m_timeline->model()) {
        const timeline::EventRef ref = m_timeline->eventAt(pos);
        if (ref.valid() && timeline::launchCallOf(*model, ref).valid()) {
            menu.addAction(tr("Show launch call"), this, [this, ref] {
                m_timeline->selectEvent(ref);
                showLaunchCall();
            });
        } else if (ref.kind == timeline::EventKind::ApiCall || ref.kind == timeline::EventKind::CpuOp) {
            if (const std::size_t n = timeline::launchedWork(*model, ref).size(); ref.valid() && n > 0) {
                menu.addAction(n == 1 ? tr("Show kernel") : tr("Show kernels (%1)").arg(n), this,
                               [this, ref] {
                                   m_timeline->selectEvent(ref);
                                   showLaunchedWork();
                               });
            }
        }
        if (!menu.isEmpty()) {
            menu.addSeparator();
        }
    }
    m_rangeActions->fillMenu(menu, pos);
    if (m_timeline->trackLayout().hiddenTracks.size() > 0) {
        menu.addAction(tr("Show all hidden tracks"), m_timeline, &TimelineWidget::showAllTracks);
    }
    if (!menu.isEmpty()) {
        menu.exec(m_timeline->mapToGlobal(pos));
    }
}

void TimelinePage::activateSearch() {
    m_search->activate();
}

void TimelinePage::search(const QString& text) {
    const core::TraceModel* model = m_timeline->model();
    if (m_search->text() != text) {
        m_search->setText(text);  // re-enters through queryChanged
        return;
    }
    setSearchResults(model && !text.isEmpty() ? timeline::SearchResults(*model, text.toStdString())
                                              : timeline::SearchResults());
    if (m_results.empty()) {
        m_search->setResultPosition(0, 0);
        return;
    }
    // The first match at or after the view's start.
    const std::size_t index = m_results.nextAfter(m_timeline->visibleRange().startNs - 1, {});
    showHit(index);
}

void TimelinePage::showHit(std::size_t index) {
    if (index >= m_results.size()) {
        return;
    }
    m_timeline->selectEvent(m_results[index].ref, true);
    updateSearchPosition();
}

void TimelinePage::findNext() {
    if (m_results.empty()) {
        return;
    }
    const timeline::EventRef current = m_timeline->selectedEvent();
    const core::TraceModel* model = m_timeline->model();
    if (!current.valid() || !model) {
        showHit(0);
        return;
    }
    showHit(m_results.nextAfter(timeline::eventTimes(*model, current).startNs, current));
}

void TimelinePage::findPrevious() {
    if (m_results.empty()) {
        return;
    }
    const timeline::EventRef current = m_timeline->selectedEvent();
    const core::TraceModel* model = m_timeline->model();
    if (!current.valid() || !model) {
        showHit(m_results.size() - 1);
        return;
    }
    showHit(m_results.previousBefore(timeline::eventTimes(*model, current).startNs, current));
}

void TimelinePage::updateSearchPosition() {
    const core::TraceModel* model = m_timeline->model();
    const timeline::EventRef current = m_timeline->selectedEvent();
    std::size_t position = 0;
    if (model && current.valid()) {
        const std::size_t index = m_results.indexOf(timeline::eventTimes(*model, current).startNs, current);
        position = index < m_results.size() ? index + 1 : 0;
    }
    if (position > 0) {
        // Follow the selection in the results list (its handler ignores the already selected event).
        const QModelIndex row = m_resultsModel->index(static_cast<int>(position - 1), 0);
        m_resultsView->selectionModel()->setCurrentIndex(
            row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_resultsView->scrollTo(row);
    }
    m_search->setResultPosition(position, m_results.size());
}

bool TimelinePage::showLaunchCall() {
    const core::TraceModel* model = m_timeline->model();
    const timeline::EventRef call =
        model ? timeline::launchCallOf(*model, m_timeline->selectedEvent()) : timeline::EventRef{};
    if (!call.valid()) {
        return false;
    }
    m_timeline->selectEvent(call, true);
    return true;
}

bool TimelinePage::showLaunchedWork() {
    const core::TraceModel* model = m_timeline->model();
    const timeline::EventRef launcher = m_timeline->selectedEvent();
    const std::vector<timeline::EventRef> work =
        model ? timeline::launchedWork(*model, launcher) : std::vector<timeline::EventRef>{};
    if (work.empty()) {
        return false;
    }
    // The launcher and all its work in view, the first piece of work selected (the arrows from the
    // launch calls are drawn for it).
    core::TimeRange span = timeline::eventTimes(*model, launcher);
    for (const timeline::EventRef ref : work) {
        const core::TimeRange r = timeline::eventTimes(*model, ref);
        span = {std::min(span.startNs, r.startNs), std::max(span.endNs, r.endNs)};
    }
    m_timeline->selectEvent(work.front(), true);
    m_timeline->showRange(span, true);
    return true;
}

void TimelinePage::setSearchResults(timeline::SearchResults results) {
    m_results = std::move(results);
    const core::TraceModel* model = m_timeline->model();
    m_resultsModel->setResults(m_document && model ? m_document->model() : nullptr,
                               m_document && model ? m_document->tracks() : nullptr, m_results);
    std::vector<timeline::EventRef> refs;
    refs.reserve(m_results.size());
    for (const timeline::SearchHit& hit : m_results.hits()) {
        refs.push_back(hit.ref);
    }
    m_timeline->setHighlights(std::move(refs));
    const bool show = !m_results.empty();
    if (show && !m_resultsView->isVisibleTo(this)) {
        m_resultsView->setVisible(true);
        // A list shown later gets no room of its own: give it a quarter of the column.
        const QList<int> sizes = m_column->sizes();
        const int total = sizes.size() == 2 ? sizes[0] + sizes[1] : 0;
        if (total > 0 && sizes[1] < total / 5) {
            m_column->setSizes({total - total / 4, total / 4});
        }
    } else if (!show) {
        m_resultsView->setVisible(false);
    }
}

QString TimelinePage::trackLayoutNotice() const {
    return m_layoutNotice->isVisible() ? m_layoutNotice->text() : QString();
}

void TimelinePage::loadTrackLayout() {
    m_layoutNotice->setVisible(false);
    m_layoutNotice->clear();
    // Until the user arranges the tracks, idle threads' CPU counters are hidden (TrackLayout.h).
    auto defaultLayout = [this] {
        const timeline::TrackSet* tracks = m_timeline->tracks();
        const core::TraceModel* model = m_timeline->model();
        return tracks && model ? timeline::defaultTrackLayout(*tracks, *model) : timeline::TrackLayout{};
    };
    const QString path = m_document && m_timeline->model() ? m_document->filePath() : QString();
    if (path.isEmpty()) {
        m_timeline->setTrackLayout(defaultLayout());
        return;
    }
    auto loaded = core::loadReviewForTrace(path.toStdString());
    if (!loaded) {
        // The review page reports an unreadable sidecar; the timeline keeps the default layout.
        m_timeline->setTrackLayout(defaultLayout());
        return;
    }
    QStringList warnings;
    for (const std::string& w : loaded->warnings) {
        if (w.find("trackLayout") != std::string::npos) {
            warnings << QString::fromStdString(w);
        }
    }
    if (!warnings.isEmpty()) {
        m_layoutNotice->setText(warnings.join(QStringLiteral("\n")));
        m_layoutNotice->setVisible(true);
    }
    if (loaded->notes.trackLayout.empty()) {
        m_timeline->setTrackLayout(defaultLayout());
        return;
    }
    m_timeline->setTrackLayout(std::move(loaded->notes.trackLayout));
}

void TimelinePage::saveTrackLayout() {
    const QString path = m_document ? m_document->filePath() : QString();
    if (path.isEmpty()) {
        return;
    }
    timeline::TrackLayout layout = m_timeline->trackLayout();
    const timeline::TrackSet* tracks = m_timeline->tracks();
    const core::TraceModel* model = m_timeline->model();
    if (layout.empty() && tracks && model && !timeline::defaultTrackLayout(*tracks, *model).empty()) {
        // Showing what the default layout hides is an arrangement too: an empty layout is not
        // saved, and the default would hide those tracks again at the next open. The tracks'
        // order as they are drawn makes the layout the user's own without changing anything.
        for (const timeline::Track& track : tracks->tracks) {
            layout.trackOrder.push_back(track.key);
        }
    }
    const core::Status status = core::saveTrackLayoutForTrace(path.toStdString(), layout);
    if (!status) {
        m_layoutNotice->setText(
            tr("The track layout was not saved: %1").arg(QString::fromStdString(status.error().message)));
        m_layoutNotice->setVisible(true);
    }
}

}  // namespace chokepoint::ui
