#include "core/model/CounterSemantics.h"

namespace chokepoint::core {

bool isThreadCpuTrack(const CounterTrack& track) {
    return track.deviceIndex < 0 && track.tid != 0 && track.unit == "%" && track.name == "CPU %";
}

bool sampleCoversPreviousInterval(const CounterTrack& track) {
    return isThreadCpuTrack(track);
}

}  // namespace chokepoint::core
