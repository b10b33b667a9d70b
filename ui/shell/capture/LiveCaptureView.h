#pragma once
// LiveCaptureView: the records of a capture in progress, on a timeline, as they arrive. A capture
// (chokepoint-cli attach or run) appends .cptrace chunks to its file as the agent streams them;
// this view polls the file, reads what is there so far off the GUI thread (a file cut off
// mid-chunk opens up to its last whole chunk) and redraws. The finished file is then opened and
// analysed as usual; this view only shows progress.

#include <QFutureWatcher>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <memory>

#include "core/model/TraceModel.h"

class QLabel;
class QTimer;

namespace chokepoint::ui {

class TimelineWidget;

class LiveCaptureView : public QWidget {
    Q_OBJECT
public:
    explicit LiveCaptureView(QWidget* parent = nullptr);
    ~LiveCaptureView() override;

    // Follows the file(s) the finder returns at each poll (a run writes one file per process and
    // the names are known only once the processes exist); the largest one is shown.
    using FileFinder = std::function<QStringList()>;
    void follow(FileFinder finder);
    void follow(const QString& path);
    // Stops polling; the last picture stays.
    void stop();
    bool following() const;

    // Polls now instead of at the next tick (tests, and the last look when a capture ends).
    void pollNow();
    // Files above this size are not re-read (their size is still shown): reading them repeatedly
    // would keep a core busy. Default 256 MiB.
    void setMaxReadBytes(qint64 bytes) { m_maxReadBytes = bytes; }

    const core::TraceModel* model() const { return m_model.get(); }
    QString statusText() const;
    TimelineWidget* timeline() const { return m_timeline; }

signals:
    // A new reading of the file was drawn.
    void updated();

private:
    struct Reading;
    void onReadFinished();
    QString largestFile() const;

    FileFinder m_finder;
    QTimer* m_timer = nullptr;
    QLabel* m_status = nullptr;
    TimelineWidget* m_timeline = nullptr;
    QFutureWatcher<std::shared_ptr<Reading>>* m_watcher = nullptr;
    std::shared_ptr<const core::TraceModel> m_model;
    QString m_path;
    qint64 m_lastSize = -1;
    qint64 m_maxReadBytes = 256LL << 20;
    bool m_pollAgain = false;
};

}  // namespace chokepoint::ui
