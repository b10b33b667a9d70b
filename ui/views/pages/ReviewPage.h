#pragma once
// ReviewPage: review mode. Lists the presenter's slides and the team's bookmarks and notes, starts
// the full-screen presenter (PresenterView), and keeps the bookmarks in the sidecar beside the
// trace (core/review): loaded when a trace opens, saved after every change. New bookmarks mark the
// range or kernel the other pages last navigated to (TraceDocument requestShowRange /
// requestSelectKernel), or a chosen step.

#include <memory>
#include <optional>

#include "core/review/ReviewNotes.h"
#include "ui/base/Page.h"
#include "ui/base/document/AnalysisReportQt.h"

class QAction;
class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QTableView;

namespace chokepoint::ui {

class BookmarksModel;
class EvidenceSnapshot;
class PresenterView;

class ReviewPage : public Page {
    Q_OBJECT
public:
    explicit ReviewPage(QWidget* parent = nullptr);
    ~ReviewPage() override;

    QString pageId() const override { return QStringLiteral("review"); }
    QString title() const override { return tr("Review"); }
    void setDocument(TraceDocument* document) override;
    // Review > Start Presentation, Add Bookmark…, Review Page.
    void installActions(PageHost& host) override;

    // Binds the page to a trace file (sidecar location) and its analysis; used by the document
    // hooks and directly by tests. An empty path keeps bookmarks in memory only.
    void setTrace(const QString& tracePath, std::shared_ptr<const analysis::AnalysisReport> report,
                  std::shared_ptr<const core::TraceModel> model);

    BookmarksModel* bookmarks() const { return m_bookmarks; }
    // Adds a bookmark and saves the sidecar; returns its id.
    std::uint64_t addBookmark(core::Bookmark bookmark);
    // Bookmarks the last range/kernel shown by another page, else the chosen step.
    std::uint64_t bookmarkCurrentFocus(const QString& title, const QString& note);
    // The sidecar problem of the last load or save, empty when fine.
    QString sidecarStatus() const { return m_status; }

    // Opens the presenter (full screen unless `fullScreen` is false, as in tests).
    PresenterView* startPresentation(bool fullScreen = true);
    PresenterView* presenter() const { return m_presenter; }

private:
    // The host's Review menu (installActions): start the presentation (F5) and add a bookmark
    // (Ctrl+B) from any page, enabled as the page's own buttons.
    void updateMenuActions();
    void loadSidecar();
    void saveSidecar();
    void rebuildSlideList();
    void onAddClicked();
    void onRemoveClicked();
    void onBookmarkActivated(const QModelIndex& index);

    QString m_tracePath;
    std::shared_ptr<const analysis::AnalysisReport> m_report;
    std::shared_ptr<const core::TraceModel> m_model;
    std::optional<core::TimeRange> m_lastRange;
    QString m_lastRangeLabel;  // what m_lastRange is: an event's name, "the selected range", or empty
    core::KernelId m_lastKernel;
    bool m_sidecarUnreadable = false;  // never overwrite a sidecar we could not read
    QString m_status;

    QLabel* m_header = nullptr;
    QListWidget* m_slides = nullptr;
    BookmarksModel* m_bookmarks = nullptr;
    QTableView* m_table = nullptr;
    QComboBox* m_target = nullptr;
    QPushButton* m_add = nullptr;
    QPushButton* m_remove = nullptr;
    QPushButton* m_present = nullptr;
    QLabel* m_statusLabel = nullptr;
    PresenterView* m_presenter = nullptr;
    QAction* m_presentAction = nullptr;  // in the main window's Review menu
    QAction* m_bookmarkAction = nullptr;
    std::unique_ptr<EvidenceSnapshot> m_snapshot;  // the presenter's timeline pictures
};

}  // namespace chokepoint::ui
