#pragma once
// Shared option parsing of the collector commands (run, attach): the capture window.
//   --steps N      stop after N training steps (steps come from NVTX step markers)
//   --duration S   stop after S seconds (decimals allowed)
//   --at-step      start at the next step boundary instead of at once
//   --marker TEXT  NVTX name prefix that marks a step (default: ProfilerStep#, chokepoint:step, step)
//   --host-only    record host CPU and NVTX only, no CUPTI (jobs where CUPTI is unavailable)
//   --graphs       one record per CUDA graph launch (CUPTI GRAPH_TRACE; cheaper for many-node graphs,
//                  whether node kernel records stop is to be confirmed on a GPU)
//   --gpu-metrics  also sample GPU metrics (CUPTI PM sampling: DRAM, SM, tensor activity); needs
//                  GPU counter access (else the trace says why they are missing)
//   --delay S      stay dormant (CUPTI off) for S seconds first: skips start-up, compilation and
//                  autotuning at full speed
//   --after-steps N  stay dormant until N steps have passed, then start at the next one (steps are
//                    step markers, or in a job without them the repetitions of its kernel launches)
//   --kinds LIST   exactly these record kinds, comma-separated: kernels, memory, api, sync, nvtx,
//                  host, overhead, graphs, gpu-metrics, python (for a leaner capture, or to measure
//                  what each kind costs; python: the job's Python stack samples)

#include <cstdint>
#include <cstdlib>
#include <string>

#include "app/cli/Commands.h"

namespace chokepoint::cli {

struct CaptureWindowArgs {
    std::uint32_t steps = 0;
    std::uint64_t durationMs = 0;
    bool atStep = false;
    bool hostOnly = false;
    bool gpuMetrics = false;
    bool graphs = false;
    std::string marker;
    std::uint32_t kinds = 0;  // --kinds: CaptureKind bits; 0 = from the options above
    std::uint64_t delayMs = 0;
    std::uint32_t afterSteps = 0;
};

// CaptureKind bits (control.proto) by the names --kinds takes; 0 for an unknown name.
inline std::uint32_t captureKindBit(const std::string& name) {
    if (name == "kernels")
        return 1;
    if (name == "memory")
        return 2;
    if (name == "api")
        return 4;
    if (name == "sync")
        return 8;
    if (name == "nvtx")
        return 16;
    if (name == "host")
        return 32;
    if (name == "gpu-metrics")
        return 64;
    if (name == "graphs")
        return 128;
    if (name == "overhead")
        return 256;
    if (name == "python")
        return 512;
    return 0;
}

// Consumes the window option at args[i] (and its value). Returns 1 when consumed, 0 when args[i]
// is not a window option, -1 on a bad value (with *error set).
inline int parseWindowOption(const Args& args, std::size_t& i, CaptureWindowArgs& out, std::string* error) {
    const std::string& a = args[i];
    auto value = [&](const char* name) -> const std::string* {
        if (i + 1 >= args.size()) {
            *error = std::string(name) + " needs a value";
            return nullptr;
        }
        return &args[++i];
    };
    if (a == "--steps") {
        const std::string* v = value("--steps");
        if (v == nullptr) {
            return -1;
        }
        char* end = nullptr;
        long n = std::strtol(v->c_str(), &end, 10);
        if (*end != '\0' || n <= 0 || n > 1000000) {
            *error = "--steps takes a positive whole number, not '" + *v + "'";
            return -1;
        }
        out.steps = static_cast<std::uint32_t>(n);
        return 1;
    }
    if (a == "--duration") {
        const std::string* v = value("--duration");
        if (v == nullptr) {
            return -1;
        }
        char* end = nullptr;
        double s = std::strtod(v->c_str(), &end);
        if (*end != '\0' || !(s > 0) || s > 86400) {
            *error = "--duration takes seconds (> 0), not '" + *v + "'";
            return -1;
        }
        out.durationMs = static_cast<std::uint64_t>(s * 1000.0 + 0.5);
        return 1;
    }
    if (a == "--delay") {
        const std::string* v = value("--delay");
        if (v == nullptr) {
            return -1;
        }
        char* end = nullptr;
        double s = std::strtod(v->c_str(), &end);
        if (*end != '\0' || !(s >= 0) || s > 86400) {
            *error = "--delay takes seconds (>= 0), not '" + *v + "'";
            return -1;
        }
        out.delayMs = static_cast<std::uint64_t>(s * 1000.0 + 0.5);
        return 1;
    }
    if (a == "--after-steps") {
        const std::string* v = value("--after-steps");
        if (v == nullptr) {
            return -1;
        }
        char* end = nullptr;
        long n = std::strtol(v->c_str(), &end, 10);
        if (*end != '\0' || n <= 0 || n > 4095) {
            *error = "--after-steps takes a whole number from 1 to 4095, not '" + *v + "'";
            return -1;
        }
        out.afterSteps = static_cast<std::uint32_t>(n);
        return 1;
    }
    if (a == "--at-step") {
        out.atStep = true;
        return 1;
    }
    if (a == "--graphs") {
        out.graphs = true;
        return 1;
    }
    if (a == "--gpu-metrics") {
        out.gpuMetrics = true;
        return 1;
    }
    if (a == "--host-only") {
        out.hostOnly = true;
        return 1;
    }
    if (a == "--kinds") {
        const std::string* v = value("--kinds");
        if (v == nullptr) {
            return -1;
        }
        std::uint32_t bits = 0;
        std::size_t from = 0;
        while (from <= v->size()) {
            std::size_t comma = v->find(',', from);
            std::string name = v->substr(from, comma == std::string::npos ? std::string::npos : comma - from);
            std::uint32_t bit = captureKindBit(name);
            if (bit == 0) {
                *error = "--kinds: unknown kind '" + name +
                         "' (kernels, memory, api, sync, nvtx, host, overhead, graphs, gpu-metrics, python)";
                return -1;
            }
            bits |= bit;
            if (comma == std::string::npos) {
                break;
            }
            from = comma + 1;
        }
        out.kinds = bits;
        return 1;
    }
    if (a == "--marker") {
        const std::string* v = value("--marker");
        if (v == nullptr) {
            return -1;
        }
        out.marker = *v;
        return 1;
    }
    return 0;
}

// --no-python-stacks and --python-hz N (run, launch): the Python stack sampler's options.
struct PythonStacksArgs {
    bool enabled = true;
    int hz = 100;
};

// Consumes a Python stacks option at args[i] like parseWindowOption: 1 consumed, 0 not one, -1 bad.
inline int parsePythonStacksOption(const Args& args, std::size_t& i, PythonStacksArgs& out,
                                   std::string* error) {
    if (args[i] == "--no-python-stacks") {
        out.enabled = false;
        return 1;
    }
    if (args[i] != "--python-hz" || i + 1 >= args.size()) {
        return 0;
    }
    char* end = nullptr;
    long hz = std::strtol(args[++i].c_str(), &end, 10);
    if (*end != '\0' || hz < 1 || hz > 1000) {
        *error = "--python-hz takes 1 to 1000 samples per second, not '" + args[i] + "'";
        return -1;
    }
    out.hz = static_cast<int>(hz);
    return 1;
}

// CaptureKind bits (control.proto) for the options: 0 = the agent's defaults.
inline std::uint32_t captureKinds(const CaptureWindowArgs& w) {
    constexpr std::uint32_t kHostAndNvtx = 16 | 32 | 512;  // NVTX | HOST | PYTHON_STACKS
    constexpr std::uint32_t kDefaults =
        1 | 2 | 4 | 8 | kHostAndNvtx | 256;  // + KERNELS MEMORY API SYNC OVERHEAD
    constexpr std::uint32_t kGpuMetrics = 64;
    constexpr std::uint32_t kGraphs = 128;
    if (w.kinds != 0) {
        return w.kinds;
    }
    if (w.hostOnly) {
        return kHostAndNvtx;
    }
    if (!w.gpuMetrics && !w.graphs) {
        return 0;
    }
    return kDefaults | (w.gpuMetrics ? kGpuMetrics : 0) | (w.graphs ? kGraphs : 0);
}

// Whether the job's Python processes sample their stacks in this window: by default yes; with
// --kinds only when the list names python.
inline bool capturesPythonStacks(const CaptureWindowArgs& w) {
    const std::uint32_t kinds = captureKinds(w);
    return kinds == 0 || (kinds & captureKindBit("python")) != 0;
}

}  // namespace chokepoint::cli
