#include "ui/shell/settings/AnalysisSettingsDialog.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

// Qt's `signals` keyword macro would rewrite core's `signals` fields (see TraceDocument.cpp).
#pragma push_macro("signals")
#undef signals
#include "core/analysis/devices/DeviceDatabase.h"
#include "core/analysis/diagnosis/AnalysisSettingsOptions.h"
#include "core/analysis/diagnosis/DiagnosisConfig.h"
#pragma pop_macro("signals")

#include "core/base/ScaledNumber.h"

namespace chokepoint::ui {
namespace {

constexpr int kInvalidRole = Qt::UserRole + 1;  // on a value cell: why its text is not accepted

QString numberText(double value) {
    return QString::number(value, 'g', 12);
}

// A positive number as the CLI reads it ("7B", "1.2e15"); nullopt when empty or invalid.
std::optional<double> scaledNumber(const QLineEdit* edit) {
    return core::parseScaledNumber(edit->text().trimmed().toStdString());
}

QLineEdit* numberEdit(const QString& placeholder, QWidget* parent) {
    auto* edit = new QLineEdit(parent);
    edit->setPlaceholderText(placeholder);
    edit->setClearButtonEnabled(true);
    return edit;
}

}  // namespace

AnalysisSettingsDialog::AnalysisSettingsDialog(const analysis::DeviceDatabase* devices, QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Analysis Settings"));
    setObjectName(QStringLiteral("analysisSettingsDialog"));
    auto* layout = new QVBoxLayout(this);

    m_context = new QLabel(this);
    m_context->setWordWrap(true);
    m_context->setTextFormat(Qt::PlainText);
    m_context->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_context);

    auto* top = new QHBoxLayout;
    // --- Device and precision (--device, --precision) ---
    auto* deviceGroup = new QGroupBox(tr("Device"), this);
    auto* deviceForm = new QFormLayout(deviceGroup);
    m_device = new QComboBox(deviceGroup);
    m_device->setObjectName(QStringLiteral("device"));
    m_device->addItem(tr("Matched from the trace (default)"), QString());
    if (devices != nullptr) {
        for (const analysis::DeviceSpec* spec : devices->all()) {
            m_device->addItem(QStringLiteral("%1 (%2)").arg(QString::fromStdString(spec->name),
                                                            QString::fromStdString(spec->id)),
                              QString::fromStdString(spec->id));
        }
    }
    m_device->setToolTip(tr("The datasheet whose peaks MFU and the roofline use (chokepoint-cli --device)"));
    m_device->setAccessibleName(tr("Device"));
    deviceForm->addRow(tr("&Device:"), m_device);
    m_precision = new QComboBox(deviceGroup);
    m_precision->setObjectName(QStringLiteral("precision"));
    m_precision->addItem(tr("Automatic (dominant precision of the ops)"), QString());
    for (analysis::Precision p : analysis::selectablePrecisions()) {
        m_precision->addItem(QString::fromUtf8(analysis::toString(p).data()),
                             QString::fromStdString(analysis::precisionName(p)));
    }
    m_precision->setToolTip(tr("Precision of the peak FLOP/s MFU is measured against (--precision)"));
    m_precision->setAccessibleName(tr("Precision of the peak"));
    deviceForm->addRow(tr("P&recision of the peak:"), m_precision);
    m_peakMemory = numberEdit(tr("from the trace's memory counter"), deviceGroup);
    m_peakMemory->setObjectName(QStringLiteral("peakMemory"));
    m_peakMemory->setToolTip(tr(
        "Peak device memory the job needs, in bytes (80G = 80·10⁹), e.g. torch.cuda.max_memory_allocated() "
        "(--peak-memory)"));
    deviceForm->addRow(tr("Peak &memory (bytes):"), m_peakMemory);
    m_oom = new QCheckBox(tr("The job ran out of memory (--oom)"), deviceGroup);
    m_oom->setObjectName(QStringLiteral("outOfMemory"));
    deviceForm->addRow(QString(), m_oom);
    top->addWidget(deviceGroup, 1);

    // --- Model FLOPs (--model-flops, or --params with --tokens-per-step) ---
    auto* flopsGroup = new QGroupBox(tr("Model FLOPs per step (for MFU)"), this);
    auto* flopsGrid = new QGridLayout(flopsGroup);
    m_flopsMode = new QButtonGroup(this);
    m_fromTrace = new QRadioButton(tr("From the trace (recorded, or estimated from op shapes)"), flopsGroup);
    m_perStep = new QRadioButton(tr("&FLOPs per step:"), flopsGroup);
    m_paramsTokens = new QRadioButton(tr("6 × &parameters × tokens per step:"), flopsGroup);
    m_fromTrace->setObjectName(QStringLiteral("flopsFromTrace"));
    m_perStep->setObjectName(QStringLiteral("flopsPerStepMode"));
    m_paramsTokens->setObjectName(QStringLiteral("paramsTokensMode"));
    m_flopsMode->addButton(m_fromTrace, 0);
    m_flopsMode->addButton(m_perStep, 1);
    m_flopsMode->addButton(m_paramsTokens, 2);
    m_flops = numberEdit(tr("e.g. 1.2e15 or 850T"), flopsGroup);
    m_flops->setObjectName(QStringLiteral("modelFlops"));
    m_params = numberEdit(tr("parameters, e.g. 7B"), flopsGroup);
    m_params->setObjectName(QStringLiteral("parameters"));
    m_tokens = numberEdit(tr("tokens per step, e.g. 4k"), flopsGroup);
    m_tokens->setObjectName(QStringLiteral("tokensPerStep"));
    flopsGrid->addWidget(m_fromTrace, 0, 0, 1, 3);
    flopsGrid->addWidget(m_perStep, 1, 0);
    flopsGrid->addWidget(m_flops, 1, 1, 1, 2);
    flopsGrid->addWidget(m_paramsTokens, 2, 0);
    flopsGrid->addWidget(m_params, 2, 1);
    flopsGrid->addWidget(m_tokens, 2, 2);
    auto* flopsNote =
        new QLabel(tr("Numbers take the suffixes k, M, G or B, T (7B = 7·10⁹). Without a backward "
                      "pass in the trace, 2 × N × T is used instead of 6 × N × T."),
                   flopsGroup);
    flopsNote->setWordWrap(true);
    flopsNote->setForegroundRole(QPalette::PlaceholderText);
    flopsGrid->addWidget(flopsNote, 3, 0, 1, 3);
    top->addWidget(flopsGroup, 1);
    layout->addLayout(top);

    // --- Thresholds (--config) ---
    auto* thresholdGroup = new QGroupBox(tr("Diagnosis thresholds"), this);
    auto* thresholdLayout = new QVBoxLayout(thresholdGroup);
    const auto& keys = analysis::diagnosisConfigKeys();
    const analysis::DiagnosisConfig defaults;
    m_thresholds = new QTableWidget(static_cast<int>(keys.size()), 5, thresholdGroup);
    m_thresholds->setObjectName(QStringLiteral("thresholds"));
    m_thresholds->setAccessibleName(tr("Diagnosis thresholds"));
    m_thresholds->setHorizontalHeaderLabels(
        {tr("Threshold"), tr("Value"), tr("Default"), tr("Unit"), tr("Meaning")});
    m_thresholds->verticalHeader()->setVisible(false);
    m_thresholds->setSelectionBehavior(QAbstractItemView::SelectItems);
    m_thresholds->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                                  QAbstractItemView::AnyKeyPressed);
    m_thresholds->setWordWrap(false);
    for (int row = 0; row < static_cast<int>(keys.size()); ++row) {
        const analysis::DiagnosisConfigKey& k = keys[static_cast<std::size_t>(row)];
        const double fallback = defaults.*(k.member);
        auto readOnly = [](const QString& text) {
            auto* item = new QTableWidgetItem(text);
            item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
            return item;
        };
        QTableWidgetItem* key = readOnly(QString::fromUtf8(k.key));
        key->setToolTip(QString::fromUtf8(k.description));
        m_thresholds->setItem(row, KeyColumn, key);
        m_thresholds->setItem(row, ValueColumn, new QTableWidgetItem(numberText(fallback)));
        m_thresholds->setItem(row, DefaultColumn, readOnly(numberText(fallback)));
        m_thresholds->setItem(
            row, UnitColumn,
            readOnly(QString::fromUtf8(analysis::toString(analysis::diagnosisConfigUnit(k.key)).data())));
        QTableWidgetItem* description = readOnly(QString::fromUtf8(k.description));
        description->setToolTip(QString::fromUtf8(k.description));
        m_thresholds->setItem(row, DescriptionColumn, description);
    }
    QHeaderView* header = m_thresholds->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(DescriptionColumn, QHeaderView::Stretch);
    m_thresholds->verticalHeader()->setDefaultSectionSize(m_thresholds->fontMetrics().height() + 6);
    m_thresholds->setMinimumHeight(220);
    connect(m_thresholds, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
        if (!m_filling && item->column() == ValueColumn) {
            validateThreshold(item->row());
            showValidity();
        }
    });
    auto* thresholdNote =
        new QLabel(tr("Fractions are 0–1 (0.9 = 90 %). Changed values are shown in bold; "
                      "the same keys as chokepoint-cli analyze --config (see --print-config)."),
                   thresholdGroup);
    thresholdNote->setWordWrap(true);
    thresholdNote->setForegroundRole(QPalette::PlaceholderText);
    thresholdLayout->addWidget(m_thresholds, 1);
    thresholdLayout->addWidget(thresholdNote);
    layout->addWidget(thresholdGroup, 1);

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("settingsError"));
    m_error->setWordWrap(true);
    m_error->setTextFormat(Qt::PlainText);
    QFont errorFont = m_error->font();
    errorFont.setBold(true);
    m_error->setFont(errorFont);
    layout->addWidget(m_error);
    m_error->setVisible(false);

    auto* buttons = new QDialogButtonBox(
        QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Apply and Re-analyze"));
    buttons->button(QDialogButtonBox::Ok)->setDefault(true);
    buttons->button(QDialogButtonBox::RestoreDefaults)->setText(tr("Reset to Defaults"));
    buttons->button(QDialogButtonBox::RestoreDefaults)->setAutoDefault(false);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this,
            &AnalysisSettingsDialog::resetToDefaults);
    layout->addWidget(buttons);

    connect(m_flopsMode, &QButtonGroup::idToggled, this, [this] { updateFlopsFields(); });
    for (QLineEdit* edit : {m_flops, m_params, m_tokens, m_peakMemory}) {
        connect(edit, &QLineEdit::textChanged, this, [this] { showValidity(); });
    }
    resize(1100, 720);
    setSettings({});
}

void AnalysisSettingsDialog::setSettings(const core::AnalysisSettings& s, const QString& context) {
    m_filling = true;
    m_context->setText(context);
    m_context->setVisible(!context.isEmpty());
    const int device = m_device->findData(QString::fromStdString(s.deviceId));
    m_device->setCurrentIndex(std::max(0, device));
    const int precision = m_precision->findData(QString::fromStdString(s.precision));
    m_precision->setCurrentIndex(std::max(0, precision));
    m_flops->setText(s.modelFlopsPerStep
                         ? QString::fromStdString(core::formatScaledNumber(*s.modelFlopsPerStep))
                         : QString());
    m_params->setText(s.parameterCount ? QString::fromStdString(core::formatScaledNumber(*s.parameterCount))
                                       : QString());
    m_tokens->setText(s.tokensPerStep ? QString::fromStdString(core::formatScaledNumber(*s.tokensPerStep))
                                      : QString());
    (s.modelFlopsPerStep                     ? m_perStep
     : (s.parameterCount || s.tokensPerStep) ? m_paramsTokens
                                             : m_fromTrace)
        ->setChecked(true);
    m_peakMemory->setText(
        s.peakMemoryBytes ? QString::fromStdString(core::formatScaledNumber(*s.peakMemoryBytes)) : QString());
    m_oom->setChecked(s.outOfMemoryObserved);
    const analysis::DiagnosisConfig defaults;
    const auto& keys = analysis::diagnosisConfigKeys();
    for (int row = 0; row < m_thresholds->rowCount(); ++row) {
        const analysis::DiagnosisConfigKey& k = keys[static_cast<std::size_t>(row)];
        const auto it = s.thresholds.find(k.key);
        m_thresholds->item(row, ValueColumn)
            ->setText(numberText(it != s.thresholds.end() ? it->second : defaults.*(k.member)));
    }
    m_filling = false;
    for (int row = 0; row < m_thresholds->rowCount(); ++row) {
        validateThreshold(row);
    }
    updateFlopsFields();
}

void AnalysisSettingsDialog::resetToDefaults() {
    setSettings({}, m_context->text());
}

void AnalysisSettingsDialog::updateFlopsFields() {
    m_flops->setEnabled(m_perStep->isChecked());
    m_params->setEnabled(m_paramsTokens->isChecked());
    m_tokens->setEnabled(m_paramsTokens->isChecked());
    showValidity();
}

void AnalysisSettingsDialog::validateThreshold(int row) {
    QTableWidgetItem* item = m_thresholds->item(row, ValueColumn);
    const QString key = m_thresholds->item(row, KeyColumn)->text();
    bool ok = false;
    const double value = item->text().trimmed().toDouble(&ok);
    QString problem;
    if (!ok) {
        problem = tr("not a number");
    } else {
        problem = QString::fromStdString(analysis::checkDiagnosisConfigValue(key.toStdString(), value));
    }
    const bool changed = ok && value != m_thresholds->item(row, DefaultColumn)->text().toDouble();
    const QSignalBlocker blocker(m_thresholds);
    QFont font = item->font();
    font.setBold(changed);
    item->setFont(font);
    m_thresholds->item(row, KeyColumn)->setFont(font);
    item->setData(kInvalidRole, problem);
    item->setToolTip(problem.isEmpty() ? QString() : tr("%1: %2").arg(key, problem));
    item->setBackground(problem.isEmpty() ? QBrush() : QBrush(QColor(220, 40, 40, 90)));
}

std::optional<core::AnalysisSettings> AnalysisSettingsDialog::settings(QString* error) const {
    core::AnalysisSettings s;
    const auto fail = [error](const QString& message) {
        if (error != nullptr) {
            *error = message;
        }
        return std::nullopt;
    };
    s.deviceId = m_device->currentData().toString().toStdString();
    s.precision = m_precision->currentData().toString().toStdString();
    if (m_perStep->isChecked()) {
        s.modelFlopsPerStep = scaledNumber(m_flops);
        if (!s.modelFlopsPerStep) {
            return fail(tr("FLOPs per step: '%1' is not a positive number (e.g. 1.2e15 or 850T)")
                            .arg(m_flops->text()));
        }
    } else if (m_paramsTokens->isChecked()) {
        s.parameterCount = scaledNumber(m_params);
        s.tokensPerStep = scaledNumber(m_tokens);
        if (!s.parameterCount) {
            return fail(tr("Parameters: '%1' is not a positive number (e.g. 7B)").arg(m_params->text()));
        }
        if (!s.tokensPerStep) {
            return fail(tr("Tokens per step: '%1' is not a positive number (e.g. 4k)").arg(m_tokens->text()));
        }
    }
    if (!m_peakMemory->text().trimmed().isEmpty()) {
        s.peakMemoryBytes = scaledNumber(m_peakMemory);
        if (!s.peakMemoryBytes) {
            return fail(tr("Peak memory: '%1' is not a positive number of bytes (e.g. 80G)")
                            .arg(m_peakMemory->text()));
        }
    }
    s.outOfMemoryObserved = m_oom->isChecked();
    const analysis::DiagnosisConfig defaults;
    const auto& keys = analysis::diagnosisConfigKeys();
    for (int row = 0; row < m_thresholds->rowCount(); ++row) {
        const QTableWidgetItem* item = m_thresholds->item(row, ValueColumn);
        const QString problem = item->data(kInvalidRole).toString();
        const analysis::DiagnosisConfigKey& k = keys[static_cast<std::size_t>(row)];
        if (!problem.isEmpty()) {
            return fail(tr("Threshold %1: '%2' %3").arg(QString::fromUtf8(k.key), item->text(), problem));
        }
        const double value = item->text().trimmed().toDouble();
        if (value != defaults.*(k.member)) {
            s.thresholds[k.key] = value;
        }
    }
    return s;
}

void AnalysisSettingsDialog::showValidity() {
    if (m_filling) {
        return;
    }
    QString error;
    m_error->setText(settings(&error) ? QString() : QStringLiteral("⚠ ") + error);
    m_error->setVisible(!m_error->text().isEmpty());
}

void AnalysisSettingsDialog::accept() {
    QString error;
    const std::optional<core::AnalysisSettings> s = settings(&error);
    if (!s) {
        m_error->setText(QStringLiteral("⚠ ") + error);
        m_error->setVisible(true);
        return;
    }
    emit applyRequested(*s);
    QDialog::accept();
}

}  // namespace chokepoint::ui
