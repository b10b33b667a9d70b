#pragma once
// Settings > Analysis Settings…: how the open trace is analysed, i.e. everything
// `chokepoint-cli analyze` takes as options. The device (--device; the device database's
// entries), the precision of the peak (--precision), the model FLOPs per step (--model-flops, or
// --params with --tokens-per-step), the job's peak memory and an observed OOM (--peak-memory,
// --oom), and every diagnosis threshold (--config; analysis::diagnosisConfigKeys) with its
// default and unit. Values are checked as they are typed; OK (Enter) is refused with the reason
// while one is wrong. "Reset to Defaults" puts every field back; Cancel (Esc) changes nothing.
//
// The dialog only edits a core::AnalysisSettings: applyRequested hands it to whoever applies it
// (SettingsController, which re-runs the analysis and saves it with the trace's review sidecar).

#include <QDialog>
#include <optional>

#include "core/analysis/diagnosis/AnalysisSettings.h"

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QRadioButton;
class QTableWidget;

namespace chokepoint::analysis {
class DeviceDatabase;
}

namespace chokepoint::ui {

class AnalysisSettingsDialog : public QDialog {
    Q_OBJECT
public:
    enum ThresholdColumn { KeyColumn = 0, ValueColumn, DefaultColumn, UnitColumn, DescriptionColumn };

    // `devices` lists the selectable devices (may be null: only "matched from the trace").
    explicit AnalysisSettingsDialog(const analysis::DeviceDatabase* devices, QWidget* parent = nullptr);

    // Shows `settings`; `context` is one line about the open trace (its device and how it matched).
    void setSettings(const core::AnalysisSettings& settings, const QString& context = {});
    // The settings the fields describe, or nullopt with `error` saying which field is wrong.
    std::optional<core::AnalysisSettings> settings(QString* error = nullptr) const;
    // Every field back to its default (not applied until OK).
    void resetToDefaults();

    QComboBox* deviceBox() const { return m_device; }
    QComboBox* precisionBox() const { return m_precision; }
    QRadioButton* flopsFromTraceButton() const { return m_fromTrace; }
    QRadioButton* flopsPerStepButton() const { return m_perStep; }
    QRadioButton* paramsTokensButton() const { return m_paramsTokens; }
    QLineEdit* flopsEdit() const { return m_flops; }
    QLineEdit* paramsEdit() const { return m_params; }
    QLineEdit* tokensEdit() const { return m_tokens; }
    QLineEdit* peakMemoryEdit() const { return m_peakMemory; }
    QCheckBox* outOfMemoryBox() const { return m_oom; }
    QTableWidget* thresholdTable() const { return m_thresholds; }
    QLabel* errorLabel() const { return m_error; }

    // Applies when the fields are valid (emits applyRequested, closes); else shows the error.
    void accept() override;

signals:
    void applyRequested(const core::AnalysisSettings& settings);

private:
    void updateFlopsFields();
    void validateThreshold(int row);
    void showValidity();

    QLabel* m_context = nullptr;
    QComboBox* m_device = nullptr;
    QComboBox* m_precision = nullptr;
    QButtonGroup* m_flopsMode = nullptr;
    QRadioButton* m_fromTrace = nullptr;
    QRadioButton* m_perStep = nullptr;
    QRadioButton* m_paramsTokens = nullptr;
    QLineEdit* m_flops = nullptr;
    QLineEdit* m_params = nullptr;
    QLineEdit* m_tokens = nullptr;
    QLineEdit* m_peakMemory = nullptr;
    QCheckBox* m_oom = nullptr;
    QTableWidget* m_thresholds = nullptr;
    QLabel* m_error = nullptr;
    bool m_filling = false;
};

}  // namespace chokepoint::ui
