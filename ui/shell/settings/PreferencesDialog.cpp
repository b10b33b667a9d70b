#include "ui/shell/settings/PreferencesDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/base/settings/Preferences.h"

namespace chokepoint::ui {

PreferencesDialog::PreferencesDialog(const QList<QPair<QString, QString>>& pages, QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Preferences"));
    setObjectName(QStringLiteral("preferencesDialog"));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_theme = new QComboBox(this);
    m_theme->setObjectName(QStringLiteral("theme"));
    m_theme->addItem(tr("Follow the system"), themeName(Preferences::Theme::System));
    m_theme->addItem(tr("Light"), themeName(Preferences::Theme::Light));
    m_theme->addItem(tr("Dark"), themeName(Preferences::Theme::Dark));
    m_theme->setCurrentIndex(std::max(0, m_theme->findData(themeName(Preferences::theme()))));
    m_theme->setAccessibleName(tr("Colour theme"));
    form->addRow(tr("Colour &theme:"), m_theme);

    m_defaultPage = new QComboBox(this);
    m_defaultPage->setObjectName(QStringLiteral("defaultPage"));
    for (const auto& [id, title] : pages) {
        m_defaultPage->addItem(title, id);
    }
    const int page = m_defaultPage->findData(Preferences::defaultPage());
    m_defaultPage->setCurrentIndex(
        page >= 0 ? page : std::max(0, m_defaultPage->findData(QStringLiteral("diagnosis"))));
    m_defaultPage->setAccessibleName(tr("Page a trace opens on"));
    form->addRow(tr("Open traces on the &page:"), m_defaultPage);

    m_recentCount = new QSpinBox(this);
    m_recentCount->setObjectName(QStringLiteral("recentFileCount"));
    m_recentCount->setRange(Preferences::kMinRecentFiles, Preferences::kMaxRecentFiles);
    m_recentCount->setValue(Preferences::recentFileCount());
    m_recentCount->setSuffix(tr(" files"));
    m_recentCount->setAccessibleName(tr("Number of recent files"));
    form->addRow(tr("&Recent files listed:"), m_recentCount);

    m_reopen = new QCheckBox(tr("Reopen the &last trace when started without a file"), this);
    m_reopen->setObjectName(QStringLiteral("reopenLastTrace"));
    m_reopen->setChecked(Preferences::reopenLastTrace());
    form->addRow(m_reopen);
    layout->addLayout(form);

    auto* note = new QLabel(
        tr("Per-trace analysis settings (device, model FLOPs, thresholds) are under Settings > Analysis "
           "Settings and are saved with each trace."),
        this);
    note->setWordWrap(true);
    note->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(note);
    layout->addStretch(1);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setDefault(true);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    setMinimumWidth(520);
    adjustSize();
}

void PreferencesDialog::accept() {
    Preferences::setTheme(
        themeFromName(m_theme->currentData().toString()).value_or(Preferences::Theme::System));
    if (m_defaultPage->currentIndex() >= 0) {
        Preferences::setDefaultPage(m_defaultPage->currentData().toString());
    }
    Preferences::setRecentFileCount(m_recentCount->value());
    Preferences::setReopenLastTrace(m_reopen->isChecked());
    QDialog::accept();
}

}  // namespace chokepoint::ui
