#pragma once
// A reference to one event row of a TraceModel table, with helpers to read its name and times.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/Time.h"
#include "core/model/TraceModel.h"

namespace chokepoint::timeline {

// StackSample: a sampled call stack (TraceModel::stackSamples), an instant on its thread.
enum class EventKind : std::uint8_t { Kernel, Memcpy, Memset, Range, CpuOp, ApiCall, StackSample };

struct EventRef {
    EventKind kind = EventKind::Kernel;
    std::uint32_t row = 0xFFFFFFFFu;

    bool valid() const { return row != 0xFFFFFFFFu; }
    bool operator==(const EventRef&) const = default;
};

std::string_view toString(EventKind kind);

// True when `ref` names an existing row of its table.
bool isValid(const core::TraceModel& model, EventRef ref);

// The event's display name: kernel, range, op or API name; "Memcpy HtoD" / "Memset" for copies; a
// stack sample's leaf function.
std::string eventName(const core::TraceModel& model, EventRef ref);
// The event's name as a string id when it has one (memcpy/memset have none: invalid id).
core::StringId eventNameId(const core::TraceModel& model, EventRef ref);
core::TimeRange eventTimes(const core::TraceModel& model, EventRef ref);  // a sample: [t, t]
// A stack sample's frames, leaf first, as "function (file:line)"; empty for any other event.
std::vector<std::string> stackSampleFrames(const core::TraceModel& model, EventRef ref);

}  // namespace chokepoint::timeline
