#pragma once
// The host-bound verdict's words: which host cause holds most of the host-bound idle (code that
// launches nothing, compilation, checkpointing/logging/evaluation, garbage collection), how to say
// it, and the frames that took the time. Shared by the classifier, the headline and the fixes so
// they name the same cause. Pure functions.

#include <string>
#include <string_view>

#include "core/analysis/diagnosis/DiagnosisSignals.h"

namespace chokepoint::analysis {

enum class HostCause { Code = 0, Compilation, Housekeeping, GarbageCollection };

// The host cause with the largest idle share (Code when all are zero).
HostCause dominantHostCause(const DiagnosisSignals& signals);
double hostCauseShare(const DiagnosisSignals& signals, HostCause cause);
// "runs code that launches no GPU work", "compiles (torch.compile / Triton / nvFuser)", ...
std::string_view describe(HostCause cause);
// "top frames by exclusive time: module.py(1743): _call_impl 12.0 %, ..." or "" without frames.
std::string hostFramesText(const DiagnosisSignals& signals, std::size_t maxFrames = 3);
// The share of the host-code idle known only from a thread's CPU use (HostFrameShare::cpuUseOnly):
// the thread was on a CPU, but no CPU op, Python stack or NVTX range says what it ran.
double cpuUseOnlyHostWorkShare(const DiagnosisSignals& signals);
// Host code holds the host-bound idle, no sampled stack names it, and at least half of it is known
// only from CPU use: the verdict and R15 say what would name it.
bool hostCodeUnnamed(const DiagnosisSignals& signals);
// The same for the data-wait idle: what the input pipeline ran while the GPU waited.
std::string dataFramesText(const DiagnosisSignals& signals, std::size_t maxFrames = 3);
// The sampled stacks that filled the GPU's idle (DiagnosisSignals::sampledStacks) whose role
// `wanted` accepts ("input preparation", "data loading", "optimizer", "other", ...): "sampled stacks
// in the GPU idle: main thread (python3, pid 5): _BaseDataLoaderIter.__next__ → … →
// RandomResizedCrop.forward 71.0 % of GPU idle", "" when none.
std::string sampledStacksText(const DiagnosisSignals& signals, bool (*wanted)(std::string_view role),
                              std::size_t maxStacks = 2);
// The share of GPU idle of the largest of those stacks (0 when none).
double topSampledShare(const DiagnosisSignals& signals, bool (*wanted)(std::string_view role));
bool isDataRole(std::string_view role);     // input preparation, data loading
bool isNotDataRole(std::string_view role);  // every other role
// "sampled frames by share of GPU idle: RandomResizedCrop.forward (transforms.py:980) 71.0 %
// inclusive / 40.0 % exclusive, ..." or "".
std::string sampledFramesText(const DiagnosisSignals& signals, std::size_t maxFrames = 3);
// What the host does in the launch-overhead idle, by the larger of its two parts: "launches work",
// "waits in synchronizing calls", or both with their shares when each holds a tenth or more; and,
// when a tenth of the step or more idles right after a synchronization, that share and the call.
std::string overheadActivityText(const DiagnosisSignals& signals);
// The idle share overheadActivityText's words describe: launch idle, sync idle or both (a part under a
// tenth of the two is not named, nor counted), so the headline's figure is the activity it names.
double overheadIdleNamed(const DiagnosisSignals& signals);
// "code 14.0 %, compilation 0.0 %, checkpointing/logging/evaluation 2.0 %, GC 0.0 %".
std::string hostSplitText(const DiagnosisSignals& signals);

}  // namespace chokepoint::analysis
