#include "ui/views/review/PresenterView.h"

#include <QKeyEvent>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <vector>

#include "ui/base/theme/ReportPalette.h"
#include "ui/base/theme/Theme.h"

namespace chokepoint::ui {
namespace {

constexpr int kMinPictureWidth = 400;
constexpr int kMinPictureHeight = 220;

QString esc(const std::string& s) {
    return QString::fromStdString(s).toHtmlEscaped();
}

QString fixHtml(const analysis::Recommendation& fix) {
    QString html = QObject::tr("<p><b>Expected gain:</b> %1</p>").arg(esc(fix.gain.summary));
    html += QObject::tr("<p><b>Why:</b> %1</p>").arg(esc(fix.evidence));
    if (!fix.pytorchChange.empty()) {
        html += QStringLiteral("<pre style='font-size:70%'>%1</pre>").arg(esc(fix.pytorchChange));
    }
    if (!fix.risks.empty()) {
        html += QObject::tr("<p style='color:#666'><b>Risks:</b> %1</p>").arg(esc(fix.risks));
    }
    return html;
}

}  // namespace

std::vector<ReviewSlide> buildReviewSlides(const analysis::AnalysisReport& report,
                                           const core::ReviewNotes& notes, core::TimestampNs traceStartNs) {
    std::vector<ReviewSlide> slides;
    const analysis::MfuReport& mfu = report.mfu;
    // 1. Overview.
    {
        ReviewSlide s;
        s.kicker = QObject::tr("Overview");
        s.title = QString::fromStdString(report.headline);
        s.bodyHtml = QObject::tr("<p>Step time %1 · GPU busy %2 · MFU %3</p><p>%4 steps · %5</p>")
                         .arg(mfu.stepTimeNs > 0 ? durationText(mfu.stepTimeNs) : QObject::tr("n/a"),
                              percentText(mfu.busyFraction),
                              mfu.mfu ? percentText(*mfu.mfu) + QStringLiteral(" (") + esc(mfu.bandLabel) +
                                            QStringLiteral(")")
                                      : QObject::tr("unknown"))
                         .arg(report.metrics.steps.steps.size())
                         .arg(esc(report.device.matched ? report.device.spec.name : report.device.note));
        slides.push_back(s);
    }
    // 2. The dominant bottleneck with its evidence figures.
    {
        ReviewSlide s;
        s.kicker = QObject::tr("The dominant bottleneck");
        s.title = bottleneckName(report.overall.bottleneck);
        QString body = QStringLiteral("<p>%1</p><ul>").arg(esc(report.overall.rationale));
        for (const analysis::Evidence& e : report.overall.evidence) {
            body += QStringLiteral("<li>%1</li>").arg(esc(e.note.empty() ? e.signal : e.note));
        }
        body += QObject::tr("</ul><p style='color:#666'>Confidence: %1</p>")
                    .arg(QString::fromUtf8(report.overall.confidenceLabel()));
        s.bodyHtml = body;
        slides.push_back(s);
    }
    // 3. Its evidence on the timeline.
    {
        ReviewSlide s;
        s.kicker = QObject::tr("Evidence on the timeline");
        s.evidence = evidenceRange(report, report.overall.bottleneck);
        s.title = QObject::tr("Where it shows");
        s.bodyHtml = s.evidence.empty()
                         ? QObject::tr("<p>The trace has no step to show.</p>")
                         : QObject::tr(
                               "<p>The timeline below shows %1 starting at %2 — the clearest instance of "
                               "the bottleneck in this trace. The main window's timeline shows the same "
                               "range, to explore after the review.</p>")
                               .arg(durationText(static_cast<double>(s.evidence.durationNs())),
                                    durationText(static_cast<double>(s.evidence.startNs - traceStartNs)));
        slides.push_back(s);
    }
    // 4. The fix for it, then 5+. each further finding (fixes for secondary constraints).
    const auto& fixes = report.fixes.recommendations;
    // A further fix for a bottleneck already shown is an alternative, not a new finding.
    bool first = true;
    std::vector<analysis::Bottleneck> shown{report.overall.bottleneck};
    for (const analysis::Recommendation& fix : fixes) {
        ReviewSlide s;
        const bool newFinding = std::find(shown.begin(), shown.end(), fix.target) == shown.end();
        if (first) {
            s.kicker = QObject::tr("The fix");
        } else if (newFinding) {
            s.kicker = QObject::tr("Next finding: %1").arg(bottleneckName(fix.target));
        } else {
            s.kicker = QObject::tr("Another fix for %1").arg(bottleneckName(fix.target));
        }
        s.title = QString::fromStdString(fix.title);
        s.bodyHtml = fixHtml(fix);
        if (!first && newFinding) {
            s.evidence = evidenceRange(report, fix.target);
        }
        if (newFinding) {
            shown.push_back(fix.target);
        }
        slides.push_back(s);
        first = false;
    }
    if (fixes.empty()) {
        slides.push_back({QObject::tr("The fix"),
                          QObject::tr("No fix applies"),
                          QStringLiteral("<p>%1</p>").arg(esc(report.fixes.nextStep)),
                          {}});
    }
    // Bookmarks the team made.
    for (const core::Bookmark& b : notes.bookmarks()) {
        ReviewSlide s;
        s.kicker = QObject::tr("Bookmark");
        s.title = b.title.empty()
                      ? QObject::tr("Bookmark at %1")
                            .arg(durationText(static_cast<double>(b.range.startNs - traceStartNs)))
                      : QString::fromStdString(b.title);
        QString body =
            QStringLiteral("<p>%1</p>").arg(esc(b.note).replace(QLatin1Char('\n'), QStringLiteral("<br/>")));
        if (b.kind == core::BookmarkKind::Kernel) {
            body += QObject::tr("<p style='color:#666'>Kernel: %1</p>").arg(esc(b.kernelName));
        }
        s.bodyHtml = body;
        s.evidence = b.range;
        slides.push_back(s);
    }
    for (std::size_t i = 0; i < slides.size(); ++i) {
        slides[i].kicker = QStringLiteral("%1 / %2 · %3").arg(i + 1).arg(slides.size()).arg(slides[i].kicker);
    }
    return slides;
}

PresenterView::PresenterView(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setAutoFillBackground(true);
    // Slides are light in every theme (a room's projector, a shared screen).
    QPalette pal = lightPalette();
    pal.setColor(QPalette::Window, QColor(250, 250, 248));
    pal.setColor(QPalette::WindowText, QColor(25, 25, 25));
    setPalette(pal);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(64, 48, 64, 32);
    m_kicker = new QLabel(this);
    m_title = new QLabel(this);
    m_body = new QLabel(this);
    m_footer = new QLabel(tr("→ / Space: next    ← : previous    Esc: leave"), this);
    QFont base = font();
    QFont kicker = base;
    kicker.setPointSizeF(base.pointSizeF() * 1.4);
    m_kicker->setFont(kicker);
    m_kicker->setStyleSheet(QStringLiteral("color: #777;"));
    QFont title = base;
    title.setPointSizeF(base.pointSizeF() * 2.6);
    title.setBold(true);
    m_title->setFont(title);
    m_title->setWordWrap(true);
    QFont body = base;
    body.setPointSizeF(base.pointSizeF() * 1.7);
    m_body->setFont(body);
    m_body->setWordWrap(true);
    m_body->setTextFormat(Qt::RichText);
    m_body->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_footer->setStyleSheet(QStringLiteral("color: #999;"));
    layout->addWidget(m_kicker);
    layout->addWidget(m_title);
    layout->addSpacing(16);
    layout->addWidget(m_body);
    // The evidence picture takes all the height the text leaves: the room reads the timeline from
    // afar. Its size policy lets the layout size it; the picture is drawn at that size.
    m_picture = new QLabel(this);
    m_picture->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_picture->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    m_picture->setMinimumHeight(kMinPictureHeight);
    m_picture->installEventFilter(this);
    m_picture->hide();
    layout->addSpacing(12);
    layout->addWidget(m_picture, 1);
    layout->addWidget(m_footer);
}

void PresenterView::setSlides(std::vector<ReviewSlide> slides) {
    m_slides = std::move(slides);
    m_current = -1;
    goTo(0);
}

const ReviewSlide* PresenterView::slide(int index) const {
    return index >= 0 && index < slideCount() ? &m_slides[static_cast<std::size_t>(index)] : nullptr;
}

QString PresenterView::currentTitle() const {
    const ReviewSlide* s = slide(m_current);
    return s != nullptr ? s->title : QString();
}

void PresenterView::goTo(int index) {
    if (m_slides.empty()) {
        m_kicker->clear();
        m_title->setText(tr("Nothing to present yet"));
        m_body->setText(tr("Open and analyse a trace first."));
        return;
    }
    index = std::clamp(index, 0, slideCount() - 1);
    if (index == m_current) {
        return;
    }
    m_current = index;
    const ReviewSlide& s = m_slides[static_cast<std::size_t>(index)];
    m_kicker->setText(s.kicker);
    m_title->setText(s.title);
    m_body->setText(s.bodyHtml);
    updatePicture();
    emit slideChanged(index);
    if (!s.evidence.empty()) {
        emit evidenceRequested(s.evidence, s.title);
    }
}

void PresenterView::setEvidenceRenderer(EvidenceRenderer renderer) {
    m_renderer = std::move(renderer);
    updatePicture();
}

void PresenterView::updatePicture() {
    const ReviewSlide* s = slide(m_current);
    const bool wanted = s != nullptr && !s->evidence.empty() && m_renderer;
    m_pictureShown = QPixmap();
    if (!wanted) {
        m_picture->clear();
        m_picture->hide();
        return;
    }
    if (m_picture->isHidden()) {
        m_picture->show();  // the layout gives it its room; the resize that follows draws it
        layout()->activate();
    }
    // The room the layout gave the picture: the full width inside the margins, the height the
    // text leaves.
    const QMargins margins = layout()->contentsMargins();
    const QSize size(std::max(kMinPictureWidth, width() - margins.left() - margins.right()),
                     std::max(kMinPictureHeight, m_picture->height()));
    m_pictureShown = m_renderer(s->evidence, size);
    m_picture->setPixmap(m_pictureShown);
}

bool PresenterView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_picture && event->type() == QEvent::Resize && !m_picture->isHidden()) {
        const QSize drawn = m_pictureShown.deviceIndependentSize().toSize();
        if (drawn.height() != m_picture->height()) {
            updatePicture();
        }
    }
    return QWidget::eventFilter(watched, event);
}

int presentationScreenIndex(int windowScreen, int screenCount) {
    if (screenCount <= 1) {
        return 0;
    }
    // Two or more screens: the laptop's keeps the main window, the room's (projector, TV) gets the
    // slides, as presentation programs do. The first screen that is not the window's.
    return windowScreen == 0 ? 1 : 0;
}

void PresenterView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Right:
        case Qt::Key_PageDown:
        case Qt::Key_Space:
        case Qt::Key_Down:
            next();
            break;
        case Qt::Key_Left:
        case Qt::Key_PageUp:
        case Qt::Key_Up:
        case Qt::Key_Backspace:
            previous();
            break;
        case Qt::Key_Home:
            goTo(0);
            break;
        case Qt::Key_End:
            goTo(slideCount() - 1);
            break;
        case Qt::Key_Escape:
            emit closeRequested();
            break;
        default:
            QWidget::keyPressEvent(event);
            return;
    }
    event->accept();
}

}  // namespace chokepoint::ui
