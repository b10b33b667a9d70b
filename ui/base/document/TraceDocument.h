#pragma once
// TraceDocument: the one controller QObject per open trace. It owns the immutable model and the
// analysis report (both shared_ptr<const>, so pages may keep them alive), loads and analyzes off
// the GUI thread, and carries the navigation requests pages use to talk to each other (for
// example the fixes page asking the timeline to show the evidence of a finding).
//
// Signal order for a successful open(): loadStarted, progress (0..100, repeatedly),
// modelAvailable, then analysisAvailable (or analysisFailed). A failed load emits loadFailed with
// a message naming the file and the problem, and leaves the trace that was open before untouched:
// filePath(), model() and report() are the old ones again when loadFailed is emitted, followed by
// modelAvailable and analysisAvailable for it so pages cleared at loadStarted show it again; a cancelled load
// or analysis emits cancelled (after a cancelled analysis the model stays available, without a report). All
// signals are emitted on the GUI thread.

#include <QFutureWatcher>
#include <QList>
#include <QObject>
#include <QString>
#include <atomic>
#include <map>
#include <memory>

#include "core/analysis/diagnosis/AnalysisSettings.h"
#include "core/base/Ids.h"
#include "core/base/Time.h"
#include "core/model/TraceModel.h"
#include "core/timeline/TimelineTracks.h"
#include "ui/base/document/MetaTypes.h"

namespace chokepoint::analysis {
struct AnalysisReport;
class DeviceDatabase;
}  // namespace chokepoint::analysis

namespace chokepoint::ui {

class TraceDocument : public QObject {
    Q_OBJECT
public:
    explicit TraceDocument(QObject* parent = nullptr);
    ~TraceDocument() override;

    // Starts loading `path` (any format core::loadTrace supports) on a worker thread, then runs
    // the analysis. Cancels and replaces a load in progress.
    void open(const QString& path);
    // Adopts an already finalized model (tests, generated samples) and runs the analysis on it.
    void setModel(std::shared_ptr<const core::TraceModel> model, const QString& displayName);
    // Asks the running load or analysis to stop; `cancelled` follows.
    void cancel();
    bool busy() const { return m_busy; }

    QString filePath() const { return m_filePath; }
    QString displayName() const { return m_displayName; }
    // Null until modelAvailable / analysisAvailable.
    std::shared_ptr<const core::TraceModel> model() const { return m_model; }
    std::shared_ptr<const analysis::AnalysisReport> report() const { return m_report; }
    // The timeline's track layout, built on the worker thread with the model.
    std::shared_ptr<const timeline::TrackSet> tracks() const { return m_tracks; }
    // True once analysis has finished (successfully or not) for the current model.
    bool analysisDone() const { return m_analysisDone; }

    // Several GPUs did work: the devices that have their own report (AnalysisReport::deviceReports),
    // ascending; empty otherwise.
    QList<int> devicesWithReports() const;
    // -1: the whole trace; else the GPU shown alone.
    int scopeDevice() const { return m_scopeDevice; }
    // Shows GPU `deviceIndex` alone (-1: the whole trace again): model(), tracks() and report()
    // become that GPU's slice of the trace and its own report, then modelAvailable,
    // analysisAvailable and scopeChanged are emitted. Returns false (and changes nothing) while
    // busy or for a GPU without its own report.
    bool selectDevice(int deviceIndex);

    // --- Analysis settings (device override, model FLOPs, thresholds: what the CLI's analyze takes) ---
    // The settings the current analysis ran with. open() reads them from the trace's review sidecar
    // (core/review/ReviewSidecar.h) before analysing; setModel() starts from the defaults.
    const core::AnalysisSettings& analysisSettings() const { return m_settings; }
    // Problems found in the sidecar's settings at the last open() (each names the file); the
    // entries concerned were left out. Also emitted as settingsWarnings.
    QStringList settingsWarnings() const { return m_settingsWarnings; }
    // Takes `settings`, saves them in the trace's sidecar (when the trace has a file) and analyses
    // the trace again with them; every page then gets analysisAvailable. Entries that cannot be
    // applied are dropped first (see analysis::sanitizeAnalysisSettings). Returns an error message
    // when the sidecar could not be written (the analysis still runs), else an empty string.
    // Refused (returns a message, changes nothing) while a load is running or without a trace.
    QString setAnalysisSettings(const core::AnalysisSettings& settings);
    // The device database analyses use (built-in plus the user's files); null when it failed to load.
    static const analysis::DeviceDatabase* deviceDatabase();
    // Asks whoever owns the analysis settings dialog to show it (the diagnosis page's button).
    void showAnalysisSettings() { emit requestAnalysisSettings(); }

    // --- Navigation: pages call these; the main window and the timeline listen. ---
    void showRange(core::TimeRange range, const QString& reason) { emit requestShowRange(range, reason); }
    void selectKernel(core::KernelId kernel) { emit requestSelectKernel(kernel); }
    void showPage(const QString& pageId) { emit requestPage(pageId); }
    // The user's current selection on the timeline (an event's extent or a dragged range), so that
    // bookmarks default to it. Not a navigation request: nothing moves.
    void noteSelection(core::TimeRange range, const QString& label) { emit selectionNoted(range, label); }
    // Asks the review (ReviewPage, which keeps the bookmarks in the sidecar) to bookmark `range`.
    void bookmarkRange(core::TimeRange range, const QString& title, const QString& note) {
        emit requestBookmark(range, title, note);
    }

signals:
    void loadStarted(const QString& path);
    void progress(int percent);  // 0..100 over load + analysis
    void statusMessage(const QString& text);
    void modelAvailable();
    void analysisAvailable();
    void loadFailed(const QString& message);
    void analysisFailed(const QString& message);
    void cancelled();
    void scopeChanged(int deviceIndex);
    // The analysis settings changed (setAnalysisSettings, or read from the sidecar by open()).
    void analysisSettingsChanged();
    // The sidecar's analysis settings had entries that were left out (one message each).
    void settingsWarningsFound(const QStringList& warnings);
    void requestAnalysisSettings();

    void requestShowRange(chokepoint::core::TimeRange range, const QString& reason);
    void requestSelectKernel(chokepoint::core::KernelId kernel);
    void requestPage(const QString& pageId);
    void selectionNoted(chokepoint::core::TimeRange range, const QString& label);
    void requestBookmark(chokepoint::core::TimeRange range, const QString& title, const QString& note);

private:
    struct Job;
    void startAnalysis();
    // Puts back the trace that was open when `job` (a failed load) started.
    void restorePrevious(const Job& job);
    // Posts a progress value from a worker thread; dropped when `job` is no longer current.
    void postProgress(const std::shared_ptr<Job>& job, int percent);
    // Puts the whole trace back as the current one, without signals (before a new load).
    void leaveDeviceScope();

    QString m_filePath;
    QString m_displayName;
    std::shared_ptr<const core::TraceModel> m_model;
    std::shared_ptr<const analysis::AnalysisReport> m_report;
    std::shared_ptr<const timeline::TrackSet> m_tracks;
    std::shared_ptr<Job> m_job;  // the running load/analysis, shared with its worker
    bool m_busy = false;
    bool m_analysisDone = false;
    // The whole trace while one GPU is shown alone (selectDevice); per-GPU tracks, built once.
    std::shared_ptr<const core::TraceModel> m_wholeModel;
    std::shared_ptr<const timeline::TrackSet> m_wholeTracks;
    std::shared_ptr<const analysis::AnalysisReport> m_wholeReport;
    std::map<int, std::shared_ptr<const timeline::TrackSet>> m_deviceTracks;
    int m_scopeDevice = -1;
    core::AnalysisSettings m_settings;
    QStringList m_settingsWarnings;
};

}  // namespace chokepoint::ui
