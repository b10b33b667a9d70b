#include "ui/base/Page.h"

#include <QEvent>

namespace chokepoint::ui {

void Page::refreshNowOrWhenShown(int slot, std::function<void()> refresh) {
    // A page on its own (tests, a window not shown yet) refreshes at once: only a page that is
    // hidden inside a visible window can wait for its show event.
    const bool hiddenTab = !isVisible() && parentWidget() != nullptr && window()->isVisible();
    if (!hiddenTab) {
        m_pendingRefreshes.erase(slot);
        refresh();
        return;
    }
    m_pendingRefreshes[slot] = std::move(refresh);
}

void Page::runPendingRefreshes() {
    // Move out first: a refresh may queue another one.
    auto pending = std::move(m_pendingRefreshes);
    m_pendingRefreshes.clear();
    for (auto& [slot, refresh] : pending) {
        refresh();
    }
}

void Page::setDocumentShowingReport(TraceDocument* document, ShowReport showReport) {
    if (m_document) {
        disconnect(m_document, nullptr, this, nullptr);
    }
    Page::setDocument(document);
    if (document == nullptr) {
        showReport(nullptr);
        return;
    }
    connect(document, &TraceDocument::analysisAvailable, this, [this, showReport] {
        refreshNowOrWhenShown(
            0, [this, showReport] { showReport(m_document ? m_document->report() : nullptr); });
    });
    connect(document, &TraceDocument::loadStarted, this, [showReport] { showReport(nullptr); });
    showReport(document->report());
}

void Page::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        paletteChanged();
    }
}

void Page::showEvent(QShowEvent* event) {
    runPendingRefreshes();
    QWidget::showEvent(event);
}

}  // namespace chokepoint::ui
