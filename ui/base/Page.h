#pragma once
// Page: one tab of the main window (diagnosis, timeline, roofline, fixes, review, compare).
// MainWindow hosts pages by id and hands each the current TraceDocument (nullptr when no trace is
// open). A page renders from the document's model and report only; it holds no analysis logic.
// Pages must draw something sensible in every state: no document, loading, model without report.
// A page knows its window only as a PageHost (installActions): it never includes ui/shell.

#include <QPointer>
#include <QString>
#include <QWidget>
#include <functional>
#include <map>

#include "ui/base/PageHost.h"
#include "ui/base/document/TraceDocument.h"

namespace chokepoint::ui {

class Page : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

    // Stable id used by MainWindow::showPage, the --screenshot option and settings.
    virtual QString pageId() const = 0;
    // Tab title.
    virtual QString title() const = 0;
    // Called with the new document (or nullptr). Overrides call the base first, then connect to
    // the document's signals (modelAvailable, analysisAvailable) and refresh.
    virtual void setDocument(TraceDocument* document) { m_document = document; }
    TraceDocument* document() const { return m_document; }
    // Called once by the window that hosts the page, after it has the page and has handed it the
    // document: the page adds its own actions to the host's menus. Pages without any keep this.
    virtual void installActions(PageHost& host) { Q_UNUSED(host); }

protected:
    // Runs `refresh` now, unless this page is a hidden tab of a window on screen: then it runs when
    // the page is next shown. Opening a trace builds only the page being looked at, so the first
    // diagnosis is drawn sooner. A later refresh with the same `slot` replaces a pending one;
    // pending refreshes run in slot order. Handlers that need the page current call
    // runPendingRefreshes() first.
    void refreshNowOrWhenShown(int slot, std::function<void()> refresh);
    void runPendingRefreshes();
    // setDocument for a page that draws the report alone: forgets the old document's signals, then
    // hands `showReport` the document's report now, each new one (refresh slot 0), and nullptr when
    // a load starts or there is no document.
    using ShowReport = std::function<void(std::shared_ptr<const analysis::AnalysisReport>)>;
    void setDocumentShowingReport(TraceDocument* document, ShowReport showReport);
    void showEvent(QShowEvent* event) override;
    // Calls paletteChanged() on QEvent::PaletteChange (a theme switch).
    void changeEvent(QEvent* event) override;
    // Rebuilds what the page baked colours into (rich text, table brushes). Custom-painted widgets
    // read their palette when painting and need nothing here.
    virtual void paletteChanged() {}

    QPointer<TraceDocument> m_document;

private:
    std::map<int, std::function<void()>> m_pendingRefreshes;
};

}  // namespace chokepoint::ui
