#pragma once
// One line on the diagnosis page: the analysis settings in effect ("Analysis settings: device
// NVIDIA H100 SXM5 80GB (set by user)", or the defaults), what is missing for MFU (no device
// datasheet, no model FLOPs), and an "Analysis Settings…" button that asks the document to show
// the settings dialog (TraceDocument::requestAnalysisSettings).

#include <QWidget>
#include <memory>

class QLabel;
class QPushButton;

namespace chokepoint::analysis {
struct AnalysisReport;
}

namespace chokepoint::ui {

class TraceDocument;

class AnalysisSettingsStrip : public QWidget {
    Q_OBJECT
public:
    explicit AnalysisSettingsStrip(QWidget* parent = nullptr);

    void setDocument(TraceDocument* document);
    // Shows the settings and hints for `report` (null: hidden).
    void setReport(const analysis::AnalysisReport* report);

    QString text() const;
    QPushButton* button() const { return m_button; }

private:
    TraceDocument* m_document = nullptr;
    QLabel* m_label = nullptr;
    QPushButton* m_button = nullptr;
};

// The strip's text for `report`: the settings line, then what MFU still needs (plain text).
QString analysisSettingsSummary(const analysis::AnalysisReport& report);

}  // namespace chokepoint::ui
