#pragma once
// JobDocument: the controller of one open training job (several ranks). It expands the inputs
// (files, folders, globs), runs core's job loader on its worker pool off the GUI thread (each
// worker holds one rank's full model at a time; only the summaries stay), analyses the job and
// keeps the JobReport. It also carries the job pages' navigation: the selected rank and
// collective instance, "show this range", and the requests to open a rank's own window or to
// compare a rank with the median rank (the job window acts on those).
//
// Signal order for a successful open(): loadStarted, progress (done, total) after each input,
// reportAvailable. A failure emits loadFailed with a message naming the input; a cancel emits
// cancelled. All signals are emitted on the GUI thread.

#include <QObject>
#include <QStringList>
#include <memory>
#include <vector>

#include "core/base/Time.h"
#include "core/job/JobReport.h"
#include "ui/base/document/MetaTypes.h"

namespace chokepoint::ui {

class JobDocument : public QObject {
    Q_OBJECT
public:
    explicit JobDocument(QObject* parent = nullptr);
    ~JobDocument() override;

    // Starts loading the job's inputs (files, folders, glob patterns) on worker threads.
    // Cancels and replaces a load in progress.
    void open(const QStringList& inputs);
    // Adopts a report built elsewhere (tests, a report already in memory).
    void setReport(std::shared_ptr<const job::JobReport> report, const QString& displayName);
    void cancel();
    bool busy() const { return m_busy; }

    QStringList inputs() const { return m_inputs; }
    QString displayName() const { return m_displayName; }
    // Null until reportAvailable.
    std::shared_ptr<const job::JobReport> report() const { return m_report; }

    // --- Lookups over the report (built once per report) ---
    // Index in report()->ranks of rank number `rank`, -1 when it is not loaded.
    int indexOfRank(int rank) const;
    // The rank number whose mean step time is the median of the loaded ranks (lower median), -1
    // without ranks.
    int medianRank() const;
    // The instance in report()->collectives that collective `collectiveIndex` of the rank at
    // `rankIndex` took part in, -1 when it was not matched.
    int instanceOf(int rankIndex, int collectiveIndex) const;
    // The instance at which `rank` arrived nearest to `jobNs` (job clock), -1 when it has none.
    int instanceNear(int rank, core::TimestampNs jobNs) const;
    // Whether the rank's input is a .cpsum summary (no full trace to open).
    bool rankHasFullTrace(int rank) const;
    QString rankSourcePath(int rank) const;

    // --- Selection and navigation ---
    int selectedRank() const { return m_selectedRank; }
    int selectedInstance() const { return m_selectedInstance; }
    void selectRank(int rank);
    void selectInstance(int instance);  // -1 clears
    // Asks the job timeline to show `range` (job clock) with `rank`'s lane in view.
    void showRange(core::TimeRange range, int rank) { emit requestShowRange(range, rank); }
    void openRank(int rank) { emit requestOpenRank(rank); }
    void compareWithMedian(int rank) { emit requestCompareWithMedian(rank); }

signals:
    void loadStarted(const QStringList& inputs);
    void progress(int done, int total);
    void statusMessage(const QString& text);
    void reportAvailable();
    void loadFailed(const QString& message);
    void cancelled();

    void rankSelected(int rank);
    void instanceSelected(int instance);
    void requestShowRange(chokepoint::core::TimeRange range, int rank);
    void requestOpenRank(int rank);
    void requestCompareWithMedian(int rank);

private:
    struct Job;
    void adopt(std::shared_ptr<const job::JobReport> report);
    void stopJob();

    QStringList m_inputs;
    QString m_displayName;
    std::shared_ptr<const job::JobReport> m_report;
    std::shared_ptr<Job> m_job;
    bool m_busy = false;
    int m_selectedRank = -1;
    int m_selectedInstance = -1;
    int m_medianRank = -1;
    std::vector<int> m_rankIndex;  // rank number -> index in report ranks, -1
    // Per rank index: the instance each of its collectives was matched to (-1 none).
    std::vector<std::vector<int>> m_instanceOf;
};

}  // namespace chokepoint::ui
