#include "ui/base/widgets/RangeStatsView.h"

#include <QFontMetrics>
#include <QHeaderView>
#include <algorithm>
#include <map>

#include "core/base/Format.h"

namespace chokepoint::ui {
namespace {

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

QString duration(core::DurationNs ns) {
    return qs(core::formatDuration(ns));
}

// A row that sorts by the numeric value of the sorted column; rows marked with FixedOrderRole keep
// their creation order whatever the column and direction.
class Row : public QTreeWidgetItem {
public:
    using QTreeWidgetItem::QTreeWidgetItem;

    bool operator<(const QTreeWidgetItem& other) const override {
        const QVariant mine = data(0, RangeStatsView::FixedOrderRole);
        const QVariant theirs = other.data(0, RangeStatsView::FixedOrderRole);
        if (mine.isValid() || theirs.isValid()) {
            const bool less = mine.toInt() < theirs.toInt();
            const bool ascending =
                treeWidget() == nullptr || treeWidget()->header()->sortIndicatorOrder() == Qt::AscendingOrder;
            return ascending ? less : !less;
        }
        const int column = treeWidget() ? treeWidget()->sortColumn() : 0;
        const QVariant a = data(column, RangeStatsView::SortRole);
        const QVariant b = other.data(column, RangeStatsView::SortRole);
        if (a.isValid() && b.isValid()) {
            return a.toDouble() < b.toDouble();
        }
        return text(column).localeAwareCompare(other.text(column)) < 0;
    }
};

// Adds a row under `parent` (top level when null) with `texts`; `values` are the sort keys of
// columns 1.. (NaN-free; a missing value leaves the column sorted by text).
Row* addRow(RangeStatsView* view, QTreeWidgetItem* parent, const QStringList& texts,
            const QList<double>& values, bool fixed) {
    auto* row = parent ? new Row(parent, texts) : new Row(view, texts);
    for (int c = 0; c < values.size(); ++c) {
        row->setData(c + 1, RangeStatsView::SortRole, values[c]);
    }
    for (int c = 1; c < texts.size(); ++c) {
        row->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
    }
    if (fixed) {
        const int order = parent ? parent->childCount() : view->topLevelItemCount();
        row->setData(0, RangeStatsView::FixedOrderRole, order);
    }
    return row;
}

QString share(double fraction) {
    return qs(core::formatPercent(fraction));
}

double fractionOf(core::DurationNs part, core::DurationNs whole) {
    return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

void addDevice(RangeStatsView* view, const analysis::RangeDeviceStats& d, core::DurationNs rangeNs,
               const core::TraceModel& model) {
    Row* gpu = addRow(view, nullptr, {QObject::tr("GPU %1").arg(d.deviceIndex)}, {}, true);
    const auto ns = [](core::DurationNs v) { return static_cast<double>(v); };
    addRow(view, gpu, {QObject::tr("Busy"), {}, duration(d.busyNs), {}, share(d.busyShare)},
           {0, ns(d.busyNs), 0, d.busyShare}, true);
    Row* idle = addRow(
        view, gpu, {QObject::tr("Idle"), {}, duration(d.idleNs), {}, share(fractionOf(d.idleNs, rangeNs))},
        {0, ns(d.idleNs), 0, fractionOf(d.idleNs, rangeNs)}, true);
    for (std::size_t c = 0; c < analysis::kIdleCauseCount; ++c) {
        const core::DurationNs causeNs = d.idleByCauseNs[c];
        if (causeNs > 0) {
            addRow(view, idle,
                   {qs(std::string(analysis::toString(static_cast<analysis::IdleCause>(c)))),
                    {},
                    duration(causeNs),
                    {},
                    share(fractionOf(causeNs, rangeNs))},
                   {0, ns(causeNs), 0, fractionOf(causeNs, rangeNs)}, false);
        }
    }
    if (d.idleUnclassifiedNs > 0) {
        Row* row = addRow(view, idle,
                          {QObject::tr("not classified"),
                           {},
                           duration(d.idleUnclassifiedNs),
                           {},
                           share(fractionOf(d.idleUnclassifiedNs, rangeNs))},
                          {0, ns(d.idleUnclassifiedNs), 0, fractionOf(d.idleUnclassifiedNs, rangeNs)}, false);
        row->setToolTip(0, QObject::tr("Idle the analyzer did not classify: outside the analysed steps"));
    }
    idle->setExpanded(true);
    Row* kernels = addRow(view, gpu,
                          {QObject::tr("Kernels · %1 names").arg(d.kernels.size()),
                           qs(core::formatCount(d.kernelCount)),
                           duration(d.kernelTimeNs),
                           {},
                           share(fractionOf(d.kernelTimeNs, d.busyNs))},
                          {}, true);
    kernels->setToolTip(
        0, QObject::tr("Kernels grouped by short name; time is clipped to the range; share of busy "
                       "time (concurrent streams can add up to more than 100 %)"));
    for (const analysis::RangeKernelGroup& k : d.kernels) {
        Row* row = addRow(view, kernels,
                          {qs(k.shortName), qs(core::formatCount(k.count)), duration(k.totalNs),
                           duration(k.meanNs), share(k.shareOfBusy)},
                          {static_cast<double>(k.count), ns(k.totalNs), ns(k.meanNs), k.shareOfBusy}, false);
        row->setToolTip(0, qs(std::string(model.text(k.exampleName))));
    }
    kernels->setExpanded(true);
    if (!d.copies.empty()) {
        Row* copies = addRow(view, gpu, {QObject::tr("Copies and memsets")}, {}, true);
        for (const analysis::RangeCopyGroup& c : d.copies) {
            const QString bytes = qs(core::formatBytes(static_cast<double>(c.sizeBytes)));
            Row* row = addRow(
                view, copies,
                {QObject::tr("%1 (%2)").arg(qs(analysis::copyGroupName(c)), bytes),
                 qs(core::formatCount(c.count)), duration(c.totalNs),
                 duration(c.count > 0 ? c.totalNs / c.count : 0), share(fractionOf(c.totalNs, d.busyNs))},
                {static_cast<double>(c.count), ns(c.totalNs), ns(c.count > 0 ? c.totalNs / c.count : 0),
                 fractionOf(c.totalNs, d.busyNs)},
                false);
            row->setToolTip(0, QObject::tr("%1 bytes in total").arg(qs(core::formatCount(c.sizeBytes))));
        }
        copies->setExpanded(true);
    }
    addRow(view, gpu,
           {QObject::tr("Collectives"), qs(core::formatCount(d.collectiveCount)), duration(d.collectiveNs),
            duration(d.collectiveCount > 0 ? d.collectiveNs / d.collectiveCount : 0),
            share(fractionOf(d.collectiveNs, d.busyNs))},
           {}, true);
    gpu->setExpanded(true);
}

}  // namespace

RangeStatsView::RangeStatsView(QWidget* parent) : QTreeWidget(parent) {
    setRootIsDecorated(true);
    setIndentation(12);
    setAlternatingRowColors(true);
    setUniformRowHeights(true);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    header()->setStretchLastSection(false);
    header()->setSortIndicatorShown(true);
    setAccessibleName(tr("Range statistics"));
}

void RangeStatsView::clearStats() {
    setSortingEnabled(false);
    clear();
}

void RangeStatsView::setStats(const analysis::RangeStats& stats, const core::TraceModel& model,
                              core::TimestampNs originNs) {
    clearStats();
    setColumnCount(5);
    setHeaderLabels({tr("Name"), tr("Count"), tr("Time"), tr("Mean"), tr("Share")});
    const auto position = [originNs](core::TimestampNs t) {
        return qs(core::formatTimeOffset(t - originNs));
    };
    Row* range = addRow(this, nullptr, {tr("Range"), {}, duration(stats.durationNs)}, {}, true);
    addRow(this, range, {tr("Start"), {}, position(stats.range.startNs)}, {}, true);
    addRow(this, range, {tr("End"), {}, position(stats.range.endNs)}, {}, true);
    range->setToolTip(
        0, tr("Start and end from the trace start; events partly inside the range are clipped to it"));
    range->setExpanded(true);
    for (const analysis::RangeDeviceStats& d : stats.devices) {
        addDevice(this, d, stats.durationNs, model);
    }
    Row* ops =
        addRow(this, nullptr,
               {tr("CPU ops · %1 names").arg(stats.cpuOps.size()), qs(core::formatCount(stats.cpuOpCount))},
               {}, true);
    ops->setToolTip(0, tr("Framework ops by name; time is clipped to the range and includes nested ops"));
    for (const analysis::RangeOpGroup& op : stats.cpuOps) {
        addRow(
            this, ops,
            {qs(std::string(model.text(op.name))), qs(core::formatCount(op.count)), duration(op.totalNs),
             duration(op.meanNs)},
            {static_cast<double>(op.count), static_cast<double>(op.totalNs), static_cast<double>(op.meanNs)},
            false);
    }
    ops->setExpanded(true);
    for (int c = 1; c < 5; ++c) {
        header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    }
    fitNameColumn();
    sortByColumn(2, Qt::DescendingOrder);
    setSortingEnabled(true);
}

void RangeStatsView::setComparison(const std::vector<analysis::RangeComparisonRow>& rows) {
    clearStats();
    setColumnCount(4);
    setHeaderLabels({tr("Figure"), tr("A"), tr("B"), tr("B − A")});
    std::map<std::string, Row*> sections;
    for (const analysis::RangeComparisonRow& r : rows) {
        Row*& section = sections[r.section];
        if (section == nullptr) {
            section = addRow(this, nullptr, {qs(r.section)}, {}, true);
            section->setExpanded(true);
        }
        addRow(this, section,
               {qs(r.name), qs(analysis::formatRangeValue(r.unit, r.a)),
                qs(analysis::formatRangeValue(r.unit, r.b)),
                qs(analysis::formatRangeValue(r.unit, r.delta(), true))},
               {r.a, r.b, r.delta()}, false);
    }
    for (int c = 1; c < 4; ++c) {
        header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    }
    fitNameColumn();
    sortByColumn(2, Qt::DescendingOrder);
    setSortingEnabled(true);
}

int RangeStatsView::minimumNameWidth() const {
    const QFontMetrics metrics(font());
    int widest = metrics.horizontalAdvance(headerItem()->text(0));
    for (int i = 0; i < topLevelItemCount(); ++i) {
        QTreeWidgetItem* section = topLevelItem(i);
        widest = std::max(widest, metrics.horizontalAdvance(section->text(0)));
        // Second-level headings ("Idle by cause", "Kernels") sit one indentation further in.
        for (int c = 0; c < section->childCount(); ++c) {
            if (section->child(c)->childCount() > 0) {
                widest =
                    std::max(widest, indentation() + metrics.horizontalAdvance(section->child(c)->text(0)));
            }
        }
    }
    // The expand arrow's indentation and the cell's margins.
    return widest + indentation() + 2 * metrics.averageCharWidth();
}

void RangeStatsView::fitNameColumn() {
    if (columnCount() < 2) {
        return;
    }
    header()->setSectionResizeMode(0, QHeaderView::Interactive);
    int valuesWidth = 0;
    for (int c = 1; c < columnCount(); ++c) {
        // What ResizeToContents will give the column (its size may not be laid out yet).
        valuesWidth += std::max(sizeHintForColumn(c), header()->sectionSizeHint(c));
    }
    header()->resizeSection(0, std::max(minimumNameWidth(), viewport()->width() - valuesWidth));
}

void RangeStatsView::resizeEvent(QResizeEvent* event) {
    QTreeWidget::resizeEvent(event);
    fitNameColumn();
}

QTreeWidgetItem* RangeStatsView::findRow(const QString& text) const {
    const QList<QTreeWidgetItem*> found = findItems(text, Qt::MatchExactly | Qt::MatchRecursive, 0);
    return found.isEmpty() ? nullptr : found.front();
}

}  // namespace chokepoint::ui
