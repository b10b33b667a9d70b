#include "core/model/StackMerge.h"

#include <vector>

namespace chokepoint::core {

std::size_t mergeStackSamples(TraceModel& into, const TraceModel& from) {
    std::vector<FrameIndex> frameMap(from.stackFrames.size());
    for (std::size_t i = 0; i < from.stackFrames.size(); ++i) {
        const StackFrame& f = from.stackFrames[i];
        frameMap[i] = into.internFrame(from.text(f.file), from.text(f.function), f.line);
    }
    std::vector<StackIndex> stackMap(from.stackCount());
    std::vector<FrameIndex> frames;
    for (StackIndex s = 0; s < from.stackCount(); ++s) {
        frames.clear();
        for (FrameIndex f : from.stack(s)) {
            if (f < frameMap.size()) {
                frames.push_back(frameMap[f]);
            }
        }
        stackMap[s] = into.internStack(frames);
    }
    std::vector<ThreadIndex> threadMap(from.threads.size());
    for (std::size_t t = 0; t < from.threads.size(); ++t) {
        const ThreadInfo& info = from.threads[t];
        threadMap[t] = into.threadIndex(info.pid, info.tid, info.name);
        if (into.threads[threadMap[t]].name.empty()) {
            into.threads[threadMap[t]].name = info.name;
        }
    }
    std::size_t added = 0;
    into.stackSamples.reserve(into.stackSamples.size() + from.stackSamples.size());
    for (std::size_t i = 0; i < from.stackSamples.size(); ++i) {
        const StackSampleRow row = from.stackSamples.row(i);
        if (row.stack >= stackMap.size()) {
            continue;
        }
        const ThreadIndex thread = row.thread < threadMap.size() ? threadMap[row.thread] : kNoThread;
        into.stackSamples.add({row.timeNs, thread, stackMap[row.stack]});
        ++added;
    }
    return added;
}

}  // namespace chokepoint::core
