#pragma once
// The main window's Settings menu and what it opens: Analysis Settings… (the open trace's
// analysis settings, AnalysisSettingsDialog) and Preferences… (Ctrl+,, PreferencesDialog). It
// applies the analysis settings through TraceDocument::setAnalysisSettings (re-analysis, saved in
// the review sidecar), shows the warnings about settings a sidecar held but that could not be
// applied, and keeps the window's Open Recent list to Preferences::recentFileCount().

#include <QObject>
#include <QPointer>

class QAction;
class QMenu;

namespace chokepoint::ui {

class AnalysisSettingsDialog;
class MainWindow;
class PreferencesDialog;

class SettingsController : public QObject {
    Q_OBJECT
public:
    // Adds the Settings menu to `window`'s menu bar, before `before` (null: at the end).
    SettingsController(MainWindow* window, QAction* before);

    QMenu* menu() const { return m_menu; }
    QAction* analysisSettingsAction() const { return m_analysisAction; }
    QAction* preferencesAction() const { return m_preferencesAction; }

    // Opens the dialogs (window-modal, not blocking); the dialog stays reachable until closed.
    AnalysisSettingsDialog* openAnalysisSettings();
    PreferencesDialog* openPreferences();
    // The open dialogs, or null.
    AnalysisSettingsDialog* analysisSettingsDialog() const;
    PreferencesDialog* preferencesDialog() const;

private:
    void showSettingsWarnings(const QStringList& warnings, const QString& title);
    void updateActions();

    MainWindow* m_window = nullptr;
    QMenu* m_menu = nullptr;
    QAction* m_analysisAction = nullptr;
    QAction* m_preferencesAction = nullptr;
    QPointer<AnalysisSettingsDialog> m_analysisDialog;
    QPointer<PreferencesDialog> m_preferencesDialog;
};

}  // namespace chokepoint::ui
