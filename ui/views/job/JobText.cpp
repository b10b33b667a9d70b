#include "ui/views/job/JobText.h"

#include <QCoreApplication>
#include <QStringList>
#include <algorithm>

#include "core/base/Format.h"

namespace chokepoint::ui {

QString jobDuration(core::DurationNs ns) {
    return QString::fromStdString(core::formatDuration(ns));
}

QString workKindLabel(job::WorkKind kind) {
    switch (kind) {
        case job::WorkKind::GpuKernels:
            return QCoreApplication::translate("JobText", "GPU kernels");
        case job::WorkKind::DataWait:
            return QCoreApplication::translate("JobText", "waiting for data");
        case job::WorkKind::HostWork:
            return QCoreApplication::translate("JobText", "host work");
        case job::WorkKind::Synchronization:
            return QCoreApplication::translate("JobText", "synchronization");
        case job::WorkKind::GarbageCollection:
            return QCoreApplication::translate("JobText", "garbage collection");
        case job::WorkKind::Unexplained:
            return QCoreApplication::translate("JobText", "unexplained idle");
    }
    return {};
}

QString stragglerCauseText(job::StragglerCause cause) {
    return QString::fromUtf8(job::describe(cause).data(),
                             static_cast<qsizetype>(job::describe(cause).size()));
}

QString jobBottleneckText(job::JobBottleneck bottleneck) {
    const std::string_view name = job::displayName(bottleneck);
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

QString rankRangesText(const std::vector<std::int32_t>& ranks, int maxParts) {
    std::vector<std::int32_t> sorted = ranks;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    QStringList parts;
    for (std::size_t i = 0; i < sorted.size();) {
        std::size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) {
            ++j;
        }
        if (static_cast<int>(parts.size()) == maxParts) {
            parts << QStringLiteral("…");
            break;
        }
        parts << (j == i ? QString::number(sorted[i])
                         : QStringLiteral("%1–%2").arg(sorted[i]).arg(sorted[j]));
        i = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

}  // namespace chokepoint::ui
