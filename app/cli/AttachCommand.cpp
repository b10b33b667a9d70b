// chokepoint-cli attach: record a window from a process that runs with a dormant agent.

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "app/cli/CaptureArgs.h"
#include "app/cli/Commands.h"
#include "app/cli/ExitCodes.h"
#include "collectors/control/ControlClient.h"
#include "collectors/control/RuntimeDir.h"
#include "collectors/pystacks/PyStacksMerge.h"

namespace chokepoint::cli {

namespace {

std::atomic<bool> g_interrupted{false};

void onInterrupt(int) {
    g_interrupted.store(true);
}

void printAttachUsage(std::FILE* out) {
    std::fprintf(
        out,
        "Usage: chokepoint-cli attach PID [--steps N | --duration S] [--at-step] [--marker TEXT]\n"
        "                             [--delay S] [--after-steps N] [--host-only | --gpu-metrics]\n"
        "                             [--graphs] [--kinds LIST] -o FILE [--socket-dir DIR]\n\n"
        "Records a window from process PID, which must run with the Chokepoint agent\n"
        "(`chokepoint-cli launch -- COMMAND`). Without --steps/--duration it records until Ctrl-C.\n"
        "Steps are counted from NVTX ranges or marks (ProfilerStep#N, chokepoint:step, step) or, in a\n"
        "job without them, from its repeating sequence of kernel launches.\n"
        "--delay S and --after-steps N wait that long, or that many steps, before recording (the agent\n"
        "stays dormant meanwhile); --kinds takes kernels,memory,api,sync,nvtx,host,overhead,graphs,\n"
        "gpu-metrics,python (python: the stacks of the job's Python processes, sampled while the\n"
        "window records).\n");
}

// The Python stacks the job's processes sampled during the window (chokepoint-cli launch asks for
// them; they wait in <socket dir>/pystacks-<launch pid>/).
void addPythonStacks(const std::string& socketDir, long pid, const std::string& output) {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));  // the samplers write every 0.2 s
    std::vector<collectors::PyStacksProcess> all;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(socketDir, ec)) {
        if (entry.is_directory(ec) && entry.path().filename().string().rfind("pystacks-", 0) == 0) {
            for (auto& p : collectors::readPyStacksFolder(entry.path().string(), nullptr)) {
                all.push_back(std::move(p));
            }
        }
    }
    if (all.empty()) {
        return;
    }
    auto merged = collectors::mergePyStacksIntoCapture(output, all, pid);
    if (!merged.ok()) {
        std::fprintf(stderr, "  Python stacks not added: %s\n", merged.error().message.c_str());
    } else if (merged->samples > 0) {
        std::fprintf(stderr, "  %zu Python stack samples from %zu processes added\n", merged->samples,
                     merged->processes);
    }
}

std::string commandLineOf(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
    std::string arg, line;
    while (std::getline(in, arg, '\0')) {
        line += (line.empty() ? "" : " ") + arg;
    }
    return line;
}

bool writeAllTo(int fd, const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return false;
        }
        done += static_cast<std::size_t>(w);
    }
    return true;
}

std::string humanBytes(std::uint64_t n) {
    char buf[32];
    if (n >= (1u << 20)) {
        std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(n) / (1 << 20));
    } else {
        std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(n) / 1024);
    }
    return buf;
}

}  // namespace

int runAttach(const Args& args) {
    CaptureWindowArgs window;
    std::string output;
    std::string dir = collectors::defaultRuntimeDir();
    long pid = -1;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            printAttachUsage(stdout);
            return kExitOk;
        }
        std::string error;
        int consumed = parseWindowOption(args, i, window, &error);
        if (consumed < 0) {
            std::fprintf(stderr, "chokepoint-cli attach: %s\n", error.c_str());
            return kExitUsage;
        }
        if (consumed > 0) {
            continue;
        }
        if ((a == "-o" || a == "--output") && i + 1 < args.size()) {
            output = args[++i];
        } else if (a == "--socket-dir" && i + 1 < args.size()) {
            dir = args[++i];
        } else if (pid < 0 && !a.empty() && a.find_first_not_of("0123456789") == std::string::npos &&
                   a.size() < 10) {
            pid = std::stol(a);
        } else {
            std::fprintf(stderr, "chokepoint-cli attach: unexpected argument '%s'\n\n", a.c_str());
            printAttachUsage(stderr);
            return kExitUsage;
        }
    }
    if (pid <= 0 || output.empty()) {
        std::fprintf(stderr, "chokepoint-cli attach: %s\n\n",
                     pid <= 0 ? "which PID?" : "-o FILE is required");
        printAttachUsage(stderr);
        return kExitUsage;
    }
    std::string socket = collectors::socketPathFor(dir, pid);
    std::error_code ec;
    if (socket.empty() || !std::filesystem::exists(socket, ec)) {
        bool alive = ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
        if (!alive) {
            std::fprintf(stderr, "chokepoint-cli attach: no process %ld\n", pid);
            return kExitNotFound;
        }
        std::string cmd = commandLineOf(pid);
        std::fprintf(stderr,
                     "chokepoint-cli attach: process %ld runs without the Chokepoint agent (no socket %s).\n"
                     "There is no safe way to load CUPTI into a process that is already running. Restart it\n"
                     "with the agent loaded but dormant, then attach whenever you want:\n"
                     "  chokepoint-cli launch -- %s\n"
                     "(If it is a launcher such as torchrun, the CUDA processes are its children: see "
                     "`chokepoint-cli list`.)\n",
                     pid, socket.c_str(), cmd.empty() ? "COMMAND ARGS..." : cmd.c_str());
        return kExitNotFound;
    }
    auto client = collectors::ControlClient::connect(socket);
    if (!client.ok()) {
        std::fprintf(stderr, "chokepoint-cli attach: %s\n", client.error().message.c_str());
        return kExitNotFound;
    }
    auto status = client->hello("chokepoint-cli attach");
    if (!status.ok()) {
        std::fprintf(stderr, "chokepoint-cli attach: %s\n", status.error().message.c_str());
        return kExitFailure;
    }
    std::string gpu = status->gpu_names_size() > 0 ? status->gpu_names(0) : "GPU not yet known";
    std::fprintf(stderr, "attached to pid %ld (%s, %s)\n", pid,
                 status->command_line_size() > 0 ? status->command_line(0).c_str() : "?", gpu.c_str());

    control::StartCapture request;
    request.set_steps(window.steps);
    request.set_duration_ms(window.durationMs);
    request.set_start_at_next_step(window.atStep);
    request.set_step_marker(window.marker);
    request.set_kinds(captureKinds(window));
    request.set_delay_ms(window.delayMs);
    request.set_after_steps(window.afterSteps);
    if (core::Status sent = client->startCapture(request); !sent.ok()) {
        std::fprintf(stderr, "chokepoint-cli attach: %s\n", sent.error().message.c_str());
        return kExitFailure;
    }
    int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        std::fprintf(stderr, "chokepoint-cli attach: %s: %s\n", output.c_str(), std::strerror(errno));
        (void)client->stopCapture();
        return kExitFailure;
    }
    struct sigaction handler {
    }, oldInt{}, oldTerm{};
    handler.sa_handler = &onInterrupt;
    ::sigaction(SIGINT, &handler, &oldInt);
    ::sigaction(SIGTERM, &handler, &oldTerm);
    const bool tty = ::isatty(2) != 0;
    auto started = std::chrono::steady_clock::now();
    auto lastShown = started;
    std::uint64_t bytes = 0;
    std::int64_t records = 0;
    bool stopSent = false;
    int rc = kExitOk;
    control::CaptureDone done;
    bool finished = false;
    std::fprintf(stderr, "%s\n",
                 window.steps > 0 || window.durationMs > 0 ? "recording..." : "recording until Ctrl-C...");
    while (!finished) {
        if (g_interrupted.load() && !stopSent) {
            (void)client->stopCapture();
            stopSent = true;
            std::fprintf(stderr, "%sstopping, waiting for the last records...\n", tty ? "\n" : "");
        }
        auto message = client->next(1000);
        if (!message.ok()) {
            if (message.error().message.find("timed out") != std::string::npos) {
                continue;  // an idle window (waiting for the first step, or a quiet job)
            }
            std::fprintf(stderr, "%schokepoint-cli attach: the agent stopped answering: %s\n",
                         tty ? "\n" : "", message.error().message.c_str());
            rc = kExitFailure;
            break;
        }
        if (message->has_error()) {
            std::fprintf(stderr, "%schokepoint-cli attach: the agent refused: %s\n", tty ? "\n" : "",
                         message->error().text().c_str());
            rc = kExitFailure;
            break;
        }
        if (message->has_chunk()) {
            if (!writeAllTo(fd, message->chunk().data())) {
                std::fprintf(stderr, "chokepoint-cli attach: writing %s failed: %s\n", output.c_str(),
                             std::strerror(errno));
                (void)client->stopCapture();
                rc = kExitFailure;
                break;
            }
            bytes += message->chunk().data().size();
            records += message->chunk().records();
        } else if (message->has_capture_done()) {
            done = message->capture_done();
            finished = true;
        }
        auto now = std::chrono::steady_clock::now();
        if (tty && now - lastShown > std::chrono::milliseconds(250)) {
            double s = std::chrono::duration<double>(now - started).count();
            std::fprintf(stderr, "\r  %.1f s  %lld records  %s   ", s, static_cast<long long>(records),
                         humanBytes(bytes).c_str());
            lastShown = now;
        }
    }
    ::sigaction(SIGINT, &oldInt, nullptr);
    ::sigaction(SIGTERM, &oldTerm, nullptr);
    ::close(fd);
    if (!finished) {
        std::fprintf(stderr, "%s: incomplete (%s written)\n", output.c_str(), humanBytes(bytes).c_str());
        return rc;
    }
    std::fprintf(stderr,
                 "%s%s: %s\n  window %.3f s, %lld steps, %lld kernels, %lld API calls, %lld ranges, "
                 "%lld dropped records, %s\n",
                 tty ? "\n" : "", output.c_str(), done.message().c_str(),
                 static_cast<double>(done.duration_ns()) / 1e9, static_cast<long long>(done.steps()),
                 static_cast<long long>(done.kernels()), static_cast<long long>(done.api_calls()),
                 static_cast<long long>(done.ranges()), static_cast<long long>(done.dropped_records()),
                 humanBytes(bytes).c_str());
    if (done.dropped_records() > 0) {
        std::fprintf(stderr, "  warning: records were dropped; the trace has gaps (see its warnings)\n");
    }
    addPythonStacks(dir, pid, output);
    return done.ok() ? kExitOk : kExitFailure;
}

}  // namespace chokepoint::cli
