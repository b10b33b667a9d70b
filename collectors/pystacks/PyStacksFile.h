#pragma once
// Reads the .pystacks files the Python stack sampler writes (collectors/python/chokepoint_stacks.py):
// one JSON object per line, frames and stacks interned by id, samples on CLOCK_MONOTONIC. The
// files come from the job's processes and are untrusted: sizes are bounded, a bad line is skipped
// and counted, and the first problem is named with the file and line. No CUDA, no Qt.

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/Result.h"
#include "core/base/Time.h"

namespace chokepoint::collectors {

struct PyFrame {
    std::string file;
    std::string function;
    std::int32_t line = 0;
};

struct PySample {
    core::TimestampNs timeNs = 0;
    std::int64_t tid = 0;
    std::uint32_t stack = 0;
};

// What one Python process sampled.
struct PyStacksProcess {
    std::string path;
    std::int64_t pid = 0;
    std::int64_t ppid = 0;
    std::vector<std::string> argv;
    std::vector<PyFrame> frames;                                    // by id
    std::vector<std::vector<std::uint32_t>> stacks;                 // by id: frame ids, leaf first
    std::vector<PySample> samples;                                  // in file order (time order)
    std::vector<std::pair<std::int64_t, std::string>> threadNames;  // (tid, Python thread name)
    std::uint64_t droppedBySampler = 0;                             // the sampler's own count (file cap)
    std::uint64_t badLines = 0;                                     // lines skipped here
    std::string firstProblem;  // "FILE: line N: ..." of the first bad line
    bool ended = false;        // the process wrote its last line
};

struct PyStacksLimits {
    std::uint64_t maxFileBytes = 1ull << 30;
    std::size_t maxFrames = 1u << 20;
    std::size_t maxStacks = 1u << 21;
    std::size_t maxStackDepth = 512;
    std::size_t maxSamples = 50u << 20;
};

// Reads one file. An error only when the file cannot be read or its first line is not a
// .pystacks header; anything after it that does not parse is skipped and counted.
core::Result<PyStacksProcess> readPyStacksFile(const std::string& path, const PyStacksLimits& limits = {});

// Every *.pystacks file of a folder, unreadable ones skipped (their reasons in `problems`).
std::vector<PyStacksProcess> readPyStacksFolder(const std::string& folder, std::vector<std::string>* problems,
                                                const PyStacksLimits& limits = {});

// The processes among `all` that belong to `rootPid`: itself and its descendants by ppid.
std::vector<const PyStacksProcess*> processTree(const std::vector<PyStacksProcess>& all,
                                                std::int64_t rootPid);

}  // namespace chokepoint::collectors
