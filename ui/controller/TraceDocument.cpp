#include "ui/controller/TraceDocument.h"

#include <QFileInfo>
#include <QFuture>
#include <QtConcurrent/QtConcurrentRun>

#include "core/base/Progress.h"
#include "core/import/TraceLoader.h"

namespace chokepoint::ui {

// State shared between the GUI thread and one worker run. The worker only writes the result
// fields; the GUI thread reads them after the future finished.
struct TraceDocument::Job {
    std::atomic<bool> cancel{false};
    std::atomic<int> lastPercent{-1};
    QString path;
    std::shared_ptr<const core::TraceModel> model;
    std::shared_ptr<const timeline::TrackSet> tracks;
    std::shared_ptr<const analysis::AnalysisReport> report;
    QString error;
    bool wasCancelled = false;
    bool analysisStage = false;
    QFuture<void> future;
};

namespace {

// Load takes the first 70 % of the progress bar, analysis the rest.
constexpr int kLoadPercent = 70;

}  // namespace

TraceDocument::TraceDocument(QObject* parent) : QObject(parent) {
    qRegisterMetaType<core::TimeRange>("chokepoint::core::TimeRange");
    qRegisterMetaType<core::KernelId>("chokepoint::core::KernelId");
}

TraceDocument::~TraceDocument() {
    if (m_job) {
        // The worker posts progress to this object: it must be finished before we go.
        m_job->cancel = true;
        m_job->future.waitForFinished();
    }
}

void TraceDocument::cancel() {
    if (m_job) {
        m_job->cancel = true;
    }
}

void TraceDocument::open(const QString& path) {
    if (m_job) {
        m_job->cancel = true;
        m_job->future.waitForFinished();
        m_job.reset();
    }
    m_filePath = path;
    m_displayName = QFileInfo(path).fileName();
    m_model.reset();
    m_tracks.reset();
    m_report.reset();
    m_analysisDone = false;
    m_busy = true;
    emit loadStarted(path);
    emit progress(0);
    emit statusMessage(tr("Loading %1…").arg(m_displayName));

    auto job = std::make_shared<Job>();
    job->path = path;
    m_job = job;
    auto postPercent = [this, job](int percent) {
        if (job->lastPercent.exchange(percent) == percent) {
            return;
        }
        QMetaObject::invokeMethod(
            this,
            [this, job, percent] {
                if (m_job == job) {
                    emit progress(percent);
                }
            },
            Qt::QueuedConnection);
    };
    job->future = QtConcurrent::run([job, postPercent] {
        core::LoadOptions options;
        options.progress = [job, postPercent](double fraction) {
            postPercent(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kLoadPercent));
            return !job->cancel.load();
        };
        core::Result<core::TraceModel> loaded = core::loadTrace(job->path.toStdString(), options);
        if (job->cancel) {
            job->wasCancelled = true;
            return;
        }
        if (!loaded.ok()) {
            job->wasCancelled = loaded.error().message == core::kCancelledMessage;
            job->error = QString::fromStdString(loaded.error().message);
            return;
        }
        job->model = std::make_shared<const core::TraceModel>(std::move(loaded).value());
        if (!job->cancel) {
            job->tracks = std::make_shared<const timeline::TrackSet>(timeline::buildTracks(*job->model));
        }
    });
    auto* watcher = new QFutureWatcher<void>(this);
    connect(watcher, &QFutureWatcher<void>::finished, this, [this, job, watcher] {
        watcher->deleteLater();
        if (m_job != job) {
            return;
        }
        if (job->wasCancelled) {
            m_job.reset();
            m_busy = false;
            emit statusMessage(tr("Loading cancelled"));
            emit cancelled();
            return;
        }
        if (!job->model) {
            m_job.reset();
            m_busy = false;
            QString message = job->error;
            if (!message.contains(job->path) && !message.contains(QFileInfo(job->path).fileName())) {
                message = job->path + QStringLiteral(": ") + message;
            }
            emit statusMessage(tr("Could not open %1").arg(m_displayName));
            emit loadFailed(message);
            return;
        }
        m_model = job->model;
        m_tracks = job->tracks ? job->tracks
                               : std::make_shared<const timeline::TrackSet>(timeline::buildTracks(*m_model));
        m_job.reset();
        emit progress(kLoadPercent);
        emit modelAvailable();
        startAnalysis();
    });
    watcher->setFuture(job->future);
}

void TraceDocument::setModel(std::shared_ptr<const core::TraceModel> model, const QString& displayName) {
    if (m_job) {
        m_job->cancel = true;
        m_job->future.waitForFinished();
        m_job.reset();
    }
    m_filePath.clear();
    m_displayName = displayName;
    m_model = std::move(model);
    m_tracks =
        m_model ? std::make_shared<const timeline::TrackSet>(timeline::buildTracks(*m_model)) : nullptr;
    m_report.reset();
    m_analysisDone = false;
    m_busy = true;
    emit loadStarted(displayName);
    emit progress(kLoadPercent);
    emit modelAvailable();
    startAnalysis();
}

void TraceDocument::startAnalysis() {
    // The analyzer (core/analysis/diagnosis) is wired here once it exists; until then a document
    // is complete once its model is loaded and report() stays null.
    m_busy = false;
    m_analysisDone = true;
    emit progress(100);
    emit statusMessage(tr("%1 loaded").arg(m_displayName));
    emit analysisAvailable();
}

}  // namespace chokepoint::ui
