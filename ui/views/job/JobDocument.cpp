#include "ui/views/job/JobDocument.h"

#include <QDir>
#include <QFileInfo>
#include <QFuture>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <atomic>

// Qt's `signals` keyword macro would rewrite the analysis report's `signals` fields (the job
// loader includes the single-rank analyzer): suspend it while core's headers are read.
#pragma push_macro("signals")
#undef signals
#include "core/analysis/devices/DeviceDatabase.h"
#include "core/job/JobAnalysis.h"
#include "core/job/JobInputs.h"
#include "core/job/JobLoader.h"
#pragma pop_macro("signals")

namespace chokepoint::ui {

// State shared between the GUI thread and one worker run. The worker only writes the result
// fields; the GUI thread reads them after the future finished.
struct JobDocument::Job {
    std::atomic<bool> cancel{false};
    std::vector<std::string> arguments;
    std::shared_ptr<const job::JobReport> report;
    QString error;
    bool wasCancelled = false;
    QFuture<void> future;
};

namespace {

QString problemsText(const std::vector<job::RankProblem>& problems) {
    QStringList lines;
    for (const job::RankProblem& p : problems) {
        lines << QString::fromStdString(p.message);
    }
    return lines.join(QLatin1Char('\n'));
}

}  // namespace

JobDocument::JobDocument(QObject* parent) : QObject(parent) {
    qRegisterMetaType<core::TimeRange>("chokepoint::core::TimeRange");
}

JobDocument::~JobDocument() {
    stopJob();
}

void JobDocument::stopJob() {
    if (m_job) {
        // The worker posts progress to this object: it must be finished before we go on.
        m_job->cancel = true;
        m_job->future.waitForFinished();
        m_job.reset();
    }
}

void JobDocument::cancel() {
    if (m_job) {
        m_job->cancel = true;
    }
}

void JobDocument::open(const QStringList& inputs) {
    stopJob();
    m_inputs = inputs;
    m_displayName = inputs.size() == 1 ? QFileInfo(inputs.first()).fileName()
                                       : tr("%1 inputs in %2")
                                             .arg(inputs.size())
                                             .arg(QDir::toNativeSeparators(QFileInfo(inputs.first()).path()));
    adopt(nullptr);
    m_busy = true;
    emit loadStarted(inputs);
    emit progress(0, 0);
    emit statusMessage(tr("Reading the job's inputs…"));

    auto run = std::make_shared<Job>();
    for (const QString& input : inputs) {
        run->arguments.push_back(QDir::cleanPath(input).toStdString());
    }
    m_job = run;
    run->future = QtConcurrent::run([this, run] {
        core::Result<std::vector<std::string>> paths = job::expandJobInputs(run->arguments);
        if (!paths.ok()) {
            run->error = QString::fromStdString(paths.error().message);
            return;
        }
        // The device database is read once per process; without it each rank's analysis still
        // runs, without peaks.
        static const core::Result<analysis::DeviceDatabase> kDevices =
            analysis::DeviceDatabase::loadDefault();
        job::JobLoadOptions options;
        options.analysis.devices = kDevices.ok() ? &kDevices.value() : nullptr;
        options.progress = [this, run](std::size_t done, std::size_t total) {
            QMetaObject::invokeMethod(
                this,
                [this, run, done, total] {
                    if (m_job == run) {
                        emit progress(static_cast<int>(done), static_cast<int>(total));
                        emit statusMessage(tr("Summarised %1 of %2 inputs…").arg(done).arg(total));
                    }
                },
                Qt::QueuedConnection);
            return !run->cancel.load();
        };
        job::LoadedJob loaded = job::loadJob(paths.value(), options);
        if (loaded.cancelled || run->cancel) {
            run->wasCancelled = true;
            return;
        }
        if (loaded.ranks.empty()) {
            run->error =
                tr("No rank of the job could be read.") + QLatin1Char('\n') + problemsText(loaded.problems);
            return;
        }
        auto report = std::make_shared<job::JobReport>(
            job::analyzeJob(std::move(loaded.ranks), std::move(loaded.problems)));
        if (report->rankIdentityNote.empty()) {
            report->rankIdentityNote = loaded.identityNote;
        }
        run->report = std::move(report);
    });
    auto* watcher = new QFutureWatcher<void>(this);
    connect(watcher, &QFutureWatcher<void>::finished, this, [this, run, watcher] {
        watcher->deleteLater();
        if (m_job != run) {
            return;
        }
        m_job.reset();
        m_busy = false;
        if (run->wasCancelled) {
            emit statusMessage(tr("Loading the job cancelled"));
            emit cancelled();
            return;
        }
        if (!run->report) {
            emit statusMessage(tr("Could not open the job"));
            emit loadFailed(run->error);
            return;
        }
        adopt(run->report);
        emit statusMessage(tr("Job of %1 ranks analysed").arg(m_report->ranks.size()));
        emit reportAvailable();
    });
    watcher->setFuture(run->future);
}

void JobDocument::setReport(std::shared_ptr<const job::JobReport> report, const QString& displayName) {
    stopJob();
    m_inputs.clear();
    m_displayName = displayName;
    m_busy = false;
    emit loadStarted({displayName});
    adopt(std::move(report));
    emit reportAvailable();
}

void JobDocument::adopt(std::shared_ptr<const job::JobReport> report) {
    m_report = std::move(report);
    m_selectedRank = -1;
    m_selectedInstance = -1;
    m_medianRank = -1;
    m_rankIndex.clear();
    m_instanceOf.clear();
    if (!m_report) {
        return;
    }
    const job::JobReport& r = *m_report;
    int maxRank = -1;
    for (const job::JobRank& jr : r.ranks) {
        maxRank = std::max(maxRank, jr.summary ? jr.summary->rank : -1);
    }
    m_rankIndex.assign(static_cast<std::size_t>(maxRank + 1), -1);
    for (std::size_t i = 0; i < r.ranks.size(); ++i) {
        if (r.ranks[i].summary && r.ranks[i].summary->rank >= 0) {
            m_rankIndex[static_cast<std::size_t>(r.ranks[i].summary->rank)] = static_cast<int>(i);
        }
    }
    m_medianRank = r.medianRank;
    // Each arrival back to the rank's own collective (its collectives are sorted by start).
    m_instanceOf.resize(r.ranks.size());
    for (std::size_t i = 0; i < r.ranks.size(); ++i) {
        if (r.ranks[i].summary) {
            m_instanceOf[i].assign(r.ranks[i].summary->collectives.size(), -1);
        }
    }
    for (std::size_t instance = 0; instance < r.collectives.size(); ++instance) {
        for (const job::CollectiveArrival& a : r.collectives[instance].arrivals) {
            const int ri = indexOfRank(a.rank);
            if (ri < 0 || !r.ranks[static_cast<std::size_t>(ri)].summary) {
                continue;
            }
            const job::JobRank& jr = r.ranks[static_cast<std::size_t>(ri)];
            const auto index = static_cast<std::size_t>(a.collectiveIndex);
            if (a.collectiveIndex >= 0 && index < jr.summary->collectives.size()) {
                m_instanceOf[static_cast<std::size_t>(ri)][index] = static_cast<int>(instance);
            }
        }
    }
}

int JobDocument::indexOfRank(int rank) const {
    return rank >= 0 && static_cast<std::size_t>(rank) < m_rankIndex.size()
               ? m_rankIndex[static_cast<std::size_t>(rank)]
               : -1;
}

int JobDocument::medianRank() const {
    return m_medianRank;
}

int JobDocument::instanceOf(int rankIndex, int collectiveIndex) const {
    if (rankIndex < 0 || static_cast<std::size_t>(rankIndex) >= m_instanceOf.size()) {
        return -1;
    }
    const std::vector<int>& own = m_instanceOf[static_cast<std::size_t>(rankIndex)];
    return collectiveIndex >= 0 && static_cast<std::size_t>(collectiveIndex) < own.size()
               ? own[static_cast<std::size_t>(collectiveIndex)]
               : -1;
}

int JobDocument::instanceNear(int rank, core::TimestampNs jobNs) const {
    const int index = indexOfRank(rank);
    if (index < 0) {
        return -1;
    }
    const job::JobRank& jr = m_report->ranks[static_cast<std::size_t>(index)];
    int best = -1;
    core::DurationNs bestDistance = 0;
    for (std::size_t c = 0; c < jr.summary->collectives.size(); ++c) {
        const int instance = instanceOf(index, static_cast<int>(c));
        if (instance < 0) {
            continue;
        }
        const core::TimestampNs start = jr.summary->collectives[c].startNs - jr.clockOffsetNs;
        const core::DurationNs distance = start > jobNs ? start - jobNs : jobNs - start;
        if (best < 0 || distance < bestDistance) {
            best = instance;
            bestDistance = distance;
        }
    }
    return best;
}

QString JobDocument::rankSourcePath(int rank) const {
    const int index = indexOfRank(rank);
    if (index < 0 || !m_report->ranks[static_cast<std::size_t>(index)].summary) {
        return {};
    }
    return QString::fromStdString(m_report->ranks[static_cast<std::size_t>(index)].summary->sourcePath);
}

bool JobDocument::rankHasFullTrace(int rank) const {
    const QString path = rankSourcePath(rank);
    return !path.isEmpty() && QFileInfo::exists(path) && !job::isSummaryFile(path.toStdString());
}

void JobDocument::selectRank(int rank) {
    if (rank == m_selectedRank) {
        return;
    }
    m_selectedRank = rank;
    emit rankSelected(rank);
}

void JobDocument::selectInstance(int instance) {
    if (!m_report || instance < -1 || instance >= static_cast<int>(m_report->collectives.size())) {
        instance = -1;
    }
    if (instance == m_selectedInstance) {
        return;
    }
    m_selectedInstance = instance;
    emit instanceSelected(instance);
}

}  // namespace chokepoint::ui
