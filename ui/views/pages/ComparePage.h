#pragma once
// ComparePage: two traces side by side (File ▸ Compare with…): each one's verdict, step time, GPU
// busy, MFU and per-step strip, then the deltas from core's compareReports (analysis/diagnosis/
// Compare.h): metric changes coloured by direction, verdict changes, kernels that got slower or
// faster, and whether the first trace's top fix delivered its predicted gain. Under the verdicts, the
// two traces' step breakdowns and rooflines side by side, on shared axes. The second trace is
// loaded and analysed off the GUI thread by its own TraceDocument.

#include <memory>

#include "ui/base/Page.h"
#include "ui/base/document/AnalysisReportQt.h"
#pragma push_macro("signals")
#undef signals
#include "core/analysis/diagnosis/Compare.h"
#pragma pop_macro("signals")

class QLabel;
class QPushButton;
class QStandardItemModel;
class QTableView;

namespace chokepoint::ui {

class RooflineChart;
class StepBarsChart;
class StepStrip;

// A comparison metric's id ("idle.hostWork") as the Compare table names it ("Idle: host work …").
QString compareMetricLabel(const std::string& id);

class ComparePage : public Page {
    Q_OBJECT
public:
    explicit ComparePage(QWidget* parent = nullptr);

    QString pageId() const override { return QStringLiteral("compare"); }
    QString title() const override { return tr("Compare"); }
    void setDocument(TraceDocument* document) override;
    // File > Compare with…
    void installActions(PageHost& host) override;

    // Loads `path` as the second trace and compares when both analyses are ready.
    void compareWith(const QString& path);
    // Shows the comparison of two reports directly (tests, or reports already in memory).
    void setReports(std::shared_ptr<const analysis::AnalysisReport> before,
                    std::shared_ptr<const analysis::AnalysisReport> after);
    const analysis::ComparisonReport* comparison() const { return m_comparison.get(); }
    QStandardItemModel* metricsModel() const { return m_metrics; }
    QStandardItemModel* kernelsModel() const { return m_kernels; }
    QString summaryText() const;
    // The side-by-side charts: where each step's time goes, and each trace's roofline, on the same
    // axes so heights and positions compare at a glance.
    StepBarsChart* stepBars(bool after) const { return after ? m_rightBars : m_leftBars; }
    RooflineChart* roofline(bool after) const { return after ? m_rightRoofline : m_leftRoofline; }

protected:
    void paletteChanged() override;

private:
    void chooseFile();
    void clearOtherSide();  // forgets the second trace (the document changed)
    void refresh();
    void updateCharts();

    std::shared_ptr<const analysis::AnalysisReport> m_before, m_after;
    std::unique_ptr<analysis::ComparisonReport> m_comparison;
    TraceDocument* m_other = nullptr;
    // The model the other side was compared with: a new trace in the document clears the other side.
    std::shared_ptr<const core::TraceModel> m_beforeModel;
    // A load started in the document since the other side was chosen: when its model arrives, the
    // old comparison is stale. A comparison asked for while the load runs is with the new trace.
    bool m_otherIsStale = false;

    QLabel* m_summary = nullptr;
    QLabel* m_left = nullptr;
    QLabel* m_right = nullptr;
    StepStrip* m_leftStrip = nullptr;
    StepStrip* m_rightStrip = nullptr;
    QWidget* m_charts = nullptr;  // the tabs of side-by-side charts
    StepBarsChart* m_leftBars = nullptr;
    StepBarsChart* m_rightBars = nullptr;
    RooflineChart* m_leftRoofline = nullptr;
    RooflineChart* m_rightRoofline = nullptr;
    QStandardItemModel* m_metrics = nullptr;
    QStandardItemModel* m_kernels = nullptr;
    QTableView* m_metricsView = nullptr;
    QTableView* m_kernelsView = nullptr;
    QPushButton* m_open = nullptr;
};

}  // namespace chokepoint::ui
