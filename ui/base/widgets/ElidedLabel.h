#pragma once
// A one-line label that gives way in a narrow window: it asks for its whole text but accepts any
// width, and shows as much as fits with an ellipsis (the whole text is its tooltip). A plain
// QLabel's minimum is its whole text, which pushed a toolbar under its minimum and made Qt draw
// its widgets over each other.

#include <QLabel>

namespace chokepoint::ui {

class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr);

    void setFullText(const QString& text);
    QString fullText() const { return m_fullText; }

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void elide();

    QString m_fullText;
};

}  // namespace chokepoint::ui
