#pragma once
// JobWindow: the window of one training job: the JobPage over a JobDocument, the load progress
// with Cancel, and a File menu to open another job. It acts on the job's navigation requests: a
// rank opens in the existing single-trace window (MainWindow) on that rank's file, and "compare
// with the median rank" opens it with the Compare page loading the median rank's file. Ranks read
// from .cpsum summaries have no full trace: the window says so instead.

#include <QMainWindow>
#include <QStringList>

class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;

namespace chokepoint::ui {

class JobDocument;
class JobPage;
class MainWindow;

class JobWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit JobWindow(QWidget* parent = nullptr);
    ~JobWindow() override;

    JobDocument* document() const { return m_document; }
    JobPage* page() const { return m_page; }

    // Loads the job made of `inputs` (files, folders, glob patterns).
    void openJob(const QStringList& inputs);
    // The rank's own window (nullptr when the rank has no full trace; the reason is shown).
    MainWindow* openRankWindow(int rank);
    // The rank's own window on the Compare page, comparing it with the median rank.
    MainWindow* compareWithMedianRank(int rank);

    // When false, problems go to stderr and the status bar (no modal dialog): --screenshot, tests.
    void setInteractive(bool interactive) { m_interactive = interactive; }

    // A new window (deleted on close) showing the job made of `inputs`.
    static JobWindow* showJob(const QStringList& inputs);
    // File menu entries: "Open Job…" (several traces or summaries) and "Open Job Folder…".
    static void addOpenJobActions(QMenu* menu, QWidget* dialogParent);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void tellUser(const QString& title, const QString& message);
    void setBusyUi(bool busy);

    JobDocument* m_document = nullptr;
    JobPage* m_page = nullptr;
    QLabel* m_statusLabel = nullptr;
    QProgressBar* m_progressBar = nullptr;
    QPushButton* m_cancelButton = nullptr;
    bool m_interactive = true;
};

}  // namespace chokepoint::ui
