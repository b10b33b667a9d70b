#include "core/analysis/diagnosis/HostCauses.h"

#include <algorithm>

#include "core/base/Format.h"

namespace chokepoint::analysis {

double hostCauseShare(const DiagnosisSignals& s, HostCause cause) {
    switch (cause) {
        case HostCause::Code:
            return s.idleHostWorkFraction;
        case HostCause::Compilation:
            return s.idleCompilationFraction;
        case HostCause::Housekeeping:
            return s.idleHousekeepingFraction;
        case HostCause::GarbageCollection:
            return s.idleGcFraction;
    }
    return 0;
}

HostCause dominantHostCause(const DiagnosisSignals& s) {
    HostCause best = HostCause::Code;
    for (HostCause c : {HostCause::Compilation, HostCause::Housekeeping, HostCause::GarbageCollection}) {
        if (hostCauseShare(s, c) > hostCauseShare(s, best)) {
            best = c;
        }
    }
    return best;
}

std::string_view describe(HostCause cause) {
    switch (cause) {
        case HostCause::Code:
            return "runs code that launches no GPU work";
        case HostCause::Compilation:
            return "compiles (torch.compile, Triton, nvFuser, JIT: a warm-up cost)";
        case HostCause::Housekeeping:
            return "saves checkpoints, logs or evaluates";
        case HostCause::GarbageCollection:
            return "runs the Python garbage collector";
    }
    return "runs code that launches no GPU work";
}

namespace {

// Each frame's share of the idle of its cause (a whole that contains it: at most 100 %).
std::string framesText(const std::vector<DiagnosisSignals::HostFrameShare>& frames, std::size_t maxFrames,
                       std::string_view whole) {
    if (frames.empty()) {
        return {};
    }
    const std::size_t shown = std::min(frames.size(), maxFrames);
    // Threads known only from their CPU use are no frames: a list of nothing else says so once.
    const bool threadsOnly =
        std::all_of(frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(shown),
                    [](const DiagnosisSignals::HostFrameShare& f) { return f.cpuUseOnly; });
    std::string out = std::string(threadsOnly ? "threads on the CPU" : "top frames by exclusive time") +
                      " (share of " + std::string(whole) + "): ";
    for (std::size_t i = 0; i < shown; ++i) {
        out += (i > 0 ? ", " : "") + frames[i].name +
               (frames[i].cpuUseOnly && !threadsOnly ? " on the CPU" : "") + " " +
               core::formatPercent(frames[i].shareOfCause);
    }
    return out;
}

}  // namespace

std::string hostFramesText(const DiagnosisSignals& s, std::size_t maxFrames) {
    return framesText(s.hostWorkFrames, maxFrames, "the GPU idle in host work");
}

double cpuUseOnlyHostWorkShare(const DiagnosisSignals& s) {
    double share = 0;
    for (const DiagnosisSignals::HostFrameShare& f : s.hostWorkFrames) {
        share += f.cpuUseOnly ? f.shareOfCause : 0;
    }
    return share;
}

bool hostCodeUnnamed(const DiagnosisSignals& s) {
    constexpr double kMostly = 0.5;
    return dominantHostCause(s) == HostCause::Code && sampledStacksText(s, isNotDataRole).empty() &&
           cpuUseOnlyHostWorkShare(s) >= kMostly;
}

std::string dataFramesText(const DiagnosisSignals& s, std::size_t maxFrames) {
    return framesText(s.dataWaitFrames, maxFrames, "the data wait");
}

bool isDataRole(std::string_view role) {
    return role == "input preparation" || role == "data loading";
}

bool isNotDataRole(std::string_view role) {
    return !isDataRole(role);
}

std::string sampledStacksText(const DiagnosisSignals& s, bool (*wanted)(std::string_view role),
                              std::size_t maxStacks) {
    std::string out;
    std::size_t shown = 0;
    for (const DiagnosisSignals::SampledStackShare& st : s.sampledStacks) {
        if (shown >= maxStacks || !wanted(st.role)) {
            continue;
        }
        out += (shown == 0 ? "sampled stacks in the GPU idle: " : "; ") + st.thread + ": " + st.path + " " +
               core::formatPercent(st.shareOfIdle) + " of GPU idle";
        ++shown;
    }
    return out;
}

double topSampledShare(const DiagnosisSignals& s, bool (*wanted)(std::string_view role)) {
    for (const DiagnosisSignals::SampledStackShare& st : s.sampledStacks) {
        if (wanted(st.role)) {
            return st.shareOfIdle;
        }
    }
    return 0;
}

std::string sampledFramesText(const DiagnosisSignals& s, std::size_t maxFrames) {
    std::string out;
    for (std::size_t i = 0; i < s.sampledFrames.size() && i < maxFrames; ++i) {
        const DiagnosisSignals::SampledFrameShare& f = s.sampledFrames[i];
        out += (i == 0 ? "sampled frames by share of GPU idle: " : ", ") + f.name + " " +
               core::formatPercent(f.inclusiveShareOfIdle) + " inclusive / " +
               core::formatPercent(f.exclusiveShareOfIdle) + " exclusive";
    }
    return out;
}

namespace {
constexpr double kMinorPart = 0.1;  // a part under a tenth of launch + sync idle is not named
}  // namespace

double overheadIdleNamed(const DiagnosisSignals& s) {
    const double launch = s.idleLaunchOverheadFraction;
    const double sync = s.idleSyncFraction;
    if (sync < kMinorPart * (launch + sync)) {
        return launch;
    }
    if (launch < kMinorPart * (launch + sync)) {
        return sync;
    }
    return launch + sync;
}

std::string overheadActivityText(const DiagnosisSignals& s) {
    const double launch = s.idleLaunchOverheadFraction;
    const double sync = s.idleSyncFraction;
    std::string text;
    if (sync < kMinorPart * (launch + sync)) {
        text = "launches work";
    } else if (launch < kMinorPart * (launch + sync)) {
        text = "waits in synchronizing calls";
    } else {
        text = "launches work (" + core::formatPercent(launch) + ") and waits in synchronizing calls (" +
               core::formatPercent(sync) + ")";
    }
    constexpr double kNamedAfterSync = 0.1;
    if (s.idleAfterSyncFraction >= kNamedAfterSync && !s.afterSyncCalls.empty()) {
        text += "; " + core::formatPercent(s.idleAfterSyncFraction) + " of the step idles right after " +
                s.afterSyncCalls.front().name + " returns";
    }
    return text;
}

std::string hostSplitText(const DiagnosisSignals& s) {
    return "code " + core::formatPercent(s.idleHostWorkFraction) + ", compilation " +
           core::formatPercent(s.idleCompilationFraction) + ", checkpointing/logging/evaluation " +
           core::formatPercent(s.idleHousekeepingFraction) + ", GC " + core::formatPercent(s.idleGcFraction);
}

}  // namespace chokepoint::analysis
