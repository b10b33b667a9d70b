#include "ui/base/widgets/SearchBar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QToolButton>

namespace chokepoint::ui {

SearchBar::SearchBar(QWidget* parent) : QWidget(parent) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    m_edit = new QLineEdit(this);
    m_edit->setPlaceholderText(tr("Search events by name (Ctrl+F)"));
    m_edit->setClearButtonEnabled(true);
    m_edit->setMinimumWidth(180);
    m_edit->setAccessibleName(tr("Search events by name"));
    setAccessibleName(tr("Timeline search"));
    m_previous = new QToolButton(this);
    m_previous->setText(QStringLiteral("◀"));
    m_previous->setToolTip(tr("Previous match (Shift+F3)"));
    m_previous->setAccessibleName(tr("Previous match"));
    m_next = new QToolButton(this);
    m_next->setText(QStringLiteral("▶"));
    m_next->setToolTip(tr("Next match (F3)"));
    m_next->setAccessibleName(tr("Next match"));
    m_count = new QLabel(this);
    m_count->setMinimumWidth(110);
    m_count->setAccessibleName(tr("Matches"));
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_previous);
    layout->addWidget(m_next);
    layout->addWidget(m_count);
    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(250);
    auto fire = [this] {
        m_debounce->stop();
        if (m_edit->text() != m_lastQuery) {
            m_lastQuery = m_edit->text();
            emit queryChanged(m_lastQuery);
        }
    };
    connect(m_debounce, &QTimer::timeout, this, fire);
    connect(m_edit, &QLineEdit::textChanged, this, [this] { m_debounce->start(); });
    connect(m_edit, &QLineEdit::returnPressed, this, [this, fire] {
        const bool changed = m_edit->text() != m_lastQuery;
        fire();
        if (!changed) {
            emit nextRequested();
        }
    });
    connect(m_previous, &QToolButton::clicked, this, &SearchBar::previousRequested);
    connect(m_next, &QToolButton::clicked, this, &SearchBar::nextRequested);
    setResultPosition(0, 0);
}

QString SearchBar::text() const {
    return m_edit->text();
}

void SearchBar::setText(const QString& text) {
    m_edit->setText(text);
    m_lastQuery = text;
    emit queryChanged(text);
}

void SearchBar::activate() {
    m_edit->setFocus(Qt::ShortcutFocusReason);
    m_edit->selectAll();
}

void SearchBar::setResultPosition(std::size_t position, std::size_t count) {
    m_previous->setEnabled(count > 0);
    m_next->setEnabled(count > 0);
    if (m_edit->text().isEmpty()) {
        m_count->clear();
    } else if (count == 0) {
        m_count->setText(tr("no matches"));
    } else if (position == 0) {
        m_count->setText(tr("%L1 matches").arg(count));
    } else {
        m_count->setText(tr("%L1 of %L2").arg(position).arg(count));
    }
}

}  // namespace chokepoint::ui
