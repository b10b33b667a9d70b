// chokepoint-cli run: start a command with the agent recording from the start.

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "app/cli/CaptureArgs.h"
#include "app/cli/Commands.h"
#include "app/cli/ExitCodes.h"
#include "app/cli/JobStart.h"
#include "chokepoint/Version.h"
#include "collectors/control/AgentLauncher.h"
#include "collectors/control/RuntimeDir.h"
#include "collectors/pystacks/PyStacksMerge.h"

namespace chokepoint::cli {

namespace {

void printRunUsage(std::FILE* out) {
    std::fprintf(
        out,
        "Usage: chokepoint-cli run [--steps N | --duration S] [--at-step] [--marker TEXT]\n"
        "                          [--delay S] [--after-steps N]\n"
        "                          [--host-only | --gpu-metrics] [--graphs] [--kinds LIST]\n"
        "                          [--no-python-stacks] [--python-hz N]\n"
        "                          [-o FILE] -- COMMAND [ARGS...]\n\n"
        "Runs COMMAND with the Chokepoint agent and records every process that initialises CUDA,\n"
        "from its first CUDA call (or from the next step with --at-step) until the window ends or\n"
        "the process exits. Without --steps/--duration the whole run is recorded.\n"
        "  --delay S         start recording S seconds after the first CUDA call; until then the\n"
        "                    agent is dormant (start-up, compilation and autotuning run at full speed)\n"
        "  --after-steps N   start at the step that follows the first N\n"
        "  --kinds LIST      exactly these kinds: kernels,memory,api,sync,nvtx,host,overhead,\n"
        "                    graphs,gpu-metrics,python (python: the job's Python stacks)\n"
        "  --no-python-stacks  do not sample Python stacks (by default every Python process of the\n"
        "                    job, DataLoader workers included, samples its threads' stacks while it\n"
        "                    is recorded, through a sitecustomize hook on PYTHONPATH)\n"
        "  --python-hz N     Python stack samples per second (default 100)\n"
        "Steps (--steps, --at-step, --after-steps) come from NVTX step markers (ProfilerStep#,\n"
        "chokepoint_helper's, or --marker); in a job without them, from its repeating sequence of\n"
        "kernel launches (a step starts at each launch of the kernel that begins the sequence).\n"
        "A job that never initialises CUDA still gets a capture of its Python stacks.\n"
        "  -o FILE   output .cptrace (default chokepoint-run.cptrace); with several CUDA\n"
        "            processes each gets FILE's name plus its pid.\n");
}

// "dir/trace.cptrace" -> ("dir/trace.", ".cptrace")
std::pair<std::string, std::string> splitOutput(const std::string& out) {
    std::filesystem::path p(out);
    std::string ext = p.has_extension() ? p.extension().string() : std::string(".cptrace");
    std::string stem = (p.parent_path() / p.stem()).string();
    return {stem + ".", ext};
}

std::vector<std::string> recordedFiles(const std::string& prefix, const std::string& ext) {
    std::vector<std::string> out;
    std::filesystem::path dir = std::filesystem::path(prefix).parent_path();
    std::string namePrefix = std::filesystem::path(prefix).filename().string();
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec)) {
        std::string name = e.path().filename().string();
        if (name.size() <= namePrefix.size() + ext.size() ||
            name.compare(0, namePrefix.size(), namePrefix) != 0 ||
            name.compare(name.size() - ext.size(), ext.size(), ext) != 0) {
            continue;
        }
        std::string middle = name.substr(namePrefix.size(), name.size() - namePrefix.size() - ext.size());
        if (!middle.empty() && middle.find_first_not_of("0123456789") == std::string::npos) {
            out.push_back(e.path().string());
        }
    }
    return out;
}

}  // namespace

int runRun(const Args& args) {
    CaptureWindowArgs window;
    std::string output = "chokepoint-run.cptrace";
    PythonStacksArgs python;
    std::vector<std::string> command;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") {
            command.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
            break;
        }
        if (a == "--help" || a == "-h") {
            printRunUsage(stdout);
            return kExitOk;
        }
        std::string error;
        int consumed = parseWindowOption(args, i, window, &error);
        if (consumed < 0) {
            std::fprintf(stderr, "chokepoint-cli run: %s\n", error.c_str());
            return kExitUsage;
        }
        if (consumed > 0) {
            continue;
        }
        if ((a == "-o" || a == "--output") && i + 1 < args.size()) {
            output = args[++i];
            continue;
        }
        consumed = parsePythonStacksOption(args, i, python, &error);
        if (consumed < 0) {
            std::fprintf(stderr, "chokepoint-cli run: %s\n", error.c_str());
            return kExitUsage;
        }
        if (consumed > 0) {
            continue;
        }
        std::fprintf(stderr, "chokepoint-cli run: unexpected argument '%s' (the command goes after --)\n\n",
                     a.c_str());
        printRunUsage(stderr);
        return kExitUsage;
    }
    if (command.empty()) {
        std::fprintf(stderr, "chokepoint-cli run: no command given\n\n");
        printRunUsage(stderr);
        return kExitUsage;
    }
    core::Result<std::string> agent = collectors::findAgentLibrary(collectors::selfExecutablePath());
    if (!agent.ok()) {
        std::fprintf(stderr, "chokepoint-cli run: %s\n", agent.error().message.c_str());
        return kExitFailure;
    }
    auto [prefix, ext] = splitOutput(output);
    for (const auto& stale : recordedFiles(prefix, ext)) {
        std::filesystem::remove(stale);  // leftovers of an earlier run would be mistaken for ours
    }
    std::vector<std::pair<std::string, std::string>> extra = {
        {"CHOKEPOINT_RECORD_FILE", prefix + "%p" + ext},
        {"CHOKEPOINT_SOCKET_DIR", collectors::defaultRuntimeDir()},
    };
    if (window.steps > 0) {
        extra.emplace_back("CHOKEPOINT_RECORD_STEPS", std::to_string(window.steps));
    }
    if (window.durationMs > 0) {
        extra.emplace_back("CHOKEPOINT_RECORD_DURATION_MS", std::to_string(window.durationMs));
    }
    if (window.atStep) {
        extra.emplace_back("CHOKEPOINT_RECORD_AT_STEP", "1");
    }
    if (std::uint32_t kinds = captureKinds(window); kinds != 0) {
        extra.emplace_back("CHOKEPOINT_RECORD_KINDS", std::to_string(kinds));
    }
    if (!window.marker.empty()) {
        extra.emplace_back("CHOKEPOINT_RECORD_MARKER", window.marker);
    }
    if (window.delayMs > 0) {
        extra.emplace_back("CHOKEPOINT_RECORD_DELAY_MS", std::to_string(window.delayMs));
    }
    if (window.afterSteps > 0) {
        extra.emplace_back("CHOKEPOINT_RECORD_AFTER_STEPS", std::to_string(window.afterSteps));
    }
    // Python stacks: every Python process of the job samples its own threads (no code change).
    std::string stacksDir;
    if (python.enabled && capturesPythonStacks(window)) {
        core::Result<std::string> site = collectors::findPythonSiteFolder(collectors::selfExecutablePath());
        std::string tmpl = std::filesystem::temp_directory_path().string() + "/chokepoint-pystacks-XXXXXX";
        if (!site.ok()) {
            std::fprintf(stderr, "chokepoint-cli run: no Python stacks: %s\n", site.error().message.c_str());
        } else if (::mkdtemp(tmpl.data()) == nullptr) {
            std::fprintf(stderr, "chokepoint-cli run: no Python stacks: cannot create %s\n", tmpl.c_str());
        } else {
            stacksDir = tmpl;
            // From the start, unless the window starts later: then only while the agent records.
            const bool fromStart = window.delayMs == 0 && window.afterSteps == 0;
            for (auto& entry : collectors::pythonStacksEnvironment(
                     collectors::currentEnvironment(), site.value(), stacksDir, python.hz, fromStart)) {
                extra.push_back(std::move(entry));
            }
        }
    }
    // Ctrl-C reaches the child (same process group); we wait for it to finish writing.
    std::optional<StartedJob> job = startJobWithAgent("run", agent.value(), extra, command);
    if (!job) {
        return kExitFailure;
    }
    std::fprintf(stderr, "chokepoint-cli run: started %s (pid %d) with the agent %s\n", command[0].c_str(),
                 static_cast<int>(job->pid), agent.value().c_str());
    int status = waitForJob(*job);

    std::vector<std::string> files = recordedFiles(prefix, ext);
    std::vector<collectors::PyStacksProcess> stacks;
    if (!stacksDir.empty()) {
        std::vector<std::string> problems;
        stacks = collectors::readPyStacksFolder(stacksDir, &problems);
        for (const auto& problem : problems) {
            std::fprintf(stderr, "chokepoint-cli run: Python stacks: %s\n", problem.c_str());
        }
        std::error_code ec;
        std::filesystem::remove_all(stacksDir, ec);
        for (const auto& file : files) {
            std::string middle = file.substr(prefix.size(), file.size() - prefix.size() - ext.size());
            auto merged = collectors::mergePyStacksIntoCapture(file, stacks, std::stoll(middle));
            if (!merged.ok()) {
                std::fprintf(stderr, "chokepoint-cli run: Python stacks not added: %s\n",
                             merged.error().message.c_str());
            } else if (merged->samples > 0) {
                std::fprintf(stderr,
                             "chokepoint-cli run: %zu Python stack samples from %zu processes added to %s\n",
                             merged->samples, merged->processes, file.c_str());
            }
        }
    }
    if (files.empty() && !stacks.empty()) {
        // The job never initialised CUDA: what its Python processes did is still worth a capture.
        auto written =
            collectors::writePyStacksCapture(output, stacks, "chokepoint-cli " + std::string(kVersion));
        if (written.ok() && written->samples > 0) {
            std::fprintf(
                stderr,
                "chokepoint-cli run: %s exited with status %d without initialising CUDA; wrote %s with "
                "%zu Python stack samples of %zu processes (host only)\n",
                command[0].c_str(), status, output.c_str(), written->samples, written->processes);
            return kExitOk;
        }
    }
    if (files.empty()) {
        std::fprintf(stderr,
                     "chokepoint-cli run: %s exited with status %d and nothing was recorded: no process "
                     "initialised CUDA, so the agent was never loaded (or it refused; run with "
                     "CHOKEPOINT_AGENT_LOG=stderr to see why).\n",
                     command[0].c_str(), status);
        return kExitFailure;
    }
    if (files.size() == 1) {
        std::error_code ec;
        std::filesystem::rename(files[0], output, ec);
        if (ec) {
            std::fprintf(stderr, "chokepoint-cli run: cannot rename %s to %s: %s\n", files[0].c_str(),
                         output.c_str(), ec.message().c_str());
            return kExitFailure;
        }
        std::fprintf(stderr, "chokepoint-cli run: wrote %s (command exit status %d)\n", output.c_str(),
                     status);
    } else {
        std::fprintf(stderr, "chokepoint-cli run: %zu CUDA processes recorded (command exit status %d):\n",
                     files.size(), status);
        for (const auto& f : files) {
            std::fprintf(stderr, "  %s\n", f.c_str());
        }
    }
    return kExitOk;
}

}  // namespace chokepoint::cli
