#pragma once
// RooflineChart: a log-log roofline plot (QCustomPlot) fed by plain data, so it can draw one
// trace's roofline or two traces' for a comparison. It draws what it is given and computes no
// metrics: the caller passes the device's memory bandwidth, one compute roof per precision, the
// points (from the analysis report) and the reference intensities.
//
// Units: arithmetic intensity in FLOP/byte (x), throughput in FLOP/s (y), bandwidth in bytes/s.
// The memory roof is y = AI × bandwidth up to the highest ridge; each compute roof is flat from its
// own ridge (peak / bandwidth) on. Measured roofs, when given, are drawn the same way but dashed,
// labelled under their line. Points are sized by their share of kernel time.
// Hover shows a point's tooltip; a click emits pointClicked with the point's index.

#include <QColor>
#include <QString>
#include <QWidget>
#include <vector>

class QCustomPlot;
class QCPItemText;
class QLabel;
class QMouseEvent;

namespace chokepoint::ui {

struct RooflineRoof {
    QString label;  // "BF16 tensor"
    double peakFlopsPerSecond = 0;
    QColor color;
};

struct RooflineMarker {
    QString label;  // "softmax ~5"
    double intensityFlopsPerByte = 0;
};

struct RooflineDot {
    QString label;  // kernel, op or class name (shown in the tooltip)
    QString group;  // legend entry it belongs to ("GEMM", "Elementwise")
    double intensityFlopsPerByte = 0;
    double flopsPerSecond = 0;
    double timeShare = 0;  // 0..1 of kernel time; sets the dot size
    QColor color;
    QString tooltip;      // full text for hover (may contain newlines)
    bool hollow = false;  // drawn as a ring (e.g. aggregate class points)
    // Achieved more than its roof allows: the estimate is off. Drawn with a red cross on top and a
    // legend entry; the tooltip says the likely reason.
    bool aboveRoof = false;
};

struct RooflineChartData {
    double bandwidthBytesPerSecond = 0;  // 0 when the device is unknown: no roofs are drawn
    std::vector<RooflineRoof> roofs;
    // Roofs measured on this machine (chokepoint-cli calibrate), dashed beside the datasheet's.
    double measuredBandwidthBytesPerSecond = 0;
    std::vector<RooflineRoof> measuredRoofs;
    std::vector<RooflineDot> dots;
    std::vector<RooflineMarker> markers;
    QString emptyMessage;  // shown when there are no dots ("No FLOP estimates in this trace")
    QString note;          // small caption under the title (device and its source)
};

class RooflineChart : public QWidget {
    Q_OBJECT
public:
    explicit RooflineChart(QWidget* parent = nullptr);

    void setData(RooflineChartData data);
    const RooflineChartData& data() const { return m_data; }
    QCustomPlot* plot() const { return m_plot; }

    // Index of the dot nearest to the widget position `pos` within `radiusPx`, else -1.
    int dotAt(const QPoint& pos, double radiusPx = 12.0) const;
    // Pixel position of dot `index` in plot coordinates (for tests and tooltips).
    QPointF dotPixel(int index) const;
    // Emphasises one dot (a ring around it); -1 clears.
    void setHighlightedDot(int index);

signals:
    void pointClicked(int index);

protected:
    void changeEvent(QEvent* event) override;  // rebuilds in the new palette's colours

private:
    void rebuild();
    // Once laid out: a roof label that would overlap another goes below its line where that is free;
    // a ridge label that would overlap any label is hidden (roofs a factor of two apart on a small
    // plot drew "ridge 401" over "BF16 tensor 312 TFLOP/s").
    void hideOverlappingLabels();
    void onMouseMove(QMouseEvent* event);
    void onMousePress(QMouseEvent* event);

    QCustomPlot* m_plot = nullptr;
    QLabel* m_note = nullptr;  // RooflineChartData::note
    RooflineChartData m_data;
    int m_highlighted = -1;
    std::vector<QCPItemText*> m_roofLabels;  // in the order they keep their place
    std::vector<double> m_roofLabelRidges;   // per roof label (the first ones): its ridge's intensity
};

// Tick labels with SI prefixes on a log axis: 1 k, 10 M, 1 T ... (unit appended by the axis label).
QString siTickLabel(double value);

}  // namespace chokepoint::ui
