// chokepoint-cli doctor: what a user runs on a training node before a capture. Each check prints
// one line, "ok", "PROBLEM" (with the fix on the next line) or "skipped" (with why it could not be
// checked, e.g. without a GPU); the exit status is 0 when nothing is a problem.

#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/Commands.h"
#include "app/cli/ExitCodes.h"
#include "chokepoint/BuildId.h"
#include "chokepoint/Version.h"
#include "collectors/control/AgentLauncher.h"
#include "collectors/control/AgentLoadCheck.h"
#include "collectors/control/CuptiSearch.h"
#include "collectors/control/RuntimeDir.h"

namespace chokepoint::cli {

namespace {

enum class Verdict { Ok, Problem, Skipped };

struct Check {
    Verdict verdict;
    std::string name;
    std::string detail;
    std::string fix;  // for problems
};

// The first CUDA 13 CUPTI API version without the capture-stop deadlock (13.0 Update 1).
constexpr unsigned kMinCuptiVersion = 130001;
// The spill cap's default (CHOKEPOINT_SPILL_MB=4096): less free space than this may cut a capture.
constexpr unsigned long long kSpillBytes = 4ull << 30;

std::string readFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string firstLine(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

std::string envOr(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr ? std::string(v) : std::string();
}

// Output of a short command run through the shell (the job's python), or "" when it failed.
std::string commandOutput(const std::string& command) {
    std::FILE* p = ::popen(command.c_str(), "r");
    if (p == nullptr) {
        return {};
    }
    std::string out;
    std::array<char, 512> buffer{};
    while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), p) != nullptr) {
        out += buffer.data();
    }
    int status = ::pclose(p);
    if (status != 0) {
        return {};
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) {
        out.pop_back();
    }
    return out;
}

std::string shellQuote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

Check checkDriver(bool* haveDriver) {
    std::string version = firstLine(readFile("/proc/driver/nvidia/version"));
    *haveDriver = !version.empty();
    if (version.empty()) {
        return {
            Verdict::Problem, "NVIDIA driver",
            "not loaded (/proc/driver/nvidia/version is missing): no GPU can be recorded on this machine",
            "run the doctor on the training node, or install the NVIDIA driver (580 or newer for CUDA 13)"};
    }
    return {Verdict::Ok, "NVIDIA driver", version, {}};
}

Check checkCudaDriverVersion() {
    void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (cuda == nullptr) {
        return {Verdict::Skipped,
                "CUDA driver API",
                "libcuda.so.1 cannot be loaded here: cannot check without a GPU driver",
                {}};
    }
    using GetVersion = int (*)(int*);
    auto get = reinterpret_cast<GetVersion>(::dlsym(cuda, "cuDriverGetVersion"));
    int version = 0;
    bool ok = get != nullptr && get(&version) == 0;
    ::dlclose(cuda);
    if (!ok) {
        return {Verdict::Problem, "CUDA driver API", "cuDriverGetVersion failed",
                "reinstall the NVIDIA driver"};
    }
    std::string text = std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
    if (version < 13000) {
        return {Verdict::Problem, "CUDA driver API", "supports CUDA " + text + ", the agent needs CUDA 13",
                "update the NVIDIA driver to a CUDA 13 driver (580 or newer)"};
    }
    return {Verdict::Ok, "CUDA driver API", "supports CUDA " + text, {}};
}

// The job's torch: its site-packages, or "" (with `why`).
std::string torchSitePackages(const std::string& python, std::string* why) {
    std::string dir =
        commandOutput(shellQuote(python) +
                      " -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))'"
                      " 2>/dev/null");
    if (dir.empty()) {
        *why = python + " cannot import torch";
    }
    return dir;
}

Check checkCupti(const std::string& site) {
    std::vector<std::string> mapped;
    if (!site.empty()) {
        mapped.push_back(site + "/torch/lib/libtorch.so");
    }
    std::vector<std::string> candidates = collectors::cuptiCandidates(
        envOr("CHOKEPOINT_CUPTI_PATH"), mapped, {envOr("CUDA_HOME"), envOr("CUDA_PATH"), "/usr/local/cuda"});
    std::string tried;
    for (const std::string& candidate : candidates) {
        void* lib = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (lib == nullptr) {
            const char* e = ::dlerror();
            tried += "\n    " + candidate + ": " + (e != nullptr ? e : "not loadable");
            continue;
        }
        using GetVersion = int (*)(unsigned*);
        auto get = reinterpret_cast<GetVersion>(::dlsym(lib, "cuptiGetVersion"));
        unsigned version = 0;
        Dl_info info{};
        std::string path = candidate;
        if (get != nullptr && ::dladdr(reinterpret_cast<void*>(get), &info) != 0 &&
            info.dli_fname != nullptr) {
            path = info.dli_fname;
        }
        bool ok = get != nullptr && get(&version) == 0;
        if (!ok) {
            return {Verdict::Problem, "CUPTI", path + ": cuptiGetVersion failed", "reinstall CUPTI"};
        }
        std::string detail = path + ", API version " + std::to_string(version);
        if (version < kMinCuptiVersion) {
            return {Verdict::Problem, "CUPTI",
                    detail + " (older than 13.0 Update 1: can hang at capture stop)",
                    "pip install -U nvidia-cuda-cupti (13.0 Update 1 or newer), or point "
                    "CHOKEPOINT_CUPTI_PATH at one"};
        }
        std::string folder = std::filesystem::path(path).parent_path().string();
        if (!std::filesystem::exists(folder + "/libnvperf_host.so")) {
            return {Verdict::Problem, "CUPTI",
                    detail + "; libnvperf_host.so is not beside it (GPU metrics need it)",
                    "add the folder that holds libnvperf_host.so to LD_LIBRARY_PATH, or capture without "
                    "--gpu-metrics"};
        }
        if (version / 100 > kMinCuptiVersion / 100) {
            detail +=
                " (a newer 13.x than the agent's 13.0 build: the agent refuses it unless "
                "CHOKEPOINT_ALLOW_NEWER_CUPTI=1)";
        }
        return {Verdict::Ok, "CUPTI", detail, {}};
    }
    return {Verdict::Problem, "CUPTI", "libcupti.so.13 not found; tried:" + tried,
            "pip install nvidia-cuda-cupti in the job's environment, or set CHOKEPOINT_CUPTI_PATH"};
}

Check checkAgent(const std::string& python) {
    core::Result<std::string> agent = collectors::findAgentLibrary(collectors::selfExecutablePath());
    if (!agent.ok()) {
        return {Verdict::Problem, "agent", agent.error().message,
                "build with the CUDA toolkit or set CHOKEPOINT_AGENT_PATH"};
    }
    auto env = collectors::injectionEnvironment(collectors::currentEnvironment(), agent.value(), {});
    if (!env.ok()) {
        return {Verdict::Problem, "agent", env.error().message, "unset CUDA_INJECTION64_PATH"};
    }
    collectors::AgentLoadReport load = collectors::checkAgentLoads(agent.value(), env.value());
    if (!load.checked) {
        return {Verdict::Skipped, "agent", "no dynamic loader to ask on this system", {}};
    }
    if (!load.loads) {
        return {
            Verdict::Problem, "agent", agent.value() + " does not load with this environment:" + load.details,
            "install the missing libraries, or add their folder to LD_LIBRARY_PATH before running the job"};
    }
    return {Verdict::Ok,
            "agent",
            agent.value() + " loads with this environment (the one " + python + " runs the job with)",
            {}};
}

Check checkCounterPermission(bool haveDriver) {
    if (!haveDriver) {
        return {Verdict::Skipped,
                "performance counters",
                "cannot check without a GPU driver (NVreg_RestrictProfilingToAdminUsers; needed by "
                "--gpu-metrics)",
                {}};
    }
    std::string params = readFile("/proc/driver/nvidia/params");
    bool adminOnly = params.find("RmProfilingAdminOnly: 1") != std::string::npos;
    if (adminOnly && ::geteuid() != 0) {
        return {
            Verdict::Problem, "performance counters",
            "restricted to administrators (NVreg_RestrictProfilingToAdminUsers=1): --gpu-metrics will be "
            "refused",
            "echo 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' | sudo tee "
            "/etc/modprobe.d/nvidia-profiling.conf, then reload the driver (or reboot); or capture without "
            "--gpu-metrics"};
    }
    return {Verdict::Ok,
            "performance counters",
            adminOnly ? "admin only, and you are root" : "open to all users",
            {}};
}

Check checkOtherSubscribers() {
    std::vector<std::string> found;
    std::string fix;
    std::string injection = envOr("CUDA_INJECTION64_PATH");
    if (!injection.empty() && injection.find("chokepoint") == std::string::npos) {
        found.push_back("CUDA_INJECTION64_PATH=" + injection + " (Nsight Systems/Compute?)");
        fix += "run the job without that tool; ";
    }
    if (!envOr("KINETO_USE_DAEMON").empty()) {
        found.push_back("KINETO_USE_DAEMON is set (Kineto holds CUPTI from the start)");
        fix += "unset KINETO_USE_DAEMON; ";
    }
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
        std::string comm = firstLine(readFile(entry.path().string() + "/comm"));
        if (comm == "nv-hostengine") {
            found.push_back("DCGM (nv-hostengine, pid " + entry.path().filename().string() +
                            ") may sample the performance counters");
            fix += "pause DCGM profiling during a capture with --gpu-metrics (dcgmi profile --pause); ";
            break;
        }
    }
    if (!found.empty()) {
        std::string detail;
        for (const auto& f : found) {
            detail += (detail.empty() ? "" : "; ") + f;
        }
        return {Verdict::Problem, "other CUPTI users", detail, fix.substr(0, fix.size() - 2)};
    }
    return {
        Verdict::Ok,
        "other CUPTI users",
        "none found in this environment (a torch.profiler started inside the job cannot be seen from here: "
        "do not run one during a capture)",
        {}};
}

Check checkSocketDir() {
    std::string dir = collectors::defaultRuntimeDir();
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) {
        return {
            Verdict::Ok, "socket folder", dir + " does not exist yet; it will be created with mode 0700", {}};
    }
    if (core::Status ok = collectors::ensureRuntimeDir(dir, false); !ok.ok()) {
        return {Verdict::Problem, "socket folder", ok.error().message,
                "chmod 700 " + dir +
                    " (it must be yours, a real folder, no group/other bits), or set "
                    "CHOKEPOINT_SOCKET_DIR to another folder"};
    }
    return {Verdict::Ok, "socket folder", dir + " is yours, mode 0700", {}};
}

Check checkSpillSpace() {
    std::string dir = envOr("CHOKEPOINT_SPILL_DIR");
    if (dir.empty()) {
        dir = envOr("TMPDIR");
    }
    if (dir.empty()) {
        dir = "/tmp";
    }
    struct statvfs fs {};
    if (::statvfs(dir.c_str(), &fs) != 0) {
        return {Verdict::Problem, "spill space", dir + " cannot be examined",
                "set CHOKEPOINT_SPILL_DIR to a writable folder"};
    }
    unsigned long long freeBytes = static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize;
    std::string detail = dir + ": " + std::to_string(freeBytes >> 20) + " MiB free";
    if (freeBytes < kSpillBytes) {
        return {Verdict::Problem, "spill space",
                detail + ", less than the 4096 MiB a slow client may make the agent spill",
                "set CHOKEPOINT_SPILL_DIR to a folder with more room, or CHOKEPOINT_SPILL_MB lower"};
    }
    return {Verdict::Ok, "spill space", detail, {}};
}

void printDoctorUsage(std::FILE* out) {
    std::fprintf(out,
                 "Usage: chokepoint-cli doctor [--python PYTHON]\n\n"
                 "Checks this node before a capture: driver and CUDA versions, CUPTI (13.0 Update 1 or\n"
                 "newer) as the job would find it, that the agent loads in this environment, the\n"
                 "performance-counter permission, other CUPTI users, the socket folder and spill space.\n"
                 "Run it in the shell (environment) you start the job from. PYTHON is the job's\n"
                 "interpreter (default python3), used to find its torch and the CUPTI beside it.\n"
                 "Exit status 0 when no check found a problem.\n");
}

}  // namespace

int runDoctor(const Args& args) {
    std::string python = "python3";
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--help" || args[i] == "-h") {
            printDoctorUsage(stdout);
            return kExitOk;
        }
        if (args[i] == "--python" && i + 1 < args.size()) {
            python = args[++i];
            continue;
        }
        std::fprintf(stderr, "chokepoint-cli doctor: unexpected argument '%s'\n\n", args[i].c_str());
        printDoctorUsage(stderr);
        return kExitUsage;
    }
    bool haveDriver = false;
    std::vector<Check> checks;
    checks.push_back(checkDriver(&haveDriver));
    checks.push_back(checkCudaDriverVersion());
    std::string whyNoTorch;
    std::string site = torchSitePackages(python, &whyNoTorch);
    checks.push_back(
        site.empty() ? Check{Verdict::Skipped, "torch", whyNoTorch + "; CUPTI is looked for without it", {}}
                     : Check{Verdict::Ok, "torch", site + " (" + python + ")", {}});
    checks.push_back(checkCupti(site));
    checks.push_back(checkAgent(python));
    checks.push_back(checkCounterPermission(haveDriver));
    checks.push_back(checkOtherSubscribers());
    checks.push_back(checkSocketDir());
    checks.push_back(checkSpillSpace());
    // Which build answered: a doctor report pasted into a question says it.
    std::printf("chokepoint-cli %s (build %s)\n\n", chokepoint::kVersion, chokepoint::buildId());
    int problems = 0;
    for (const Check& c : checks) {
        const char* tag = c.verdict == Verdict::Ok        ? "ok"
                          : c.verdict == Verdict::Problem ? "PROBLEM"
                                                          : "skipped";
        std::printf("%-8s %s: %s\n", tag, c.name.c_str(), c.detail.c_str());
        if (c.verdict == Verdict::Problem) {
            std::printf("         fix: %s\n", c.fix.c_str());
            ++problems;
        }
    }
    if (!haveDriver) {
        std::printf(
            "\nWithout a GPU this machine cannot show: that CUPTI attaches and records, the counter "
            "permission in effect, that PM sampling is supported on the GPU (MIG, vGPU and confidential "
            "computing are refused), and the CUDA version the driver supports. Run the doctor on the "
            "training node.\n");
    }
    std::printf("\n%d problem%s found.\n", problems, problems == 1 ? "" : "s");
    return problems == 0 ? kExitOk : kExitFailure;
}

}  // namespace chokepoint::cli
