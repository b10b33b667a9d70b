#include "ui/base/theme/TimelineColors.h"

#include <cmath>

namespace chokepoint::ui {

namespace {

// Golden-ratio hue stepping spreads consecutive ids around the colour wheel.
QColor hashedColor(std::uint32_t id, double hueOffset, double saturation, double value) {
    double hue = std::fmod(hueOffset + static_cast<double>(id) * 0.6180339887498949, 1.0);
    return QColor::fromHsvF(static_cast<float>(hue), static_cast<float>(saturation),
                            static_cast<float>(value));
}

}  // namespace

QColor eventColor(timeline::EventKind kind, core::StringId name, core::MemcpyKind copyKind) {
    switch (kind) {
        case timeline::EventKind::Kernel:
            return hashedColor(name.index, 0.0, 0.50, 0.86);
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
    const double luminance = 0.299 * fill.redF() + 0.587 * fill.greenF() + 0.114 * fill.blueF();
    return luminance > 0.55 ? QColor(0x1b, 0x1f, 0x23) : QColor(Qt::white);
}

QColor streamSyncColor() {
    // Near-black: it runs along the bottom of the kernels the host waits for, whatever their colour.
    return QColor(0x26, 0x26, 0x2e);
}

}  // namespace chokepoint::ui
