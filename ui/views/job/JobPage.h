#pragma once
// JobPage: the job at a glance. A header with the job's verdict, its ranks (and those missing),
// the clock alignment and the step time with and without late arrivals; the rank x step heatmap
// (its figure chosen in a selector) beside the straggler panel; below, tabs with the multi-rank
// timeline, the collectives table and the verdict's evidence and fixes. Renders the JobReport
// of its JobDocument only.

#include <QWidget>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace chokepoint::ui {

class CollectivesTableModel;
class JobDocument;
class JobTimelineWidget;
class RankStepHeatmap;
class StragglerPanel;

class JobPage : public QWidget {
    Q_OBJECT
public:
    explicit JobPage(QWidget* parent = nullptr);

    void setDocument(JobDocument* document);
    JobDocument* document() const { return m_document; }

    RankStepHeatmap* heatmap() const { return m_heatmap; }
    QComboBox* metricSelector() const { return m_metric; }
    StragglerPanel* stragglerPanel() const { return m_stragglers; }
    JobTimelineWidget* timeline() const { return m_timeline; }
    CollectivesTableModel* collectivesModel() const { return m_collectives; }
    QTableView* collectivesView() const { return m_collectivesView; }
    QTabWidget* tabs() const { return m_tabs; }
    QString headerText() const;
    QString verdictText() const;

protected:
    void changeEvent(QEvent* event) override;  // re-renders the header's rich text in the new palette

private:
    void refresh();

    JobDocument* m_document = nullptr;
    QLabel* m_header = nullptr;
    QComboBox* m_metric = nullptr;
    const void* m_openedReport = nullptr;  // the report whose opening heatmap figure was set
    RankStepHeatmap* m_heatmap = nullptr;
    StragglerPanel* m_stragglers = nullptr;
    QTabWidget* m_tabs = nullptr;
    JobTimelineWidget* m_timeline = nullptr;
    CollectivesTableModel* m_collectives = nullptr;
    QSortFilterProxyModel* m_collectivesProxy = nullptr;
    QTableView* m_collectivesView = nullptr;
    QLabel* m_verdict = nullptr;
};

}  // namespace chokepoint::ui
