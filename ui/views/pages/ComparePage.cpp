#include "ui/views/pages/ComparePage.h"

#include <cmath>

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <QTabWidget>
#include <algorithm>

#include "core/base/KernelName.h"
#include "ui/base/charts/ReportCharts.h"
#include "ui/base/charts/RooflineChart.h"
#include "ui/base/charts/StepBarsChart.h"
#include "ui/base/charts/StepStrip.h"
#include "ui/base/models/ModelRoles.h"
#include "ui/base/theme/ReportPalette.h"
#include "ui/base/theme/ThemeColors.h"
#include "ui/views/pages/DiagnosisPage.h"

namespace chokepoint::ui {
namespace {

QString valueText(const analysis::MetricDelta& m, double v) {
    return m.unit == "ns"         ? durationText(v)
           : m.unit == "fraction" ? percentText(v)
                                  : QString::number(v, 'g', 4);
}

}  // namespace

// The comparison's metric ids as a reader would name them. Idle causes take the names the charts'
// legends use (analysis::toString); an id without a label is shown as it is, and a test checks
// that every id compareReports produces has one.
QString compareMetricLabel(const std::string& name) {
    static const std::pair<const char*, const char*> kLabels[] = {
        {"stepTimeNs", QT_TR_NOOP("Step time (mean)")},
        {"busy", QT_TR_NOOP("GPU busy")},
        {"mfu", QT_TR_NOOP("MFU")},
        {"hfu", QT_TR_NOOP("HFU")},
        {"compute", QT_TR_NOOP("Compute")},
        {"communication", QT_TR_NOOP("Communication")},
        {"exposedCommunication", QT_TR_NOOP("Communication not overlapped")},
        {"copy", QT_TR_NOOP("Copies")},
        {"idle", QT_TR_NOOP("Idle")},
        {"idle.dataWait", QT_TR_NOOP("Idle: waiting for data")},
        {"idle.launchOverhead", QT_TR_NOOP("Idle: launch overhead")},
        {"idle.synchronization", QT_TR_NOOP("Idle: synchronization")},
        {"idle.collective", QT_TR_NOOP("Idle: waiting on a collective")},
        {"idle.unexplained", QT_TR_NOOP("Idle: unexplained")},
        {"kernelsPerStep", QT_TR_NOOP("Kernels per step")},
    };
    for (const auto& [id, label] : kLabels) {
        if (name == id) {
            return QObject::tr(label);
        }
    }
    static const std::pair<const char*, analysis::IdleCause> kIdleCauses[] = {
        {"idle.hostWork", analysis::IdleCause::HostWork},
        {"idle.compilation", analysis::IdleCause::Compilation},
        {"idle.housekeeping", analysis::IdleCause::Housekeeping},
        {"idle.garbageCollection", analysis::IdleCause::GarbageCollection},
    };
    for (const auto& [id, cause] : kIdleCauses) {
        if (name == id) {
            return QObject::tr("Idle: %1").arg(QString::fromUtf8(analysis::toString(cause)));
        }
    }
    return QString::fromStdString(name);
}

namespace {

QString sideHtml(const QString& label, const analysis::AnalysisReport& r) {
    return QObject::tr(
               "<b>%1</b><br/><span style='font-size:13pt; color:%2'><b>%3</b></span><br/>"
               "Step time %4 · GPU busy %5 · MFU %6")
        .arg(label.toHtmlEscaped(), cssColor(themeColors().ink(bottleneckColor(r.overall.bottleneck))),
             QString::fromStdString(r.headline).toHtmlEscaped(),
             r.mfu.stepTimeNs > 0 ? durationText(r.mfu.stepTimeNs) : QObject::tr("n/a"),
             percentText(r.mfu.busyFraction), r.mfu.mfu ? percentText(*r.mfu.mfu) : QObject::tr("unknown"));
}

// Gives both plots the union of their axis ranges, so equal heights mean equal values.
void shareAxes(QCustomPlot* a, QCustomPlot* b) {
    for (auto axis : {&QCustomPlot::xAxis, &QCustomPlot::yAxis}) {
        QCPAxis* first = a->*axis;
        QCPAxis* second = b->*axis;
        const QCPRange range(std::min(first->range().lower, second->range().lower),
                             std::max(first->range().upper, second->range().upper));
        // Step labels are categories, not values: only value axes are shared.
        if (first->ticker().dynamicCast<QCPAxisTickerText>().isNull()) {
            first->setRange(range);
            second->setRange(range);
        }
    }
    a->replot();
    b->replot();
}

}  // namespace

ComparePage::ComparePage(QWidget* parent) : Page(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    auto* top = new QHBoxLayout;
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    top->addWidget(m_summary, 1);
    m_open = new QPushButton(tr("Compare with…"), this);
    top->addWidget(m_open, 0, Qt::AlignTop);
    layout->addLayout(top);
    connect(m_open, &QPushButton::clicked, this, &ComparePage::chooseFile);

    auto* sides = new QGridLayout;
    m_left = new QLabel(this);
    m_right = new QLabel(this);
    for (QLabel* l : {m_left, m_right}) {
        l->setWordWrap(true);
        l->setTextFormat(Qt::RichText);
        l->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    }
    m_leftStrip = new StepStrip(this);
    m_rightStrip = new StepStrip(this);
    sides->addWidget(m_left, 0, 0);
    sides->addWidget(m_right, 0, 1);
    sides->addWidget(m_leftStrip, 1, 0);
    sides->addWidget(m_rightStrip, 1, 1);
    sides->setColumnStretch(0, 1);
    sides->setColumnStretch(1, 1);
    layout->addLayout(sides);

    // Charts above the tables, the two traces side by side in each tab.
    auto* vertical = new QSplitter(Qt::Vertical, this);
    auto* charts = new QTabWidget(vertical);
    m_charts = charts;
    auto sideBySide = [charts](QWidget* left, QWidget* right, const QString& title) {
        auto* pair = new QSplitter(Qt::Horizontal, charts);
        pair->addWidget(left);
        pair->addWidget(right);
        pair->setChildrenCollapsible(false);
        charts->addTab(pair, title);
    };
    m_leftBars = new StepBarsChart;
    m_rightBars = new StepBarsChart;
    sideBySide(m_leftBars, m_rightBars, tr("Where each step's time goes"));
    m_leftBars->setAccessibleName(tr("Step time breakdown, this trace"));
    m_rightBars->setAccessibleName(tr("Step time breakdown, the other trace"));
    m_leftRoofline = new RooflineChart;
    m_rightRoofline = new RooflineChart;
    sideBySide(m_leftRoofline, m_rightRoofline, tr("Roofline"));
    m_leftRoofline->setAccessibleName(tr("Roofline, this trace"));
    m_rightRoofline->setAccessibleName(tr("Roofline, the other trace"));
    charts->setMinimumHeight(260);
    vertical->addWidget(charts);

    auto* split = new QSplitter(Qt::Horizontal, vertical);
    m_metrics = new QStandardItemModel(0, 5, this);
    m_metrics->setHorizontalHeaderLabels(
        {tr("Metric"), tr("This trace"), tr("Other trace"), tr("Change"), tr("Verdict")});
    // The metric's name gives way first: its figures, change and verdict stay whole at 1000 px.
    m_metricsView = makeSortableTable(m_metrics, split, 0);
    m_metricsView->setAccessibleName(tr("Metrics before and after"));
    m_kernels = new QStandardItemModel(0, 4, this);
    // Short headers and one column for both means leave the kernel column its room (at 1000 px
    // four number columns left it "volt…"); the tooltips say them in full.
    m_kernels->setHorizontalHeaderLabels(
        {tr("Kernel"), tr("Change"), tr("Mean per call"), tr("Per step after")});
    m_kernels->horizontalHeaderItem(2)->setToolTip(tr("Mean time per call, before → after"));
    m_kernels->horizontalHeaderItem(3)->setToolTip(tr("Time per step after"));
    m_kernelsView = makeSortableTable(m_kernels, split, 0);  // the kernel column takes the room
    m_kernelsView->setTextElideMode(Qt::ElideMiddle);        // a kernel's name ends in what tells it apart
    m_kernelsView->setAccessibleName(tr("Kernels that changed"));
    split->addWidget(m_metricsView);
    split->addWidget(m_kernelsView);

    vertical->addWidget(split);
    vertical->setStretchFactor(0, 3);
    vertical->setStretchFactor(1, 2);
    layout->addWidget(vertical, 1);
    refresh();
}

void ComparePage::setDocument(TraceDocument* document) {
    if (m_document) {
        disconnect(m_document, nullptr, this, nullptr);
    }
    Page::setDocument(document);
    if (document != nullptr) {
        // Another trace in the document: the comparison was with the old one, so its other side goes.
        connect(document, &TraceDocument::loadStarted, this, [this] { m_otherIsStale = true; });
        connect(document, &TraceDocument::modelAvailable, this, [this] {
            if (m_document && m_document->model() != m_beforeModel) {
                m_beforeModel = m_document->model();
                if (m_otherIsStale) {
                    clearOtherSide();
                }
            }
            m_otherIsStale = false;
        });
        m_beforeModel = document->model();
        connect(document, &TraceDocument::analysisAvailable, this, [this] {
            refreshNowOrWhenShown(0, [this] {
                m_before = m_document ? m_document->report() : nullptr;
                refresh();
            });
        });
        m_before = document->report();
    } else {
        m_before.reset();
    }
    refresh();
}

void ComparePage::clearOtherSide() {
    if (m_other != nullptr) {
        m_other->cancel();
        m_other->deleteLater();  // its signals no longer reach this page
        disconnect(m_other, nullptr, this, nullptr);
        m_other = nullptr;
    }
    m_before.reset();
    m_after.reset();
    refresh();
}

void ComparePage::installActions(PageHost& host) {
    auto* action = new QAction(tr("Compare &with…"), this);
    action->setObjectName(QStringLiteral("compareWithAction"));
    connect(action, &QAction::triggered, this, [this, host = &host] {
        host->showPage(pageId());
        chooseFile();
    });
    host.addFileOpenAction(action);
}

void ComparePage::chooseFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Compare with trace"));
    if (!path.isEmpty()) {
        compareWith(path);
    }
}

void ComparePage::compareWith(const QString& path) {
    m_otherIsStale = false;
    if (m_other == nullptr) {
        m_other = new TraceDocument(this);
        connect(m_other, &TraceDocument::analysisAvailable, this, [this] {
            m_after = m_other->report();
            refresh();
        });
        auto failed = [this](const QString& message) {
            m_after.reset();
            refresh();
            m_summary->setText(tr("<span style='color:%2'>Could not compare: %1</span>")
                                   .arg(message.toHtmlEscaped(), cssColor(themeColors(palette()).error)));
        };
        connect(m_other, &TraceDocument::loadFailed, this, failed);
        connect(m_other, &TraceDocument::analysisFailed, this, failed);
    }
    m_after.reset();
    refresh();
    m_summary->setText(tr("Loading %1…").arg(QFileInfo(path).fileName().toHtmlEscaped()));
    m_other->open(path);
}

void ComparePage::setReports(std::shared_ptr<const analysis::AnalysisReport> before,
                             std::shared_ptr<const analysis::AnalysisReport> after) {
    m_before = std::move(before);
    m_after = std::move(after);
    refresh();
}

QString ComparePage::summaryText() const {
    return m_summary->text();
}

void ComparePage::updateCharts() {
    auto barsOf = [](const std::shared_ptr<const analysis::AnalysisReport>& r, const QString& empty) {
        StepBarsData result = r ? stepBarsFromReport(*r) : StepBarsData{};
        if (!r) {
            result.emptyMessage = empty;
        }
        return result;
    };
    auto rooflineOf = [](const std::shared_ptr<const analysis::AnalysisReport>& r, const QString& empty) {
        RooflineChartData result = r ? rooflineFromReport(*r) : RooflineChartData{};
        if (!r) {
            result.emptyMessage = empty;
        }
        return result;
    };
    const QString noTrace = tr("Open a trace first.");
    const QString noOther = tr("Choose File ▸ Compare with… to open a second trace.");
    StepBarsData leftBars = barsOf(m_before, noTrace);
    StepBarsData rightBars = barsOf(m_after, noOther);
    // One legend for both sides: a kind of time present on either is listed on both, so the two
    // legends are equally tall and the bars start at the same height (a fourth legend row on one
    // side shifted its plot down against the other's).
    QStringList present;
    for (const StepBarsData* side : {&leftBars, &rightBars}) {
        for (const StackedSeries& series : side->series) {
            const bool any = std::any_of(series.valuesMs.begin(), series.valuesMs.end(),
                                         [](double v) { return std::isfinite(v) && v > 0; });
            if (any && !present.contains(series.name)) {
                present.append(series.name);
            }
        }
    }
    leftBars.alwaysInLegend = present;
    rightBars.alwaysInLegend = present;
    m_leftBars->setData(std::move(leftBars));
    m_rightBars->setData(std::move(rightBars));
    m_leftRoofline->setData(rooflineOf(m_before, noTrace));
    m_rightRoofline->setData(rooflineOf(m_after, noOther));
    // Charts of one trace next to an empty frame say nothing: they appear with the second trace.
    m_charts->setVisible(m_before && m_after);
    if (m_before && m_after) {
        shareAxes(m_leftBars->plot(), m_rightBars->plot());
        shareAxes(m_leftRoofline->plot(), m_rightRoofline->plot());
    }
}

void ComparePage::paletteChanged() {
    refresh();
}

void ComparePage::refresh() {
    m_metrics->removeRows(0, m_metrics->rowCount());
    m_kernels->removeRows(0, m_kernels->rowCount());
    m_comparison.reset();
    m_left->setText(
        m_before ? sideHtml(tr("This trace: %1")
                                .arg(QFileInfo(QString::fromStdString(m_before->sourcePath)).fileName()),
                            *m_before)
                 : tr("Open a trace first."));
    m_right->setText(
        m_after ? sideHtml(tr("Other trace: %1")
                               .arg(QFileInfo(QString::fromStdString(m_after->sourcePath)).fileName()),
                           *m_after)
                : tr("Choose File ▸ Compare with… to open a second trace."));
    m_leftStrip->setCells(m_before ? stepStripFromReport(*m_before) : std::vector<StepStripCell>{});
    m_rightStrip->setCells(m_after ? stepStripFromReport(*m_after) : std::vector<StepStripCell>{});
    // A side without a trace has no steps to miss: its strip stays blank rather than "No steps detected".
    m_leftStrip->setEmptyText(m_before ? tr("No steps detected") : QString());
    m_rightStrip->setEmptyText(m_after ? tr("No steps detected") : QString());
    updateCharts();
    if (!m_before || !m_after) {
        m_summary->setText(
            tr("Compare this trace with another run (before/after a change, or another rank)."));
        return;
    }
    m_comparison =
        std::make_unique<analysis::ComparisonReport>(analysis::compareReports(*m_before, *m_after));
    const analysis::ComparisonReport& c = *m_comparison;
    // The headline names the verdicts; the warnings follow, each once (the one-line summary repeats
    // the first as its CAUTION).
    QString summary = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(c.headline).toHtmlEscaped());
    if (c.prediction.available) {
        summary +=
            QStringLiteral("<br/>%1").arg(QString::fromStdString(c.prediction.summary).toHtmlEscaped());
    }
    for (const std::string& w : c.warnings) {
        summary +=
            QStringLiteral("<br/><span style='color:%2'>⚠ %1</span>")
                .arg(QString::fromStdString(w).toHtmlEscaped(), cssColor(themeColors(palette()).warning));
    }
    m_summary->setText(summary);

    for (const analysis::MetricDelta& m : c.metrics) {
        const QString change =
            m.unit == "fraction"
                ? QStringLiteral("%1%2 pp").arg(m.delta >= 0 ? "+" : "").arg(m.delta * 100, 0, 'f', 1)
                : QStringLiteral("%1%2 %").arg(m.relative >= 0 ? "+" : "").arg(m.relative * 100, 0, 'f', 1);
        const QString verdict = !m.notComparable.empty() ? tr("not compared")
                                : m.improved             ? tr("better")
                                : m.regressed            ? tr("worse")
                                                         : tr("unchanged");
        QList<QStandardItem*> row = {
            new QStandardItem(compareMetricLabel(m.name)), new QStandardItem(valueText(m, m.before)),
            new QStandardItem(valueText(m, m.after)), new QStandardItem(change), new QStandardItem(verdict)};
        // The label in full (the column may elide it) and the id in JSON reports and `diff`.
        row[0]->setToolTip(
            QStringLiteral("%1 (%2)").arg(compareMetricLabel(m.name), QString::fromStdString(m.name)));
        if (!m.notComparable.empty()) {
            row[4]->setToolTip(QString::fromStdString(m.notComparable));
        }
        row[1]->setData(m.before, SortRole);
        row[2]->setData(m.after, SortRole);
        row[3]->setData(m.relative, SortRole);
        const ThemeColors colors = themeColors(palette());
        const QColor colour = m.improved ? colors.good : m.regressed ? colors.error : colors.mutedText;
        row[3]->setForeground(colour);
        row[4]->setForeground(colour);
        m_metrics->appendRow(row);
    }
    auto addKernels = [this](const std::vector<analysis::KernelDelta>& list, const QString& what) {
        for (const analysis::KernelDelta& k : list) {
            QList<QStandardItem*> row = {
                new QStandardItem(QString::fromStdString(core::shortKernelName(k.name))),
                new QStandardItem(
                    what == QStringLiteral("×") ? tr("× %1 per step").arg(k.perStepRatio, 0, 'f', 2) : what),
                new QStandardItem(
                    tr("%1 → %2").arg(k.countBefore > 0 ? durationText(k.meanNsBefore) : QStringLiteral("—"),
                                      k.countAfter > 0 ? durationText(k.meanNsAfter) : QStringLiteral("—"))),
                new QStandardItem(durationText(k.totalNsAfter))};
            row[1]->setToolTip(tr("time per step × %1, mean per call × %2 (%3 → %4 calls per step)")
                                   .arg(k.perStepRatio, 0, 'f', 2)
                                   .arg(k.meanRatio, 0, 'f', 2)
                                   .arg(k.callsPerStepBefore, 0, 'g', 3)
                                   .arg(k.callsPerStepAfter, 0, 'g', 3));
            row[0]->setToolTip(QString::fromStdString(k.name));  // the short name in the cell
            row[1]->setData(k.perStepRatio, SortRole);
            row[2]->setData(k.meanNsAfter, SortRole);
            row[3]->setData(k.totalNsAfter, SortRole);
            m_kernels->appendRow(row);
        }
    };
    addKernels(c.slower, QStringLiteral("×"));
    addKernels(c.faster, QStringLiteral("×"));
    addKernels(c.appeared, tr("new"));
    addKernels(c.vanished, tr("gone"));
    if (m_kernels->rowCount() == 0) {
        // An empty table reads as a failure to compare: say what was compared and found unchanged.
        const analysis::CompareOptions options;
        auto* none = new QStandardItem(tr("No kernel changed its time per step by %1 % or more")
                                           .arg(std::lround((options.kernelChangeMinRatio - 1.0) * 100.0)));
        none->setToolTip(tr("Kernels holding at least %1 % of the kernel time on a side were compared by "
                            "name; none changed its time per step by that much, appeared or vanished")
                             .arg(options.kernelMinShareOfTime * 100.0, 0, 'g', 2));
        none->setFlags(Qt::ItemIsEnabled);
        none->setForeground(themeColors(palette()).mutedText);
        QList<QStandardItem*> row = {none};
        for (int column = 1; column < m_kernels->columnCount(); ++column) {
            auto* blank = new QStandardItem;
            blank->setFlags(Qt::ItemIsEnabled);
            row.append(blank);
        }
        m_kernels->appendRow(row);
        m_kernelsView->setSpan(0, 0, 1, m_kernels->columnCount());  // the sentence across the table
    }
}

}  // namespace chokepoint::ui
