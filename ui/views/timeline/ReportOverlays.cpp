#include "ui/views/timeline/ReportOverlays.h"

#include "ui/base/theme/ReportPalette.h"

#include <QObject>
#include <algorithm>
#include <set>

#include "core/base/Format.h"
#include "core/names/NameRules.h"

namespace chokepoint::ui {

QString idleCauseLabel(analysis::IdleCause cause) {
    const std::string_view text = analysis::toString(cause);
    QString label = QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
    if (!label.isEmpty()) {
        label[0] = label[0].toUpper();
    }
    return label;
}

TimelineOverlays overlaysFromReport(const analysis::AnalysisReport& report) {
    TimelineOverlays overlays;
    std::set<analysis::Bottleneck> verdicts;
    for (const analysis::StepDiagnosis& step : report.steps) {
        StepBand band;
        band.range = step.range;
        band.label = QString::fromStdString(step.name);
        // "ProfilerStep#102" and "chokepoint:step#31" read as "Step 102", "Step 31" in the narrow strip
        // (every agent step began "chokepoint…" there); other names stay as they are.
        const qsizetype hash = band.label.lastIndexOf(QLatin1Char('#'));
        bool numbered = false;
        const qlonglong number = hash >= 0 ? band.label.mid(hash + 1).toLongLong(&numbered) : 0;
        if (numbered && (names::isProfilerStepName(step.name) ||
                         band.label.left(hash).endsWith(QStringLiteral("step"), Qt::CaseInsensitive))) {
            band.label = QObject::tr("Step %1").arg(number);
        }
        if (step.excluded) {
            // A warm-up or checkpoint step is not what the verdict describes: drawn neutral, with
            // why it is left out ("warm-up: 56x the median step ..." reads "warm-up").
            const std::string& reason = step.excludedReason;
            band.verdict = QObject::tr("left out of the figures (%1); on its own: %2")
                               .arg(QString::fromStdString(reason.substr(0, reason.find(':'))),
                                    bottleneckName(step.verdict.bottleneck));
            overlays.steps.push_back(std::move(band));
            continue;
        }
        const std::string_view verdict = analysis::displayName(step.verdict.bottleneck);
        band.verdict = QString::fromUtf8(verdict.data(), static_cast<qsizetype>(verdict.size()));
        band.color = bottleneckColor(step.verdict.bottleneck);
        band.pattern = bottleneckPattern(step.verdict.bottleneck);
        verdicts.insert(step.verdict.bottleneck);
        overlays.steps.push_back(std::move(band));
    }
    std::sort(overlays.steps.begin(), overlays.steps.end(),
              [](const StepBand& a, const StepBand& b) { return a.range.startNs < b.range.startNs; });

    std::set<analysis::IdleCause> causes;
    for (const analysis::IdleInterval& idle : report.metrics.accounting.idleIntervals) {
        if (idle.streamId != -1) {
            continue;  // only whole-device idle is drawn; stream-level waits are in the details
        }
        // Each gap's cause is the one the verdict counts (queued waits are decided per gap in the
        // accounting), so strip and verdict agree.
        const analysis::IdleCause cause = idle.cause;
        QString label = idleCauseLabel(cause);
        if (idle.queued) {
            label += QObject::tr(" (the next kernel was already queued: not the host)");
        }
        overlays.idleGaps.push_back({idle.range, idle.deviceIndex, label, idleCauseColor(cause)});
        causes.insert(cause);
    }
    for (analysis::Bottleneck b : verdicts) {
        const std::string_view name = analysis::displayName(b);
        overlays.legend.push_back(
            {QObject::tr("Step: %1").arg(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()))),
             bottleneckColor(b), bottleneckPattern(b)});
    }
    for (analysis::IdleCause c : causes) {
        overlays.legend.push_back(
            {QObject::tr("Idle: %1").arg(idleCauseLabel(c)), idleCauseColor(c), Qt::SolidPattern});
    }
    return overlays;
}

std::vector<std::pair<QString, QString>> rooflineRows(const analysis::AnalysisReport& report,
                                                      const core::TraceModel& model, core::KernelId kernel) {
    std::vector<std::pair<QString, QString>> rows;
    if (!kernel.valid() || kernel.index >= model.kernels.size()) {
        return rows;
    }
    const core::StringId name = model.kernels.name[kernel.index];
    const QString field = QObject::tr("Roofline");
    for (const analysis::RooflinePoint& point : report.metrics.roofline.points) {
        if (point.kind != analysis::RooflinePoint::Kind::Kernel || point.name != name) {
            continue;
        }
        if (point.bytes <= 0 || point.flops <= 0) {
            break;
        }
        rows.emplace_back(QObject::tr("Arithmetic intensity"),
                          QObject::tr("%1 FLOP/byte")
                              .arg(QString::fromStdString(core::formatFixed(point.arithmeticIntensity, 2))));
        rows.emplace_back(QObject::tr("Achieved"),
                          QString::fromStdString(core::formatFlopsPerSecond(point.achievedFlopsPerSecond)) +
                              QStringLiteral(" · ") +
                              QString::fromStdString(core::formatBandwidth(point.achievedBytesPerSecond)));
        if (point.aboveRoof) {
            rows.emplace_back(
                field, QObject::tr("%1 (the estimate gives %2 of attainable)")
                           .arg(QString::fromStdString(point.aboveRoofReason),
                                QString::fromStdString(core::formatPercent(point.fractionOfAttainable))));
        } else if (point.attainableFlopsPerSecond > 0) {
            rows.emplace_back(
                field, QObject::tr("%1 of attainable, %2")
                           .arg(QString::fromStdString(core::formatPercent(point.fractionOfAttainable)),
                                point.memoryBound ? QObject::tr("memory-bound (below the ridge)")
                                                  : QObject::tr("compute-bound (above the ridge)")));
        } else {
            rows.emplace_back(field, QObject::tr("no device peaks known: position without roofs"));
        }
        rows.emplace_back(QObject::tr("Share of kernel time"),
                          QString::fromStdString(core::formatPercent(point.timeShare)));
        return rows;
    }
    rows.emplace_back(field, QObject::tr("not placed: the trace has no shapes to cost this kernel, or it is "
                                         "outside the top kernels"));
    return rows;
}

}  // namespace chokepoint::ui
