#include "ui/shell/settings/SettingsController.h"

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <cstdio>

#include "ui/base/document/AnalysisReportQt.h"
#include "ui/base/document/TraceDocument.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/settings/AnalysisSettingsDialog.h"
#include "ui/shell/settings/PreferencesDialog.h"

namespace chokepoint::ui {
namespace {

// One line about the open trace's device for the dialog: what the trace recorded and what the
// analysis used.
QString deviceContext(const TraceDocument& document) {
    const auto report = document.report();
    if (!report) {
        return QObject::tr("%1: the analysis has not finished; the settings apply when it runs.")
            .arg(document.displayName());
    }
    const QString recorded = report->device.traceDeviceName.empty()
                                 ? QObject::tr("none recorded")
                                 : QString::fromStdString(report->device.traceDeviceName);
    const QString datasheet =
        report->device.matched
            ? QObject::tr("%1 (%2, %3)")
                  .arg(QString::fromStdString(report->device.spec.name),
                       QString::fromStdString(report->device.spec.id),
                       report->device.method == "override"
                           ? QObject::tr("set by user")
                           : QObject::tr("matched by %1").arg(QString::fromStdString(report->device.method)))
            : QObject::tr("none (%1)").arg(QString::fromStdString(report->device.note));
    return QObject::tr("%1 — device in the trace: %2. Datasheet used: %3.")
        .arg(document.displayName(), recorded, datasheet);
}

}  // namespace

SettingsController::SettingsController(MainWindow* window, QAction* before)
    : QObject(window), m_window(window) {
    setObjectName(QStringLiteral("settingsController"));
    m_menu = new QMenu(tr("&Settings"), window);
    window->menuBar()->insertMenu(before, m_menu);
    m_analysisAction = m_menu->addAction(tr("&Analysis Settings…"), this, [this] { openAnalysisSettings(); });
    m_analysisAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Comma));
    m_analysisAction->setToolTip(tr("Device, model FLOPs, precision and thresholds for the open trace"));
    m_preferencesAction = m_menu->addAction(tr("&Preferences…"), this, [this] { openPreferences(); });
    m_preferencesAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
    m_preferencesAction->setMenuRole(QAction::PreferencesRole);

    TraceDocument* document = window->document();
    connect(document, &TraceDocument::requestAnalysisSettings, this, [this] { openAnalysisSettings(); });
    connect(document, &TraceDocument::modelAvailable, this, &SettingsController::updateActions);
    connect(document, &TraceDocument::loadStarted, this, &SettingsController::updateActions);
    connect(document, &TraceDocument::loadFailed, this, &SettingsController::updateActions);
    connect(document, &TraceDocument::settingsWarningsFound, this, [this](const QStringList& warnings) {
        showSettingsWarnings(warnings, tr("Some analysis settings were not applied"));
    });
    updateActions();
}

AnalysisSettingsDialog* SettingsController::analysisSettingsDialog() const {
    return m_analysisDialog;
}

PreferencesDialog* SettingsController::preferencesDialog() const {
    return m_preferencesDialog;
}

void SettingsController::updateActions() {
    m_analysisAction->setEnabled(m_window->document()->model() != nullptr);
}

AnalysisSettingsDialog* SettingsController::openAnalysisSettings() {
    TraceDocument* document = m_window->document();
    if (!document->model()) {
        return nullptr;
    }
    if (!m_analysisDialog) {
        m_analysisDialog = new AnalysisSettingsDialog(TraceDocument::deviceDatabase(), m_window);
        m_analysisDialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(m_analysisDialog, &AnalysisSettingsDialog::applyRequested, this,
                [this](const core::AnalysisSettings& settings) {
                    const QString error = m_window->document()->setAnalysisSettings(settings);
                    if (!error.isEmpty()) {
                        showSettingsWarnings({error}, tr("The analysis settings were not saved"));
                    }
                });
    }
    m_analysisDialog->setSettings(document->analysisSettings(), deviceContext(*document));
    m_analysisDialog->open();
    m_analysisDialog->raise();
    return m_analysisDialog;
}

PreferencesDialog* SettingsController::openPreferences() {
    if (!m_preferencesDialog) {
        QList<QPair<QString, QString>> pages;
        for (const QString& id : m_window->pageIds()) {
            if (id == QLatin1String("compare")) {
                continue;  // needs a second trace: not a page to open on
            }
            pages.append({id, m_window->page(id)->title()});
        }
        m_preferencesDialog = new PreferencesDialog(pages, m_window);
        m_preferencesDialog->setAttribute(Qt::WA_DeleteOnClose);
    }
    m_preferencesDialog->open();
    m_preferencesDialog->raise();
    return m_preferencesDialog;
}

void SettingsController::showSettingsWarnings(const QStringList& warnings, const QString& title) {
    for (const QString& w : warnings) {
        std::fprintf(stderr, "chokepoint: %s\n", w.toLocal8Bit().constData());
    }
    // Not blocking: the trace is analysed and shown meanwhile.
    auto* box = new QMessageBox(QMessageBox::Warning, title, title, QMessageBox::Ok, m_window);
    box->setObjectName(QStringLiteral("settingsWarnings"));
    box->setInformativeText(warnings.join(QStringLiteral("\n")));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

}  // namespace chokepoint::ui
