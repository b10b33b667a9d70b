#pragma once
// Puts what the Python stack sampler recorded into a trace: the samples of a process and of its
// children (DataLoader workers) inside the capture's window become the model's stack samples, on
// the threads they were taken on. Used by chokepoint-cli run (after the job) and attach (after the
// window), and for a job that never used CUDA, to make a host-only capture of its stacks alone.

#include <cstdint>
#include <string>
#include <vector>

#include "collectors/pystacks/PyStacksFile.h"
#include "core/base/Result.h"
#include "core/model/TraceModel.h"

namespace chokepoint::collectors {

struct PyStacksMerged {
    std::size_t samples = 0;
    std::size_t processes = 0;
    std::size_t outsideWindow = 0;
};

// Adds the samples of `processes` whose time lies in [startNs, endNs) to `model` (frames and
// stacks interned, threads by (pid, tid) with the sampler's thread names), with a stat for
// anything lost on the way (bad lines, samples the sampler dropped).
PyStacksMerged addPyStacks(core::TraceModel& model, const std::vector<const PyStacksProcess*>& processes,
                           core::TimestampNs startNs, core::TimestampNs endNs);

// Rewrites the capture at `tracePath` with the samples of `rootPid`'s process tree inside its
// window (the capture.window_ns note; the trace's span without it).
core::Result<PyStacksMerged> mergePyStacksIntoCapture(const std::string& tracePath,
                                                      const std::vector<PyStacksProcess>& all,
                                                      std::int64_t rootPid);

// A capture of the samples alone, for a job that never initialised CUDA (run --host-only):
// every process of `all` whose parent is not among them is a root.
core::Result<PyStacksMerged> writePyStacksCapture(const std::string& tracePath,
                                                  const std::vector<PyStacksProcess>& all,
                                                  const std::string& producer);

}  // namespace chokepoint::collectors
