#include "collectors/pystacks/PyStacksMerge.h"

#include <filesystem>
#include <limits>
#include <set>
#include <unordered_map>

#include "core/format/CptraceReader.h"
#include "core/format/CptraceWriter.h"
#include "core/names/NameRules.h"

namespace chokepoint::collectors {

namespace {

std::string joined(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv) {
        out += (out.empty() ? "" : " ") + a;
    }
    return out;
}

bool hasProcess(const core::TraceModel& model, std::int64_t pid) {
    for (const auto& p : model.processes) {
        if (p.pid == pid) {
            return true;
        }
    }
    return false;
}

}  // namespace

PyStacksMerged addPyStacks(core::TraceModel& model, const std::vector<const PyStacksProcess*>& processes,
                           core::TimestampNs startNs, core::TimestampNs endNs) {
    PyStacksMerged merged;
    std::uint64_t badLines = 0, droppedBySampler = 0;
    std::string firstProblem;
    for (const PyStacksProcess* p : processes) {
        ++merged.processes;
        badLines += p->badLines;
        droppedBySampler += p->droppedBySampler;
        if (firstProblem.empty()) {
            firstProblem = p->firstProblem;
        }
        if (!hasProcess(model, p->pid)) {
            model.processes.push_back({p->pid, joined(p->argv)});
        }
        std::unordered_map<std::int64_t, std::string> names(p->threadNames.begin(), p->threadNames.end());
        std::unordered_map<std::int64_t, core::ThreadIndex> threads;
        // Frames and stacks of this file, interned in the model on first use.
        std::vector<core::FrameIndex> frameOf(p->frames.size(), std::numeric_limits<core::FrameIndex>::max());
        std::vector<core::StackIndex> stackOf(p->stacks.size(), std::numeric_limits<core::StackIndex>::max());
        std::vector<core::FrameIndex> ids;
        for (const PySample& s : p->samples) {
            if (s.timeNs < startNs || s.timeNs >= endNs) {
                ++merged.outsideWindow;
                continue;
            }
            if (stackOf[s.stack] == std::numeric_limits<core::StackIndex>::max()) {
                ids.clear();
                for (std::uint32_t f : p->stacks[s.stack]) {
                    if (frameOf[f] == std::numeric_limits<core::FrameIndex>::max()) {
                        const PyFrame& frame = p->frames[f];
                        frameOf[f] = model.internFrame(frame.file, frame.function, frame.line);
                    }
                    ids.push_back(frameOf[f]);
                }
                stackOf[s.stack] = model.internStack(ids);
            }
            auto t = threads.find(s.tid);
            if (t == threads.end()) {
                auto name = names.find(s.tid);
                t = threads
                        .emplace(s.tid,
                                 model.threadIndex(p->pid, s.tid, name != names.end() ? name->second : ""))
                        .first;
            }
            model.stackSamples.add({s.timeNs, t->second, stackOf[s.stack]});
            ++merged.samples;
        }
    }
    if (badLines > 0) {
        model.stats.add("pystacks.bad_lines", core::Severity::DataLoss, static_cast<std::int64_t>(badLines),
                        "lines of the Python stack sampler's files that could not be read were left out: " +
                            firstProblem);
    }
    if (droppedBySampler > 0) {
        model.stats.add("pystacks.dropped_samples", core::Severity::DataLoss,
                        static_cast<std::int64_t>(droppedBySampler),
                        "Python stack samples the sampler could not write (its file reached "
                        "CHOKEPOINT_PYSTACKS_MAX_MB, or the disk refused)");
    }
    return merged;
}

core::Result<PyStacksMerged> mergePyStacksIntoCapture(const std::string& tracePath,
                                                      const std::vector<PyStacksProcess>& all,
                                                      std::int64_t rootPid) {
    std::vector<const PyStacksProcess*> tree = processTree(all, rootPid);
    if (tree.empty()) {
        return PyStacksMerged{};
    }
    core::Result<core::TraceModel> read = core::readCptrace(tracePath);
    if (!read.ok()) {
        return read.error();
    }
    core::TraceModel& model = read.value();
    core::TimestampNs startNs = std::numeric_limits<core::TimestampNs>::min();
    core::TimestampNs endNs = std::numeric_limits<core::TimestampNs>::max();
    bool windowKnown = false;
    for (const auto& [key, value] : model.metadata.notes) {
        if (key == names::kCaptureWindowNote && value.find("..") != std::string::npos) {
            try {
                startNs = std::stoll(value.substr(0, value.find("..")));
                endNs = std::stoll(value.substr(value.find("..") + 2));
                windowKnown = true;
            } catch (const std::exception&) {
            }
        }
    }
    if (!windowKnown) {
        core::TimeRange span = model.timeSpan();
        startNs = span.startNs;
        endNs = span.endNs;
    }
    PyStacksMerged merged = addPyStacks(model, tree, startNs, endNs);
    model.metadata.notes.emplace_back("capture.python_stack_samples", std::to_string(merged.samples));
    const std::string temporary = tracePath + ".stacks.tmp";
    if (core::Status written = core::writeCptrace(model, temporary); !written.ok()) {
        std::filesystem::remove(temporary);
        return written.error();
    }
    std::error_code ec;
    std::filesystem::rename(temporary, tracePath, ec);
    if (ec) {
        std::filesystem::remove(temporary);
        return core::makeError(
            tracePath + ": could not be replaced with the version holding Python stacks: " + ec.message());
    }
    return merged;
}

core::Result<PyStacksMerged> writePyStacksCapture(const std::string& tracePath,
                                                  const std::vector<PyStacksProcess>& all,
                                                  const std::string& producer) {
    core::TraceModel model;
    model.metadata.sourceFormat = "cptrace";
    model.metadata.producer = producer;
    model.metadata.notes.emplace_back("capture.clock", "CLOCK_MONOTONIC");
    model.metadata.notes.emplace_back("capture.kinds", "python stacks only (the job never initialised CUDA)");
    std::vector<const PyStacksProcess*> everyone;
    for (const auto& p : all) {
        everyone.push_back(&p);
    }
    PyStacksMerged merged = addPyStacks(model, everyone, std::numeric_limits<core::TimestampNs>::min(),
                                        std::numeric_limits<core::TimestampNs>::max());
    model.metadata.notes.emplace_back("capture.python_stack_samples", std::to_string(merged.samples));
    model.finalize();
    if (core::Status written = core::writeCptrace(model, tracePath); !written.ok()) {
        return written.error();
    }
    return merged;
}

}  // namespace chokepoint::collectors
