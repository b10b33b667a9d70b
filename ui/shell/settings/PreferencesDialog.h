#pragma once
// Settings > Preferences… (Ctrl+,): the application-wide Preferences (ui/base/settings/Preferences.h)
// in one form. OK (Enter) stores every field; Cancel (Esc) changes nothing.

#include <QDialog>
#include <QList>
#include <QPair>
#include <QString>

class QCheckBox;
class QComboBox;
class QSpinBox;

namespace chokepoint::ui {

class PreferencesDialog : public QDialog {
    Q_OBJECT
public:
    // `pages`: id and title of each page a trace may open on, in tab order.
    explicit PreferencesDialog(const QList<QPair<QString, QString>>& pages, QWidget* parent = nullptr);

    QComboBox* themeBox() const { return m_theme; }
    QComboBox* defaultPageBox() const { return m_defaultPage; }
    QSpinBox* recentFileCountBox() const { return m_recentCount; }
    QCheckBox* reopenLastTraceBox() const { return m_reopen; }

    // Stores the fields in Preferences, then closes.
    void accept() override;

private:
    QComboBox* m_theme = nullptr;
    QComboBox* m_defaultPage = nullptr;
    QSpinBox* m_recentCount = nullptr;
    QCheckBox* m_reopen = nullptr;
};

}  // namespace chokepoint::ui
