#include "core/timeline/LaunchedWork.h"

#include <algorithm>

namespace chokepoint::timeline {

std::vector<EventRef> launchedWork(const core::TraceModel& model, EventRef launcher) {
    std::vector<EventRef> work;
    if (!launcher.valid() || !isValid(model, launcher)) {
        return work;
    }
    const core::ApiCallTable& calls = model.apiCalls;
    std::vector<bool> isLauncher(calls.size(), false);
    if (launcher.kind == EventKind::ApiCall) {
        isLauncher[launcher.row] = true;
    } else if (launcher.kind == EventKind::CpuOp) {
        const core::CpuOpTable& ops = model.cpuOps;
        const core::ThreadIndex thread = ops.thread[launcher.row];
        const core::TimestampNs start = ops.startNs[launcher.row];
        const core::TimestampNs end = ops.endNs[launcher.row];
        for (std::size_t i = 0; i < calls.size(); ++i) {
            if (calls.cpuOp[i].index == launcher.row ||
                (calls.thread[i] == thread && calls.startNs[i] >= start && calls.startNs[i] < end)) {
                isLauncher[i] = true;
            }
        }
    } else {
        return work;
    }
    auto scan = [&](const auto& table, EventKind kind) {
        for (std::size_t i = 0; i < table.size(); ++i) {
            const core::ApiCallId call = table.launchCall[i];
            if (call.valid() && call.index < isLauncher.size() && isLauncher[call.index]) {
                work.push_back({kind, static_cast<std::uint32_t>(i)});
            }
        }
    };
    scan(model.kernels, EventKind::Kernel);
    scan(model.memcpys, EventKind::Memcpy);
    scan(model.memsets, EventKind::Memset);
    std::stable_sort(work.begin(), work.end(), [&](EventRef a, EventRef b) {
        return eventTimes(model, a).startNs < eventTimes(model, b).startNs;
    });
    return work;
}

EventRef launchCallOf(const core::TraceModel& model, EventRef work) {
    if (!work.valid() || !isValid(model, work)) {
        return {};
    }
    core::ApiCallId call;
    switch (work.kind) {
        case EventKind::Kernel:
            call = model.kernels.launchCall[work.row];
            break;
        case EventKind::Memcpy:
            call = model.memcpys.launchCall[work.row];
            break;
        case EventKind::Memset:
            call = model.memsets.launchCall[work.row];
            break;
        default:
            return {};
    }
    return call.valid() ? EventRef{EventKind::ApiCall, call.index} : EventRef{};
}

}  // namespace chokepoint::timeline
