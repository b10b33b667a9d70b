#include "ui/base/theme/TimelineColors.h"

#include <cmath>

#include "ui/base/theme/ThemeColors.h"

namespace chokepoint::ui {

namespace {

// Golden-ratio hue stepping spreads consecutive ids around the colour wheel.
QColor hashedColor(std::uint32_t id, double hueOffset, double saturation, double value) {
    double hue = std::fmod(hueOffset + static_cast<double>(id) * 0.6180339887498949, 1.0);
    return QColor::fromHsvF(static_cast<float>(hue), static_cast<float>(saturation),
                            static_cast<float>(value));
}

// Kernels take their hue from the arcs of the wheel that the copy colours (green 137°, purple 283°,
// amber 36°) leave free: 25° either side of each, 45° around green, which stays green over a wide
// arc (and when darkened), so a kernel never reads as a copy.
QColor kernelColor(std::uint32_t id) {
    struct Arc {
        double fromDegrees;
        double toDegrees;
    };
    static constexpr Arc kFreeArcs[] = {{61, 92}, {182, 258}, {308, 371}};
    double freeDegrees = 0;
    for (const Arc& arc : kFreeArcs) {
        freeDegrees += arc.toDegrees - arc.fromDegrees;
    }
    double along = std::fmod(static_cast<double>(id) * 0.6180339887498949, 1.0) * freeDegrees;
    double hueDegrees = kFreeArcs[0].fromDegrees;
    for (const Arc& arc : kFreeArcs) {
        const double width = arc.toDegrees - arc.fromDegrees;
        if (along < width) {
            hueDegrees = arc.fromDegrees + along;
            break;
        }
        along -= width;
    }
    return QColor::fromHsvF(static_cast<float>(std::fmod(hueDegrees, 360.0) / 360.0), 0.50F, 0.86F);
}

}  // namespace

QColor eventColor(timeline::EventKind kind, core::StringId name, core::MemcpyKind copyKind) {
    switch (kind) {
        case timeline::EventKind::Kernel:
            return kernelColor(name.index);
        case timeline::EventKind::Memcpy:
            switch (copyKind) {
                case core::MemcpyKind::HostToDevice:
                    return QColor(0x2e, 0x9e, 0x4f);  // green
                case core::MemcpyKind::DeviceToHost:
                    return QColor(0x9b, 0x59, 0xb6);  // purple
                case core::MemcpyKind::DeviceToDevice:
                case core::MemcpyKind::PeerToPeer:
                    return QColor(0xd3, 0x8b, 0x1c);  // amber
                default:
                    return QColor(0x7f, 0x8c, 0x8d);
            }
        case timeline::EventKind::Memset:
            return QColor(0x95, 0xa5, 0xa6);
        case timeline::EventKind::Range:
            return hashedColor(name.index, 0.55, 0.30, 0.90);
        case timeline::EventKind::CpuOp:
            return hashedColor(name.index, 0.15, 0.35, 0.93);
        case timeline::EventKind::ApiCall:
            return QColor(0xb8, 0xc7, 0xd9);
        case timeline::EventKind::StackSample:
            return hashedColor(name.index, 0.08, 0.65, 0.70);  // ticks coloured by their leaf function
    }
    return QColor(0x99, 0x99, 0x99);
}

QColor textColorOn(const QColor& fill) {
    // The ink with the higher WCAG contrast ratio wins. A luma threshold put white on salmon and
    // orange blocks at about 3:1 where near-black reads at 5:1.
    const QColor dark(0x1b, 0x1f, 0x23);
    const QColor white(Qt::white);
    return contrastRatio(dark, fill) >= contrastRatio(white, fill) ? dark : white;
}

QColor streamSyncColor() {
    // Near-black: it runs along the bottom of the kernels the host waits for, whatever their colour.
    return QColor(0x26, 0x26, 0x2e);
}

}  // namespace chokepoint::ui
