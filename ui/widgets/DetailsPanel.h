#pragma once
// DetailsPanel: the selected event's fields (EventDetailsModel in a table) with its name as a
// title and buttons to zoom to it or jump to the call that launched it.

#include <QWidget>

#include "ui/widgets/EventDetailsModel.h"

class QLabel;
class QPushButton;
class QTableView;

namespace chokepoint::ui {

class DetailsPanel : public QWidget {
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget* parent = nullptr);

    void setEvent(std::shared_ptr<const core::TraceModel> model, timeline::EventRef ref);
    EventDetailsModel* detailsModel() const { return m_model; }

signals:
    void zoomRequested();
    void showLaunchRequested();

private:
    EventDetailsModel* m_model = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_hint = nullptr;
    QTableView* m_table = nullptr;
    QPushButton* m_zoom = nullptr;
    QPushButton* m_launch = nullptr;
};

}  // namespace chokepoint::ui
