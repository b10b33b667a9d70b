#pragma once
// StepBarsChart: one stacked bar per training step showing where its time went (compute,
// communication, copies, idle by cause...), drawn with QCustomPlot from plain data. The caller
// supplies the series in stacking order (bottom first), each with one value per step in
// milliseconds. A click on a bar emits stepClicked with the step's index.

#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

class QCustomPlot;
class QMouseEvent;

namespace chokepoint::ui {

struct StackedSeries {
    QString name;
    QColor color;
    std::vector<double> valuesMs;  // one per step
    // Idle series are hatched, so busy and idle time differ by more than colour.
    Qt::BrushStyle pattern = Qt::SolidPattern;
};

struct StepBarsData {
    QStringList stepLabels;  // x tick labels, one per step ("12" for ProfilerStep#12)
    std::vector<StackedSeries> series;
    // Per step: why it is left out of the step time, the MFU and the overall verdict (warm-up or
    // outlier), or empty when it counts. Excluded bars are marked and their tooltip says why.
    QStringList excludedReasons;
    QString emptyMessage;
    // Series named here keep their legend entry even with no time in any step: two charts shown
    // side by side list the same entries, so their legends, and then their plots, are equally tall.
    QStringList alwaysInLegend;
};

class StepBarsChart : public QWidget {
    Q_OBJECT
public:
    explicit StepBarsChart(QWidget* parent = nullptr);

    void setData(StepBarsData data);
    const StepBarsData& data() const { return m_data; }
    QCustomPlot* plot() const { return m_plot; }
    // Step index under the widget position, or -1.
    int stepAt(const QPoint& pos) const;

signals:
    void stepClicked(int stepIndex);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;  // rebuilds in the new palette's colours

private:
    int legendColumns() const;
    void rebuild();
    void onMousePress(QMouseEvent* event);
    void onMouseMove(QMouseEvent* event);

    QCustomPlot* m_plot = nullptr;
    StepBarsData m_data;
};

}  // namespace chokepoint::ui
