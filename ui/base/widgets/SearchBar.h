#pragma once
// SearchBar: a name filter with previous/next buttons and a "3 of 120" count. It only emits;
// the owner runs the search (core/timeline/TimelineSearch) and reports the position back.

#include <QWidget>

class QLabel;
class QLineEdit;
class QTimer;
class QToolButton;

namespace chokepoint::ui {

class SearchBar : public QWidget {
    Q_OBJECT
public:
    explicit SearchBar(QWidget* parent = nullptr);

    QString text() const;
    void setText(const QString& text);
    // Focuses the field and selects its text (Ctrl+F).
    void activate();
    // "3 of 120", "no matches" or nothing when the query is empty; position is 1-based, 0 = none.
    void setResultPosition(std::size_t position, std::size_t count);

signals:
    // Emitted after typing pauses, and on Enter.
    void queryChanged(const QString& text);
    void nextRequested();
    void previousRequested();

private:
    QLineEdit* m_edit = nullptr;
    QToolButton* m_previous = nullptr;
    QToolButton* m_next = nullptr;
    QLabel* m_count = nullptr;
    QTimer* m_debounce = nullptr;
    QString m_lastQuery;
};

}  // namespace chokepoint::ui
