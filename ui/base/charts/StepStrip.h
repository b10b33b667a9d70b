#pragma once
// StepStrip: a thin horizontal strip with one cell per training step, coloured by the step's
// verdict class (D·A·M) and hatched by its class pattern, cell width proportional to the step's
// duration; a legend (swatch, pattern and name) of the classes present follows the cells. Plain QPainter, fed
// plain data. Hover shows the cell's tooltip; a click emits stepClicked with the cell index.

#include <QColor>
#include <QString>
#include <QWidget>
#include <vector>

namespace chokepoint::ui {

struct StepStripCell {
    QString label;      // "ProfilerStep#12"
    QString className;  // legend text ("Data-bound")
    QColor color;
    double weight = 1;  // relative width (the step's duration)
    QString tooltip;
    Qt::BrushStyle pattern = Qt::SolidPattern;  // drawn over the colour: classes differ by more than hue
};

class StepStrip : public QWidget {
    Q_OBJECT
public:
    explicit StepStrip(QWidget* parent = nullptr);

    void setCells(std::vector<StepStripCell> cells);
    // What the strip says when it has no cells ("No steps detected" unless set; empty says nothing,
    // e.g. for a side that has no trace yet).
    void setEmptyText(const QString& text);
    QString emptyText() const { return m_emptyText; }
    const std::vector<StepStripCell>& cells() const { return m_cells; }
    // Cell index under `pos`, or -1.
    int cellAt(const QPoint& pos) const;
    void setSelectedCell(int index);
    int selectedCell() const { return m_selected; }

    QSize sizeHint() const override { return {600, 46}; }
    QSize minimumSizeHint() const override { return {120, 46}; }

signals:
    void stepClicked(int index);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;

private:
    QRectF cellRect(int index) const;
    QRectF stripArea() const;

    std::vector<StepStripCell> m_cells;
    std::vector<double> m_offsets;  // cumulative weight at each cell's left edge
    double m_totalWeight = 0;
    int m_selected = -1;
    QString m_emptyText = tr("No steps detected");
};

}  // namespace chokepoint::ui
