#pragma once
// PresenterView: the review-mode presenter. A full-screen view with large type that steps through
// the findings in order: overview, the dominant bottleneck, its evidence on the timeline, the fix
// and its expected gain, then each further finding, then the team's bookmarks. Keys: Right,
// PageDown or Space for next; Left or PageUp for previous; Home/End; Esc leaves.
// Slides come from buildReviewSlides(); all text is read from the report and the notes.

#include <QPixmap>
#include <QWidget>
#include <functional>
#include <vector>

#include "core/base/Time.h"
#include "core/review/ReviewNotes.h"
#include "ui/base/document/AnalysisReportQt.h"

class QLabel;

namespace chokepoint::ui {

struct ReviewSlide {
    QString kicker;  // small line above the title ("1 / 6 · Overview")
    QString title;
    QString bodyHtml;
    core::TimeRange evidence;  // non-empty: the timeline shows it when the slide appears
};

std::vector<ReviewSlide> buildReviewSlides(const analysis::AnalysisReport& report,
                                           const core::ReviewNotes& notes, core::TimestampNs traceStartNs);

// Which screen presents: with one screen, that one; with several, the first that is not the main
// window's (`windowScreen`), so the room's projector shows the slides. Indices into
// QGuiApplication::screens().
int presentationScreenIndex(int windowScreen, int screenCount);

class PresenterView : public QWidget {
    Q_OBJECT
public:
    explicit PresenterView(QWidget* parent = nullptr);

    void setSlides(std::vector<ReviewSlide> slides);
    int slideCount() const { return static_cast<int>(m_slides.size()); }
    int currentSlide() const { return m_current; }
    const ReviewSlide* slide(int index) const;
    void goTo(int index);
    void next() { goTo(m_current + 1); }
    void previous() { goTo(m_current - 1); }
    QString currentTitle() const;

    // Draws the timeline over a slide's evidence range at a size; slides with evidence show the
    // picture under their text (the room cannot see the main window while presenting).
    using EvidenceRenderer = std::function<QPixmap(core::TimeRange range, QSize size)>;
    void setEvidenceRenderer(EvidenceRenderer renderer);
    // The picture on the current slide (null when it has none).
    QPixmap evidencePicture() const { return m_pictureShown; }

signals:
    void slideChanged(int index);
    void evidenceRequested(chokepoint::core::TimeRange range, const QString& reason);
    void closeRequested();

protected:
    void keyPressEvent(QKeyEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void updatePicture();

    std::vector<ReviewSlide> m_slides;
    int m_current = -1;
    QLabel* m_kicker = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_body = nullptr;
    QLabel* m_footer = nullptr;
    QLabel* m_picture = nullptr;
    EvidenceRenderer m_renderer;
    QPixmap m_pictureShown;
};

}  // namespace chokepoint::ui
