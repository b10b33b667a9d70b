#include "ui/shell/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeyEvent>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QUrl>
#include <cstdio>

#include "ui/base/settings/Preferences.h"
#include "ui/base/settings/RecentFiles.h"
#include "ui/base/widgets/QuitAction.h"
#include "ui/shell/AppIcon.h"
#include "ui/shell/ExportActions.h"
#include "ui/shell/JobWindow.h"
#include "ui/shell/StandardPages.h"
#include "ui/shell/WelcomePage.h"
#include "ui/shell/capture/AttachDialog.h"
#include "ui/shell/capture/RecordDialog.h"
#include "ui/shell/settings/SettingsController.h"
#include "ui/views/pages/ComparePage.h"
#include "ui/views/timeline/TimelinePage.h"
#include "ui/views/timeline/TimelineWidget.h"

namespace chokepoint::ui {

namespace {

// The bundled real before/after pair (samples/real/README.md).
const char* const kPairBefore = "resnet50-nw0.pt.trace.json.gz";
const char* const kPairAfter = "resnet50-nw4.pt.trace.json.gz";

const QStringList& traceNameFilters() {
    static const QStringList filters{QStringLiteral("*.cptrace"), QStringLiteral("*.json"),
                                     QStringLiteral("*.json.gz"), QStringLiteral("*.sqlite")};
    return filters;
}

const char* const kTraceFilter =
    "Traces (*.json *.json.gz *.gz *.sqlite *.cptrace);;Kineto / PyTorch profiler JSON (*.json *.json.gz);;"
    "Nsight Systems SQLite (*.sqlite);;Chokepoint trace (*.cptrace);;All files (*)";

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("Chokepoint"));
    setWindowIcon(appIcon());
    setAcceptDrops(true);
    resize(1400, 900);

    m_document = new TraceDocument(this);
    m_stack = new QStackedWidget(this);
    // The welcome page scrolls in a short window (a 768 px laptop screen) instead of setting the
    // window's minimum height.
    m_welcomeScroll = new QScrollArea(m_stack);
    m_welcomeScroll->setWidgetResizable(true);
    m_welcomeScroll->setFrameShape(QFrame::NoFrame);
    m_welcome = new WelcomePage(m_welcomeScroll);
    m_welcomeScroll->setWidget(m_welcome);
    m_tabs = new QTabWidget(m_stack);
    m_tabs->setDocumentMode(true);
    m_tabs->setAccessibleName(tr("Pages"));
    m_welcome->setAccessibleName(tr("Welcome"));
    m_stack->addWidget(m_welcomeScroll);
    m_stack->addWidget(m_tabs);
    setCentralWidget(m_stack);

    m_statusLabel = new QLabel(this);
    m_progressBar = new QProgressBar(this);
    m_progressBar->setRange(0, 100);
    m_progressBar->setMaximumWidth(260);
    m_progressBar->setTextVisible(true);
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    statusBar()->addWidget(m_statusLabel, 1);
    m_deviceSelector = new QComboBox(this);
    m_deviceSelector->setAccessibleName(tr("GPU shown"));
    m_deviceSelector->setToolTip(
        tr("Several GPUs did work in this trace: show every GPU (verdicts for the busiest) or one GPU "
           "alone, with its own accounting, verdict and timeline"));
    m_deviceSelector->setVisible(false);
    statusBar()->addPermanentWidget(m_deviceSelector);
    statusBar()->addPermanentWidget(m_progressBar);
    statusBar()->addPermanentWidget(m_cancelButton);
    setBusyUi(false);

    createMenus();
    for (Page* page : createStandardPages()) {
        addPage(page);
    }
    // The Go menu registers Ctrl+F, F3 and Shift+F3 for the whole window: each key once.
    if (auto* timeline = qobject_cast<TimelinePage*>(this->page(QStringLiteral("timeline")))) {
        timeline->useWindowSearchShortcuts();
    }

    connect(m_cancelButton, &QPushButton::clicked, m_document, &TraceDocument::cancel);
    connect(m_document, &TraceDocument::loadStarted, this, &MainWindow::onLoadStarted);
    connect(m_document, &TraceDocument::progress, this, &MainWindow::onProgress);
    connect(m_document, &TraceDocument::statusMessage, m_statusLabel, &QLabel::setText);
    connect(m_document, &TraceDocument::modelAvailable, this, &MainWindow::onModelAvailable);
    connect(m_document, &TraceDocument::analysisAvailable, this, &MainWindow::onAnalysisAvailable);
    connect(m_document, &TraceDocument::analysisFailed, this, [this](const QString& message) {
        setBusyUi(false);
        m_statusLabel->setText(tr("Analysis failed: %1").arg(message));
    });
    connect(m_document, &TraceDocument::loadFailed, this, &MainWindow::onLoadFailed);
    connect(m_document, &TraceDocument::cancelled, this, &MainWindow::onCancelled);
    connect(m_document, &TraceDocument::requestShowRange, this,
            [this] { showPage(QStringLiteral("timeline")); });
    connect(m_document, &TraceDocument::requestSelectKernel, this,
            [this] { showPage(QStringLiteral("timeline")); });
    connect(m_document, &TraceDocument::requestPage, this, [this](const QString& id) { showPage(id); });
    connect(m_deviceSelector, &QComboBox::activated, this, [this](int index) {
        if (!m_document->selectDevice(m_deviceSelector->itemData(index).toInt())) {
            refreshDeviceSelector();  // busy: show the scope that is still in effect
        }
    });

    connect(m_welcome, &WelcomePage::openRequested, this, &MainWindow::openDialog);
    connect(m_welcome, &WelcomePage::openFileRequested, this, &MainWindow::openFile);
    connect(m_welcome, &WelcomePage::sampleRequested, this, &MainWindow::openSample);
    connect(m_welcome, &WelcomePage::comparePairRequested, this, &MainWindow::compareSamplePair);
    m_welcome->setSamples(sampleFiles(), defaultSample(), samplePair().size() == 2);
    m_welcome->setAttachAvailable(true, tr("Record a window from a job started with chokepoint-cli launch."));
    connect(m_welcome, &WelcomePage::attachRequested, this, &MainWindow::attachToJob);
    connect(m_welcome, &WelcomePage::recordRequested, this, &MainWindow::recordCommand);
    updateRecentMenu();
    showWelcome(true);
}

MainWindow::~MainWindow() = default;

void MainWindow::addPage(Page* page) {
    if (!page) {
        return;
    }
    m_pages.push_back(page);
    page->setAccessibleName(tr("%1 page").arg(page->title()));
    m_tabs->addTab(page, page->title());
    page->setDocument(m_document);
    page->installActions(*this);
    // View menu: one entry per page, Ctrl+1..9 in tab order.
    auto* action = m_menus[static_cast<int>(MenuId::View)]->addAction(page->title());
    const int n = static_cast<int>(m_pages.size());
    if (n <= 9) {
        action->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_0 + n)));
    }
    const QString id = page->pageId();
    connect(action, &QAction::triggered, this, [this, id] { showPage(id); });
}

Page* MainWindow::page(const QString& pageId) const {
    for (Page* p : m_pages) {
        if (p->pageId() == pageId) {
            return p;
        }
    }
    return nullptr;
}

QStringList MainWindow::pageIds() const {
    QStringList ids;
    for (Page* p : m_pages) {
        ids << p->pageId();
    }
    return ids;
}

bool MainWindow::showPage(const QString& pageId) {
    Page* p = page(pageId);
    if (!p) {
        return false;
    }
    showWelcome(false);
    m_tabs->setCurrentWidget(p);
    return true;
}

QString MainWindow::currentPageId() const {
    if (welcomeVisible()) {
        return {};
    }
    auto* p = qobject_cast<Page*>(m_tabs->currentWidget());
    return p ? p->pageId() : QString();
}

QMenu* MainWindow::menu(MenuId id) const {
    return m_menus[static_cast<int>(id)];
}

void MainWindow::showWelcome(bool welcome) {
    m_stack->setCurrentWidget(welcome ? static_cast<QWidget*>(m_welcomeScroll) : m_tabs);
}

bool MainWindow::welcomeVisible() const {
    return m_stack->currentWidget() == m_welcomeScroll;
}

// --- Menus --------------------------------------------------------------------------------------

void MainWindow::createMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    m_menus[static_cast<int>(MenuId::File)] = file;
    QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::openDialog);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    QAction* sample = file->addAction(tr("Open &Sample"), this, &MainWindow::openSample);
    sample->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    sample->setEnabled(!sampleFiles().isEmpty());
    JobWindow::addOpenJobActions(file, this);  // several ranks' traces, or their folder
    file->addAction(tr("&Record a Training Run…"), this, &MainWindow::recordCommand)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    file->addAction(tr("&Attach to a Running Job…"), this, &MainWindow::attachToJob);
    m_fileOpenEnd = file->addSeparator();
    m_menus[static_cast<int>(MenuId::Export)] = file->addMenu(tr("&Export"));
    m_exportActions = new ExportActions(m_document, m_menus[static_cast<int>(MenuId::Export)], this);
    file->addSeparator();
    QAction* close = file->addAction(tr("&Close Trace"), this, [this] {
        m_document->cancel();
        showWelcome(true);
        setWindowTitle(tr("Chokepoint"));
    });
    close->setShortcut(QKeySequence::Close);
    addQuitAction(file);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    m_menus[static_cast<int>(MenuId::View)] = view;
    QAction* welcome = view->addAction(tr("&Welcome Page"), this, [this] { showWelcome(true); });
    welcome->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_H));
    QAction* fullScreen = view->addAction(tr("&Full Screen"), this,
                                          [this] { setWindowState(windowState() ^ Qt::WindowFullScreen); });
    fullScreen->setShortcut(QKeySequence::FullScreen);
    view->addSeparator();

    QMenu* go = menuBar()->addMenu(tr("&Go"));
    m_menus[static_cast<int>(MenuId::Go)] = go;
    auto timelinePage = [this]() -> TimelinePage* {
        showPage(QStringLiteral("timeline"));
        return qobject_cast<TimelinePage*>(page(QStringLiteral("timeline")));
    };
    QAction* find = go->addAction(tr("&Find…"), this, [timelinePage] {
        if (TimelinePage* t = timelinePage()) {
            t->activateSearch();
        }
    });
    find->setShortcut(QKeySequence::Find);
    QAction* next = go->addAction(tr("Find &Next"), this, [timelinePage] {
        if (TimelinePage* t = timelinePage()) {
            t->findNext();
        }
    });
    next->setShortcut(QKeySequence::FindNext);
    QAction* previous = go->addAction(tr("Find &Previous"), this, [timelinePage] {
        if (TimelinePage* t = timelinePage()) {
            t->findPrevious();
        }
    });
    previous->setShortcut(QKeySequence::FindPrevious);
    go->addSeparator();
    // The timeline handles these keys itself when it has focus; the menu shows them and works
    // from anywhere.
    auto timelineAction = [&](const QString& text, const QString& key, auto fn) {
        QAction* a = go->addAction(text + QLatin1Char('\t') + key);
        connect(a, &QAction::triggered, this, [timelinePage, fn] {
            if (TimelinePage* t = timelinePage()) {
                fn(t->timeline());
            }
        });
    };
    timelineAction(tr("Zoom &In"), QStringLiteral("W"),
                   [](TimelineWidget* w) { w->zoomBy(1.5, w->plotLeft() + w->plotWidth() / 2.0); });
    timelineAction(tr("Zoom &Out"), QStringLiteral("S"),
                   [](TimelineWidget* w) { w->zoomBy(1 / 1.5, w->plotLeft() + w->plotWidth() / 2.0); });
    timelineAction(tr("Zoom to &Selection"), QStringLiteral("Z"),
                   [](TimelineWidget* w) { w->zoomToSelection(); });
    timelineAction(tr("Show &All"), QStringLiteral("0"), [](TimelineWidget* w) { w->showAll(); });
    timelineAction(tr("Next S&tep"), QStringLiteral("]"), [](TimelineWidget* w) { w->zoomToStep(+1); });
    timelineAction(tr("Previous St&ep"), QStringLiteral("["), [](TimelineWidget* w) { w->zoomToStep(-1); });

    m_menus[static_cast<int>(MenuId::Review)] = menuBar()->addMenu(tr("&Review"));

    // Settings: the open trace's analysis settings and the application's preferences.
    new SettingsController(this, nullptr);
    connect(Preferences::instance(), &Preferences::recentFileCountChanged, this,
            [this] { updateRecentMenu(); });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    m_menus[static_cast<int>(MenuId::Help)] = help;
    QAction* keys = help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
    keys->setObjectName(QStringLiteral("shortcutsAction"));
    // F1 and "?", as in trace viewers (a text field still types "?": it takes the key first).
    QList<QKeySequence> helpKeys = QKeySequence::keyBindings(QKeySequence::HelpContents);
    helpKeys << QKeySequence(Qt::Key_Question);
    keys->setShortcuts(helpKeys);
    help->addAction(tr("&About Chokepoint"), this, &MainWindow::showAbout)
        ->setObjectName(QStringLiteral("aboutAction"));
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::addFileOpenAction(QAction* action) {
    m_menus[static_cast<int>(MenuId::File)]->insertAction(m_fileOpenEnd, action);
}

void MainWindow::updateRecentMenu() {
    const QStringList files = RecentFiles::files();
    m_recentMenu->clear();
    for (const QString& f : files) {
        m_recentMenu->addAction(QFileInfo(f).fileName(), this, [this, f] { openFile(f); })->setToolTip(f);
    }
    m_recentMenu->setEnabled(!files.isEmpty());
    if (!files.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear List"), this, [this] {
            RecentFiles::clear();
            updateRecentMenu();
        });
    }
    m_welcome->setRecentFiles(files);
}

QString MainWindow::docsDirectory() {
    QStringList candidates;
    const QString env = qEnvironmentVariable("CHOKEPOINT_DOCS_DIR");
    if (!env.isEmpty()) {
        candidates << env;
    }
    const QString exeDir = QCoreApplication::applicationDirPath();
    candidates << exeDir + QStringLiteral("/../share/doc/chokepoint")  // installed (ChokepointPackaging)
               << exeDir + QStringLiteral("/../..");                   // build/bin in the source tree
    for (const QString& c : candidates) {
        const QDir dir(c);
        if (dir.exists(QStringLiteral("README.md")) && dir.exists(QStringLiteral("LICENSE"))) {
            return dir.absolutePath();
        }
    }
    return {};
}

QString MainWindow::aboutText() {
    QString text = tr("<h3>Chokepoint %1</h3>"
                      "<p>Tells a team why its GPU training job is slow and what to change: it reads "
                      "PyTorch profiler (Kineto) traces, Nsight Systems SQLite exports and its own "
                      "<tt>.cptrace</tt> captures, and classifies each step as data-, compute-, "
                      "memory-, communication- or overhead-bound.</p>"
                      "<p>Built with Qt %2 and QCustomPlot.</p>")
                       .arg(QCoreApplication::applicationVersion(), QString::fromLatin1(qVersion()));
    const QString docs = docsDirectory();
    if (docs.isEmpty()) {
        text +=
            tr("<p>Released under the MIT License. The documentation (README.md, docs/) and the "
               "licence (LICENSE) come with the source and the packages.</p>");
        return text;
    }
    const QDir dir(docs);
    auto link = [&dir](const QString& relative, const QString& label) {
        return QStringLiteral("<a href=\"%1\">%2</a>")
            .arg(QUrl::fromLocalFile(dir.absoluteFilePath(relative)).toString(), label.toHtmlEscaped());
    };
    QStringList docLinks{link(QStringLiteral("README.md"), tr("Read me"))};
    if (dir.exists(QStringLiteral("docs"))) {
        docLinks << link(QStringLiteral("docs"), tr("all documents"));
        if (dir.exists(QStringLiteral("docs/ANALYSIS.md"))) {
            docLinks << link(QStringLiteral("docs/ANALYSIS.md"), tr("how verdicts are decided"));
        }
    }
    text += tr("<p>Documentation: %1.</p>").arg(docLinks.join(QStringLiteral(", ")));
    text += tr("<p>Released under the %1.</p>").arg(link(QStringLiteral("LICENSE"), tr("MIT License")));
    return text;
}

void MainWindow::showAbout() {
    QMessageBox box(QMessageBox::NoIcon, tr("About Chokepoint"), aboutText(), QMessageBox::Close, this);
    box.setObjectName(QStringLiteral("aboutBox"));
    box.setIconPixmap(windowIcon().pixmap(64, 64));
    box.setTextInteractionFlags(Qt::TextBrowserInteraction);  // links open in the desktop's viewer
    for (QLabel* label : box.findChildren<QLabel*>()) {
        label->setOpenExternalLinks(true);
    }
    box.exec();
}

void MainWindow::showShortcuts() {
    QMessageBox box(QMessageBox::NoIcon, tr("Keyboard Shortcuts"), shortcutsText(), QMessageBox::Close, this);
    box.setObjectName(QStringLiteral("shortcutsBox"));
    box.exec();
}

QString MainWindow::shortcutsText() {
    return tr(
        "<table cellpadding='3'>"
        "<tr><td><b>F1</b>, <b>?</b></td><td>This list</td></tr>"
        "<tr><td><b>Ctrl+O</b></td><td>Open a trace</td></tr>"
        "<tr><td><b>Ctrl+Q</b></td><td>Quit</td></tr>"
        "<tr><td><b>Ctrl+R</b></td><td>Record a training run</td></tr>"
        "<tr><td><b>Ctrl+E</b>, <b>Ctrl+Shift+E</b></td><td>Export the diagnosis as HTML, as PDF</td></tr>"
        "<tr><td><b>Ctrl+Shift+S</b></td><td>Save the trace as .cptrace</td></tr>"
        "<tr><td><b>Ctrl+,</b>, <b>Ctrl+Shift+,</b></td><td>Preferences, the trace's analysis "
        "settings</td></tr>"
        "<tr><td><b>Ctrl+1…6</b></td><td>Switch page</td></tr>"
        "<tr><td><b>F5</b></td><td>Start the review presentation (→ / Space next, ← previous, Esc "
        "leave)</td></tr>"
        "<tr><td><b>Ctrl+B</b></td><td>Bookmark the range or kernel last shown</td></tr>"
        "<tr><td><b>Ctrl+F</b>, <b>F3</b>, <b>Shift+F3</b></td><td>Search events, next, previous</td></tr>"
        "<tr><td><b>Wheel</b>, <b>W</b> / <b>S</b></td><td>Zoom the timeline in / out</td></tr>"
        "<tr><td><b>Drag</b>, <b>A</b> / <b>D</b></td><td>Pan the timeline</td></tr>"
        "<tr><td><b>Shift+Wheel</b></td><td>Scroll tracks</td></tr>"
        "<tr><td><b>Click</b></td><td>Select an event (details on the right)</td></tr>"
        "<tr><td><b>Shift+Drag</b>, <b>Z</b></td><td>Select a time range (its statistics on the right), zoom "
        "to "
        "it</td></tr>"
        "<tr><td><b>Right-click</b></td><td>Range menu: zoom, bookmark, copy statistics, compare with range "
        "A</td></tr>"
        "<tr><td><b>Click a group header</b></td><td>Collapse / expand the group</td></tr>"
        "<tr><td><b>Right-click a track label</b></td><td>Hide or move the track or its group; show hidden "
        "tracks</td></tr>"
        "<tr><td><b>[</b> / <b>]</b></td><td>Previous / next step</td></tr>"
        "<tr><td><b>0</b></td><td>Show the whole trace</td></tr>"
        "<tr><td><b>Esc</b></td><td>Clear the selection; close a dialog</td></tr>"
        "</table>");
}

// --- Opening ----------------------------------------------------------------------------------

void MainWindow::openDialog() {
    const QStringList recent = RecentFiles::files();
    const QString dir = recent.isEmpty() ? QDir::homePath() : QFileInfo(recent.first()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Trace"), dir, tr(kTraceFilter));
    if (!path.isEmpty()) {
        openFile(path);
    }
}

void MainWindow::openSample() {
    const QString chosen = defaultSample();
    if (chosen.isEmpty()) {
        QMessageBox::information(this, tr("No Samples"),
                                 tr("No bundled sample traces were found. Set CHOKEPOINT_SAMPLES_DIR to the "
                                    "folder that holds them."));
        return;
    }
    openFile(chosen);
}

void MainWindow::compareSamplePair() {
    const QStringList pair = samplePair();
    auto* compare = qobject_cast<ComparePage*>(page(QStringLiteral("compare")));
    if (pair.size() != 2 || compare == nullptr) {
        return;
    }
    openFile(pair[0]);
    compare->compareWith(pair[1]);
    showPage(QStringLiteral("compare"));
}

void MainWindow::attachToJob() {
    AttachDialog dialog(this);
    if (dialog.exec() == QDialog::Accepted && !dialog.recordedFile().isEmpty()) {
        openFile(dialog.recordedFile());
    }
}

void MainWindow::recordCommand() {
    RecordDialog dialog(this);
    if (dialog.exec() == QDialog::Accepted) {
        openRecorded(dialog.recordedFiles());
    }
}

void MainWindow::openRecorded(const QStringList& files) {
    for (qsizetype i = 0; i < files.size(); ++i) {
        if (i == 0) {
            openFile(files[i]);
            continue;
        }
        auto* extra = new MainWindow;
        extra->setAttribute(Qt::WA_DeleteOnClose);
        extra->show();
        extra->openFile(files[i]);
    }
}

void MainWindow::openFile(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_document->open(absolute);
}

void MainWindow::onLoadStarted(const QString& path) {
    setBusyUi(true);
    setWindowTitle(tr("%1 — Chokepoint").arg(QFileInfo(path).fileName()));
    // The pages show "Loading…" at once: they are laid out and drawn while the file is read, when
    // this thread has nothing else to do, instead of after it. A new trace starts on the diagnosis
    // page (Preferences::defaultPage); a failed load returns to welcome unless the trace open before
    // stays open.
    if (!showPage(Preferences::defaultPage()) && !showPage(QStringLiteral("diagnosis"))) {
        showPage(QStringLiteral("timeline"));
    }
}

void MainWindow::onProgress(int percent) {
    m_progressBar->setValue(percent);
}

void MainWindow::onModelAvailable() {
    if (!m_document->filePath().isEmpty()) {
        RecentFiles::add(m_document->filePath());
        updateRecentMenu();
    }
    // The preferred page (the diagnosis page by default) opens first; the timeline is ready already.
    if (welcomeVisible()) {
        if (!showPage(Preferences::defaultPage()) && !showPage(QStringLiteral("diagnosis"))) {
            showPage(QStringLiteral("timeline"));
        }
    }
}

void MainWindow::onAnalysisAvailable() {
    setBusyUi(false);
    refreshDeviceSelector();
}

void MainWindow::refreshDeviceSelector() {
    const QList<int> devices = m_document->devicesWithReports();
    const QSignalBlocker blocker(m_deviceSelector);
    m_deviceSelector->clear();
    m_deviceSelector->setVisible(!devices.isEmpty());
    if (devices.isEmpty()) {
        return;
    }
    m_deviceSelector->addItem(tr("Every GPU"), -1);
    for (int device : devices) {
        m_deviceSelector->addItem(tr("GPU %1 alone").arg(device), device);
    }
    m_deviceSelector->setCurrentIndex(std::max(0, m_deviceSelector->findData(m_document->scopeDevice())));
}

void MainWindow::onLoadFailed(const QString& message) {
    setBusyUi(false);
    if (m_document->model()) {
        // The trace that was open stays open (TraceDocument put it back).
        setWindowTitle(tr("%1 — Chokepoint").arg(m_document->displayName()));
    } else {
        setWindowTitle(tr("Chokepoint"));
        showWelcome(true);
    }
    std::fprintf(stderr, "chokepoint: %s\n", message.toLocal8Bit().constData());
    if (m_interactive) {
        QMessageBox box(QMessageBox::Critical, tr("Could Not Open Trace"),
                        m_document->model() ? tr("Chokepoint could not open the file; the trace that was "
                                                 "open stays open.")
                                            : tr("Chokepoint could not open the file."),
                        QMessageBox::Ok, this);
        box.setInformativeText(message);
        box.exec();
    }
}

void MainWindow::onCancelled() {
    setBusyUi(false);
    if (!m_document->model()) {
        setWindowTitle(tr("Chokepoint"));
        showWelcome(true);
    }
}

void MainWindow::setBusyUi(bool busy) {
    m_progressBar->setVisible(busy);
    m_cancelButton->setVisible(busy);
    if (busy) {
        m_progressBar->setValue(0);
    }
}

// --- Samples -----------------------------------------------------------------------------

QString MainWindow::samplesDirectory() {
    QStringList candidates;
    const QString env = qEnvironmentVariable("CHOKEPOINT_SAMPLES_DIR");
    if (!env.isEmpty()) {
        candidates << env;
    }
    const QString exeDir = QCoreApplication::applicationDirPath();
    candidates << exeDir + QStringLiteral("/../share/chokepoint/samples")
               << exeDir + QStringLiteral("/../samples");
    for (const QString& c : candidates) {
        QDir dir(c);
        if (dir.exists() && (!dir.entryList(traceNameFilters(), QDir::Files).isEmpty() ||
                             !QDir(dir.filePath(QStringLiteral("real")))
                                  .entryList(traceNameFilters(), QDir::Files)
                                  .isEmpty())) {
            return dir.absolutePath();
        }
    }
    return {};
}

QStringList MainWindow::sampleFiles() {
    const QString dirPath = samplesDirectory();
    if (dirPath.isEmpty()) {
        return {};
    }
    QStringList files;
    for (const QDir& dir : {QDir(dirPath + QStringLiteral("/real")), QDir(dirPath)}) {
        for (const QString& name : dir.entryList(traceNameFilters(), QDir::Files, QDir::Name)) {
            files << dir.absoluteFilePath(name);
        }
    }
    return files;
}

QString MainWindow::defaultSample() {
    const QStringList samples = sampleFiles();
    if (samples.isEmpty()) {
        return {};
    }
    const QStringList pair = samplePair();
    if (!pair.isEmpty()) {
        return pair.first();
    }
    // The synthetic data-bound sample shows the same, most common problem.
    for (const QString& s : samples) {
        const QString name = QFileInfo(s).fileName();
        if (name.contains(QStringLiteral("data-bound")) && !name.contains(QStringLiteral("fixed"))) {
            return s;
        }
    }
    return samples.first();
}

QStringList MainWindow::samplePair() {
    const QString dirPath = samplesDirectory();
    if (dirPath.isEmpty()) {
        return {};
    }
    const QDir real(dirPath + QStringLiteral("/real"));
    const QString before = real.absoluteFilePath(QLatin1String(kPairBefore));
    const QString after = real.absoluteFilePath(QLatin1String(kPairAfter));
    if (!QFileInfo(before).isFile() || !QFileInfo(after).isFile()) {
        return {};
    }
    return {before, after};
}

// --- Drag and drop ------------------------------------------------------------------------------

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) {
        for (const QUrl& url : event->mimeData()->urls()) {
            if (url.isLocalFile()) {
                event->acceptProposedAction();
                return;
            }
        }
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
    // Several files or a folder are the ranks of a job.
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls()) {
        if (url.isLocalFile()) {
            paths << url.toLocalFile();
        }
    }
    if (paths.size() > 1 || (paths.size() == 1 && QFileInfo(paths.first()).isDir())) {
        JobWindow::showJob(paths);
        event->acceptProposedAction();
        return;
    }
    for (const QUrl& url : event->mimeData()->urls()) {
        if (url.isLocalFile()) {
            openFile(url.toLocalFile());
            event->acceptProposedAction();
            return;  // one document per window: the first file wins
        }
    }
}

void MainWindow::keyPressEvent(QKeyEvent* event) {
    // "?" as typed (Shift+/ on most layouts) when no child took it: platforms whose key mapper does
    // not also offer the key without Shift do not match the Help action's "?" shortcut.
    if (event->text() == QStringLiteral("?") &&
        !(event->modifiers() & (Qt::ControlModifier | Qt::AltModifier))) {
        showShortcuts();
        event->accept();
        return;
    }
    QMainWindow::keyPressEvent(event);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    m_document->cancel();
    if (m_interactive) {
        saveLayout();
    }
    QMainWindow::closeEvent(event);
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (m_interactive && !m_layoutRestored) {
        m_layoutRestored = true;
        restoreLayout();
    }
}

namespace {

// "layout/splitters/timeline/0": the n-th splitter of a page, in construction order.
QString splitterKey(const Page* page, int index) {
    return QStringLiteral("layout/splitters/%1/%2").arg(page->pageId()).arg(index);
}

}  // namespace

void MainWindow::saveLayout() const {
    QSettings settings;
    settings.setValue(QStringLiteral("layout/geometry"), saveGeometry());
    for (const Page* page : m_pages) {
        const QList<QSplitter*> splitters = page->findChildren<QSplitter*>();
        for (int i = 0; i < splitters.size(); ++i) {
            settings.setValue(splitterKey(page, i), splitters[i]->saveState());
        }
    }
}

void MainWindow::restoreLayout() {
    QSettings settings;
    const QByteArray geometry = settings.value(QStringLiteral("layout/geometry")).toByteArray();
    if (!geometry.isEmpty()) {
        restoreGeometry(geometry);
    }
    for (Page* page : m_pages) {
        const QList<QSplitter*> splitters = page->findChildren<QSplitter*>();
        for (int i = 0; i < splitters.size(); ++i) {
            const QByteArray state = settings.value(splitterKey(page, i)).toByteArray();
            if (!state.isEmpty()) {
                splitters[i]->restoreState(state);
            }
        }
    }
}

}  // namespace chokepoint::ui
