#include "core/timeline/EventRef.h"

namespace chokepoint::timeline {

std::string_view toString(EventKind kind) {
    switch (kind) {
        case EventKind::Kernel:
            return "kernel";
        case EventKind::Memcpy:
            return "memcpy";
        case EventKind::Memset:
            return "memset";
        case EventKind::Range:
            return "range";
        case EventKind::CpuOp:
            return "CPU op";
        case EventKind::ApiCall:
            return "runtime call";
    }
    return "event";
}

bool isValid(const core::TraceModel& model, EventRef ref) {
    switch (ref.kind) {
        case EventKind::Kernel:
            return ref.row < model.kernels.size();
        case EventKind::Memcpy:
            return ref.row < model.memcpys.size();
        case EventKind::Memset:
            return ref.row < model.memsets.size();
        case EventKind::Range:
            return ref.row < model.ranges.size();
        case EventKind::CpuOp:
            return ref.row < model.cpuOps.size();
        case EventKind::ApiCall:
            return ref.row < model.apiCalls.size();
    }
    return false;
}

core::StringId eventNameId(const core::TraceModel& model, EventRef ref) {
    switch (ref.kind) {
        case EventKind::Kernel:
            return ref.row < model.kernels.size() ? model.kernels.name[ref.row] : core::StringId{};
        case EventKind::Range:
            return ref.row < model.ranges.size() ? model.ranges.name[ref.row] : core::StringId{};
        case EventKind::CpuOp:
            return ref.row < model.cpuOps.size() ? model.cpuOps.name[ref.row] : core::StringId{};
        case EventKind::ApiCall:
            return ref.row < model.apiCalls.size() ? model.apiCalls.name[ref.row] : core::StringId{};
        case EventKind::Memcpy:
        case EventKind::Memset:
            break;
    }
    return {};
}

std::string eventName(const core::TraceModel& model, EventRef ref) {
    if (ref.kind == EventKind::Memcpy) {
        if (ref.row >= model.memcpys.size()) {
            return {};
        }
        return "Memcpy " + std::string(core::toString(model.memcpys.kind[ref.row]));
    }
    if (ref.kind == EventKind::Memset) {
        return ref.row < model.memsets.size() ? "Memset" : "";
    }
    return std::string(model.text(eventNameId(model, ref)));
}

core::TimeRange eventTimes(const core::TraceModel& model, EventRef ref) {
    auto from = [&](const auto& table) -> core::TimeRange {
        if (ref.row >= table.size()) {
            return {};
        }
        return {table.startNs[ref.row], table.endNs[ref.row]};
    };
    switch (ref.kind) {
        case EventKind::Kernel:
            return from(model.kernels);
        case EventKind::Memcpy:
            return from(model.memcpys);
        case EventKind::Memset:
            return from(model.memsets);
        case EventKind::Range:
            return from(model.ranges);
        case EventKind::CpuOp:
            return from(model.cpuOps);
        case EventKind::ApiCall:
            return from(model.apiCalls);
    }
    return {};
}

}  // namespace chokepoint::timeline
