#pragma once
// DetailsPanel: the selected event's fields (EventDetailsModel in a table) with its name as a
// title and buttons to zoom to it, jump to the call that launched it, or (for a runtime call or a
// CPU op) show the GPU work it launched. Below the fields, or alone
// for a selected range, the statistics of a time range (RangeStatsView), or two ranges compared.

#include <QWidget>

#include "core/analysis/metrics/RangeStats.h"
#include "core/analysis/metrics/RangeStatsText.h"
#include "ui/base/models/EventDetailsModel.h"

class QLabel;
class QPushButton;
class QTableView;

namespace chokepoint::ui {

class RangeStatsView;

class DetailsPanel : public QWidget {
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget* parent = nullptr);

    // Shows the event's fields (and no range statistics).
    void setEvent(std::shared_ptr<const core::TraceModel> model, timeline::EventRef ref);
    // Adds the statistics of the selected event's time span below its fields (ops, ranges).
    void setEventRangeStats(const analysis::RangeStats& stats, const core::TraceModel& model,
                            core::TimestampNs originNs);
    // Shows the statistics of a selected time range alone, titled `title`.
    void setRangeStats(const QString& title, const analysis::RangeStats& stats, const core::TraceModel& model,
                       core::TimestampNs originNs);
    // Shows two ranges side by side (A, B, B - A), titled `title`.
    void setRangeComparison(const QString& title, const std::vector<analysis::RangeComparisonRow>& rows);
    // True while range statistics or a comparison are shown.
    bool showsRange() const;
    EventDetailsModel* detailsModel() const { return m_model; }
    RangeStatsView* rangeView() const { return m_range; }
    QString title() const;
    // "Show kernels (n)" for a launch call or op that launched `count` pieces of GPU work (0 hides it).
    void setLaunchedWorkCount(std::size_t count);
    QPushButton* showLaunchedButton() const { return m_launched; }
    QPushButton* showLaunchButton() const { return m_launch; }

signals:
    void zoomRequested();
    void showLaunchRequested();
    void showLaunchedRequested();

private:
    EventDetailsModel* m_model = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_hint = nullptr;
    QTableView* m_table = nullptr;
    RangeStatsView* m_range = nullptr;
    QPushButton* m_zoom = nullptr;
    QPushButton* m_launch = nullptr;
    QPushButton* m_launched = nullptr;
};

}  // namespace chokepoint::ui
