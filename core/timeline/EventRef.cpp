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
        case EventKind::StackSample:
            return "stack sample";
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
        case EventKind::StackSample:
            return ref.row < model.stackSamples.size();
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
        case EventKind::StackSample: {
            if (ref.row >= model.stackSamples.size()) {
                break;
            }
            const std::span<const core::FrameIndex> frames = model.stack(model.stackSamples.stack[ref.row]);
            if (!frames.empty() && frames.front() < model.stackFrames.size()) {
                return model.stackFrames[frames.front()].function;
            }
            break;
        }
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
        case EventKind::StackSample:
            if (ref.row < model.stackSamples.size()) {
                return {model.stackSamples.timeNs[ref.row], model.stackSamples.timeNs[ref.row]};
            }
            return {};
    }
    return {};
}

std::vector<std::string> stackSampleFrames(const core::TraceModel& model, EventRef ref) {
    std::vector<std::string> out;
    if (ref.kind != EventKind::StackSample || ref.row >= model.stackSamples.size()) {
        return out;
    }
    for (core::FrameIndex f : model.stack(model.stackSamples.stack[ref.row])) {
        if (f >= model.stackFrames.size()) {
            continue;
        }
        const core::StackFrame& frame = model.stackFrames[f];
        std::string text(model.text(frame.function));
        if (!model.text(frame.file).empty()) {
            text += " (" + std::string(model.text(frame.file)) +
                    (frame.line > 0 ? ":" + std::to_string(frame.line) : std::string()) + ")";
        }
        out.push_back(std::move(text));
    }
    return out;
}

}  // namespace chokepoint::timeline
