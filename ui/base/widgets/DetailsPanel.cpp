#include "ui/base/widgets/DetailsPanel.h"
#include "ui/base/theme/Theme.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/base/widgets/RangeStatsView.h"

namespace chokepoint::ui {

DetailsPanel::DetailsPanel(QWidget* parent) : QWidget(parent) {
    m_model = new EventDetailsModel(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    m_title = new QLabel(this);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.1);
    m_title->setFont(titleFont);
    layout->addWidget(m_title);
    m_hint = new QLabel(tr("Click an event on the timeline to see its details.\n\n"
                           "Wheel or W/S: zoom · drag or A/D: pan\n"
                           "Shift+drag or a click on a step: the range's statistics\n"
                           "Z: zoom to it · right-click: zoom, bookmark, copy, compare\n"
                           "[ / ]: previous / next step · 0: show all\n"
                           "Ctrl+F: search · F3 / Shift+F3: next / previous\n"
                           "?: every key"),
                        this);
    m_hint->setWordWrap(true);
    useMutedText(m_hint);
    setAccessibleName(tr("Event details"));
    layout->addWidget(m_hint, 1, Qt::AlignTop);
    m_table = new QTableView(this);
    m_table->setAccessibleName(tr("Fields of the selected event"));
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(EventDetailsModel::FieldColumn,
                                                      QHeaderView::ResizeToContents);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(true);
    m_table->setAlternatingRowColors(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(m_table, 1);
    m_range = new RangeStatsView(this);
    layout->addWidget(m_range, 2);
    auto* buttons = new QHBoxLayout;
    m_zoom = new QPushButton(tr("Zoom to event"), this);
    m_launch = new QPushButton(tr("Show launch call"), this);
    buttons->addWidget(m_zoom);
    buttons->addWidget(m_launch);
    m_launched = new QPushButton(tr("Show kernels"), this);
    m_launched->setToolTip(tr("Select and show the GPU work this call or op launched"));
    m_launched->setVisible(false);
    buttons->addWidget(m_launched);
    buttons->addStretch(1);
    layout->addLayout(buttons);
    connect(m_zoom, &QPushButton::clicked, this, &DetailsPanel::zoomRequested);
    connect(m_launch, &QPushButton::clicked, this, &DetailsPanel::showLaunchRequested);
    connect(m_launched, &QPushButton::clicked, this, &DetailsPanel::showLaunchedRequested);
    setEvent(nullptr, {});
}

void DetailsPanel::setEvent(std::shared_ptr<const core::TraceModel> model, timeline::EventRef ref) {
    m_model->setEvent(std::move(model), ref);
    const bool has = m_model->rowCount() > 0;
    m_title->setText(has ? m_model->title() : tr("No selection"));
    m_hint->setVisible(!has);
    m_table->setVisible(has);
    m_zoom->setEnabled(has);
    const bool gpuWork =
        has && (ref.kind == timeline::EventKind::Kernel || ref.kind == timeline::EventKind::Memcpy ||
                ref.kind == timeline::EventKind::Memset);
    m_launch->setEnabled(gpuWork && !m_model->value(tr("Launched by")).isEmpty() &&
                         m_model->value(tr("Launched by")) != tr("not recorded"));
    m_launched->setVisible(false);
    m_table->resizeRowsToContents();
    m_range->clearStats();
    m_range->setVisible(false);
    m_zoom->setText(tr("Zoom to event"));
}

void DetailsPanel::setLaunchedWorkCount(std::size_t count) {
    m_launched->setVisible(count > 0);
    m_launched->setText(count == 1 ? tr("Show kernel") : tr("Show kernels (%1)").arg(count));
}

void DetailsPanel::setEventRangeStats(const analysis::RangeStats& stats, const core::TraceModel& model,
                                      core::TimestampNs originNs) {
    m_range->setStats(stats, model, originNs);
    m_range->setVisible(true);
}

void DetailsPanel::setRangeStats(const QString& title, const analysis::RangeStats& stats,
                                 const core::TraceModel& model, core::TimestampNs originNs) {
    setEvent(nullptr, {});
    m_title->setText(title);
    m_hint->setVisible(false);
    m_range->setStats(stats, model, originNs);
    m_range->setVisible(true);
    m_zoom->setText(tr("Zoom to range"));
    m_zoom->setEnabled(true);
}

void DetailsPanel::setRangeComparison(const QString& title,
                                      const std::vector<analysis::RangeComparisonRow>& rows) {
    setEvent(nullptr, {});
    m_title->setText(title);
    m_hint->setVisible(false);
    m_range->setComparison(rows);
    m_range->setVisible(true);
    m_zoom->setText(tr("Zoom to range"));  // range B, the current one
    m_zoom->setEnabled(true);
}

bool DetailsPanel::showsRange() const {
    return m_range->topLevelItemCount() > 0;
}

QString DetailsPanel::title() const {
    return m_title->text();
}

}  // namespace chokepoint::ui
