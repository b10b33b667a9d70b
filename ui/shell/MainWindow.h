#pragma once
// MainWindow: menus, the welcome page, the load progress bar with Cancel, and the page tabs.
// Pages (ui/base/Page.h) are hosted by id in the order they are added; createStandardPages()
// (ui/shell/StandardPages.h) lists the built-in ones. One TraceDocument per window.

#include <QMainWindow>
#include <QPointer>
#include <QStringList>
#include <vector>

#include "ui/base/Page.h"
#include "ui/base/document/TraceDocument.h"

class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QStackedWidget;
class QTabWidget;

namespace chokepoint::ui {

class ExportActions;
class WelcomePage;

class MainWindow : public QMainWindow, public PageHost {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    TraceDocument* document() const { return m_document; }

    // Takes ownership, appends a tab, hands the page the current document and lets it install its
    // actions (Page::installActions).
    void addPage(Page* page);
    Page* page(const QString& pageId) const;
    QStringList pageIds() const;
    // Switches to the page's tab (leaving the welcome page); false for an unknown id.
    bool showPage(const QString& pageId) override;
    QString currentPageId() const;
    QMenu* menu(MenuId id) const override;
    void addFileOpenAction(QAction* action) override;
    // File > Export: the report, its tables and the trace.
    ExportActions* exportActions() const { return m_exportActions; }

    // Opens a trace in this window (replacing the current one); remembered in RecentFiles.
    void openFile(const QString& path);
    // Shows the welcome page (no trace) or the pages.
    void showWelcome(bool welcome);
    bool welcomeVisible() const;

    // Where the bundled samples live, relative to the executable so an installed or moved tree
    // finds its own: $CHOKEPOINT_SAMPLES_DIR, then <exe dir>/../share/chokepoint/samples (installed),
    // then <exe dir>/../samples (build tree). Empty when none holds a trace.
    static QString samplesDirectory();
    // The sample traces found in samplesDirectory(): the real ones (its real/ folder) first, then
    // the others (synthetic), each group sorted by name.
    static QStringList sampleFiles();
    // What "Open sample" opens: the real data-bound sample, else the synthetic data-bound one, else
    // the first sample; empty without samples.
    static QString defaultSample();
    // The bundled before/after pair (real ResNet-50, num_workers 0 and 4); empty when absent.
    static QStringList samplePair();
    // Where the README, LICENSE and docs/ are: $CHOKEPOINT_DOCS_DIR, then <exe dir>/../share/doc/
    // chokepoint (installed), then <exe dir>/../.. (build/bin in the source tree). Empty when none.
    static QString docsDirectory();
    // The About box's rich text, with links to the documentation and the licence when found.
    static QString aboutText();
    // The Keyboard Shortcuts list (rich text).
    static QString shortcutsText();
    // Opens the pair's first trace and compares it with the second on the Compare page.
    void compareSamplePair();

    // When false, load errors go to stderr and the loadFailed signal only (no modal dialog):
    // used by --screenshot and tests.
    void setInteractive(bool interactive) { m_interactive = interactive; }
    // Window geometry and every page's splitter positions, kept in QSettings between sessions
    // (interactive windows only: screenshots use their own size and the default layout).
    void saveLayout() const;
    void restoreLayout();

signals:
    void recentFilesChanged();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void createMenus();
    void openDialog();
    void openSample();
    void attachToJob();
    void recordCommand();
    // Opens each recorded trace: the first here, the others (one per extra process) in new windows.
    void openRecorded(const QStringList& files);
    void showAbout();
    void showShortcuts();
    void onLoadStarted(const QString& path);
    void onProgress(int percent);
    void onModelAvailable();
    void onAnalysisAvailable();
    // Lists the trace's GPUs when several did work; hidden otherwise.
    void refreshDeviceSelector();
    void onLoadFailed(const QString& message);
    void onCancelled();
    void updateRecentMenu();
    void setBusyUi(bool busy);

    TraceDocument* m_document = nullptr;
    ExportActions* m_exportActions = nullptr;
    QStackedWidget* m_stack = nullptr;
    WelcomePage* m_welcome = nullptr;
    QScrollArea* m_welcomeScroll = nullptr;  // holds m_welcome
    QTabWidget* m_tabs = nullptr;
    std::vector<Page*> m_pages;
    QProgressBar* m_progressBar = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QLabel* m_statusLabel = nullptr;
    // Several GPUs in the trace: which one the pages show (every GPU, or one alone).
    QComboBox* m_deviceSelector = nullptr;
    QMenu* m_menus[6] = {};
    QMenu* m_recentMenu = nullptr;
    QAction* m_fileOpenEnd = nullptr;  // the separator after File's opening actions
    bool m_interactive = true;
    bool m_layoutRestored = false;
};

}  // namespace chokepoint::ui
