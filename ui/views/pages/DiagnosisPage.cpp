#include "ui/views/pages/DiagnosisPage.h"

#include <QAction>
#include <QCoreApplication>
#include <QFileDialog>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPalette>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <utility>

#include "core/analysis/diagnosis/DeviceMemoryText.h"
#include "core/base/Format.h"
#include "ui/base/charts/MfuBands.h"
#include "ui/base/charts/ReportCharts.h"
#include "ui/base/charts/StepBarsChart.h"
#include "ui/base/charts/StepStrip.h"
#include "ui/base/models/ModelRoles.h"
#include "ui/base/models/TopKernelsModel.h"
#include "ui/base/models/TraceStatsModel.h"
#include "ui/base/settings/AnalysisSettingsStrip.h"
#include "ui/base/theme/ReportPalette.h"
#include "ui/base/theme/Theme.h"
#include "ui/base/theme/ThemeColors.h"
#include "ui/base/widgets/ExportNotice.h"
#include "ui/base/widgets/TableFilter.h"
#include "ui/views/report/CsvExport.h"
#include "ui/views/report/DiagnosisReport.h"

namespace chokepoint::ui {
namespace {

constexpr int kSizingRows = 500;  // rows read to size a column to its contents
constexpr int kMinTablesHeight = 300;
constexpr int kMaxTablesHeight = 900;  // at most this tall, so the sections below stay reachable

}  // namespace

QTableView* makeSortableTable(QAbstractItemModel* model, QWidget* parent, int stretchColumn) {
    auto* view = new QTableView(parent);
    auto* proxy = new QSortFilterProxyModel(view);
    proxy->setSourceModel(model);
    proxy->setSortRole(SortRole);
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->sortByColumn(-1, Qt::AscendingOrder);  // keep the model's order (already ranked) until clicked
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setAlternatingRowColors(true);
    view->verticalHeader()->setVisible(false);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->setWordWrap(false);
    view->setTextElideMode(Qt::ElideRight);
    QHeaderView* header = view->horizontalHeader();
    if (stretchColumn >= 0) {
        // Columns are sized from at most kSizingRows rows (the header's default reads 1000): each
        // is a font measurement, repeated on every sort and filter of a table of thousands.
        header->setResizeContentsPrecision(kSizingRows);
        header->setSectionResizeMode(QHeaderView::ResizeToContents);
        header->setSectionResizeMode(stretchColumn, QHeaderView::Stretch);
        header->setStretchLastSection(false);
    } else {
        header->setStretchLastSection(true);
    }
    view->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* exportCsv = new QAction(QObject::tr("Export table as CSV…"), view);
    QObject::connect(exportCsv, &QAction::triggered, view, [view, model] {
        const QString path = QFileDialog::getSaveFileName(view, QObject::tr("Export CSV"), QString(),
                                                          QObject::tr("CSV files (*.csv)"));
        if (path.isEmpty()) {
            return;
        }
        QString error;
        if (!writeTableCsv(*model, path, &error)) {
            QMessageBox::warning(view, QObject::tr("Export failed"), error);
            return;
        }
        showExportNotice(view, QObject::tr("the table"), path);
    });
    view->addAction(exportCsv);
    return view;
}

namespace {

QLabel* sectionTitle(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    QFont f = label->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.1);
    label->setFont(f);
    return label;
}

}  // namespace

DiagnosisPage::DiagnosisPage(QWidget* parent) : Page(parent) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    outer->addWidget(scroll);
    m_scroll = scroll;
    m_scrollViewport = scroll->viewport();
    m_scrollViewport->installEventFilter(this);
    m_content = new QWidget(scroll);
    scroll->setWidget(m_content);
    auto* layout = new QVBoxLayout(m_content);
    layout->setContentsMargins(16, 12, 16, 12);
    layout->setSpacing(8);

    auto* top = new QHBoxLayout;
    m_headline = new QLabel(m_content);
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont headlineFont = m_headline->font();
    headlineFont.setPointSizeF(headlineFont.pointSizeF() * 1.6);
    headlineFont.setBold(true);
    m_headline->setFont(headlineFont);
    top->addWidget(m_headline, 1);
    m_exportHtml = new QPushButton(tr("Export HTML…"), m_content);
    m_exportPdf = new QPushButton(tr("Export PDF…"), m_content);
    top->addWidget(m_exportHtml, 0, Qt::AlignTop);
    top->addWidget(m_exportPdf, 0, Qt::AlignTop);
    layout->addLayout(top);
    connect(m_exportHtml, &QPushButton::clicked, this, [this] { chooseExport(false); });
    connect(m_exportPdf, &QPushButton::clicked, this, [this] { chooseExport(true); });

    m_rationale = new QLabel(m_content);
    m_rationale->setWordWrap(true);
    m_rationale->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_rationale);

    // Headline figures: a caption over a large value each. Plain labels in a grid, not a rich-text
    // table, because laying out rich text at every width the page is tried at costs milliseconds.
    auto* figures = new QGridLayout;
    m_figures = figures;
    figures->setHorizontalSpacing(28);
    figures->setVerticalSpacing(0);
    QFont valueFont = font();
    valueFont.setPointSizeF(15);
    valueFont.setBold(true);
    for (int i = 0; i < kFigureCount; ++i) {
        m_figureCaptions[i] = new QLabel(m_content);
        useMutedText(m_figureCaptions[i]);
        m_figureValues[i] = new QLabel(m_content);
        m_figureValues[i]->setFont(valueFont);
        m_figureValues[i]->setTextInteractionFlags(Qt::TextSelectableByMouse);
        // A long value (a withheld MFU's reason, a device's full name) wraps in a narrow window
        // instead of widening the page past it.
        m_figureValues[i]->setWordWrap(true);
        m_figureValues[i]->setAlignment(Qt::AlignLeft | Qt::AlignTop);
        figures->addWidget(m_figureCaptions[i], 0, i);
        figures->addWidget(m_figureValues[i], 1, i);
        figures->setColumnStretch(i, 1);  // then in proportion to the text (showReport)
    }
    layout->addLayout(figures);
    m_stepNote = new QLabel(m_content);
    useMutedText(m_stepNote);
    m_stepNote->setWordWrap(true);
    layout->addWidget(m_stepNote);

    auto* mfuRow = new QHBoxLayout;
    m_mfuBands = new MfuBands(m_content);
    m_mfuBands->setMaximumWidth(520);
    mfuRow->addWidget(m_mfuBands, 2);
    m_mfuText = new QLabel(m_content);
    m_mfuText->setWordWrap(true);
    mfuRow->addWidget(m_mfuText, 3);
    layout->addLayout(mfuRow);
    m_settingsStrip = new AnalysisSettingsStrip(m_content);
    layout->addWidget(m_settingsStrip);

    layout->addWidget(sectionTitle(tr("Verdict per step"), m_content));
    m_strip = new StepStrip(m_content);
    layout->addWidget(m_strip);
    connect(m_strip, &StepStrip::stepClicked, this, &DiagnosisPage::onStepClicked);

    m_barsTitle = sectionTitle(tr("Where each step's time goes"), m_content);
    layout->addWidget(m_barsTitle);
    m_bars = new StepBarsChart(m_content);
    m_bars->setAccessibleName(tr("Where each step's time goes"));
    m_bars->setMinimumHeight(260);
    layout->addWidget(m_bars);
    connect(m_bars, &StepBarsChart::stepClicked, this, &DiagnosisPage::onStepClicked);

    // Every kernel and every op, behind filter boxes; the kernel column shows short names (full name
    // in the tooltip and below the table). One table per tab, each the page's full width (kernel
    // names need the room), as tall as the window allows (sizeTables).
    layout->addWidget(sectionTitle(tr("Every kernel and op"), m_content));
    auto* tables = new QTabWidget(m_content);
    tables->setObjectName(QStringLiteral("tableTabs"));
    tables->setDocumentMode(true);
    m_tables = tables;
    auto* kernelBox = new QWidget(tables);
    auto* kernelLayout = new QVBoxLayout(kernelBox);
    kernelLayout->setContentsMargins(0, 0, 0, 0);
    m_kernels = new TopKernelsModel(this);
    m_kernelView = makeSortableTable(m_kernels, kernelBox, TopKernelsModel::NameColumn);
    m_kernelView->setObjectName(QStringLiteral("kernelTable"));
    m_kernelView->setAccessibleName(tr("Kernels by total GPU time"));
    QLineEdit* kernelFilter = makeTableFilter(m_kernelView, tr("Filter kernels (full name)…"), kernelBox);
    kernelFilter->setObjectName(QStringLiteral("kernelFilter"));
    // The filter matches the full name, so "MulFunctor" finds vectorized_elementwise_kernel<4,
    // BinaryFunctor, Array>, whose folded template arguments name it.
    qobject_cast<QSortFilterProxyModel*>(m_kernelView->model())->setFilterRole(FullTextRole);
    kernelLayout->addWidget(kernelFilter);
    kernelLayout->addWidget(m_kernelView, 1);
    m_kernelDetails = new QLabel(kernelBox);
    m_kernelDetails->setObjectName(QStringLiteral("kernelDetails"));
    m_kernelDetails->setWordWrap(true);
    m_kernelDetails->setTextFormat(Qt::PlainText);
    m_kernelDetails->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_kernelDetails->setForegroundRole(QPalette::PlaceholderText);
    m_kernelDetails->setText(
        tr("Click a kernel for its full name; double-click to show it on the timeline."));
    kernelLayout->addWidget(m_kernelDetails);
    connect(m_kernelView, &QTableView::doubleClicked, this, &DiagnosisPage::onKernelActivated);
    connect(m_kernelView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showKernelDetails(current); });
    auto* opBox = new QWidget(tables);
    auto* opLayout = new QVBoxLayout(opBox);
    opLayout->setContentsMargins(0, 0, 0, 0);
    m_ops = new TopOpsModel(this);
    m_opView = makeSortableTable(m_ops, opBox, TopOpsModel::NameColumn);
    m_opView->setObjectName(QStringLiteral("opTable"));
    m_opView->setAccessibleName(tr("Ops by GPU time launched"));
    QLineEdit* opFilter = makeTableFilter(m_opView, tr("Filter ops…"), opBox);
    opFilter->setObjectName(QStringLiteral("opFilter"));
    opLayout->addWidget(opFilter);
    opLayout->addWidget(m_opView, 1);
    tables->addTab(kernelBox, tr("Kernels"));
    tables->addTab(opBox, tr("Ops by GPU time launched"));
    tables->setMinimumHeight(kMinTablesHeight);
    layout->addWidget(tables);

    layout->addWidget(sectionTitle(tr("Warnings and trace diagnostics"), m_content));
    m_warnings = new QLabel(m_content);
    m_warnings->setWordWrap(true);
    m_warnings->setTextFormat(Qt::PlainText);  // see the figures above: rich text is slow to lay out
    layout->addWidget(m_warnings);
    m_stats = new TraceStatsModel(this);
    m_statsView = makeSortableTable(m_stats, m_content);
    m_statsView->setAccessibleName(tr("Import statistics and warnings"));
    m_statsView->setMinimumHeight(120);
    layout->addWidget(m_statsView);
    layout->addStretch(1);

    showMessage(tr("Open a trace to see why its training is slow."));
}

void DiagnosisPage::scrollToTop() {
    if (m_scroll != nullptr) {
        m_scroll->verticalScrollBar()->setValue(0);
        m_scroll->horizontalScrollBar()->setValue(0);
    }
}

void DiagnosisPage::setDocument(TraceDocument* document) {
    if (m_document) {
        disconnect(m_document, nullptr, this, nullptr);
    }
    Page::setDocument(document);
    m_settingsStrip->setDocument(document);
    if (document == nullptr) {
        setReport(nullptr, nullptr);
        showMessage(tr("Open a trace to see why its training is slow."));
        return;
    }
    connect(document, &TraceDocument::loadStarted, this, [this] { showMessage(tr("Loading…")); });
    connect(document, &TraceDocument::modelAvailable, this, [this] { showMessage(tr("Analyzing…")); });
    connect(document, &TraceDocument::analysisAvailable, this, &DiagnosisPage::refreshFromDocument);
    connect(document, &TraceDocument::analysisFailed, this,
            [this](const QString& message) { showMessage(tr("Analysis failed: %1").arg(message)); });
    connect(document, &TraceDocument::loadStarted, this, [this] { scrollToTop(); });
    connect(document, &TraceDocument::loadFailed, this, [this](const QString& message) {
        // When the trace that was open stays open, the page keeps showing it; the failure is the
        // main window's to report.
        if (m_document == nullptr || m_document->model() == nullptr) {
            showMessage(tr("Could not open the trace: %1").arg(message));
        }
    });
    refreshFromDocument();
}

void DiagnosisPage::refreshFromDocument() {
    if (!m_document) {
        return;
    }
    if (m_document->report()) {
        setReport(m_document->report(), m_document->model());
    } else if (m_document->busy()) {
        showMessage(tr("Analyzing…"));
    }
}

void DiagnosisPage::showMessage(const QString& message) {
    m_headlinePlain.clear();
    m_headline->setTextFormat(Qt::PlainText);
    m_headline->setText(message);
    m_headline->setStyleSheet(QString());
    m_rationale->clear();
    for (int i = 0; i < kFigureCount; ++i) {
        m_figureCaptions[i]->clear();
        m_figureValues[i]->clear();
    }
    m_stepNote->clear();
    m_mfuText->clear();
    m_settingsStrip->setReport(nullptr);
    m_warnings->clear();
    m_exportHtml->setEnabled(m_report != nullptr);
    m_exportPdf->setEnabled(m_report != nullptr);
}

QString DiagnosisPage::headlineText() const {
    return m_headlinePlain.isEmpty() ? m_headline->text() : m_headlinePlain;
}

QString DiagnosisPage::rationaleText() const {
    return m_rationale->text();
}

void DiagnosisPage::paletteChanged() {
    if (m_report) {
        setReport(m_report, m_model);  // the headline's colour
    }
}

void DiagnosisPage::setReport(std::shared_ptr<const analysis::AnalysisReport> report,
                              std::shared_ptr<const core::TraceModel> model) {
    m_report = std::move(report);
    m_model = model ? std::move(model) : (m_report ? m_report->model : nullptr);
    m_kernels->setReport(m_report, m_model.get());
    m_ops->setReport(m_report);
    m_tables->setTabText(0, m_report ? tr("Kernels (%1)").arg(m_kernels->rowCount()) : tr("Kernels"));
    m_tables->setTabText(1, m_report ? tr("Ops by GPU time launched (%1)").arg(m_ops->rowCount())
                                     : tr("Ops by GPU time launched"));
    showKernelDetails({});
    m_stats->setStats(m_model ? m_model->stats : core::TraceStats{});
    if (!m_report) {
        m_strip->setCells({});
        m_bars->setData({});
        m_mfuBands->setMfu(std::nullopt, false);
        showMessage(tr("No analysis yet."));
        return;
    }
    const analysis::AnalysisReport& r = *m_report;
    m_headlinePlain = QString::fromStdString(r.headline);
    QString headline = m_headlinePlain.toHtmlEscaped();
    if (r.model && r.model->metadata.synthetic) {
        // Synthetic samples come from a cost model, not a GPU: say so wherever they are shown.
        const QString purple = cssColor(themeColors(palette()).ink(QColor(0x5a, 0x2d, 0x82)));
        headline = tr("<span style='background:#5a2d82; color:white;'>&nbsp;SYNTHETIC&nbsp;</span> ") +
                   headline +
                   tr("<br/><span style='font-size:small; font-weight:normal; color:%1;'>This trace was "
                      "generated by Chokepoint's cost model, not captured from a real GPU.</span>")
                       .arg(purple);
    }
    m_headline->setTextFormat(r.model && r.model->metadata.synthetic ? Qt::RichText : Qt::PlainText);
    m_headline->setText(r.model && r.model->metadata.synthetic ? headline : m_headlinePlain);
    m_headline->setStyleSheet(
        QStringLiteral("color: %1;")
            .arg(cssColor(themeColors(palette()).ink(bottleneckColor(r.overall.bottleneck)))));
    // The headline above already says it when the rationale repeats it (a start-up window).
    QString rationale =
        analysis::rationaleRepeatsHeadline(r) ? QString() : QString::fromStdString(r.overall.rationale);
    if (!rationale.isEmpty()) {
        rationale[0] = rationale[0].toUpper();  // the report's rationale is a clause; shown as a sentence
        rationale += rationale.endsWith(QLatin1Char('.')) ? QStringLiteral(" ") : QStringLiteral(". ");
    }
    rationale += tr("Confidence: %1.").arg(QString::fromUtf8(r.overall.confidenceLabel()));
    if (!r.overall.missingSignals.empty()) {
        QStringList missing;
        for (const std::string& s : r.overall.missingSignals) {
            missing << QString::fromStdString(s);
        }
        rationale += tr(" Missing: %1.").arg(missing.join(QStringLiteral("; ")));
    }
    // A trace cut short is said at the top, where the figures are read, not only in the list below.
    for (const analysis::ReportWarning& w : r.warnings) {
        if (w.code == "trace.truncated") {
            rationale = tr("⚠ %1\n%2").arg(QString::fromStdString(w.message), rationale);
        }
    }
    m_rationale->setText(rationale);

    const analysis::MfuReport& mfu = r.mfu;
    const auto& steps = r.metrics.steps;
    QString device = r.device.matched ? QString::fromStdString(r.device.spec.name)
                                      : QString::fromStdString(r.device.traceDeviceName);
    if (device.isEmpty()) {
        device = tr("unknown");
    }
    QString deviceCaption = tr("Device");
    const bool fallback = r.device.matched && r.device.method.find("fallback") != std::string::npos &&
                          !r.device.traceDeviceName.empty();
    if (fallback) {
        // Another model's datasheet stands in: the trace's own name is shown, the stand-in is said
        // (the timeline names the trace's device; a silent "V100 SXM2" read as a different GPU).
        device = QString::fromStdString(r.device.traceDeviceName);
        deviceCaption =
            tr("Device (peaks of %1: %2)")
                .arg(QString::fromStdString(r.device.spec.name), QString::fromStdString(r.device.method));
    }
    // Without a GPU timeline (counter mode, a host-only capture) there is no busy share or MFU to
    // read: "GPU busy 0.0 %" and "MFU unknown: set the FLOPs" sent users to settings that cannot help.
    const bool timeline = r.metrics.hasGpuWork;
    const std::array<std::pair<QString, QString>, kFigureCount> figures = {{
        {tr("Step time (mean)"), mfu.stepTimeNs > 0 ? durationText(mfu.stepTimeNs) : tr("n/a")},
        {tr("GPU busy"), timeline ? percentText(mfu.busyFraction) : tr("not recorded")},
        {tr("MFU"), mfu.mfu ? QString::fromStdString(core::formatSmallPercent(*mfu.mfu)) +
                                  (mfu.estimate ? tr(" (est.)") : QString())
                    : mfu.impossibleMfu
                        ? QString::fromStdString(std::string(analysis::shortLabel(mfu.withheld)))
                    : timeline ? tr("unknown")
                               : tr("—")},
        {tr("HFU"), mfu.hfu    ? QString::fromStdString(core::formatSmallPercent(*mfu.hfu))
                    : timeline ? tr("unknown")
                               : tr("—")},
        {tr("Steps"), QString::number(steps.steps.size())},
        {deviceCaption, device},
    }};
    for (int i = 0; i < kFigureCount; ++i) {
        const QString& caption = figures[static_cast<std::size_t>(i)].first;
        QString value = figures[static_cast<std::size_t>(i)].second;
        if (!value.isEmpty() && value.front().isDigit()) {
            value.replace(QLatin1Char(' '), QChar::Nbsp);  // "12.7 %" never breaks before its unit
        }
        m_figureCaptions[i]->setText(caption);
        m_figureValues[i]->setText(value);
        // The room goes to each figure in proportion to its text, so a long value (a withheld MFU's
        // reason, a device's full name) keeps one line wherever the window allows and wraps where not.
        const int textWidth = std::max(m_figureCaptions[i]->fontMetrics().horizontalAdvance(caption),
                                       m_figureValues[i]->fontMetrics().horizontalAdvance(value));
        m_figures->setColumnStretch(i, std::max(1, textWidth));
    }
    m_stepNote->setText(tr("Step time: %1. Steps: %2.")
                            .arg(QString::fromStdString(analysis::describeStepTimes(r.metrics.stepTimes)),
                                 QString::fromStdString(steps.note)));

    m_mfuBands->setMfu(mfu.mfu, mfu.estimate);
    m_mfuBands->setVisible(timeline);  // an empty gauge reads as "MFU unknown", to be fixed
    const QString source =
        !timeline ? tr("not computed: the trace has no GPU timeline to time the model's work against")
        : mfu.source == analysis::ModelFlopsSource::None
            ? tr("not computed: model FLOPs unknown (set the FLOPs per step, or the parameters and tokens "
                 "per step, in Analysis Settings)")
            : QString::fromStdString(mfu.sourceNote);
    QString mfuText =
        tr("<b>MFU band:</b> %1<br/><b>Source:</b> %2")
            .arg(QString::fromStdString(mfu.bandLabel.empty() ? std::string("—") : mfu.bandLabel)
                     .toHtmlEscaped(),
                 source.toHtmlEscaped());
    if (mfu.peakFlopsPerSecond > 0 && timeline) {
        mfuText += tr("<br/><b>Peak used:</b> %1 (%2)")
                       .arg(QString::fromStdString(core::formatFlopsPerSecond(mfu.peakFlopsPerSecond)),
                            QString::fromStdString(mfu.precisionReason).toHtmlEscaped());
    }
    if (mfu.impossibleMfu) {
        // The reason opens with "MFU not shown: " (the CLI's line): under "Why no MFU" that is said.
        QString reason = QString::fromStdString(mfu.impossibleReason);
        const QString shown = QStringLiteral("MFU not shown: ");
        if (reason.startsWith(shown)) {
            reason.remove(0, shown.size());
        }
        if (!reason.isEmpty()) {
            reason[0] = reason[0].toUpper();
        }
        mfuText += tr("<br/><b>Why no MFU:</b> %1").arg(reason.toHtmlEscaped());
    }
    if (const std::string memory = analysis::describeDeviceMemory(r.overallSignals); !memory.empty()) {
        mfuText += tr("<br/><b>Device memory:</b> %1").arg(QString::fromStdString(memory).toHtmlEscaped());
    }
    m_mfuText->setText(mfuText);
    m_settingsStrip->setReport(&r);

    m_strip->setCells(stepStripFromReport(r));
    m_bars->setData(stepBarsFromReport(r));
    // Without GPU work the chart has nothing to split (a host-only capture drew an empty 0-1 ms chart).
    m_barsTitle->setVisible(r.metrics.hasGpuWork);
    m_bars->setVisible(r.metrics.hasGpuWork);

    QStringList warnings;
    for (const analysis::ReportWarning& w : r.warnings) {
        warnings << QStringLiteral("• %1: %2")
                        .arg(QString::fromUtf8(core::toString(w.severity)),
                             QString::fromStdString(w.message));
    }
    for (const std::string& w : mfu.warnings) {
        const bool listed = std::any_of(r.warnings.begin(), r.warnings.end(),
                                        [&](const analysis::ReportWarning& rw) { return rw.message == w; });
        if (!listed) {
            warnings << QStringLiteral("• %1").arg(QString::fromStdString(w));
        }
    }
    m_warnings->setText(warnings.isEmpty() ? tr("No analysis warnings.") : warnings.join(QLatin1Char('\n')));
    m_statsView->setVisible(m_stats->rowCount() > 0);
    m_statsView->resizeColumnsToContents();
    m_exportHtml->setEnabled(true);
    m_exportPdf->setEnabled(true);
    settleLayout();
}

void DiagnosisPage::settleLayout() {
    // New texts and tables change the content's height, which shows the scroll bar, which narrows
    // the content and rewraps the labels: left to the event loop that is three layout passes and
    // three paints of the whole page. Running the pending layout requests now makes it one paint.
    if (!isVisible()) {
        return;
    }
    // Likewise the tables' own delayed relayout after their models reset: done now (which stops
    // its timer), it joins the same paint instead of repainting the tables a moment later.
    for (QTableView* view : {m_kernelView, m_opView, m_statsView}) {
        view->doItemsLayout();
        view->horizontalHeader()->doItemsLayout();
        // The view's queued geometry update (scroll bars for the new rows) as well.
        QCoreApplication::sendPostedEvents(view, QEvent::MetaCall);
    }
    for (int pass = 0; pass < 3; ++pass) {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    }
}

void DiagnosisPage::sizeTables() {
    // The tables take the window's height less room for their titles, filters and the details
    // line, so scrolled to they fill the window; never below kMinTablesHeight.
    if (m_scrollViewport == nullptr || m_tables == nullptr) {
        return;
    }
    const int room = m_scrollViewport->height() - 4 * fontMetrics().height();
    m_tables->setMinimumHeight(std::clamp(room, kMinTablesHeight, kMaxTablesHeight));
}

bool DiagnosisPage::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_scrollViewport && event->type() == QEvent::Resize) {
        sizeTables();
    }
    return Page::eventFilter(watched, event);
}

void DiagnosisPage::showKernelDetails(const QModelIndex& current) {
    const QString full =
        current.isValid() ? current.siblingAtColumn(TopKernelsModel::NameColumn).data(FullTextRole).toString()
                          : QString();
    if (full.isEmpty()) {
        m_kernelDetails->setText(
            tr("Click a kernel for its full name; double-click to show it on the timeline."));
        m_kernelDetails->setForegroundRole(QPalette::PlaceholderText);
    } else {
        m_kernelDetails->setText(full);
        m_kernelDetails->setForegroundRole(QPalette::WindowText);
    }
}

QString DiagnosisPage::kernelDetailsText() const {
    return m_kernelDetails->foregroundRole() == QPalette::WindowText ? m_kernelDetails->text() : QString();
}

void DiagnosisPage::onStepClicked(int index) {
    if (!m_report || index < 0 || index >= static_cast<int>(m_report->steps.size())) {
        return;
    }
    m_strip->setSelectedCell(index);
    const analysis::StepDiagnosis& step = m_report->steps[static_cast<std::size_t>(index)];
    if (m_document) {
        m_document->showRange(step.range, QString::fromStdString(step.name));
    }
}

void DiagnosisPage::onKernelActivated(const QModelIndex& index) {
    const qlonglong row = index.data(KernelRowRole).toLongLong();
    if (row >= 0 && m_document) {
        m_document->selectKernel(core::KernelId{static_cast<std::uint32_t>(row)});
    }
}

bool DiagnosisPage::exportHtml(const QString& path, QString* error) const {
    if (!m_report) {
        if (error != nullptr) {
            *error = tr("%1: nothing to export, no analysis").arg(path);
        }
        return false;
    }
    return buildDiagnosisReport(*m_report, m_model.get()).writeHtml(path, error);
}

bool DiagnosisPage::exportPdf(const QString& path, QString* error) const {
    if (!m_report) {
        if (error != nullptr) {
            *error = tr("%1: nothing to export, no analysis").arg(path);
        }
        return false;
    }
    return buildDiagnosisReport(*m_report, m_model.get()).writePdf(path, error);
}

void DiagnosisPage::chooseExport(bool pdf) {
    const QString filter = pdf ? tr("PDF files (*.pdf)") : tr("HTML files (*.html)");
    const QString path =
        QFileDialog::getSaveFileName(this, pdf ? tr("Export PDF") : tr("Export HTML"), QString(), filter);
    if (path.isEmpty()) {
        return;
    }
    QString error;
    const bool ok = pdf ? exportPdf(path, &error) : exportHtml(path, &error);
    if (!ok) {
        QMessageBox::warning(this, tr("Export failed"), error);
        return;
    }
    showExportNotice(this, tr("the diagnosis report"), path);
}

}  // namespace chokepoint::ui
