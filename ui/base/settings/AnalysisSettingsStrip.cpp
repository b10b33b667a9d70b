#include "ui/base/settings/AnalysisSettingsStrip.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStringList>

#include "ui/base/document/AnalysisReportQt.h"
#include "ui/base/document/TraceDocument.h"

namespace chokepoint::ui {

QString analysisSettingsSummary(const analysis::AnalysisReport& report) {
    QStringList settings;
    for (const std::string& s : report.userSettings) {
        settings << QString::fromStdString(s);
    }
    QString text = settings.isEmpty()
                       ? QObject::tr(
                             "Analysis settings: defaults (device matched from the trace, "
                             "documented thresholds).")
                       : QObject::tr("Analysis settings: %1.").arg(settings.join(QStringLiteral("; ")));
    QStringList missing;
    if (!report.device.matched) {
        missing << QObject::tr("the device (no datasheet matched)");
    }
    if (report.mfu.source == analysis::ModelFlopsSource::None) {
        missing << QObject::tr("the model FLOPs per step");
    }
    // Without a GPU timeline no setting gives an MFU: nothing to ask for.
    if (!missing.isEmpty() && report.metrics.hasGpuWork) {
        text += QObject::tr("  MFU needs %1: set them in Analysis Settings.")
                    .arg(missing.join(QObject::tr(" and ")));
    }
    return text;
}

AnalysisSettingsStrip::AnalysisSettingsStrip(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("analysisSettingsStrip"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_label = new QLabel(this);
    m_label->setObjectName(QStringLiteral("analysisSettingsText"));
    m_label->setWordWrap(true);
    m_label->setTextFormat(Qt::PlainText);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_label, 1);
    m_button = new QPushButton(tr("Analysis Settings…"), this);
    m_button->setObjectName(QStringLiteral("analysisSettingsButton"));
    m_button->setToolTip(
        tr("Device, model FLOPs, precision and thresholds for this trace (re-runs the analysis)"));
    layout->addWidget(m_button, 0, Qt::AlignTop);
    connect(m_button, &QPushButton::clicked, this, [this] {
        if (m_document) {
            m_document->showAnalysisSettings();
        }
    });
    setVisible(false);
}

void AnalysisSettingsStrip::setDocument(TraceDocument* document) {
    m_document = document;
}

void AnalysisSettingsStrip::setReport(const analysis::AnalysisReport* report) {
    setVisible(report != nullptr);
    if (report == nullptr) {
        m_label->clear();
        return;
    }
    const QString text = analysisSettingsSummary(*report);
    m_label->setText(text);
    QFont font = m_label->font();
    font.setBold(!report->device.matched || report->mfu.source == analysis::ModelFlopsSource::None ||
                 !report->userSettings.empty());
    m_label->setFont(font);
}

QString AnalysisSettingsStrip::text() const {
    return m_label->text();
}

}  // namespace chokepoint::ui
