#pragma once
// StragglerPanel: the rank that makes the others wait, and why. For the chosen straggler (worst
// first): how late it arrives per step, at what share of the collectives it is last, the cause,
// its excess work over the median rank before those collectives by kind, its heaviest host frames,
// the evidence sentences and what the job would save without its lateness; "Show me" shows the
// segment on the job timeline, "Open rank" its own pages, "Compare with median rank" the existing
// Compare page. Every figure comes from the JobReport.

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;

namespace chokepoint::ui {

class JobDocument;

class StragglerPanel : public QWidget {
    Q_OBJECT
public:
    explicit StragglerPanel(QWidget* parent = nullptr);

    void setDocument(JobDocument* document);
    // Index in report()->stragglers shown, -1 when none.
    int currentStraggler() const { return m_current; }
    void showStraggler(int index);
    QString text() const;  // the panel's text, for tests
    // Shows what a heatmap cell holds (rich text) above the straggler; empty hides it.
    void showCell(const QString& html);
    QString cellText() const;
    QPushButton* showMeButton() const { return m_showMe; }
    QPushButton* openRankButton() const { return m_openRank; }
    QPushButton* compareButton() const { return m_compare; }

protected:
    void changeEvent(QEvent* event) override;  // re-renders the rich text in the new palette

private:
    void refresh();
    void updateButtons();

    JobDocument* m_document = nullptr;
    int m_current = -1;
    QComboBox* m_choice = nullptr;
    QLabel* m_cell = nullptr;
    QLabel* m_body = nullptr;
    QPushButton* m_showMe = nullptr;
    QPushButton* m_openRank = nullptr;
    QPushButton* m_compare = nullptr;
};

}  // namespace chokepoint::ui
