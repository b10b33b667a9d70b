#include "ui/views/timeline/RangeActions.h"

#include <QApplication>
#include <QClipboard>
#include <QMenu>

#include "core/analysis/metrics/RangeStatsText.h"
#include "core/base/Format.h"
#include "ui/base/document/AnalysisReportQt.h"
#include "ui/base/document/TraceDocument.h"
#include "ui/base/widgets/BookmarkDialog.h"
#include "ui/base/widgets/DetailsPanel.h"
#include "ui/views/timeline/TimelineWidget.h"

namespace chokepoint::ui {
namespace {

bool hasSpan(timeline::EventRef ref) {
    return ref.valid() && (ref.kind == timeline::EventKind::CpuOp || ref.kind == timeline::EventKind::Range);
}

}  // namespace

RangeActions::RangeActions(TimelineWidget* timeline, DetailsPanel* details, QObject* parent)
    : QObject(parent), m_timeline(timeline), m_details(details) {}

core::TimestampNs RangeActions::originNs() const {
    const core::TraceModel* model = m_timeline->model();
    return model ? model->timeSpan().startNs : 0;
}

analysis::RangeStats RangeActions::statsOf(core::TimeRange range) const {
    const core::TraceModel* model = m_timeline->model();
    if (model == nullptr) {
        return {};
    }
    analysis::RangeStatsInputs inputs;
    // The analysis belongs to the document's current model (a device scope has its own of both).
    if (m_document && m_document->model().get() == model && m_document->report()) {
        inputs.accounting = &m_document->report()->metrics.accounting;
        inputs.kernelStats = &m_document->report()->metrics.kernels;
    }
    return analysis::computeRangeStats(*model, range, inputs);
}

std::optional<core::TimeRange> RangeActions::currentRange() const {
    if (const std::optional<core::TimeRange> range = m_timeline->rangeSelection(); range && !range->empty()) {
        return range;
    }
    const core::TraceModel* model = m_timeline->model();
    if (const timeline::EventRef ref = m_timeline->selectedEvent(); model && hasSpan(ref)) {
        const core::TimeRange span = timeline::eventTimes(*model, ref);
        if (!span.empty()) {
            return span;
        }
    }
    return std::nullopt;
}

QString RangeActions::describe(core::TimeRange range) const {
    return tr("%1 at %2 ms")
        .arg(QString::fromStdString(core::formatDuration(range.durationNs())),
             QString::fromStdString(
                 core::formatFixed(static_cast<double>(range.startNs - originNs()) / 1e6, 3)));
}

void RangeActions::showSelectedRange() {
    m_comparing = false;
    const std::optional<core::TimeRange> range = m_timeline->rangeSelection();
    const core::TraceModel* model = m_timeline->model();
    if (!range || range->empty() || model == nullptr) {
        return;
    }
    m_details->setRangeStats(tr("Range %1").arg(describe(*range)), statsOf(*range), *model, originNs());
}

void RangeActions::showEventRange(timeline::EventRef ref) {
    m_comparing = false;
    const core::TraceModel* model = m_timeline->model();
    if (model == nullptr || !hasSpan(ref)) {
        return;
    }
    const core::TimeRange span = timeline::eventTimes(*model, ref);
    if (!span.empty()) {
        m_details->setEventRangeStats(statsOf(span), *model, originNs());
    }
}

void RangeActions::zoomToRange() {
    if (const std::optional<core::TimeRange> range = currentRange()) {
        m_timeline->showRange(*range, true);
    }
}

void RangeActions::bookmarkRange() {
    const std::optional<core::TimeRange> range = currentRange();
    if (!range || m_document == nullptr) {
        return;
    }
    BookmarkDialog dialog(tr("the range %1").arg(describe(*range)), m_timeline);
    if (dialog.exec() == QDialog::Accepted) {
        m_document->bookmarkRange(*range, dialog.title(), dialog.note());
    }
}

QString RangeActions::copyStatistics() {
    const std::optional<core::TimeRange> range = currentRange();
    const core::TraceModel* model = m_timeline->model();
    if (!range || model == nullptr) {
        return {};
    }
    const analysis::RangeStats stats = statsOf(*range);
    std::string text;
    if (m_comparing && m_rangeA) {
        const analysis::RangeStats a = statsOf(*m_rangeA);
        text = analysis::formatRangeComparisonText(analysis::compareRangeStats(a, stats, *model), a, stats,
                                                   originNs());
    } else {
        text = analysis::formatRangeStatsText(stats, *model, originNs());
    }
    const QString result = QString::fromStdString(text);
    QApplication::clipboard()->setText(result);
    return result;
}

void RangeActions::reset() {
    m_rangeA.reset();
    m_comparing = false;
    m_timeline->setReferenceRange(std::nullopt);
}

void RangeActions::rememberAsA() {
    m_rangeA = currentRange();
    m_timeline->setReferenceRange(m_rangeA);
}

void RangeActions::compareWithA() {
    const std::optional<core::TimeRange> range = currentRange();
    const core::TraceModel* model = m_timeline->model();
    if (!range || !m_rangeA || model == nullptr) {
        return;
    }
    const analysis::RangeStats a = statsOf(*m_rangeA);
    const analysis::RangeStats b = statsOf(*range);
    m_details->setRangeComparison(tr("B %1 vs A %2").arg(describe(*range), describe(*m_rangeA)),
                                  analysis::compareRangeStats(a, b, *model));
    m_comparing = true;
}

void RangeActions::fillMenu(QMenu& menu, QPoint pos) {
    const core::TraceModel* model = m_timeline->model();
    if (model == nullptr) {
        return;
    }
    const timeline::EventRef hit = m_timeline->eventAt(pos);
    if (const std::optional<core::TimeRange> range = currentRange()) {
        menu.addAction(tr("Zoom to range"), this, &RangeActions::zoomToRange);
        QAction* bookmark = menu.addAction(tr("Bookmark range…"), this, &RangeActions::bookmarkRange);
        bookmark->setEnabled(m_document != nullptr);
        menu.addAction(tr("Copy statistics as text"), this, [this] { copyStatistics(); });
        menu.addSeparator();
        if (m_rangeA && *m_rangeA != *range) {
            menu.addAction(tr("Compare with range A (%1)").arg(describe(*m_rangeA)), this,
                           &RangeActions::compareWithA);
        }
        if (!m_rangeA || *m_rangeA != *range) {
            menu.addAction(tr("Remember as range A (to compare)"), this, &RangeActions::rememberAsA);
        }
    }
    if (hit.valid()) {
        if (!menu.isEmpty()) {
            menu.addSeparator();
        }
        const QString name = QString::fromStdString(timeline::eventName(*model, hit));
        const QString shown = menu.fontMetrics().elidedText(name, Qt::ElideRight, 300);
        menu.addAction(tr("Select %1").arg(shown), this, [this, hit] { m_timeline->selectEvent(hit); });
        menu.addAction(tr("Zoom to %1").arg(shown), this, [this, hit] {
            m_timeline->selectEvent(hit);
            m_timeline->zoomToSelection();
        });
        menu.addAction(tr("Statistics of its time span"), this, [this, hit] {
            if (const core::TraceModel* m = m_timeline->model()) {
                m_timeline->setRangeSelection(timeline::eventTimes(*m, hit));
            }
        });
        menu.addAction(tr("Copy name"), this, [name] { QApplication::clipboard()->setText(name); });
    }
    if (menu.isEmpty()) {
        menu.addAction(tr("Show all"), m_timeline, &TimelineWidget::showAll);
    }
}

}  // namespace chokepoint::ui
