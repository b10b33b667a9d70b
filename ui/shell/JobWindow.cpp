#include "ui/shell/JobWindow.h"

#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <cstdio>

#include "ui/base/settings/RecentFiles.h"
#include "ui/base/widgets/QuitAction.h"
#include "ui/shell/AppIcon.h"
#include "ui/shell/MainWindow.h"
#include "ui/views/job/JobDocument.h"
#include "ui/views/job/JobPage.h"
#include "ui/views/pages/ComparePage.h"

namespace chokepoint::ui {
namespace {

const char* const kJobFilter =
    "Traces and summaries (*.json *.json.gz *.gz *.sqlite *.cptrace *.cpsum);;Rank summaries (*.cpsum);;"
    "All files (*)";

QString lastJobFolder() {
    const QStringList recent = RecentFiles::files();
    return recent.isEmpty() ? QDir::homePath() : QFileInfo(recent.first()).absolutePath();
}

}  // namespace

JobWindow::JobWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("Job — Chokepoint"));
    setWindowIcon(appIcon());
    resize(1400, 900);
    m_document = new JobDocument(this);
    m_page = new JobPage(this);
    m_page->setDocument(m_document);
    setCentralWidget(m_page);

    m_statusLabel = new QLabel(this);
    m_progressBar = new QProgressBar(this);
    m_progressBar->setMaximumWidth(260);
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(m_progressBar);
    statusBar()->addPermanentWidget(m_cancelButton);
    setBusyUi(false);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    addOpenJobActions(file, this);
    file->addAction(tr("Open &Trace…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open Trace"), lastJobFolder());
        if (!path.isEmpty()) {
            auto* window = new MainWindow;
            window->setAttribute(Qt::WA_DeleteOnClose);
            window->show();
            window->openFile(path);
        }
    });
    file->addSeparator();
    file->addAction(tr("&Close Job"), this, &QWidget::close)->setShortcut(QKeySequence::Close);
    addQuitAction(file);

    connect(m_cancelButton, &QPushButton::clicked, m_document, &JobDocument::cancel);
    connect(m_document, &JobDocument::statusMessage, m_statusLabel, &QLabel::setText);
    connect(m_document, &JobDocument::loadStarted, this, [this](const QStringList&) {
        setBusyUi(m_document->busy());
        setWindowTitle(tr("%1 — Job — Chokepoint").arg(m_document->displayName()));
    });
    connect(m_document, &JobDocument::progress, this, [this](int done, int total) {
        m_progressBar->setRange(0, std::max(total, 0));  // 0..0: busy indicator until the count is known
        m_progressBar->setValue(done);
    });
    connect(m_document, &JobDocument::reportAvailable, this, [this] { setBusyUi(false); });
    connect(m_document, &JobDocument::cancelled, this, [this] { setBusyUi(false); });
    connect(m_document, &JobDocument::loadFailed, this, [this](const QString& message) {
        setBusyUi(false);
        tellUser(tr("Could Not Open the Job"), message);
    });
    connect(m_document, &JobDocument::requestOpenRank, this, [this](int rank) { openRankWindow(rank); });
    connect(m_document, &JobDocument::requestCompareWithMedian, this,
            [this](int rank) { compareWithMedianRank(rank); });
}

JobWindow::~JobWindow() = default;

void JobWindow::openJob(const QStringList& inputs) {
    QStringList absolute;
    for (const QString& input : inputs) {
        // Glob patterns stay as given: core expands them.
        absolute << (QFileInfo::exists(input) ? QFileInfo(input).absoluteFilePath() : input);
    }
    m_document->open(absolute);
}

MainWindow* JobWindow::openRankWindow(int rank) {
    if (m_document->indexOfRank(rank) < 0) {
        tellUser(tr("Rank Not Loaded"), tr("Rank %1 is not part of the loaded job.").arg(rank));
        return nullptr;
    }
    if (!m_document->rankHasFullTrace(rank)) {
        const QString path = m_document->rankSourcePath(rank);
        tellUser(
            tr("No Full Trace"),
            QFileInfo::exists(path)
                ? tr("Rank %1 was read from the summary %2, which keeps no full trace. Open the rank's "
                     "trace file to see its pages.")
                      .arg(rank)
                      .arg(QDir::toNativeSeparators(path))
                : tr("Rank %1's file %2 no longer exists.").arg(rank).arg(QDir::toNativeSeparators(path)));
        return nullptr;
    }
    auto* window = new MainWindow;
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->setInteractive(m_interactive);
    window->show();
    window->openFile(m_document->rankSourcePath(rank));
    return window;
}

MainWindow* JobWindow::compareWithMedianRank(int rank) {
    const int median = m_document->medianRank();
    if (median < 0 || median == rank) {
        tellUser(tr("Nothing to Compare"), tr("Rank %1 is the job's median rank.").arg(rank));
        return nullptr;
    }
    if (!m_document->rankHasFullTrace(median)) {
        tellUser(tr("No Full Trace"), tr("The median rank %1 was read from a summary (.cpsum), which keeps "
                                         "no full trace to compare with.")
                                          .arg(median));
        return nullptr;
    }
    MainWindow* window = openRankWindow(rank);
    if (!window) {
        return nullptr;
    }
    if (auto* compare = qobject_cast<ComparePage*>(window->page(QStringLiteral("compare")))) {
        compare->compareWith(m_document->rankSourcePath(median));
        window->showPage(QStringLiteral("compare"));
    }
    return window;
}

JobWindow* JobWindow::showJob(const QStringList& inputs) {
    auto* window = new JobWindow;
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->show();
    window->openJob(inputs);
    return window;
}

void JobWindow::addOpenJobActions(QMenu* menu, QWidget* dialogParent) {
    menu->addAction(QObject::tr("Open &Job…"), dialogParent, [dialogParent] {
        const QStringList files = QFileDialog::getOpenFileNames(
            dialogParent, QObject::tr("Open Job: choose the ranks' traces or summaries"), lastJobFolder(),
            QObject::tr(kJobFilter));
        if (!files.isEmpty()) {
            showJob(files);
        }
    });
    menu->addAction(QObject::tr("Open Job &Folder…"), dialogParent, [dialogParent] {
        const QString folder = QFileDialog::getExistingDirectory(
            dialogParent, QObject::tr("Open Job: choose the folder of the ranks' traces"), lastJobFolder());
        if (!folder.isEmpty()) {
            showJob({folder});
        }
    });
}

void JobWindow::tellUser(const QString& title, const QString& message) {
    m_statusLabel->setText(message);
    if (m_interactive) {
        QMessageBox::information(this, title, message);
    } else {
        std::fprintf(stderr, "chokepoint: %s\n", message.toLocal8Bit().constData());
    }
}

void JobWindow::setBusyUi(bool busy) {
    m_progressBar->setVisible(busy);
    m_cancelButton->setVisible(busy);
}

void JobWindow::closeEvent(QCloseEvent* event) {
    m_document->cancel();
    QMainWindow::closeEvent(event);
}

}  // namespace chokepoint::ui
