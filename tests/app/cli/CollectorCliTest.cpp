// The collector commands of chokepoint-cli, run as a user would: run and launch + attach against a
// stand-in training process (no GPU: host CPU and NVTX only), list, the explanations for a process
// without the agent, refusal under another injector, calibrate without a GPU.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "chokepoint/Version.h"
#include "core/format/CptraceReader.h"

extern char** environ;

namespace {

struct Outcome {
    int exitCode = -1;
    std::string output;  // stdout + stderr
};

std::string tempDir(const char* name) {
    std::string tmpl = std::string("/tmp/") + name + "-XXXXXX";
    std::string dir = ::mkdtemp(tmpl.data());
    ::chmod(dir.c_str(), 0700);
    return dir;
}

// Runs chokepoint-cli with `args`; extra environment entries are added.
pid_t startCli(const std::vector<std::string>& args, const std::vector<std::string>& extraEnv,
               const std::string& outputFile) {
    std::vector<std::string> argv = {CHOKEPOINT_CLI};
    argv.insert(argv.end(), args.begin(), args.end());
    // Extra entries first: getenv() takes the first of two equal names, so they override.
    std::vector<std::string> env = extraEnv;
    for (char** e = environ; *e != nullptr; ++e) {
        if (std::strncmp(*e, "CUDA_INJECTION64_PATH=", 22) != 0 &&
            std::strncmp(*e, "NVTX_INJECTION64_PATH=", 22) != 0) {
            env.emplace_back(*e);
        }
    }
    env.push_back(std::string("CHOKEPOINT_AGENT_PATH=") + CHOKEPOINT_AGENT);
    std::vector<char*> a, e;
    for (auto& s : argv) {
        a.push_back(s.data());
    }
    a.push_back(nullptr);
    for (auto& s : env) {
        e.push_back(s.data());
    }
    e.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, outputFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = -1;
    posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, a.data(), e.data());
    posix_spawn_file_actions_destroy(&actions);
    return pid;
}

Outcome finish(pid_t pid, const std::string& outputFile) {
    Outcome o;
    int status = 0;
    ::waitpid(pid, &status, 0);
    o.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::ifstream in(outputFile);
    std::stringstream ss;
    ss << in.rdbuf();
    o.output = ss.str();
    return o;
}

Outcome cli(const std::vector<std::string>& args, const std::vector<std::string>& extraEnv = {}) {
    std::string out = "/tmp/cp-cli-out-" + std::to_string(::getpid()) + ".txt";
    Outcome o = finish(startCli(args, extraEnv, out), out);
    ::unlink(out.c_str());
    return o;
}

TEST(CollectorCliTest, RunRecordsAStandInTrainingProcessFromTheStart) {
    std::string dir = tempDir("cp-run");
    std::string trace = dir + "/job.cptrace";
    Outcome o = cli({"run", "--host-only", "--steps", "3", "-o", trace, "--", FAKE_CUDA_APP, "8", "200"},
                    {"CHOKEPOINT_SOCKET_DIR=" + dir});
    ASSERT_EQ(o.exitCode, 0) << o.output;
    EXPECT_NE(o.output.find("wrote " + trace), std::string::npos) << o.output;
    auto model = chokepoint::core::readCptrace(trace);
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_EQ(model->metadata.producer.rfind("chokepoint-agent", 0), 0u);
    bool stepsNote = false, paramNote = false;
    for (const auto& [key, value] : model->metadata.notes) {
        stepsNote = stepsNote || (key == "capture.end_reason" && value == "3 steps recorded");
        paramNote = paramNote || (key == "model.parameter_count" && value == "124000000");
    }
    EXPECT_TRUE(stepsNote) << "the window should end after 3 step markers";
    EXPECT_TRUE(paramNote) << "the helper's chokepoint:meta mark should land in the metadata notes";
    std::size_t stepRanges = 0;
    for (std::size_t i = 0; i < model->ranges.size(); ++i) {
        stepRanges += model->text(model->ranges.name[i]) == "step" ? 1 : 0;
    }
    EXPECT_GE(stepRanges, 2u);
    EXPECT_LE(stepRanges, 3u);
    // Host CPU of the main thread and of the forked worker process.
    std::set<std::int64_t> pids;
    for (const auto& track : model->counters) {
        if (track.name == "CPU %" && !track.values.empty()) {
            pids.insert(track.pid);
        }
    }
    EXPECT_GE(pids.size(), 2u);
    std::filesystem::remove_all(dir);
}

// --duration (or Ctrl-C) stops the capture mid-step: the agent closes the open step marker at the
// window's end, and the analysis leaves that part-step out instead of counting a short step.
TEST(CollectorCliTest, AStepCutByTheEndOfADurationWindowIsNoStep) {
    std::string dir = tempDir("cp-cut");
    std::string trace = dir + "/cut.cptrace";
    Outcome o = cli({"run", "--host-only", "--duration", "0.5", "-o", trace, "--", FAKE_CUDA_APP, "6", "200"},
                    {"CHOKEPOINT_SOCKET_DIR=" + dir});
    ASSERT_EQ(o.exitCode, 0) << o.output;
    Outcome analysis = cli({"analyze", "--format", "json", trace});
    EXPECT_NE(analysis.output.find("was still open when the capture stopped"), std::string::npos)
        << analysis.output.substr(0, 4000);
    Outcome info = cli({"info", "--json", trace});
    const std::string key = "\"minDurationNs\":";
    const std::size_t at = info.output.find(key);
    ASSERT_NE(at, std::string::npos) << info.output;
    const long long minNs = std::atoll(info.output.c_str() + at + key.size());
    EXPECT_GT(minNs, 190'000'000LL) << "every step kept is a whole 200 ms step: " << info.output;
    EXPECT_NE(info.output.find("was still open when the capture stopped"), std::string::npos) << info.output;
    std::filesystem::remove_all(dir);
}

// The step ranges a capture holds, by start time.
std::vector<std::int64_t> stepRangeStarts(const chokepoint::core::TraceModel& model) {
    std::vector<std::int64_t> starts;
    for (std::size_t i = 0; i < model.ranges.size(); ++i) {
        if (model.text(model.ranges.name[i]) == "step") {
            starts.push_back(model.ranges.startNs[i]);
        }
    }
    std::sort(starts.begin(), starts.end());
    return starts;
}

std::string noteValue(const chokepoint::core::TraceModel& model, const std::string& key) {
    for (const auto& [k, v] : model.metadata.notes) {
        if (k == key) {
            return v;
        }
    }
    return {};
}

TEST(CollectorCliTest, RunAfterStepsStartsTheWindowAtTheStepAfterTheFirstN) {
    std::string dir = tempDir("cp-after");
    std::string trace = dir + "/job.cptrace";
    // 10 steps of 150 ms; skip 4, record 3: the window opens at a step marker, 0.6 s or more in.
    Outcome o = cli({"run", "--host-only", "--after-steps", "4", "--steps", "3", "-o", trace, "--",
                     FAKE_CUDA_APP, "10", "150"},
                    {"CHOKEPOINT_SOCKET_DIR=" + dir});
    ASSERT_EQ(o.exitCode, 0) << o.output;
    auto model = chokepoint::core::readCptrace(trace);
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_EQ(noteValue(*model, "capture.end_reason"), "3 steps recorded");
    std::string window = noteValue(*model, "capture.window_ns");
    ASSERT_NE(window.find(".."), std::string::npos) << window;
    const std::int64_t startNs = std::stoll(window.substr(0, window.find("..")));
    std::vector<std::int64_t> steps = stepRangeStarts(*model);
    ASSERT_EQ(steps.size(), 3u);
    // The window starts at a step marker (the marker and its range take their clocks a few ns apart).
    EXPECT_NEAR(static_cast<double>(steps.front()), static_cast<double>(startNs), 1000.0);
    // Facts the job published before the window opened still reach the trace.
    EXPECT_EQ(noteValue(*model, "model.parameter_count"), "124000000");
    std::filesystem::remove_all(dir);
}

TEST(CollectorCliTest, RunDelayLeavesTheStartOfTheJobOut) {
    std::string dir = tempDir("cp-delay");
    std::string trace = dir + "/job.cptrace";
    Outcome o = cli({"run", "--host-only", "--delay", "0.5", "--duration", "0.4", "-o", trace, "--",
                     FAKE_CUDA_APP, "12", "100"},
                    {"CHOKEPOINT_SOCKET_DIR=" + dir});
    ASSERT_EQ(o.exitCode, 0) << o.output;
    auto model = chokepoint::core::readCptrace(trace);
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_EQ(noteValue(*model, "capture.end_reason"), "400 ms recorded");
    std::string window = noteValue(*model, "capture.window_ns");
    ASSERT_NE(window.find(".."), std::string::npos) << window;
    const std::int64_t startNs = std::stoll(window.substr(0, window.find("..")));
    const std::int64_t endNs = std::stoll(window.substr(window.find("..") + 2));
    EXPECT_EQ(endNs - startNs, 400'000'000);
    // The job's first steps ran before the window: every recorded step starts inside it, and
    // fewer than all 12 were recorded.
    std::vector<std::int64_t> steps = stepRangeStarts(*model);
    ASSERT_FALSE(steps.empty());
    EXPECT_LT(steps.size(), 8u);
    EXPECT_GE(steps.front(), startNs);
    std::filesystem::remove_all(dir);
}

TEST(CollectorCliTest, APythonJobWithoutCudaGetsACaptureOfItsStacks) {
    std::string dir = tempDir("cp-pystacks");
    std::string trace = dir + "/job.cptrace";
    std::string job = dir + "/prep.py";
    std::ofstream(job) << "import os, time\n"
                          "def decode_batch(seconds):\n"
                          "    end = time.time() + seconds\n"
                          "    while time.time() < end:\n"
                          "        sum(range(300))\n"
                          "pid = os.fork()\n"
                          "if pid == 0:\n"
                          "    decode_batch(0.8)\n"
                          "    os._exit(0)\n"
                          "decode_batch(0.6)\n"
                          "os.waitpid(pid, 0)\n";
    Outcome o =
        cli({"run", "--host-only", "-o", trace, "--", "python3", job}, {"CHOKEPOINT_SOCKET_DIR=" + dir});
    ASSERT_EQ(o.exitCode, 0) << o.output;
    EXPECT_NE(o.output.find("Python stack samples of 2 processes"), std::string::npos) << o.output;
    auto model = chokepoint::core::readCptrace(trace);
    ASSERT_TRUE(model.ok()) << model.error().message;
    ASSERT_GT(model->stackSamples.size(), 40u);  // two processes, ~0.6 s each at 100 Hz
    std::set<std::int64_t> pids;
    std::size_t inDecode = 0;
    for (std::size_t i = 0; i < model->stackSamples.size(); ++i) {
        pids.insert(model->threads[model->stackSamples.thread[i]].pid);
        auto frames = model->stack(model->stackSamples.stack[i]);
        inDecode +=
            !frames.empty() && model->text(model->stackFrames[frames[0]].function) == "decode_batch" ? 1 : 0;
    }
    EXPECT_EQ(pids.size(), 2u) << "the forked child samples too";
    EXPECT_GT(inDecode * 2, model->stackSamples.size()) << "most samples are in decode_batch, leaf first";
    // --no-python-stacks: nothing sampled, so nothing recorded for a job without CUDA.
    Outcome off =
        cli({"run", "--host-only", "--no-python-stacks", "-o", dir + "/off.cptrace", "--", "python3", job},
            {"CHOKEPOINT_SOCKET_DIR=" + dir});
    EXPECT_NE(off.exitCode, 0);
    EXPECT_NE(off.output.find("nothing was recorded"), std::string::npos) << off.output;
    // --kinds without python: the same (a window measured without the samplers' cost);
    // --kinds python: the stacks alone.
    Outcome withoutKind =
        cli({"run", "--kinds", "nvtx,host", "-o", dir + "/nvtx.cptrace", "--", "python3", job},
            {"CHOKEPOINT_SOCKET_DIR=" + dir});
    EXPECT_NE(withoutKind.output.find("nothing was recorded"), std::string::npos) << withoutKind.output;
    Outcome onlyKind = cli({"run", "--kinds", "python", "-o", dir + "/py.cptrace", "--", "python3", job},
                           {"CHOKEPOINT_SOCKET_DIR=" + dir});
    EXPECT_EQ(onlyKind.exitCode, 0) << onlyKind.output;
    EXPECT_NE(onlyKind.output.find("Python stack samples of 2 processes"), std::string::npos)
        << onlyKind.output;
    std::filesystem::remove_all(dir);
}

TEST(CollectorCliTest, RunHelpShowsDelayAndAfterSteps) {
    Outcome o = cli({"run", "--help"});
    EXPECT_EQ(o.exitCode, 0);
    EXPECT_NE(o.output.find("--delay"), std::string::npos);
    EXPECT_NE(o.output.find("--after-steps"), std::string::npos);
}

TEST(CollectorCliTest, LaunchThenAttachRecordsAWindow) {
    std::string dir = tempDir("cp-launch");
    std::string launchOut = dir + "/launch.txt";
    pid_t launcher =
        startCli({"launch", "--", FAKE_CUDA_APP, "0", "10"}, {"CHOKEPOINT_SOCKET_DIR=" + dir}, launchOut);
    // Wait for the stand-in's agent socket.
    std::string socket;
    for (int i = 0; i < 200 && socket.empty(); ++i) {
        for (const auto& e : std::filesystem::directory_iterator(dir)) {
            if (e.path().extension() == ".sock") {
                socket = e.path().string();
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_FALSE(socket.empty()) << "no agent socket appeared";
    std::string pid = std::filesystem::path(socket).stem().string();

    Outcome list = cli({"list"}, {"CHOKEPOINT_SOCKET_DIR=" + dir});
    EXPECT_EQ(list.exitCode, 0);
    EXPECT_NE(list.output.find(pid), std::string::npos) << list.output;
    EXPECT_NE(list.output.find("dormant"), std::string::npos) << list.output;

    std::string trace = dir + "/window.cptrace";
    Outcome attach = cli({"attach", pid, "--host-only", "--at-step", "--steps", "4", "-o", trace},
                         {"CHOKEPOINT_SOCKET_DIR=" + dir});
    EXPECT_EQ(attach.exitCode, 0) << attach.output;
    EXPECT_NE(attach.output.find("4 steps recorded"), std::string::npos) << attach.output;
    ::kill(static_cast<pid_t>(std::stol(pid)), SIGTERM);  // end the stand-in job
    Outcome launched = finish(launcher, launchOut);
    EXPECT_EQ(launched.exitCode, 0) << launched.output;
    EXPECT_NE(launched.output.find("dormant agent"), std::string::npos);

    auto model = chokepoint::core::readCptrace(trace);
    ASSERT_TRUE(model.ok()) << model.error().message;
    std::size_t stepRanges = 0;
    for (std::size_t i = 0; i < model->ranges.size(); ++i) {
        stepRanges += model->text(model->ranges.name[i]) == "step" ? 1 : 0;
    }
    EXPECT_EQ(stepRanges, 4u);  // aligned window: exactly the 4 requested steps
    // After the process ended its socket is gone; list cleans anything stale.
    Outcome after = cli({"list"}, {"CHOKEPOINT_SOCKET_DIR=" + dir});
    EXPECT_NE(after.output.find("No live Chokepoint agents"), std::string::npos) << after.output;
    std::filesystem::remove_all(dir);
}

TEST(CollectorCliTest, AttachToAProcessWithoutTheAgentExplainsHowToStartIt) {
    std::string dir = tempDir("cp-noagent");
    Outcome o = cli({"attach", std::to_string(::getpid()), "-o", dir + "/x.cptrace"},
                    {"CHOKEPOINT_SOCKET_DIR=" + dir});
    EXPECT_EQ(o.exitCode, 4);
    EXPECT_NE(o.output.find("without the Chokepoint agent"), std::string::npos) << o.output;
    EXPECT_NE(o.output.find("chokepoint-cli launch --"), std::string::npos) << o.output;
    Outcome gone = cli({"attach", "4194000", "-o", dir + "/x.cptrace"}, {"CHOKEPOINT_SOCKET_DIR=" + dir});
    EXPECT_EQ(gone.exitCode, 4);
    EXPECT_NE(gone.output.find("no process"), std::string::npos) << gone.output;
    std::filesystem::remove_all(dir);
}

TEST(CollectorCliTest, RunWithoutACudaProcessSaysNothingWasRecorded) {
    std::string dir = tempDir("cp-nocuda");
    Outcome o = cli({"run", "-o", dir + "/t.cptrace", "--", "/bin/true"}, {"CHOKEPOINT_SOCKET_DIR=" + dir});
    EXPECT_EQ(o.exitCode, 3);
    EXPECT_NE(o.output.find("no process initialised CUDA"), std::string::npos) << o.output;
    std::filesystem::remove_all(dir);
}

TEST(CollectorCliTest, RunRefusesWhenAnotherInjectorIsSet) {
    Outcome o = cli({"run", "--", "/bin/true"}, {"CUDA_INJECTION64_PATH=/opt/nsys/libToolsInjection64.so"});
    EXPECT_EQ(o.exitCode, 3);
    EXPECT_NE(o.output.find("Nsight"), std::string::npos) << o.output;
}

TEST(CollectorCliTest, UsageErrors) {
    EXPECT_EQ(cli({"run"}).exitCode, 2);
    EXPECT_EQ(cli({"run", "--steps", "zero", "--", "/bin/true"}).exitCode, 2);
    EXPECT_EQ(cli({"attach", "123"}).exitCode, 2);  // no -o
    EXPECT_EQ(cli({"launch"}).exitCode, 2);
}

// launch records nothing itself, so a window option given to it is answered with where it goes
// (attach, or run), and the job does not start.
TEST(CollectorCliTest, LaunchSendsWindowOptionsToAttach) {
    for (const std::vector<std::string>& options : {std::vector<std::string>{"--delay", "10"},
                                                    {"--after-steps", "3"},
                                                    {"--steps", "5"},
                                                    {"-o", "t.cptrace"}}) {
        std::vector<std::string> args = {"launch"};
        args.insert(args.end(), options.begin(), options.end());
        args.insert(args.end(), {"--", "/bin/echo", "job-started"});
        Outcome o = cli(args);
        EXPECT_EQ(o.exitCode, 2) << options[0] << ": " << o.output;
        EXPECT_NE(o.output.find("chokepoint-cli attach PID " + options[0]), std::string::npos) << o.output;
        EXPECT_NE(o.output.find("chokepoint-cli run " + options[0]), std::string::npos) << o.output;
        EXPECT_EQ(o.output.find("job-started"), std::string::npos) << o.output;
    }
    // Anything else is still an unexpected argument.
    Outcome other = cli({"launch", "--colour", "--", "/bin/true"});
    EXPECT_EQ(other.exitCode, 2);
    EXPECT_NE(other.output.find("unexpected argument '--colour'"), std::string::npos) << other.output;
}

TEST(CollectorCliTest, CalibrateFailsClearlyWithoutAGpu) {
    Outcome o = cli({"calibrate", "-o", "/tmp/cp-calibration-never.json"});
    if (o.exitCode == 0) {
        GTEST_SKIP() << "a GPU is present: calibrate ran for real";
    }
    EXPECT_EQ(o.exitCode, 3);
    EXPECT_FALSE(o.output.empty());
    EXPECT_FALSE(std::filesystem::exists("/tmp/cp-calibration-never.json"));
}

}  // namespace

// --- The agent load check (run/launch) and doctor -------------------------------------------------

TEST(CollectorCliTest, RunAndLaunchRefuseAnAgentThatWouldNotLoadInTheJobsEnvironment) {
    // A file that is no shared library stands in for an agent the loader cannot resolve.
    std::string dir = tempDir("cp-badagent");
    std::string bad = dir + "/libchokepoint_agent.so";
    std::ofstream(bad) << "not an ELF file\n";
    for (const char* command : {"run", "launch"}) {
        std::vector<std::string> args = {command};
        if (std::string(command) == "run") {
            args.insert(args.end(), {"--host-only", "-o", dir + "/t.cptrace"});
        }
        args.insert(args.end(), {"--", "/bin/true"});
        Outcome o = cli(args, {"CHOKEPOINT_AGENT_PATH=" + bad, "CHOKEPOINT_SOCKET_DIR=" + dir});
        EXPECT_EQ(o.exitCode, 3) << command << ": " << o.output;
        EXPECT_NE(o.output.find("would not load in the job's environment"), std::string::npos) << o.output;
        EXPECT_NE(o.output.find("doctor"), std::string::npos) << o.output;
        EXPECT_EQ(o.output.find("started"), std::string::npos) << "the job must not start: " << o.output;
    }
    std::filesystem::remove_all(dir);
}

TEST(CollectorCliTest, DoctorChecksWhatItCanAndSaysWhatNeedsAGpu) {
    std::string dir = tempDir("cp-doctor");
    Outcome o = cli({"doctor", "--python", "/nonexistent/python3"},
                    {"CHOKEPOINT_SOCKET_DIR=" + dir, "CHOKEPOINT_SPILL_DIR=" + dir});
    for (const char* check :
         {"NVIDIA driver:", "CUDA driver API:", "torch:", "CUPTI:", "agent:", "performance counters:",
          "other CUPTI users:", "socket folder:", "spill space:"}) {
        EXPECT_NE(o.output.find(check), std::string::npos) << check << " missing:\n" << o.output;
    }
    EXPECT_NE(o.output.find("ok       agent: " + std::string(CHOKEPOINT_AGENT)), std::string::npos)
        << o.output;
    // The report opens with the build that made it, as --version names it.
    EXPECT_EQ(o.output.rfind("chokepoint-cli " + std::string(chokepoint::kVersion) + " (build ", 0), 0u)
        << o.output;
    EXPECT_NE(o.output.find("ok       socket folder: " + dir + " is yours, mode 0700"), std::string::npos)
        << o.output;
    EXPECT_NE(o.output.find("skipped  torch: /nonexistent/python3 cannot import torch"), std::string::npos)
        << o.output;
    if (!std::filesystem::exists("/proc/driver/nvidia/version")) {
        EXPECT_NE(o.output.find("Without a GPU this machine cannot show"), std::string::npos) << o.output;
        EXPECT_NE(o.output.find("skipped  performance counters: cannot check without a GPU driver"),
                  std::string::npos)
            << o.output;
        EXPECT_EQ(o.exitCode, 3) << "no driver is a problem on a node meant to be recorded";
    }
    // A socket folder others can enter is a problem with its fix.
    ::chmod(dir.c_str(), 0777);
    Outcome open = cli({"doctor", "--python", "/nonexistent/python3"}, {"CHOKEPOINT_SOCKET_DIR=" + dir});
    EXPECT_NE(open.output.find("PROBLEM  socket folder:"), std::string::npos) << open.output;
    EXPECT_NE(open.output.find("fix: chmod 700 " + dir), std::string::npos) << open.output;
    EXPECT_EQ(open.exitCode, 3);
    // CUPTI pointed at nothing usable: the message names what was tried.
    Outcome noCupti = cli({"doctor", "--python", "/nonexistent/python3"},
                          {"CHOKEPOINT_CUPTI_PATH=/nonexistent/cupti", "CUDA_HOME=/nonexistent/cuda"});
    if (noCupti.output.find("ok       CUPTI:") == std::string::npos) {
        EXPECT_NE(noCupti.output.find("/nonexistent/cupti/libcupti.so.13"), std::string::npos)
            << noCupti.output;
    } else {
        // Another CUPTI is still found on the standard paths (/usr/local/cuda): it is reported.
        EXPECT_NE(noCupti.output.find("API version"), std::string::npos) << noCupti.output;
    }
    std::filesystem::remove_all(dir);
}
