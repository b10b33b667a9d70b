#include "core/model/CounterSemantics.h"

#include <algorithm>

#include "core/base/Strings.h"

namespace chokepoint::core {

bool isThreadCpuTrack(const CounterTrack& track) {
    return track.deviceIndex < 0 && track.tid != 0 && track.unit == kThreadCpuUnit &&
           track.name == kThreadCpuTrack;
}

bool sampleCoversPreviousInterval(const CounterTrack& track) {
    return isThreadCpuTrack(track);
}

namespace {

// `lowerPart` (lower case) in `text`, ignoring ASCII case.
bool containsNoCase(std::string_view text, std::string_view lowerPart) {
    return std::search(text.begin(), text.end(), lowerPart.begin(), lowerPart.end(),
                       [](char a, char b) { return toLower(a) == b; }) != text.end();
}

}  // namespace

bool isDeviceMemoryLevelTrack(const CounterTrack& track) {
    if (track.deviceIndex < 0 || !containsNoCase(track.unit, "byte") ||
        track.name == kMemoryAllocatedChangeTrack) {
        return false;
    }
    return containsNoCase(track.name, "alloc") || containsNoCase(track.name, "reserved") ||
           containsNoCase(track.name, "memory used") || containsNoCase(track.name, "memory usage");
}

}  // namespace chokepoint::core
