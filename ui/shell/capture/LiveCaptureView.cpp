#include "ui/shell/capture/LiveCaptureView.h"

#include <QFileInfo>
#include <QLabel>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <optional>

#include "core/base/Format.h"
#include "core/import/TraceLoader.h"
#include "core/timeline/TimelineTracks.h"
#include "ui/views/timeline/TimelineWidget.h"

namespace chokepoint::ui {

namespace {

constexpr int kPollMs = 750;

}  // namespace

struct LiveCaptureView::Reading {
    QString path;
    qint64 sizeBytes = 0;
    std::shared_ptr<const core::TraceModel> model;
    std::shared_ptr<const timeline::TrackSet> tracks;
    QString error;
};

LiveCaptureView::LiveCaptureView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    // Nothing is awaited until a recording starts (follow()); saying "waiting" before Record was
    // pressed read as if something were already running.
    m_status = new QLabel(tr("Not recording yet."), this);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    m_timeline = new TimelineWidget(this);
    m_timeline->setMinimumHeight(180);
    m_timeline->setNoTraceMessage(
        tr("Once recording starts, the records appear here as the agent sends them."));
    layout->addWidget(m_timeline, 1);
    m_timer = new QTimer(this);
    m_timer->setInterval(kPollMs);
    connect(m_timer, &QTimer::timeout, this, &LiveCaptureView::pollNow);
    m_watcher = new QFutureWatcher<std::shared_ptr<Reading>>(this);
    connect(m_watcher, &QFutureWatcherBase::finished, this, &LiveCaptureView::onReadFinished);
}

LiveCaptureView::~LiveCaptureView() {
    m_watcher->waitForFinished();
}

void LiveCaptureView::follow(FileFinder finder) {
    m_finder = std::move(finder);
    m_lastSize = -1;
    m_path.clear();
    m_model.reset();
    m_timeline->setData(nullptr, nullptr);
    m_timeline->setNoTraceMessage(tr("The records appear here as the agent sends them."));
    m_status->setText(tr("Waiting for the first records…"));
    m_timer->start();
}

void LiveCaptureView::follow(const QString& path) {
    follow([path] { return QStringList{path}; });
}

void LiveCaptureView::stop() {
    m_timer->stop();
    if (!m_model && !m_watcher->isRunning()) {
        m_status->setText(tr("No records arrived before the recording ended."));
        m_timeline->setNoTraceMessage(tr("Nothing was recorded."));
    }
}

bool LiveCaptureView::following() const {
    return m_timer->isActive();
}

QString LiveCaptureView::statusText() const {
    return m_status->text();
}

QString LiveCaptureView::largestFile() const {
    QString best;
    qint64 bestSize = -1;
    for (const QString& candidate : m_finder ? m_finder() : QStringList{}) {
        const QFileInfo info(candidate);
        if (info.isFile() && info.size() > bestSize) {
            best = info.absoluteFilePath();
            bestSize = info.size();
        }
    }
    return best;
}

void LiveCaptureView::pollNow() {
    if (m_watcher->isRunning()) {
        m_pollAgain = true;  // one reading at a time; look again when it is done
        return;
    }
    const QString path = largestFile();
    if (path.isEmpty()) {
        return;
    }
    const qint64 size = QFileInfo(path).size();
    if (path == m_path && size == m_lastSize) {
        return;  // nothing new
    }
    m_path = path;
    m_lastSize = size;
    if (size > m_maxReadBytes) {
        m_status->setText(tr("%1: %2 recorded so far (too large to redraw live; it opens when the "
                             "recording ends)")
                              .arg(QFileInfo(path).fileName(),
                                   QString::fromStdString(core::formatBytes(static_cast<double>(size)))));
        return;
    }
    m_watcher->setFuture(QtConcurrent::run([path, size] {
        auto reading = std::make_shared<Reading>();
        reading->path = path;
        reading->sizeBytes = size;
        core::Result<core::TraceModel> loaded = core::loadTrace(path.toStdString());
        if (!loaded.ok()) {
            reading->error = QString::fromStdString(loaded.error().message);
            return reading;
        }
        auto model = std::make_shared<const core::TraceModel>(std::move(loaded).value());
        reading->tracks = std::make_shared<const timeline::TrackSet>(timeline::buildTracks(*model));
        reading->model = std::move(model);
        return reading;
    }));
}

void LiveCaptureView::onReadFinished() {
    const std::shared_ptr<Reading> reading = m_watcher->result();
    if (reading->model) {
        // Someone zoomed in to look closer: keep their window as records arrive, instead of
        // jumping back to the whole capture at every reading.
        std::optional<core::TimeRange> kept;
        if (m_model) {
            const core::TimeRange visible = m_timeline->visibleRange();
            const core::TimeRange whole = m_model->timeSpan();
            if (visible.startNs > whole.startNs || visible.endNs < whole.endNs) {
                kept = visible;
            }
        }
        m_model = reading->model;
        m_timeline->setData(reading->model, reading->tracks);
        if (kept) {
            m_timeline->showRange(*kept);
        }
        const core::TraceModel& m = *reading->model;
        m_status->setText(
            tr("%1 so far: kernels %2 · copies and sets %3 · CUDA API calls %4 · ranges %5 · span %6 · %7")
                .arg(QFileInfo(reading->path).fileName(),
                     QString::fromStdString(core::formatCount(static_cast<std::int64_t>(m.kernels.size()))),
                     QString::fromStdString(
                         core::formatCount(static_cast<std::int64_t>(m.memcpys.size() + m.memsets.size()))),
                     QString::fromStdString(core::formatCount(static_cast<std::int64_t>(m.apiCalls.size()))),
                     QString::fromStdString(core::formatCount(static_cast<std::int64_t>(m.ranges.size()))),
                     QString::fromStdString(core::formatDuration(m.timeSpan().durationNs())),
                     QString::fromStdString(core::formatBytes(static_cast<double>(reading->sizeBytes)))));
        emit updated();
    } else if (!reading->error.isEmpty() && !following()) {
        m_status->setText(
            tr("%1 has no readable records: %2").arg(QFileInfo(reading->path).fileName(), reading->error));
    } else if (!reading->error.isEmpty()) {
        // The header may not be complete yet: say so and try again at the next tick.
        m_status->setText(tr("Waiting for readable records in %1 (%2)")
                              .arg(QFileInfo(reading->path).fileName(), reading->error));
        m_lastSize = -1;
    }
    if (m_pollAgain) {
        m_pollAgain = false;
        pollNow();
    }
}

}  // namespace chokepoint::ui
