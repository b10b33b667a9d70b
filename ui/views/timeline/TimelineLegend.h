#pragma once
// TimelineLegend: a one-line key to the timeline's colours (copies, memsets, folded blocks, and
// the idle causes and step verdicts in use).

#include <QWidget>
#include <vector>

#include "ui/views/timeline/TimelineOverlays.h"

namespace chokepoint::ui {

class TimelineLegend : public QWidget {
    Q_OBJECT
public:
    explicit TimelineLegend(QWidget* parent = nullptr);
    void setOverlayEntries(std::vector<LegendEntry> entries);
    const std::vector<LegendEntry>& entries() const { return m_entries; }
    QSize sizeHint() const override;
    int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    std::vector<LegendEntry> m_fixed;
    std::vector<LegendEntry> m_entries;  // fixed + overlay
};

}  // namespace chokepoint::ui
