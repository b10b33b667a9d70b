#pragma once
// Writes a TraceModel as Chrome trace-event JSON, which Perfetto UI (ui.perfetto.dev) and
// chrome://tracing open, in the PyTorch-profiler (Kineto) dialect so our own importer reads it back:
// - host events: pid/tid of their thread; cuda_runtime/cuda_driver API calls, cpu_op and
//   python_function ops, user_annotation ranges (NVTX ranges too, with "source": "NVTX").
// - GPU events: one process per GPU (pid = device ordinal, as Kineto does) with one thread per
//   stream (tid = stream id): kernel, gpu_memcpy, gpu_memset, gpu_user_annotation, cuda_sync.
// - "M" process/thread name events, "X" complete events with args (grid, block, bytes,
//   correlation, input shapes), "s"/"f" flow arrows (cat "ac2g", "bp": "e") from each launch
//   call to its GPU work, "C" counter events, plus top-level "deviceProperties" and
//   "distributedInfo".
// - stack samples: thread-scoped instant events ("ph":"i","s":"t", cat "python_stack_sample") on
//   the sampled thread, named after the leaf frame, the stack in args (see writeStackSamples for
//   why not "P" events).
// Timestamps and durations are microseconds with three decimals (exact nanoseconds). Negative
// durations are written as 0. Names are escaped (JsonEscape.h): the output is valid JSON and UTF-8
// whatever the trace holds. Non-finite counter values are left out (JSON has no NaN).

#include <functional>
#include <string>
#include <string_view>

#include "core/base/Result.h"
#include "core/model/TraceModel.h"

namespace chokepoint::core {

// Writes to `path` atomically (temporary file, then rename). A path ending in ".gz" is written
// gzip-compressed. Errors name the file.
Status exportChromeTrace(const TraceModel& model, const std::string& path);

// Streams the JSON to `sink` in pieces; stops and returns false when `sink` returns false.
bool writeChromeTrace(const TraceModel& model, const std::function<bool(std::string_view)>& sink);

// The whole JSON document in memory (tests, small traces).
std::string chromeTraceJson(const TraceModel& model);

}  // namespace chokepoint::core
