#include "ui/views/review/EvidenceSnapshot.h"

#include <QImage>
#include <QPainter>
#include <algorithm>

#include "ui/base/theme/Theme.h"
#include "ui/views/timeline/ReportOverlays.h"
#include "ui/views/timeline/TimelineWidget.h"

namespace chokepoint::ui {
namespace {

constexpr double kMaxScale = 4.0;
constexpr int kMinLogicalWidth = 480;  // pixels of time across, at the least, when filling

}  // namespace

EvidenceSnapshot::EvidenceSnapshot() : m_timeline(std::make_unique<TimelineWidget>()) {
    // Shown (so resizes apply at once) but never on screen, and never keeping the application open.
    m_timeline->setAttribute(Qt::WA_DontShowOnScreen);
    m_timeline->setAttribute(Qt::WA_QuitOnClose, false);
    // Slides and exported evidence are light in every theme, like the presenter view around them.
    m_timeline->setPalette(lightPalette());
}

EvidenceSnapshot::~EvidenceSnapshot() = default;

void EvidenceSnapshot::setTrace(std::shared_ptr<const core::TraceModel> model,
                                std::shared_ptr<const timeline::TrackSet> tracks,
                                const analysis::AnalysisReport* report) {
    if (model && !tracks) {
        tracks = std::make_shared<const timeline::TrackSet>(timeline::buildTracks(*model));
    }
    m_timeline->setData(std::move(model), std::move(tracks));
    m_timeline->setOverlays(report != nullptr ? overlaysFromReport(*report) : TimelineOverlays{});
}

bool EvidenceSnapshot::hasTrace() const {
    return m_timeline->model() != nullptr;
}

QPixmap EvidenceSnapshot::render(core::TimeRange range, QSize size, double scale, bool fillHeight) {
    scale = std::clamp(scale, 0.5, kMaxScale);
    // The widget is laid out at size / scale and painted through a scaled painter: larger type and
    // lines that stay sharp, unlike a scaled bitmap.
    const QSize logical(static_cast<int>(size.width() / scale), static_cast<int>(size.height() / scale));
    if (!hasTrace() || range.empty() || logical.width() < 200 || logical.height() < 80) {
        return {};
    }
    if (!m_timeline->isVisible()) {
        m_timeline->show();
    }
    m_timeline->resize(logical);
    if (fillHeight && m_timeline->fullHeight() > 0 && m_timeline->fullHeight() * scale < size.height()) {
        // Few tracks: draw them larger until they fill the height (the lanes' height does not
        // depend on the width), as long as kMinLogicalWidth pixels of time remain.
        const double fill = static_cast<double>(size.height()) / m_timeline->fullHeight();
        const double widthLimit = static_cast<double>(size.width()) / kMinLogicalWidth;
        scale = std::clamp(std::min(fill, widthLimit), scale, kMaxScale);
        m_timeline->resize(static_cast<int>(size.width() / scale), static_cast<int>(size.height() / scale));
    }
    if (m_timeline->fullHeight() < m_timeline->height()) {
        // Few tracks: no empty band under them.
        m_timeline->resize(m_timeline->width(), std::max(80, m_timeline->fullHeight()));
    }
    m_timeline->showRange(range, true);
    m_timeline->setRangeSelection(range);
    QImage image(
        QSize(static_cast<int>(m_timeline->width() * scale), static_cast<int>(m_timeline->height() * scale)),
        QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.scale(scale, scale);
    m_timeline->render(&painter);
    painter.end();
    return QPixmap::fromImage(image);
}

}  // namespace chokepoint::ui
