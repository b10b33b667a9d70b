#include "ui/base/theme/ReportPalette.h"

#include <cmath>

#include "core/base/Format.h"

namespace chokepoint::ui {

using analysis::Bottleneck;
using analysis::IdleCause;
using analysis::KernelClass;

QColor bottleneckColor(Bottleneck bottleneck) {
    switch (bottleneck) {
        case Bottleneck::Data:
            return QColor(214, 39, 40);  // red: the GPU starves
        case Bottleneck::Compute:
            return QColor(44, 160, 44);  // green: the desired end state
        case Bottleneck::MemoryBandwidth:
            return QColor(148, 103, 189);
        case Bottleneck::MemoryCapacity:
            return QColor(140, 86, 75);
        case Bottleneck::Communication:
            return QColor(31, 119, 180);
        case Bottleneck::LaunchOverhead:
            return QColor(255, 127, 14);
        case Bottleneck::HostBound:
            return QColor(227, 119, 194);  // pink: host time, beside launch overhead (orange)
        case Bottleneck::CopyBound:
            return QColor(188, 189, 34);  // olive: transfers, between data (red) and compute (green)
        case Bottleneck::ComputeMemoryMixed:
            return QColor(0, 137,
                          123);  // teal: between compute (green) and memory bandwidth (purple), not grey
        case Bottleneck::NoGpuActivity:
            return QColor(127, 127, 127);
        case Bottleneck::Undetermined:
            break;
    }
    return QColor(170, 170, 170);
}

Qt::BrushStyle bottleneckPattern(Bottleneck bottleneck) {
    switch (bottleneck) {
        case Bottleneck::Data:
            return Qt::BDiagPattern;
        case Bottleneck::Compute:
            return Qt::SolidPattern;
        case Bottleneck::MemoryBandwidth:
            return Qt::FDiagPattern;
        case Bottleneck::MemoryCapacity:
            return Qt::DiagCrossPattern;
        case Bottleneck::Communication:
            return Qt::HorPattern;
        case Bottleneck::LaunchOverhead:
            return Qt::VerPattern;
        case Bottleneck::HostBound:
            return Qt::CrossPattern;
        case Bottleneck::CopyBound:
            return Qt::Dense6Pattern;
        case Bottleneck::ComputeMemoryMixed:
            return Qt::Dense4Pattern;
        case Bottleneck::NoGpuActivity:
            return Qt::Dense7Pattern;
        case Bottleneck::Undetermined:
            break;
    }
    return Qt::SolidPattern;
}

QColor kernelClassColor(KernelClass kernelClass) {
    static const QColor kColors[] = {
        QColor(31, 119, 180),   // GEMM
        QColor(23, 190, 207),   // convolution
        QColor(148, 103, 189),  // attention
        QColor(255, 127, 14),   // elementwise
        QColor(188, 189, 34),   // normalization
        QColor(227, 119, 194),  // reduction/softmax
        QColor(44, 160, 44),    // communication
        QColor(140, 86, 75),    // copy
        QColor(127, 127, 127),  // memset
        QColor(199, 199, 199),  // other
    };
    const auto i = static_cast<std::size_t>(kernelClass);
    return i < std::size(kColors) ? kColors[i] : QColor(199, 199, 199);
}

QColor idleCauseColor(IdleCause cause) {
    switch (cause) {
        case IdleCause::DataWait:
            return QColor(214, 39, 40);
        case IdleCause::LaunchOverhead:
            return QColor(255, 127, 14);
        case IdleCause::Synchronization:
            return QColor(255, 187, 120);
        case IdleCause::OtherStream:
            return QColor(174, 199, 232);
        case IdleCause::Collective:
            return QColor(158, 218, 229);
        case IdleCause::HostWork:
            return QColor(188, 189, 34);
        case IdleCause::Compilation:
            return QColor(227, 119, 194);
        case IdleCause::Housekeeping:
            return QColor(247, 182, 210);
        case IdleCause::GarbageCollection:
            return QColor(219, 219, 141);
        case IdleCause::Unexplained:
            break;
    }
    return QColor(200, 200, 200);
}

QString bottleneckName(Bottleneck bottleneck) {
    return QString::fromUtf8(analysis::displayName(bottleneck));
}

QString kernelClassName(KernelClass kernelClass) {
    return QString::fromUtf8(analysis::toString(kernelClass));
}

QString durationText(double ns) {
    return QString::fromStdString(core::formatDuration(static_cast<core::DurationNs>(std::llround(ns))));
}

QString percentText(double fraction) {
    return QString::fromStdString(core::formatPercent(fraction));
}

QString smallPercentText(double fraction) {
    return QString::fromStdString(core::formatSmallPercent(fraction));
}

QString modelText(const core::TraceModel* model, core::StringId id) {
    return model != nullptr ? QString::fromUtf8(model->text(id)) : QString();
}

}  // namespace chokepoint::ui
