#include "ui/base/document/TraceDocument.h"

#include <QFileInfo>
#include <QFuture>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <tuple>
#include <utility>

// Qt's `signals` keyword macro would rewrite the report's `signals` fields: suspend it while core's
// analysis headers are read (ui/base/document/AnalysisReportQt.h does the same for the pages).
#pragma push_macro("signals")
#undef signals
#include "core/analysis/devices/DeviceDatabase.h"
#include "core/analysis/diagnosis/AnalysisSettingsOptions.h"
#include "core/analysis/diagnosis/Analyzer.h"
#pragma pop_macro("signals")

#include "core/base/Progress.h"
#include "core/import/TraceLoader.h"
#include "core/review/ReviewSidecar.h"
#include "ui/base/document/StartupTiming.h"
#include "ui/base/document/TracePrefetch.h"

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
    core::AnalysisSettings settings;  // read from the sidecar with the trace (open) or given (analysis)
    QStringList settingsWarnings;
    std::optional<std::future<core::Result<core::TraceModel>>> prefetched;  // started by main()
    bool wasCancelled = false;
    bool analysisStage = false;
    QFuture<void> future;
    // The trace that was open when this load started: a failed load puts it back.
    struct Previous {
        QString filePath, displayName;
        std::shared_ptr<const core::TraceModel> model;
        std::shared_ptr<const timeline::TrackSet> tracks;
        std::shared_ptr<const analysis::AnalysisReport> report;
        bool analysisDone = false;
        core::AnalysisSettings settings;
        QStringList settingsWarnings;
    } previous;
};

namespace {

// Load takes the first 70 % of the progress bar, analysis the rest.
constexpr int kLoadPercent = 70;

// Worker thread: the analysis settings kept in the sidecar of `tracePath`, with what had to be left
// out. A sidecar that cannot be read at all leaves the defaults (the review page says why too).
std::pair<core::AnalysisSettings, QStringList> readSidecarSettings(const QString& tracePath) {
    const std::string path = tracePath.toStdString();
    const std::string sidecar = core::reviewSidecarPath(path);
    std::vector<std::string> warnings;
    auto load = core::loadReviewForTrace(path);
    if (!load) {
        return {{},
                {QObject::tr("%1; the analysis uses the default settings")
                     .arg(QString::fromStdString(load.error().message))}};
    }
    core::AnalysisSettings settings = load->notes.analysisSettings;
    for (const std::string& w : load->warnings) {
        if (w.find(": analysisSettings") != std::string::npos) {
            warnings.push_back(w);
        }
    }
    for (std::string& w :
         analysis::sanitizeAnalysisSettings(settings, TraceDocument::deviceDatabase(), sidecar)) {
        warnings.push_back(std::move(w));
    }
    QStringList messages;
    for (const std::string& w : warnings) {
        messages << QString::fromStdString(w);
    }
    return {std::move(settings), messages};
}

}  // namespace

const analysis::DeviceDatabase* TraceDocument::deviceDatabase() {
    // Read once per process; without it the analysis still runs but has no peaks (no MFU, no
    // roofline ceilings) and says so in its report.
    static const core::Result<analysis::DeviceDatabase> kDevices = analysis::DeviceDatabase::loadDefault();
    return kDevices.ok() ? &kDevices.value() : nullptr;
}

QString TraceDocument::setAnalysisSettings(const core::AnalysisSettings& settings) {
    if (!m_model || (m_job && !m_job->analysisStage)) {
        return tr("Open a trace first: the settings apply to the open trace");
    }
    if (m_job) {
        // An analysis with the old settings is running: its result is no longer wanted.
        m_job->cancel = true;
        m_job->future.waitForFinished();
        m_job.reset();
    }
    core::AnalysisSettings applied = settings;
    analysis::sanitizeAnalysisSettings(applied, deviceDatabase(), "analysis settings");
    m_settings = applied;
    m_settingsWarnings.clear();
    QString error;
    if (!m_filePath.isEmpty()) {
        const core::Status saved = core::saveAnalysisSettingsForTrace(m_filePath.toStdString(), m_settings);
        if (!saved) {
            error = QString::fromStdString(saved.error().message);
        }
    }
    emit analysisSettingsChanged();
    // Analyse the whole trace again; a GPU shown alone is left (its report is replaced too).
    const bool wasScoped = m_scopeDevice >= 0;
    leaveDeviceScope();
    if (wasScoped) {
        emit modelAvailable();
        emit scopeChanged(-1);
    }
    m_analysisDone = false;
    emit progress(kLoadPercent);
    startAnalysis();
    return error;
}

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
    leaveDeviceScope();
    Job::Previous previous{m_filePath, m_displayName,  m_model,    m_tracks,
                           m_report,   m_analysisDone, m_settings, m_settingsWarnings};
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
    job->prefetched = takePrefetchedTrace(path);
    job->previous = std::move(previous);
    m_job = job;
    job->future = QtConcurrent::run([this, job] {
        core::LoadOptions options;
        options.progress = [this, job](double fraction) {
            postProgress(job, static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kLoadPercent));
            return !job->cancel.load();
        };
        core::Result<core::TraceModel> loaded =
            job->prefetched ? job->prefetched->get() : core::loadTrace(job->path.toStdString(), options);
        if (job->cancel) {
            job->wasCancelled = true;
            return;
        }
        if (!loaded.ok()) {
            job->wasCancelled = loaded.error().message == core::kCancelledMessage;
            job->error = QString::fromStdString(loaded.error().message);
            return;
        }
        noteStartupMilestone("trace loaded");
        std::tie(job->settings, job->settingsWarnings) = readSidecarSettings(job->path);
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
            restorePrevious(*job);
            if (m_model) {
                // The trace that was open stays open: the pages take it back before the failure is
                // announced, so a dialog shown on loadFailed has the old trace behind it, not an
                // empty page.
                emit modelAvailable();
                if (m_report) {
                    emit analysisAvailable();
                } else if (!m_analysisDone) {
                    startAnalysis();
                }
            }
            emit loadFailed(message);
            return;
        }
        m_model = job->model;
        m_settings = job->settings;
        m_settingsWarnings = job->settingsWarnings;
        emit analysisSettingsChanged();
        if (!m_settingsWarnings.isEmpty()) {
            emit settingsWarningsFound(m_settingsWarnings);
        }
        m_tracks = job->tracks ? job->tracks
                               : std::make_shared<const timeline::TrackSet>(timeline::buildTracks(*m_model));
        m_job.reset();
        noteStartupMilestone("tracks built, model handed to GUI");
        // The analysis starts first so it runs while the pages take the model.
        startAnalysis();
        emit progress(kLoadPercent);
        emit modelAvailable();
        noteStartupMilestone("modelAvailable handled");
    });
    watcher->setFuture(job->future);
}

void TraceDocument::leaveDeviceScope() {
    if (m_scopeDevice >= 0 && m_wholeModel) {
        m_model = m_wholeModel;
        m_tracks = m_wholeTracks;
        m_report = m_wholeReport;
    }
    m_scopeDevice = -1;
}

QList<int> TraceDocument::devicesWithReports() const {
    QList<int> devices;
    if (m_wholeReport && m_wholeModel && (m_scopeDevice >= 0 || m_report == m_wholeReport)) {
        for (const auto& deviceReport : m_wholeReport->deviceReports) {
            devices.append(deviceReport->scopeDeviceIndex);
        }
    }
    return devices;
}

bool TraceDocument::selectDevice(int deviceIndex) {
    if (m_busy || !m_wholeReport || deviceIndex == m_scopeDevice) {
        return !m_busy && m_wholeReport && deviceIndex == m_scopeDevice;
    }
    if (deviceIndex < 0) {
        leaveDeviceScope();
    } else {
        const auto& reports = m_wholeReport->deviceReports;
        auto it = std::find_if(reports.begin(), reports.end(),
                               [deviceIndex](const auto& r) { return r->scopeDeviceIndex == deviceIndex; });
        if (it == reports.end() || !(*it)->model) {
            return false;
        }
        std::shared_ptr<const timeline::TrackSet>& tracks = m_deviceTracks[deviceIndex];
        if (!tracks) {
            tracks = std::make_shared<const timeline::TrackSet>(timeline::buildTracks(*(*it)->model));
        }
        m_model = (*it)->model;
        m_tracks = tracks;
        m_report = *it;
        m_scopeDevice = deviceIndex;
    }
    emit statusMessage(deviceIndex < 0 ? tr("%1: every GPU").arg(m_displayName)
                                       : tr("%1: GPU %2 alone").arg(m_displayName).arg(deviceIndex));
    emit modelAvailable();
    emit analysisAvailable();
    emit scopeChanged(m_scopeDevice);
    return true;
}

void TraceDocument::restorePrevious(const Job& job) {
    const Job::Previous& previous = job.previous;
    m_filePath = previous.filePath;
    m_displayName = previous.displayName;
    m_model = previous.model;
    m_tracks = previous.tracks;
    m_report = previous.report;
    m_analysisDone = previous.analysisDone;
    m_settings = previous.settings;
    m_settingsWarnings = previous.settingsWarnings;
}

void TraceDocument::setModel(std::shared_ptr<const core::TraceModel> model, const QString& displayName) {
    if (m_job) {
        m_job->cancel = true;
        m_job->future.waitForFinished();
        m_job.reset();
    }
    leaveDeviceScope();
    m_filePath.clear();
    m_displayName = displayName;
    m_model = std::move(model);
    m_tracks =
        m_model ? std::make_shared<const timeline::TrackSet>(timeline::buildTracks(*m_model)) : nullptr;
    m_report.reset();
    m_analysisDone = false;
    m_settings = {};
    m_settingsWarnings.clear();
    m_busy = true;
    emit loadStarted(displayName);
    emit analysisSettingsChanged();
    startAnalysis();
    emit progress(kLoadPercent);
    emit modelAvailable();
}

void TraceDocument::postProgress(const std::shared_ptr<Job>& job, int percent) {
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
}

void TraceDocument::startAnalysis() {
    auto job = std::make_shared<Job>();
    job->model = m_model;
    job->analysisStage = true;
    job->settings = m_settings;
    m_job = job;
    m_busy = true;
    emit statusMessage(tr("Analyzing %1…").arg(m_displayName));
    job->future = QtConcurrent::run([this, job] {
        analysis::AnalysisOptions options;
        options.devices = deviceDatabase();
        analysis::applyAnalysisSettings(job->settings, options);
        options.progress = [this, job](double fraction) {
            postProgress(
                job, kLoadPercent + static_cast<int>(std::clamp(fraction, 0.0, 1.0) * (100 - kLoadPercent)));
            return !job->cancel.load();
        };
        core::Result<std::shared_ptr<const analysis::AnalysisReport>> result =
            analysis::analyzeTrace(job->model, options);
        if (job->cancel) {
            job->wasCancelled = true;
        } else if (!result.ok()) {
            job->wasCancelled = result.error().message == core::kCancelledMessage;
            job->error = QString::fromStdString(result.error().message);
        } else {
            job->report = result.value();
        }
        noteStartupMilestone("analysis done");
    });
    auto* watcher = new QFutureWatcher<void>(this);
    connect(watcher, &QFutureWatcher<void>::finished, this, [this, job, watcher] {
        watcher->deleteLater();
        if (m_job != job) {
            return;
        }
        m_job.reset();
        m_busy = false;
        m_analysisDone = true;
        if (job->wasCancelled) {
            emit statusMessage(tr("Analysis cancelled: the timeline shows the trace without diagnosis"));
            emit cancelled();
            return;
        }
        if (!job->report) {
            emit statusMessage(tr("Analysis failed: %1").arg(job->error));
            emit analysisFailed(job->error);
            return;
        }
        m_report = job->report;
        m_wholeModel = m_model;
        m_wholeTracks = m_tracks;
        m_wholeReport = m_report;
        m_deviceTracks.clear();
        m_scopeDevice = -1;
        emit progress(100);
        emit statusMessage(tr("%1 analyzed").arg(m_displayName));
        noteStartupMilestone("analysis handed to GUI");
        emit analysisAvailable();
        noteStartupMilestone("analysisAvailable handled");
    });
    watcher->setFuture(job->future);
}

}  // namespace chokepoint::ui
