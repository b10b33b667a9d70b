// `chokepoint-cli info FILE [--json]`: what is in a trace — devices, ranks, time span, steps found
// by name, event counts per kind, TraceStats warnings — and says so when it has no GPU activity.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/Commands.h"
#include "app/cli/ExitCodes.h"
#include "app/cli/JobCommands.h"
#include "core/analysis/metrics/StepTimes.h"
#include "core/base/Format.h"
#include "core/base/JsonEscape.h"
#include "core/base/Progress.h"
#include "core/import/TraceLoader.h"

namespace chokepoint::cli {

namespace {

using namespace chokepoint::core;

constexpr const char* kInfoUsage =
    "Usage: chokepoint-cli info FILE [--format text|json]\n"
    "       chokepoint-cli info FILE FILE... | FOLDER | 'GLOB' [--format text|json]   (a job: its ranks)\n\n"
    "Prints what is in a trace: devices (name, SMs, memory, compute capability), ranks, time span,\n"
    "training steps and their time as `analyze` finds them (ProfilerStep#N, the helper's chokepoint:step#N\n"
    "or the capture's --marker, step-named ranges,\n"
    "optimizer markers, a repeating kernel sequence), event counts per kind and the warnings collected while "
    "loading.\n"
    "FILE may be PyTorch profiler / Kineto JSON (.json, .json.gz), an Nsight Systems SQLite\n"
    "export or a .cptrace file; the format is detected from the file's first bytes.\n\n"
    "  --format json   machine-readable output on stdout (--json is the same)\n\n"
    "Exit codes: 0 success, 1 unreadable or invalid FILE, 2 wrong arguments, 130 cancelled.\n";

// The steps as `analyze` finds them (core/analysis/metrics/StepDetection.h), with the step time
// every output shows (StepTimes.h), so `info` and `analyze` never disagree.
struct StepSummary {
    chokepoint::analysis::StepsResult steps;
    chokepoint::analysis::StepTimeSummary times;
    std::string firstName, lastName;
    bool found() const { return steps.source != chokepoint::analysis::StepSource::WholeTrace; }
};

StepSummary findSteps(const TraceModel& model) {
    StepSummary summary;
    summary.steps = chokepoint::analysis::detectSteps(model);
    summary.times = chokepoint::analysis::summarizeStepTimes(summary.steps);
    if (!summary.steps.steps.empty()) {
        summary.firstName = summary.steps.steps.front().name;
        summary.lastName = summary.steps.steps.back().name;
    }
    return summary;
}

std::size_t counterSamples(const TraceModel& model) {
    std::size_t n = 0;
    for (const CounterTrack& t : model.counters) {
        n += t.timesNs.size();
    }
    return n;
}

std::string deviceLine(const DeviceInfo& d) {
    std::string line =
        "GPU " + std::to_string(d.deviceIndex) + ": " + (d.name.empty() ? "(unnamed)" : d.name);
    std::vector<std::string> facts;
    if (d.smCount > 0) {
        facts.push_back(std::to_string(d.smCount) + (d.vendor == "AMD" ? " CUs" : " SMs"));
    }
    if (d.totalMemoryBytes > 0) {
        facts.push_back(formatBytes(static_cast<double>(d.totalMemoryBytes)));
    }
    if (d.computeMajor > 0) {
        facts.push_back("compute " + std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor));
    }
    if (!facts.empty()) {
        line += " (";
        for (std::size_t i = 0; i < facts.size(); ++i) {
            line += (i ? ", " : "") + facts[i];
        }
        line += ")";
    }
    return line;
}

void printText(const std::string& path, std::string_view format, const TraceModel& m) {
    std::printf("%s\n", path.c_str());
    std::printf("  format:      %.*s", static_cast<int>(format.size()), format.data());
    if (!m.metadata.sourceFormat.empty() && m.metadata.sourceFormat != format) {
        std::printf(" (originally %s)", m.metadata.sourceFormat.c_str());
    }
    if (m.metadata.synthetic) {
        std::printf(", synthetic (generated, not captured from a real job)");
    }
    std::printf("\n");
    if (!m.metadata.producer.empty()) {
        std::printf("  producer:    %s\n", m.metadata.producer.c_str());
    }
    if (!m.metadata.hostName.empty()) {
        std::printf("  host:        %s\n", m.metadata.hostName.c_str());
    }

    std::printf("\nDevices:\n");
    if (m.devices.empty()) {
        std::printf("  none recorded\n");
    }
    for (const DeviceInfo& d : m.devices) {
        std::printf("  %s\n", deviceLine(d).c_str());
    }

    std::printf("\nRanks:       ");
    if (m.distributed.present) {
        std::printf("rank %d of %d", m.distributed.rank, m.distributed.worldSize);
        if (!m.distributed.backend.empty()) {
            std::printf(" (%s)", m.distributed.backend.c_str());
        }
        std::printf("\n");
    } else {
        std::printf("no distributed info recorded (single process)\n");
    }

    TimeRange span = m.timeSpan();
    std::printf("Time span:   %s", formatDuration(span.durationNs()).c_str());
    if (!span.empty()) {
        std::printf(" (%lld ns to %lld ns on the trace clock)", static_cast<long long>(span.startNs),
                    static_cast<long long>(span.endNs));
    }
    std::printf("\n");

    StepSummary steps = findSteps(m);
    if (!steps.found()) {
        std::printf("Steps:       none found (%s)\n", steps.steps.note.c_str());
    } else {
        std::printf("Steps:       %zu from %s, %s .. %s; step time %s\n", steps.steps.steps.size(),
                    std::string(chokepoint::analysis::toString(steps.steps.source)).c_str(),
                    steps.firstName.c_str(), steps.lastName.c_str(),
                    chokepoint::analysis::describeStepTimes(steps.times).c_str());
        // How they were found, and what was not counted as a step (a part-step cut by the window's
        // end, the profiler stopping).
        std::printf("             found: %s\n", steps.steps.note.c_str());
    }

    std::printf("\nEvents:\n");
    auto row = [](const char* what, std::size_t n) {
        std::printf("  %-22s %12s\n", what, formatCount(static_cast<std::int64_t>(n)).c_str());
    };
    row("GPU kernels", m.kernels.size());
    row("memcpys", m.memcpys.size());
    row("memsets", m.memsets.size());
    row("CUDA API calls", m.apiCalls.size());
    row("synchronizations", m.syncs.size());
    row("ranges (NVTX/user)", m.ranges.size());
    row("CPU ops", m.cpuOps.size());
    row("counter samples", counterSamples(m));
    row("stack samples", m.stackSamples.size());
    row("threads", m.threads.size());
    row("GPU streams", m.streams.size());
    if (m.gpuEventCount() == 0) {
        std::printf("\nNo GPU activity: this trace has no kernels, memcpys or memsets.\n");
    }

    // What the recorder and the helper said about the window (Chokepoint captures: where the steps
    // came from, why the capture ended, what the GPU metrics decoder saw), or the trace's header.
    if (!m.metadata.notes.empty()) {
        std::printf("\nNotes:\n");
        for (const auto& [key, value] : m.metadata.notes) {
            std::printf("  %-28s %s\n", key.c_str(), value.c_str());
        }
    }

    std::printf("\nWarnings:\n");
    if (m.stats.empty()) {
        std::printf("  none\n");
    }
    for (const TraceStat& s : m.stats.entries()) {
        std::string_view severity = toString(s.severity);
        std::printf("  [%.*s] %s: %s%s%s\n", static_cast<int>(severity.size()), severity.data(),
                    s.name.c_str(), formatCount(s.count).c_str(), s.detail.empty() ? "" : " - ",
                    s.detail.c_str());
    }
}

void printJson(const std::string& path, std::string_view format, const TraceModel& m) {
    std::string out = "{\"file\":" + jsonString(path) + ",\"format\":" + jsonString(format);
    out += ",\"sourceFormat\":" + jsonString(m.metadata.sourceFormat);
    out += ",\"producer\":" + jsonString(m.metadata.producer);
    out += ",\"host\":" + jsonString(m.metadata.hostName);
    out += std::string(",\"synthetic\":") + (m.metadata.synthetic ? "true" : "false");
    out += ",\"devices\":[";
    for (std::size_t i = 0; i < m.devices.size(); ++i) {
        const DeviceInfo& d = m.devices[i];
        out += (i ? "," : "") + std::string("{\"index\":") + std::to_string(d.deviceIndex) +
               ",\"name\":" + jsonString(d.name) + ",\"vendor\":" + jsonString(d.vendor) +
               ",\"smCount\":" + std::to_string(d.smCount) +
               ",\"memoryBytes\":" + std::to_string(d.totalMemoryBytes) + ",\"computeCapability\":" +
               jsonString(d.computeMajor > 0
                              ? std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor)
                              : std::string()) +
               "}";
    }
    out += "],\"distributed\":";
    if (m.distributed.present) {
        out += "{\"rank\":" + std::to_string(m.distributed.rank) +
               ",\"worldSize\":" + std::to_string(m.distributed.worldSize) +
               ",\"backend\":" + jsonString(m.distributed.backend) + "}";
    } else {
        out += "null";
    }
    TimeRange span = m.timeSpan();
    out += ",\"timeSpan\":{\"startNs\":" + std::to_string(span.startNs) +
           ",\"endNs\":" + std::to_string(span.endNs) +
           ",\"durationNs\":" + std::to_string(span.durationNs()) + "}";
    StepSummary steps = findSteps(m);
    const std::int64_t stepCount = steps.found() ? steps.times.count : 0;
    auto ns = [](double v) { return std::to_string(std::llround(v)); };
    out += ",\"steps\":{\"count\":" + std::to_string(stepCount) + ",\"rule\":" +
           jsonString(steps.found() ? std::string(chokepoint::analysis::toString(steps.steps.source))
                                    : std::string()) +
           ",\"first\":" + jsonString(stepCount > 0 ? steps.firstName : std::string()) +
           ",\"last\":" + jsonString(stepCount > 0 ? steps.lastName : std::string()) +
           ",\"meanDurationNs\":" + ns(stepCount > 0 ? steps.times.meanNs : 0) +
           ",\"medianDurationNs\":" + ns(stepCount > 0 ? steps.times.medianNs : 0) +
           ",\"minDurationNs\":" + ns(stepCount > 0 ? steps.times.minNs : 0) +
           ",\"maxDurationNs\":" + ns(stepCount > 0 ? steps.times.maxNs : 0) +
           ",\"definition\":" + jsonString(chokepoint::analysis::describeStepTimes(steps.times)) +
           ",\"note\":" + jsonString(steps.steps.note) + "}";
    out += ",\"events\":{\"kernels\":" + std::to_string(m.kernels.size()) +
           ",\"memcpys\":" + std::to_string(m.memcpys.size()) +
           ",\"memsets\":" + std::to_string(m.memsets.size()) +
           ",\"apiCalls\":" + std::to_string(m.apiCalls.size()) +
           ",\"syncs\":" + std::to_string(m.syncs.size()) + ",\"ranges\":" + std::to_string(m.ranges.size()) +
           ",\"cpuOps\":" + std::to_string(m.cpuOps.size()) +
           ",\"counterSamples\":" + std::to_string(counterSamples(m)) +
           ",\"stackSamples\":" + std::to_string(m.stackSamples.size()) +
           ",\"threads\":" + std::to_string(m.threads.size()) +
           ",\"streams\":" + std::to_string(m.streams.size()) + "}";
    out += std::string(",\"gpuActivity\":") + (m.gpuEventCount() > 0 ? "true" : "false");
    out += ",\"stats\":[";
    for (std::size_t i = 0; i < m.stats.entries().size(); ++i) {
        const TraceStat& s = m.stats.entries()[i];
        out += (i ? "," : "") + std::string("{\"name\":") + jsonString(s.name) +
               ",\"severity\":" + jsonString(toString(s.severity)) + ",\"count\":" + std::to_string(s.count) +
               ",\"detail\":" + jsonString(s.detail) + "}";
    }
    // Capture notes (capture.*, model.*): what the recorder and the helper said about the window.
    out += "],\"notes\":[";
    for (std::size_t i = 0; i < m.metadata.notes.size(); ++i) {
        const auto& [key, value] = m.metadata.notes[i];
        out += (i ? "," : "") + std::string("{\"key\":") + jsonString(key) +
               ",\"value\":" + jsonString(value) + "}";
    }
    out += "]}\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
}

}  // namespace

int runInfo(const Args& args) {
    std::string path;
    std::vector<std::string> inputs;
    bool json = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "--help" || arg == "-h") {
            std::fputs(kInfoUsage, stdout);
            return kExitOk;
        }
        if (arg == "--json") {
            json = true;
        } else if (arg == "--format" || arg.rfind("--format=", 0) == 0) {
            // The same spelling as analyze and diff: --format text|json.
            std::string value;
            if (arg != "--format") {
                value = arg.substr(9);
            } else if (i + 1 < args.size()) {
                value = args[++i];
            }
            if (value != "text" && value != "json") {
                std::fprintf(stderr, "chokepoint-cli info: --format must be text or json\n\n%s", kInfoUsage);
                return kExitUsage;
            }
            json = value == "json";
        } else if (!arg.empty() && arg[0] == '-') {
            std::fprintf(stderr, "chokepoint-cli info: unknown option '%s'\n\n%s", arg.c_str(), kInfoUsage);
            return kExitUsage;
        } else {
            inputs.push_back(arg);
        }
    }
    if (isJobInvocation(inputs)) {
        return runInfoJob(inputs, json);
    }
    if (!inputs.empty()) {
        path = inputs.front();
    }
    if (path.empty()) {
        std::fprintf(stderr, "chokepoint-cli info: FILE is missing\n\n%s", kInfoUsage);
        return kExitUsage;
    }
    Result<TraceFormat> format = detectTraceFormat(path);
    if (!format) {
        std::fprintf(stderr, "chokepoint-cli info: %s\n", format.error().message.c_str());
        return kExitBadInput;
    }
    Result<TraceModel> model = loadTrace(path);
    if (!model) {
        std::fprintf(stderr, "chokepoint-cli info: %s\n", model.error().message.c_str());
        return model.error().message == kCancelledMessage ? kExitCancelled : kExitBadInput;
    }
    if (json) {
        printJson(path, toString(format.value()), model.value());
    } else {
        printText(path, toString(format.value()), model.value());
    }
    return kExitOk;
}

}  // namespace chokepoint::cli
