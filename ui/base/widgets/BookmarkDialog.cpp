#include "ui/base/widgets/BookmarkDialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace chokepoint::ui {

BookmarkDialog::BookmarkDialog(const QString& target, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Add bookmark"));
    auto* layout = new QVBoxLayout(this);
    auto* what = new QLabel(tr("Bookmark %1.").arg(target.toHtmlEscaped()), this);
    what->setWordWrap(true);
    layout->addWidget(what);
    auto* form = new QFormLayout;
    m_title = new QLineEdit(this);
    m_title->setObjectName(QStringLiteral("bookmarkTitle"));
    m_title->setAccessibleName(tr("Bookmark title"));
    form->addRow(tr("&Title:"), m_title);
    m_note = new QPlainTextEdit(this);
    m_note->setObjectName(QStringLiteral("bookmarkNote"));
    m_note->setAccessibleName(tr("Bookmark note"));
    m_note->setTabChangesFocus(true);
    m_note->setPlaceholderText(tr("Optional. Enter saves the bookmark; Shift+Enter starts a new line."));
    m_note->setMinimumHeight(fontMetrics().height() * 5);
    m_note->installEventFilter(this);
    form->addRow(tr("&Note:"), m_note);
    layout->addLayout(form);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Add Bookmark"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(480, sizeHint().height());
}

QString BookmarkDialog::title() const {
    return m_title->text().trimmed();
}

QString BookmarkDialog::note() const {
    return m_note->toPlainText().trimmed();
}

bool BookmarkDialog::eventFilter(QObject* watched, QEvent* event) {
    // In the note, Enter accepts as it does in the title; Shift+Enter is the new line.
    if (watched == m_note && event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) &&
            !(key->modifiers() & Qt::ShiftModifier)) {
            accept();
            return true;
        }
        if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter)) {
            m_note->insertPlainText(QStringLiteral("\n"));
            return true;
        }
    }
    return QDialog::eventFilter(watched, event);
}

}  // namespace chokepoint::ui
