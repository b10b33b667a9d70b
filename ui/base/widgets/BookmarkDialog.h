#pragma once
// BookmarkDialog: the title and note of a new bookmark in one dialog. Enter accepts from either
// field; Shift+Enter starts a new line in the note; Esc cancels.

#include <QDialog>

class QLineEdit;
class QPlainTextEdit;

namespace chokepoint::ui {

class BookmarkDialog : public QDialog {
    Q_OBJECT
public:
    // `target` names what is bookmarked ("the range last shown", "step 3").
    explicit BookmarkDialog(const QString& target, QWidget* parent = nullptr);

    QString title() const;
    QString note() const;
    QLineEdit* titleEdit() const { return m_title; }
    QPlainTextEdit* noteEdit() const { return m_note; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QLineEdit* m_title = nullptr;
    QPlainTextEdit* m_note = nullptr;
};

}  // namespace chokepoint::ui
