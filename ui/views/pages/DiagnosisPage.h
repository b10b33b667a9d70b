#pragma once
// DiagnosisPage: what opens first. The verdict in one sentence (AnalysisReport::headline), MFU
// with the seed's bands and its source, step time and GPU busy %, a per-step strip coloured by
// D·A·M class, a stacked bar per step of where the time goes, the top kernels and top ops tables
// (sortable, CSV export), the report's warnings and the trace's diagnostics (TraceStats).
// Everything shown is read from the report; a click on a step shows it on the timeline and a
// double-click on a kernel selects it (TraceDocument navigation).

#include <memory>

#include "ui/base/Page.h"
#include "ui/base/document/AnalysisReportQt.h"

class QAbstractItemModel;
class QGridLayout;
class QLabel;
class QTabWidget;
class QTableView;
class QPushButton;
class QScrollArea;
class QSortFilterProxyModel;
class QVBoxLayout;

namespace chokepoint::ui {

class AnalysisSettingsStrip;
class MfuBands;
class StepBarsChart;
class StepStrip;
class TopKernelsModel;
class TopOpsModel;
class TraceStatsModel;

class DiagnosisPage : public Page {
    Q_OBJECT
public:
    explicit DiagnosisPage(QWidget* parent = nullptr);

    QString pageId() const override { return QStringLiteral("diagnosis"); }
    QString title() const override { return tr("Diagnosis"); }
    void setDocument(TraceDocument* document) override;

    // Shows `report` (null: the "no analysis" state). `model` supplies op names and kernel rows;
    // may be null. Called by the document hooks, and directly by tests.
    void setReport(std::shared_ptr<const analysis::AnalysisReport> report,
                   std::shared_ptr<const core::TraceModel> model);
    // Shows a one-line state ("Open a trace…", "Analyzing…", an error).
    void showMessage(const QString& message);

    QString headlineText() const;
    // The line under the headline: the rationale (unless the headline says it), confidence, missing.
    QString rationaleText() const;
    TopKernelsModel* topKernelsModel() const { return m_kernels; }
    TopOpsModel* topOpsModel() const { return m_ops; }
    QTableView* kernelView() const { return m_kernelView; }
    QTableView* opView() const { return m_opView; }
    QTabWidget* tableTabs() const { return m_tables; }
    // The page's scroll area (a new trace opens at its top, on the headline).
    QScrollArea* scrollArea() const { return m_scroll; }
    // The full name of the kernel row last made current (empty when none).
    QString kernelDetailsText() const;
    TraceStatsModel* traceStatsModel() const { return m_stats; }
    StepStrip* stepStrip() const { return m_strip; }
    StepBarsChart* stepBars() const { return m_bars; }
    // The analysis settings line with its "Analysis Settings…" button.
    AnalysisSettingsStrip* settingsStrip() const { return m_settingsStrip; }

    // Exports the diagnosis (false with `error` naming the file on failure).
    bool exportHtml(const QString& path, QString* error = nullptr) const;
    bool exportPdf(const QString& path, QString* error = nullptr) const;

protected:
    void paletteChanged() override;

private:
    void refreshFromDocument();
    void onStepClicked(int index);
    void onKernelActivated(const QModelIndex& index);
    void chooseExport(bool pdf);
    void settleLayout();
    void scrollToTop();
    void sizeTables();
    void showKernelDetails(const QModelIndex& current);
    bool eventFilter(QObject* watched, QEvent* event) override;

    std::shared_ptr<const analysis::AnalysisReport> m_report;
    std::shared_ptr<const core::TraceModel> m_model;

    QString m_headlinePlain;  // the report's headline without the synthetic badge
    QLabel* m_headline = nullptr;
    QLabel* m_rationale = nullptr;
    static constexpr int kFigureCount = 6;  // step time, GPU busy, MFU, HFU, steps, device
    QLabel* m_figureCaptions[kFigureCount] = {};
    QLabel* m_figureValues[kFigureCount] = {};
    QGridLayout* m_figures = nullptr;
    QLabel* m_stepNote = nullptr;
    QLabel* m_mfuText = nullptr;
    MfuBands* m_mfuBands = nullptr;
    AnalysisSettingsStrip* m_settingsStrip = nullptr;
    StepStrip* m_strip = nullptr;
    StepBarsChart* m_bars = nullptr;
    QLabel* m_barsTitle = nullptr;
    TopKernelsModel* m_kernels = nullptr;
    TopOpsModel* m_ops = nullptr;
    TraceStatsModel* m_stats = nullptr;
    QTableView* m_kernelView = nullptr;
    QTableView* m_opView = nullptr;
    QTableView* m_statsView = nullptr;
    QLabel* m_kernelDetails = nullptr;  // the current kernel's full name
    QTabWidget* m_tables = nullptr;     // the kernel and op tables, one per tab
    QScrollArea* m_scroll = nullptr;
    QWidget* m_scrollViewport = nullptr;
    QLabel* m_warnings = nullptr;
    QPushButton* m_exportHtml = nullptr;
    QPushButton* m_exportPdf = nullptr;
    QWidget* m_content = nullptr;
};

// A sortable, read-only table view over `model` through a QSortFilterProxyModel sorting by SortRole,
// with an "Export CSV…" context-menu action. Used by several pages. Long texts are elided at the end.
// With `stretchColumn` >= 0 that column takes the room left by the others, which are sized to their
// contents.
QTableView* makeSortableTable(QAbstractItemModel* model, QWidget* parent, int stretchColumn = -1);

}  // namespace chokepoint::ui
