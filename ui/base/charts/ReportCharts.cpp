#include "ui/base/charts/ReportCharts.h"

#include <QObject>
#include <algorithm>
#include <cmath>

#include "core/base/Format.h"
#include "ui/base/theme/ReportPalette.h"

namespace chokepoint::ui {

using analysis::IdleCause;

std::int16_t reportDevice(const analysis::AnalysisReport& report) {
    if (report.device.deviceIndex >= 0) {
        return static_cast<std::int16_t>(report.device.deviceIndex);
    }
    const auto& devices = report.metrics.accounting.devices;
    return devices.empty() ? std::int16_t{0} : devices.front();
}

StepBarsData stepBarsFromReport(const analysis::AnalysisReport& report) {
    StepBarsData data;
    const std::size_t steps = report.metrics.steps.steps.size();

    // Kernel time split by the side of the ridge its kernels sit on (the verdict's composition), so a
    // mixed or memory-bound step shows why; steps without a composition keep one "Compute" part.
    StackedSeries compute{QObject::tr("Compute-bound kernels"), QColor(44, 160, 44), {}, Qt::SolidPattern};
    StackedSeries memoryBound{
        QObject::tr("Memory-bound kernels"), QColor(23, 190, 207), {}, Qt::SolidPattern};
    StackedSeries unclassified{QObject::tr("Compute"), QColor(152, 223, 138), {}, Qt::SolidPattern};
    StackedSeries comm{QObject::tr("Communication (exposed)"), QColor(31, 119, 180), {}, Qt::SolidPattern};
    StackedSeries copy{QObject::tr("Copies (exposed)"), QColor(140, 86, 75), {}, Qt::SolidPattern};
    StackedSeries other{QObject::tr("Other GPU work"), QColor(127, 127, 127), {}, Qt::SolidPattern};
    const IdleCause causes[] = {
        IdleCause::DataWait,     IdleCause::LaunchOverhead,    IdleCause::Synchronization,
        IdleCause::Collective,   IdleCause::HostWork,          IdleCause::Compilation,
        IdleCause::Housekeeping, IdleCause::GarbageCollection, IdleCause::Unexplained};
    std::vector<StackedSeries> idle;
    for (IdleCause cause : causes) {
        idle.push_back({QObject::tr("Idle: %1").arg(QString::fromUtf8(analysis::toString(cause))),
                        idleCauseColor(cause),
                        {},
                        Qt::BDiagPattern});
    }
    // The figures of each step's verdict (DiagnosisSignals, as in the JSON's stepVerdicts), so the
    // chart says what the verdict says: idle time moved to collective waits shows as such here too.
    constexpr double kMs = 1e6;
    for (std::size_t s = 0; s < steps; ++s) {
        const analysis::Step& step = report.metrics.steps.steps[s];
        data.stepLabels << (step.number != 0 || s == 0 ? QString::number(step.number) : QString::number(s));
        QString excluded;
        for (const analysis::ExcludedStep& e : report.metrics.stepTimes.excluded) {
            if (e.stepIndex == static_cast<std::int32_t>(s)) {
                excluded = QString::fromStdString(e.reason);
            }
        }
        data.excludedReasons << excluded;
        const analysis::DiagnosisSignals* sig =
            s < report.steps.size() ? &diagnosisSignals(report.steps[s]) : nullptr;
        if (sig == nullptr || !sig->hasGpuActivity) {
            for (auto* series : {&compute, &memoryBound, &unclassified, &comm, &copy, &other}) {
                series->valuesMs.push_back(0);
            }
            for (auto& series : idle) {
                series.valuesMs.push_back(0);
            }
            continue;
        }
        const double windowMs = sig->windowNs / kMs;
        const double computeMs = sig->computeFraction * windowMs;
        if (sig->compositionKnown) {
            const double computeBound = std::clamp(sig->computeBoundKernelShare, 0.0, 1.0);
            const double memory = std::clamp(sig->memoryBoundKernelShare, 0.0, 1.0 - computeBound);
            compute.valuesMs.push_back(computeBound * computeMs);
            memoryBound.valuesMs.push_back(memory * computeMs);
            unclassified.valuesMs.push_back((1.0 - computeBound - memory) * computeMs);
        } else {
            compute.valuesMs.push_back(0);
            memoryBound.valuesMs.push_back(0);
            unclassified.valuesMs.push_back(computeMs);
        }
        comm.valuesMs.push_back(sig->exposedCommunicationFraction * windowMs);
        copy.valuesMs.push_back(sig->exposedCopyFraction * windowMs);
        // Busy time outside the three categories (memsets, copy/communication overlaps) so the bar's
        // height is the step's window.
        const double shown =
            sig->computeFraction + sig->exposedCommunicationFraction + sig->exposedCopyFraction;
        other.valuesMs.push_back(std::max(0.0, sig->busyFraction - shown) * windowMs);
        const double byCause[] = {sig->idleDataWaitFraction,     sig->idleLaunchOverheadFraction,
                                  sig->idleSyncFraction,         sig->idleCollectiveFraction,
                                  sig->idleHostWorkFraction,     sig->idleCompilationFraction,
                                  sig->idleHousekeepingFraction, sig->idleGcFraction,
                                  sig->idleUnexplainedFraction};
        for (std::size_t c = 0; c < std::size(causes); ++c) {
            idle[c].valuesMs.push_back(byCause[c] * windowMs);
        }
    }
    const bool anyComposition =
        std::any_of(compute.valuesMs.begin(), compute.valuesMs.end(), [](double v) { return v > 0; }) ||
        std::any_of(memoryBound.valuesMs.begin(), memoryBound.valuesMs.end(), [](double v) { return v > 0; });
    if (anyComposition) {
        unclassified.name = QObject::tr("Other kernels (class not known)");
    }
    data.series = {compute, memoryBound, unclassified, comm, copy, other};
    for (auto& series : idle) {
        data.series.push_back(std::move(series));
    }
    data.emptyMessage = QObject::tr("No steps were detected in this trace");
    return data;
}

std::vector<StepStripCell> stepStripFromReport(const analysis::AnalysisReport& report) {
    std::vector<StepStripCell> cells;
    // Cell widths follow the steps that count: a left-out step (a warm-up 100x the median) is no
    // wider than the longest kept one, so it does not squeeze the others to slivers.
    double keptMaxNs = 0;
    for (const analysis::StepDiagnosis& step : report.steps) {
        if (!step.excluded) {
            keptMaxNs = std::max(keptMaxNs, static_cast<double>(step.range.durationNs()));
        }
    }
    for (const analysis::StepDiagnosis& step : report.steps) {
        StepStripCell cell;
        cell.label = QString::fromStdString(step.name);
        cell.className = bottleneckName(step.verdict.bottleneck);
        cell.color = bottleneckColor(step.verdict.bottleneck);
        cell.pattern = bottleneckPattern(step.verdict.bottleneck);
        cell.weight = static_cast<double>(step.range.durationNs());
        if (step.excluded && keptMaxNs > 0) {
            cell.weight = std::min(cell.weight, keptMaxNs);
        }
        cell.tooltip = QStringLiteral("%1 — %2\n%3 (confidence %4)\n%5")
                           .arg(cell.label, durationText(static_cast<double>(step.range.durationNs())),
                                cell.className, QString::fromUtf8(step.verdict.confidenceLabel()),
                                QString::fromStdString(step.verdict.rationale));
        cells.push_back(std::move(cell));
    }
    return cells;
}

namespace {

QString precisionLabel(analysis::Precision precision) {
    static const char* kNames[] = {"FP64", "FP32", "TF32", "BF16", "FP16", "FP8", "INT8"};
    const auto p = static_cast<std::size_t>(precision);
    return p < std::size(kNames) ? QString::fromLatin1(kNames[p]) : QStringLiteral("?");
}

}  // namespace

RooflineChartData rooflineFromReport(const analysis::AnalysisReport& report, std::vector<int>* pointIndex) {
    RooflineChartData data;
    const analysis::RooflineResult& roofline = report.metrics.roofline;
    if (roofline.hasDevice) {
        data.bandwidthBytesPerSecond = roofline.memoryBandwidthBytesPerSecond;
        static const QColor kRoofColors[] = {QColor(110, 110, 110), QColor(31, 119, 180), QColor(200, 80, 20),
                                             QColor(148, 103, 189), QColor(44, 160, 44)};
        std::size_t i = 0;
        QColor colorByPrecision[7];  // a measured roof takes its datasheet roof's colour
        for (const analysis::RooflineCeiling& c : roofline.ceilings) {
            const auto p = static_cast<std::size_t>(c.precision);
            QString label = precisionLabel(c.precision);
            if (c.tensorCore) {
                label += QObject::tr(" tensor");
            }
            data.roofs.push_back({label, c.peakFlopsPerSecond, kRoofColors[i % std::size(kRoofColors)]});
            if (p < std::size(colorByPrecision)) {
                colorByPrecision[p] = data.roofs.back().color;
            }
            ++i;
        }
        data.note = QObject::tr("%1 (%2)").arg(QString::fromStdString(report.device.spec.name),
                                               QString::fromStdString(report.device.note));
        const analysis::MeasuredRoofs& measured = roofline.measured;
        if (measured.present) {
            data.measuredBandwidthBytesPerSecond = measured.memoryBandwidthBytesPerSecond;
            for (const analysis::RooflineCeiling& c : measured.ceilings) {
                const auto p = static_cast<std::size_t>(c.precision);
                const QString label = precisionLabel(c.precision);
                const QColor color = p < std::size(colorByPrecision) && colorByPrecision[p].isValid()
                                         ? colorByPrecision[p]
                                         : QColor(90, 90, 90);
                data.measuredRoofs.push_back({label, c.peakFlopsPerSecond, color});
            }
            data.note +=
                QObject::tr("; dashed: measured on this machine ('%1', %2)")
                    .arg(QString::fromStdString(measured.deviceId), QString::fromStdString(measured.source));
        }
    } else {
        data.note = QObject::tr("Device peak not known: roofs not drawn (%1)")
                        .arg(QString::fromStdString(report.device.note));
    }
    // Seed spec §1.4 Table 5 / §9.6: activations 0.5, softmax ~5, LayerNorm ~10, materialized
    // attention scores d_head/2 (32 for d_head 64); large matmuls sit right of the ridge.
    data.markers = {{QObject::tr("activation 0.5"), 0.5},
                    {QObject::tr("softmax ~5"), 5.0},
                    {QObject::tr("LayerNorm ~10"), 10.0},
                    {QObject::tr("attention scores d_head/2 = 32"), 32.0}};
    for (std::size_t i = 0; i < roofline.points.size(); ++i) {
        const analysis::RooflinePoint& p = roofline.points[i];
        if (!(p.arithmeticIntensity > 0) || !(p.achievedFlopsPerSecond > 0)) {
            continue;
        }
        RooflineDot dot;
        dot.label = QString::fromStdString(p.label);
        dot.group = kernelClassName(p.kernelClass);
        dot.intensityFlopsPerByte = p.arithmeticIntensity;
        dot.flopsPerSecond = p.achievedFlopsPerSecond;
        dot.timeShare = p.timeShare;
        dot.color = kernelClassColor(p.kernelClass);
        dot.hollow = p.kind == analysis::RooflinePoint::Kind::KernelClass;
        const QString kind = p.kind == analysis::RooflinePoint::Kind::KernelClass ? QObject::tr("class")
                             : p.kind == analysis::RooflinePoint::Kind::Kernel    ? QObject::tr("kernel")
                                                                                  : QObject::tr("op");
        QString label = dot.label;
        if (label.size() > 90) {
            label = label.left(87) + QStringLiteral("...");
        }
        dot.tooltip = QObject::tr("%1 (%2, %3)\nintensity %4 FLOP/B\nachieved %5\n%6 of kernel time (%7)")
                          .arg(label, kind, dot.group, QString::number(p.arithmeticIntensity, 'g', 3),
                               QString::fromStdString(core::formatFlopsPerSecond(p.achievedFlopsPerSecond)),
                               percentText(p.timeShare), durationText(static_cast<double>(p.timeNs)));
        dot.aboveRoof = p.aboveRoof;
        if (p.aboveRoof) {
            dot.tooltip +=
                QObject::tr(
                    "\n⚠ %1 (the estimate gives %2 of attainable; the kernel cannot exceed "
                    "100 %)")
                    .arg(QString::fromStdString(p.aboveRoofReason), smallPercentText(p.fractionOfAttainable));
        } else if (p.attainableFlopsPerSecond > 0) {
            dot.tooltip +=
                QObject::tr("\n%1 of attainable, %2")
                    .arg(smallPercentText(p.fractionOfAttainable),
                         p.memoryBound ? QObject::tr("memory-bound") : QObject::tr("compute-bound"));
        }
        data.dots.push_back(std::move(dot));
        if (pointIndex != nullptr) {
            pointIndex->push_back(static_cast<int>(i));
        }
    }
    data.emptyMessage = QObject::tr(
        "No roofline points: the trace records no shapes\nto estimate FLOPs and bytes from.\n"
        "The verdict's compute- and memory-bound shares\ncome from the kernels' names.");
    return data;
}

}  // namespace chokepoint::ui
