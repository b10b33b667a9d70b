#pragma once
// MfuBands: a horizontal 0–100 % scale with the seed's MFU reference bands (seed spec §9.1:
// < 30 % addressable bottleneck, 30–50 % typical production, 55–65 % practical ceiling, > 65 %
// suspicious) and anchors (PaLM 46.2 %, GPT-3 ≈ 45 %), and a marker at the job's MFU when known.
// It draws the value it is given; the band the report assigned is shown as text by the caller.

#include <QWidget>
#include <optional>

namespace chokepoint::ui {

class MfuBands : public QWidget {
    Q_OBJECT
public:
    explicit MfuBands(QWidget* parent = nullptr);

    // MFU as a fraction (0.38 = 38 %); nullopt draws the scale without a marker.
    void setMfu(std::optional<double> mfu, bool estimate);
    std::optional<double> mfu() const { return m_mfu; }

    QSize sizeHint() const override { return {420, 54}; }
    QSize minimumSizeHint() const override { return {200, 54}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::optional<double> m_mfu;
    bool m_estimate = false;
};

}  // namespace chokepoint::ui
