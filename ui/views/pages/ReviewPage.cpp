#include "ui/views/pages/ReviewPage.h"

#include <QComboBox>
#include <QDateTime>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QScreen>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "core/base/KernelName.h"
#include "core/review/ReviewSidecar.h"
#include "ui/base/models/BookmarksModel.h"
#include "ui/base/models/ModelRoles.h"
#include "ui/base/theme/ReportPalette.h"
#include "ui/base/theme/ThemeColors.h"
#include "ui/base/widgets/BookmarkDialog.h"
#include "ui/views/review/EvidenceSnapshot.h"
#include "ui/views/review/PresenterView.h"

namespace chokepoint::ui {

namespace {

// The presenter's timeline pictures are drawn this much larger than the timeline page, for a room.
constexpr double kSlideScale = 1.5;

}  // namespace

ReviewPage::ReviewPage(QWidget* parent) : Page(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    auto* top = new QHBoxLayout;
    m_header = new QLabel(this);
    m_header->setWordWrap(true);
    top->addWidget(m_header, 1);
    m_present = new QPushButton(tr("Start presentation (F5)"), this);
    m_present->setShortcut(QKeySequence(Qt::Key_F5));
    top->addWidget(m_present, 0, Qt::AlignTop);
    layout->addLayout(top);

    auto* split = new QSplitter(Qt::Horizontal, this);
    auto* left = new QWidget(split);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(new QLabel(tr("<b>Findings, in presentation order</b>"), left));
    m_slides = new QListWidget(left);
    m_slides->setAccessibleName(tr("Findings, in presentation order"));
    m_slides->setWordWrap(true);
    m_slides->setSpacing(4);  // each finding is two lines; without a gap they read as one list
    leftLayout->addWidget(m_slides);

    auto* right = new QWidget(split);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    auto* bookmarksTitle =
        new QLabel(tr("<b>Bookmarks and notes</b> (saved with the trace, see below; double-click a title or "
                      "note to edit it, a row to show it on the timeline)"),
                   right);
    bookmarksTitle->setWordWrap(true);  // unwrapped, it set the window's minimum width to 1000 px
    rightLayout->addWidget(bookmarksTitle);
    m_bookmarks = new BookmarksModel(this);
    m_table = new QTableView(right);
    m_table->setAccessibleName(tr("Bookmarks and notes"));
    auto* proxy = new QSortFilterProxyModel(m_table);
    proxy->setSourceModel(m_bookmarks);
    proxy->setSortRole(SortRole);
    m_table->setModel(proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    rightLayout->addWidget(m_table, 1);
    auto* buttons = new QHBoxLayout;
    m_target = new QComboBox(right);
    m_target->setAccessibleName(tr("What to mark"));
    m_target->setMinimumContentsLength(24);
    m_add = new QPushButton(tr("Add bookmark…"), right);
    m_remove = new QPushButton(tr("Remove"), right);
    buttons->addWidget(new QLabel(tr("Mark:"), right));
    buttons->addWidget(m_target, 1);
    buttons->addWidget(m_add);
    buttons->addWidget(m_remove);
    rightLayout->addLayout(buttons);
    m_statusLabel = new QLabel(right);
    m_statusLabel->setWordWrap(true);
    rightLayout->addWidget(m_statusLabel);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    layout->addWidget(split, 1);

    connect(m_present, &QPushButton::clicked, this, [this] { startPresentation(true); });
    connect(m_add, &QPushButton::clicked, this, &ReviewPage::onAddClicked);
    connect(m_remove, &QPushButton::clicked, this, &ReviewPage::onRemoveClicked);
    connect(m_table, &QTableView::activated, this, &ReviewPage::onBookmarkActivated);
    connect(m_bookmarks, &BookmarksModel::notesChanged, this, [this] {
        saveSidecar();
        rebuildSlideList();
    });
    setTrace({}, nullptr, nullptr);
}

ReviewPage::~ReviewPage() {
    delete m_presenter;  // a top-level window when presenting
}

void ReviewPage::setDocument(TraceDocument* document) {
    if (m_document) {
        disconnect(m_document, nullptr, this, nullptr);
    }
    Page::setDocument(document);
    if (document == nullptr) {
        setTrace({}, nullptr, nullptr);
        return;
    }
    auto refresh = [this] {
        if (m_document) {
            setTrace(m_document->filePath(), m_document->report(), m_document->model());
        }
    };
    connect(document, &TraceDocument::loadStarted, this, &ReviewPage::updateMenuActions);
    connect(document, &TraceDocument::modelAvailable, this, &ReviewPage::updateMenuActions);
    connect(document, &TraceDocument::analysisAvailable, this, &ReviewPage::updateMenuActions);
    connect(document, &TraceDocument::modelAvailable, this,
            [this, refresh] { refreshNowOrWhenShown(0, refresh); });
    connect(document, &TraceDocument::analysisAvailable, this,
            [this, refresh] { refreshNowOrWhenShown(0, refresh); });
    connect(document, &TraceDocument::requestShowRange, this, [this](core::TimeRange range, const QString&) {
        runPendingRefreshes();
        m_lastRange = range;
        m_lastRangeLabel.clear();
        m_lastKernel = {};
        rebuildSlideList();
    });
    // What the user selected on the timeline (an op, a kernel, a range) is what "Add bookmark" marks.
    connect(document, &TraceDocument::selectionNoted, this,
            [this](core::TimeRange range, const QString& label) {
                runPendingRefreshes();
                m_lastRange = range;
                m_lastRangeLabel = label;
                m_lastKernel = {};
                rebuildSlideList();
            });
    // "Bookmark range" of the timeline's context menu.
    connect(document, &TraceDocument::requestBookmark, this,
            [this](core::TimeRange range, const QString& title, const QString& note) {
                runPendingRefreshes();
                core::Bookmark b;
                b.range = range;
                b.title = title.toStdString();
                b.note = note.toStdString();
                addBookmark(std::move(b));
            });
    connect(document, &TraceDocument::requestSelectKernel, this, [this](core::KernelId kernel) {
        runPendingRefreshes();
        m_lastKernel = kernel;
        m_lastRange.reset();
        rebuildSlideList();
    });
    refresh();
}

void ReviewPage::setTrace(const QString& tracePath, std::shared_ptr<const analysis::AnalysisReport> report,
                          std::shared_ptr<const core::TraceModel> model) {
    const bool newTrace = tracePath != m_tracePath || (model != m_model && model != nullptr);
    m_report = std::move(report);
    m_model = model ? std::move(model) : (m_report ? m_report->model : nullptr);
    if (newTrace) {
        m_tracePath = tracePath;
        m_lastRange.reset();
        m_lastKernel = {};
        loadSidecar();
    }
    m_bookmarks->setTraceStartNs(m_model ? m_model->timeSpan().startNs : 0);
    if (!m_report) {
        m_header->setText(m_model ? tr("Analyzing…") : tr("Open a trace to review it with your team."));
    } else {
        m_header->setText(
            tr("<b>%1</b><br/>Walk the team through the findings with the presenter: → / Space for "
               "the next slide, ← for the previous one, Esc to leave.")
                .arg(QString::fromStdString(m_report->headline).toHtmlEscaped()));
    }
    m_present->setEnabled(m_report != nullptr);
    m_add->setEnabled(m_model != nullptr);
    rebuildSlideList();
}

void ReviewPage::loadSidecar() {
    m_sidecarUnreadable = false;
    m_status.clear();
    if (m_tracePath.isEmpty()) {
        m_bookmarks->setNotes({});
        m_statusLabel->setText(tr("Bookmarks are kept in memory only (the trace has no file)."));
        return;
    }
    auto loaded = core::loadReviewForTrace(m_tracePath.toStdString());
    if (!loaded) {
        // Keep the unreadable file as it is: the user may want to repair it. Saving is disabled.
        m_sidecarUnreadable = true;
        m_status = QString::fromStdString(loaded.error().message);
        m_bookmarks->setNotes({});
        m_statusLabel->setText(
            tr("<span style='color:%2'>Could not read the review file; bookmarks will not be "
               "saved until it is fixed or removed: %1</span>")
                .arg(m_status.toHtmlEscaped(), cssColor(themeColors(palette()).error)));
        return;
    }
    m_bookmarks->setNotes(std::move(loaded->notes));
    const std::string sidecar = core::reviewSidecarPath(m_tracePath.toStdString());
    const bool besideTrace = sidecar == m_tracePath.toStdString() + std::string(core::kReviewSidecarSuffix);
    QStringList lines;
    lines << (loaded->sidecarFound
                  ? tr("Loaded %1 bookmark(s) from %2")
                        .arg(m_bookmarks->rowCount())
                        .arg(QString::fromStdString(sidecar))
                  : tr("Bookmarks will be saved to %1%2")
                        .arg(QString::fromStdString(sidecar),
                             besideTrace ? QString() : tr(" (the trace's folder cannot be written)")));
    for (const std::string& w : loaded->warnings) {
        lines << QString::fromStdString(w);
        m_status = QString::fromStdString(w);
    }
    m_statusLabel->setText(lines.join(QStringLiteral("\n")));
}

void ReviewPage::saveSidecar() {
    if (m_tracePath.isEmpty() || m_sidecarUnreadable) {
        return;
    }
    const core::Status status = core::saveReviewForTrace(m_tracePath.toStdString(), m_bookmarks->notes());
    if (!status) {
        m_status = QString::fromStdString(status.error().message);
        m_statusLabel->setText(tr("<span style='color:%2'>Could not save the bookmarks: %1</span>")
                                   .arg(m_status.toHtmlEscaped(), cssColor(themeColors(palette()).error)));
    } else {
        m_status.clear();
        m_statusLabel->setText(
            tr("Saved to %1")
                .arg(QString::fromStdString(core::reviewSidecarPath(m_tracePath.toStdString()))));
    }
}

void ReviewPage::rebuildSlideList() {
    m_slides->clear();
    if (m_report) {
        const auto slides =
            buildReviewSlides(*m_report, m_bookmarks->notes(), m_model ? m_model->timeSpan().startNs : 0);
        for (const ReviewSlide& s : slides) {
            m_slides->addItem(QStringLiteral("%1\n%2").arg(s.kicker, s.title));
        }
    }
    // What "Add bookmark" will mark.
    m_target->clear();
    if (m_lastKernel.valid() && m_model && m_lastKernel.index < m_model->kernels.size()) {
        m_target->addItem(tr("the selected kernel: %1")
                              .arg(QString::fromStdString(core::shortKernelName(
                                  m_model->text(m_model->kernels.name[m_lastKernel.index])))),
                          QStringLiteral("kernel"));
    }
    if (m_lastRange) {
        const QString extent = durationText(static_cast<double>(m_lastRange->durationNs()));
        m_target->addItem(m_lastRangeLabel.isEmpty()
                              ? tr("the range last shown on the timeline (%1)").arg(extent)
                              : tr("the selection: %1 (%2)").arg(m_lastRangeLabel.left(60), extent),
                          QStringLiteral("range"));
    }
    if (m_report) {
        for (std::size_t i = 0; i < m_report->steps.size(); ++i) {
            m_target->addItem(tr("step %1").arg(QString::fromStdString(m_report->steps[i].name)),
                              QStringLiteral("step:%1").arg(i));
        }
    }
    if (m_model) {
        m_target->addItem(tr("the whole trace"), QStringLiteral("all"));
    }
}

std::uint64_t ReviewPage::addBookmark(core::Bookmark bookmark) {
    if (bookmark.createdUnixMs == 0) {
        bookmark.createdUnixMs = QDateTime::currentMSecsSinceEpoch();
    }
    return m_bookmarks->addBookmark(std::move(bookmark));
}

std::uint64_t ReviewPage::bookmarkCurrentFocus(const QString& title, const QString& note) {
    const QString what = m_target->currentData().toString();
    core::Bookmark b;
    if (what == QStringLiteral("kernel") && m_model) {
        b = core::makeKernelBookmark(*m_model, m_lastKernel);
    } else if (what == QStringLiteral("range") && m_lastRange) {
        b.range = *m_lastRange;
    } else if (what.startsWith(QStringLiteral("step:")) && m_report) {
        const auto i = what.mid(5).toULongLong();
        if (i < m_report->steps.size()) {
            b.range = m_report->steps[i].range;
        }
    } else if (m_model) {
        b.range = m_model->timeSpan();
    } else {
        return 0;
    }
    b.title = !title.isEmpty() || what != QStringLiteral("range") ? title.toStdString()
                                                                  : m_lastRangeLabel.toStdString();
    b.note = note.toStdString();
    return addBookmark(std::move(b));
}

void ReviewPage::onAddClicked() {
    BookmarkDialog dialog(m_target->currentText(), this);
    if (dialog.exec() != QDialog::Accepted) {
        return;
    }
    bookmarkCurrentFocus(dialog.title(), dialog.note());
}

void ReviewPage::onRemoveClicked() {
    const QModelIndex index = m_table->currentIndex();
    if (index.isValid()) {
        m_bookmarks->removeBookmark(index.data(IdRole).toULongLong());
    }
}

void ReviewPage::onBookmarkActivated(const QModelIndex& index) {
    const std::uint64_t id = index.data(IdRole).toULongLong();
    const core::Bookmark* b = m_bookmarks->notes().find(id);
    if (b == nullptr || !m_document) {
        return;
    }
    if (b->kind == core::BookmarkKind::Kernel && m_model) {
        const core::KernelId kernel = core::resolveKernel(*m_model, *b);
        if (kernel.valid()) {
            m_document->selectKernel(kernel);
        }
    }
    m_document->showRange(b->range, QString::fromStdString(b->title));
}

void ReviewPage::installActions(PageHost& host) {
    QMenu* menu = host.menu(PageHost::MenuId::Review);
    if (menu == nullptr) {
        return;
    }
    // The menu owns F5 in a main window; two shortcuts for one key would cancel each other.
    m_present->setShortcut(QKeySequence());
    QAction* present = menu->addAction(tr("Start &Presentation"), this, [this, host = &host] {
        host->showPage(pageId());
        startPresentation(true);
    });
    present->setShortcut(QKeySequence(Qt::Key_F5));
    QAction* bookmark = menu->addAction(tr("Add &Bookmark…"), this, [this, host = &host] {
        host->showPage(pageId());
        onAddClicked();
    });
    bookmark->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    menu->addSeparator();
    menu->addAction(tr("&Review Page"), this, [this, host = &host] { host->showPage(pageId()); });
    m_presentAction = present;
    m_bookmarkAction = bookmark;
    updateMenuActions();
}

void ReviewPage::updateMenuActions() {
    // As the page's own buttons: an analysis to present, a trace to bookmark. From the document,
    // not the page, which may be waiting to refresh until it is shown.
    if (m_presentAction != nullptr) {
        m_presentAction->setEnabled(m_document && m_document->report() != nullptr);
        m_bookmarkAction->setEnabled(m_document && m_document->model() != nullptr);
    }
}

PresenterView* ReviewPage::startPresentation(bool fullScreen) {
    if (!m_report) {
        return nullptr;
    }
    if (m_presenter == nullptr) {
        m_presenter = new PresenterView;  // its own top-level window
        m_presenter->setWindowTitle(tr("Chokepoint review"));
        connect(m_presenter, &PresenterView::closeRequested, m_presenter, &QWidget::hide);
        connect(m_presenter, &PresenterView::evidenceRequested, this,
                [this](core::TimeRange range, const QString& why) {
                    if (m_document) {
                        m_document->showRange(range, why);
                    }
                });
        m_snapshot = std::make_unique<EvidenceSnapshot>();
        m_presenter->setEvidenceRenderer([this](core::TimeRange range, QSize size) {
            return m_snapshot->render(range, size, kSlideScale, true);  // filling the slide
        });
    }
    // The document's tracks when there is one (built already), else the snapshot builds them.
    m_snapshot->setTrace(m_model,
                         m_document && m_document->model() == m_model ? m_document->tracks() : nullptr,
                         m_report.get());
    m_presenter->setSlides(
        buildReviewSlides(*m_report, m_bookmarks->notes(), m_model ? m_model->timeSpan().startNs : 0));
    if (fullScreen) {
        // On the room's screen when there are several (presentationScreenIndex).
        const QList<QScreen*> screens = QGuiApplication::screens();
        const int current = std::max(0, static_cast<int>(screens.indexOf(screen())));
        const int chosen = presentationScreenIndex(current, static_cast<int>(screens.size()));
        if (chosen < screens.size()) {
            m_presenter->setScreen(screens[chosen]);
            m_presenter->move(screens[chosen]->geometry().topLeft());
        }
        m_presenter->showFullScreen();
    } else {
        m_presenter->resize(1280, 720);
        m_presenter->show();
    }
    m_presenter->activateWindow();
    m_presenter->setFocus();
    return m_presenter;
}

}  // namespace chokepoint::ui
