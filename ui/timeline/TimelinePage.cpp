#include "ui/timeline/TimelinePage.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QShortcut>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "core/base/Format.h"
#include "ui/theme/Theme.h"
#include "ui/timeline/RangeActions.h"
#include "ui/timeline/ReportOverlays.h"
#include "ui/timeline/TimelineLegend.h"
#include "ui/timeline/TimelineWidget.h"
#include "ui/widgets/DetailsPanel.h"
#include "ui/widgets/SearchBar.h"

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
    m_info = new QLabel(this);
    useMutedText(m_info);
    bar->addWidget(m_info);
    layout->addLayout(bar);

    auto* splitter = m_splitter = new QSplitter(Qt::Horizontal, this);
    m_timeline = new TimelineWidget(splitter);
    m_details = new DetailsPanel(splitter);
    splitter->addWidget(m_timeline);
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
    connect(m_details, &DetailsPanel::showLaunchRequested, this, [this] {
        const core::TraceModel* model = m_timeline->model();
        const timeline::EventRef ref = m_timeline->selectedEvent();
        if (!model || !ref.valid()) {
            return;
        }
        core::ApiCallId call;
        if (ref.kind == timeline::EventKind::Kernel) {
            call = model->kernels.launchCall[ref.row];
        } else if (ref.kind == timeline::EventKind::Memcpy) {
            call = model->memcpys.launchCall[ref.row];
        } else if (ref.kind == timeline::EventKind::Memset) {
            call = model->memsets.launchCall[ref.row];
        }
        if (call.valid()) {
            m_timeline->selectEvent({timeline::EventKind::ApiCall, call.index}, true);
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
            m_info->clear();
        });
    }
    refreshModel();
    refreshOverlays();
}

void TimelinePage::refreshModel() {
    auto model = m_document ? m_document->model() : nullptr;
    m_timeline->setData(model, m_document ? m_document->tracks() : nullptr);
    m_details->setEvent(model, {});
    m_results = {};
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
        m_info->setText(tr("%1 GPU records · %2 host events · %3")
                            .arg(QString::fromStdString(
                                     core::formatCount(static_cast<std::int64_t>(model->gpuEventCount()))),
                                 QString::fromStdString(core::formatCount(static_cast<std::int64_t>(
                                     model->cpuOps.size() + model->apiCalls.size() + model->ranges.size()))),
                                 QString::fromStdString(core::formatDuration(span.durationNs()))));
        if (!m_search->text().isEmpty()) {
            search(m_search->text());
        }
    } else {
        m_info->clear();
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
    m_rangeActions->fillMenu(menu, pos);
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
    m_results = model ? timeline::SearchResults(*model, text.toStdString()) : timeline::SearchResults();
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
    m_search->setResultPosition(position, m_results.size());
}

}  // namespace chokepoint::ui
