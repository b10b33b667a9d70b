#include "ui/views/report/DiagnosisReport.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <algorithm>

#include "core/analysis/diagnosis/DeviceMemoryText.h"
#include "core/base/Format.h"
#include "core/base/KernelName.h"
#include "ui/base/charts/ReportCharts.h"
#include "ui/base/charts/RooflineChart.h"
#include "ui/base/charts/StepBarsChart.h"
#include "ui/base/theme/ReportPalette.h"
#include "ui/base/theme/Theme.h"

namespace chokepoint::ui {
namespace {

constexpr std::size_t kReportTableRows = 20;  // rows of the kernel and op tables in the document

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QImage renderPlot(QCustomPlot* plot, int width, int height) {
    plot->resize(width, height);
    plot->replot(QCustomPlot::rpImmediateRefresh);
    return plot->toPixmap(width, height).toImage();
}

}  // namespace

ReportDocument buildDiagnosisReport(const analysis::AnalysisReport& report, const core::TraceModel* model,
                                    int chartWidth) {
    const QString name = QFileInfo(qs(report.sourcePath)).fileName();
    ReportDocument doc(
        QObject::tr("Chokepoint diagnosis: %1").arg(name.isEmpty() ? QObject::tr("trace") : name));

    doc.addParagraph(qs(report.headline), QStringLiteral("verdict"));
    const QString confidence =
        QObject::tr("Confidence: %1.").arg(QString::fromUtf8(report.overall.confidenceLabel()));
    doc.addParagraph(analysis::rationaleRepeatsHeadline(report)
                         ? confidence
                         : qs(report.overall.rationale) + QStringLiteral(" ") + confidence);
    if (report.synthetic) {
        doc.addParagraph(QObject::tr("This trace is synthetic (generated, not captured from a real job)."),
                         QStringLiteral("warning"));
    }

    const analysis::MfuReport& mfu = report.mfu;
    const bool timeline = report.metrics.hasGpuWork;
    std::vector<std::pair<QString, QString>> facts = {
        {QObject::tr("Source"),
         qs(report.sourcePath) + QStringLiteral(" (") + qs(report.sourceFormat) + QStringLiteral(")")},
        {QObject::tr("Device"),
         report.device.matched ? qs(report.device.spec.name) + QStringLiteral(" — ") + qs(report.device.note)
                               : qs(report.device.note)},
        {QObject::tr("Steps"), QString::number(report.metrics.steps.steps.size()) + QStringLiteral(" — ") +
                                   qs(report.metrics.steps.note)},
        {QObject::tr("Step time (mean)"), mfu.stepTimeNs > 0
                                              ? durationText(mfu.stepTimeNs) + QStringLiteral(" — ") +
                                                    qs(analysis::describeStepTimes(report.metrics.stepTimes))
                                              : QObject::tr("n/a")},
        // Without a GPU timeline (counter mode, a host-only capture) there is no busy share or MFU to
        // read: "0.0 %" and "model FLOPs not given" sent users to settings that cannot help.
        {QObject::tr("GPU busy"), timeline ? percentText(mfu.busyFraction)
                                           : QObject::tr("not recorded (no GPU timeline in the trace)")},
        {QObject::tr("MFU"), mfu.mfu
                                 ? percentText(*mfu.mfu) + QStringLiteral(" — ") + qs(mfu.bandLabel) +
                                       (mfu.estimate ? QObject::tr(" (estimated from shapes)") : QString())
                             : mfu.impossibleMfu ? qs(mfu.impossibleReason)
                             : timeline          ? QObject::tr("unknown (model FLOPs not given)")
                                        : QObject::tr("none: no GPU timeline to time the work against")},
        {QObject::tr("HFU"), mfu.hfu    ? percentText(*mfu.hfu)
                             : timeline ? QObject::tr("unknown")
                                        : QObject::tr("none")},
    };
    if (mfu.peakFlopsPerSecond > 0 && timeline) {
        facts.emplace_back(QObject::tr("Peak used"),
                           QString::fromStdString(core::formatFlopsPerSecond(mfu.peakFlopsPerSecond)) +
                               QStringLiteral(" — ") + qs(mfu.precisionReason));
    }
    if (const std::string memory = analysis::describeDeviceMemory(report.overallSignals); !memory.empty()) {
        facts.emplace_back(QObject::tr("Device memory"), qs(memory));
    }
    if (!report.userSettings.empty()) {
        QStringList settings;
        for (const std::string& line : report.userSettings) {
            settings << qs(line);
        }
        facts.emplace_back(QObject::tr("Analysis settings"), settings.join(QStringLiteral("; ")));
    }
    doc.addHeading(QObject::tr("Key figures"));
    doc.addFacts(facts);

    doc.addHeading(QObject::tr("Evidence"));
    QStringList evidence;
    for (const analysis::Evidence& e : report.overall.evidence) {
        evidence << qs(e.note.empty() ? e.signal : e.note);
    }
    if (evidence.isEmpty()) {
        evidence << QObject::tr("No evidence recorded.");
    }
    doc.addBulletList(evidence);
    if (!report.overall.missingSignals.empty()) {
        QStringList missing;
        for (const std::string& s : report.overall.missingSignals) {
            missing << qs(s);
        }
        doc.addParagraph(
            QObject::tr("Signals the trace does not carry: %1").arg(missing.join(QStringLiteral("; "))),
            QStringLiteral("muted"));
    }

    const int chartHeight = chartWidth / 2;
    {
        StepBarsChart bars;
        bars.setPalette(lightPalette());  // reports are shared and printed: light in every theme
        bars.setData(stepBarsFromReport(report));
        doc.addHeading(QObject::tr("Where each step's time goes"));
        doc.addImage(
            renderPlot(bars.plot(), chartWidth, chartHeight), QObject::tr("Per-step time breakdown"),
            QObject::tr(
                "One bar per step: compute, exposed communication and copies, and GPU idle time by cause."));
    }
    QStringList stepHeaders = {QObject::tr("Step"), QObject::tr("Duration"), QObject::tr("Verdict"),
                               QObject::tr("Confidence")};
    std::vector<QStringList> stepRows;
    for (const analysis::StepDiagnosis& s : report.steps) {
        stepRows.push_back({qs(s.name), durationText(static_cast<double>(s.range.durationNs())),
                            bottleneckName(s.verdict.bottleneck),
                            QString::fromUtf8(s.verdict.confidenceLabel())});
    }
    if (!stepRows.empty()) {
        doc.addTable(stepHeaders, stepRows, QObject::tr("Verdict per step"));
    }
    {
        RooflineChart roofline;
        roofline.setPalette(lightPalette());
        RooflineChartData data = rooflineFromReport(report);
        const QString note = data.note;
        roofline.setData(std::move(data));
        doc.addHeading(QObject::tr("Roofline"));
        doc.addImage(renderPlot(roofline.plot(), chartWidth, chartWidth * 3 / 5), QObject::tr("Roofline"),
                     QObject::tr("%1. Points sized by share of kernel time; faint lines: reference "
                                 "intensities (docs/ANALYSIS.md).")
                         .arg(note));
    }

    doc.addHeading(QObject::tr("Recommended fixes"));
    if (report.fixes.recommendations.empty()) {
        doc.addParagraph(QObject::tr("No fix applies to this verdict."), QStringLiteral("muted"));
    }
    int rank = 1;
    for (const analysis::Recommendation& fix : report.fixes.recommendations) {
        doc.addHeading(QStringLiteral("%1. %2 (%3)").arg(rank++).arg(qs(fix.title), qs(fix.ruleId)), 3);
        std::vector<std::pair<QString, QString>> f = {
            {QObject::tr("Targets"), bottleneckName(fix.target) + QStringLiteral(", ") +
                                         percentText(fix.targetShare) + QObject::tr(" of the step")},
            {QObject::tr("Expected gain"), qs(fix.gain.summary)},
            {QObject::tr("Evidence"), qs(fix.evidence)},
            {QObject::tr("Costs"), qs(fix.costs)},
            {QObject::tr("Risks"), qs(fix.risks)},
        };
        if (!fix.companions.empty()) {
            QStringList c;
            for (const std::string& s : fix.companions) {
                c << qs(s);
            }
            f.emplace_back(QObject::tr("Needs"), c.join(QStringLiteral("; ")));
        }
        doc.addFacts(f);
        if (!fix.gain.basis.empty()) {
            doc.addParagraph(qs(fix.gain.basis), QStringLiteral("muted"));
        }
        if (!fix.pytorchChange.empty()) {
            doc.addCode(qs(fix.pytorchChange));
        }
    }
    if (!report.fixes.nextStep.empty()) {
        doc.addParagraph(qs(report.fixes.nextStep));
    }

    // A document keeps the heads of the tables; the GUI tables and the CSV and JSON exports hold
    // every row.
    const std::size_t kernelRowsShown = std::min(kReportTableRows, report.kernelsByName.size());
    doc.addHeading(QObject::tr("Top kernels"));
    std::vector<QStringList> kernelRows;
    for (std::size_t i = 0; i < kernelRowsShown; ++i) {
        const analysis::TopKernel& k = report.kernelsByName[i];
        kernelRows.push_back({qs(core::shortKernelName(k.name)), kernelClassName(k.kernelClass),
                              QString::number(k.count), durationText(k.totalNs), durationText(k.meanNs),
                              percentText(k.shareOfKernelTime)});
    }
    if (kernelRowsShown < report.kernelsByName.size()) {
        doc.addParagraph(QObject::tr("The %1 longest of %2 kernels by total time; File ▸ Export ▸ All "
                                     "Kernels as CSV lists them all.")
                             .arg(kernelRowsShown)
                             .arg(report.kernelsByName.size()),
                         QStringLiteral("muted"));
    }
    doc.addTable({QObject::tr("Kernel"), QObject::tr("Class"), QObject::tr("Calls"), QObject::tr("Total"),
                  QObject::tr("Mean"), QObject::tr("Share")},
                 kernelRows);
    if (!report.opsByGpuTime.empty()) {
        doc.addHeading(QObject::tr("Top ops"));
        std::vector<QStringList> opRows;
        const std::size_t n = std::min(kReportTableRows, report.opsByGpuTime.size());
        for (std::size_t i = 0; i < n; ++i) {
            const analysis::TopOp& op = report.opsByGpuTime[i];
            opRows.push_back({qs(op.name), QString::number(op.count),
                              durationText(static_cast<double>(op.gpuTimeNs)),
                              percentText(op.shareOfKernelTime)});
        }
        if (n < report.opsByGpuTime.size()) {
            doc.addParagraph(QObject::tr("The %1 ops of %2 that launched the most GPU time; File ▸ Export ▸ "
                                         "All Ops as CSV lists them all.")
                                 .arg(n)
                                 .arg(report.opsByGpuTime.size()),
                             QStringLiteral("muted"));
        }
        doc.addTable({QObject::tr("Op"), QObject::tr("Calls"), QObject::tr("GPU time"), QObject::tr("Share")},
                     opRows);
    }

    doc.addHeading(QObject::tr("Warnings"));
    QStringList warnings;
    for (const analysis::ReportWarning& w : report.warnings) {
        warnings << QStringLiteral("%1: %2").arg(QString::fromUtf8(core::toString(w.severity)),
                                                 qs(w.message));
    }
    if (model != nullptr) {
        for (const core::TraceStat& s : model->stats.entries()) {
            warnings << QStringLiteral("%1: %2 × %3 %4")
                            .arg(QString::fromUtf8(core::toString(s.severity)), qs(s.name))
                            .arg(s.count)
                            .arg(qs(s.detail));
        }
    }
    if (warnings.isEmpty()) {
        warnings << QObject::tr("None.");
    }
    doc.addBulletList(warnings);
    return doc;
}

}  // namespace chokepoint::ui
