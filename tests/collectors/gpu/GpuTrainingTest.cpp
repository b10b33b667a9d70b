// Real PyTorch training under the agent (ctest label `gpu`): `run` and `launch` + `attach`. Each
// test skips when there is no NVIDIA GPU (nvidia-smi) or no PyTorch with CUDA.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "core/format/CptraceReader.h"

namespace {

bool commandSucceeds(const std::string& command) {
    return std::system((command + " > /dev/null 2>&1").c_str()) == 0;
}

// Why the GPU tests cannot run here, or "" when they can.
std::string missingGpuOrTorch() {
    if (!commandSucceeds("nvidia-smi -L")) {
        return "no NVIDIA GPU (nvidia-smi failed)";
    }
    if (!commandSucceeds("python3 -c 'import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)'")) {
        return "no PyTorch with CUDA";
    }
    return {};
}

#define REQUIRE_GPU_AND_TORCH()                                \
    if (std::string why = missingGpuOrTorch(); !why.empty()) { \
        GTEST_SKIP() << why;                                   \
    }

std::string env() {
    return std::string("PYTHONPATH=") + CHOKEPOINT_SOURCE_DIR +
           "/collectors/python CHOKEPOINT_AGENT_PATH=" + CHOKEPOINT_AGENT + " ";
}

std::string script() {
    return std::string(CHOKEPOINT_SOURCE_DIR) + "/tests/collectors/gpu/train_loop.py";
}

void checkTrace(const std::string& path, std::size_t steps) {
    auto model = chokepoint::core::readCptrace(path);
    ASSERT_TRUE(model.ok()) << model.error().message;
    ASSERT_GT(model->kernels.size(), 0u);
    std::size_t joined = 0;
    for (std::size_t i = 0; i < model->kernels.size(); ++i) {
        joined += model->kernels.launchCall[i].valid() ? 1 : 0;
    }
    // Every kernel joined to its launch (allow 0.1 % for launches just before the window).
    EXPECT_GE(static_cast<double>(joined), 0.999 * static_cast<double>(model->kernels.size()));
    EXPECT_EQ(model->stats.count("agent.dropped_records"), 0);
    EXPECT_EQ(model->stats.count("agent.no_timestamp"), 0);
    std::size_t stepRanges = 0;
    for (std::size_t i = 0; i < model->ranges.size(); ++i) {
        stepRanges += model->text(model->ranges.name[i]).rfind("chokepoint:step#", 0) == 0 ? 1 : 0;
    }
    EXPECT_EQ(stepRanges, steps);
    ASSERT_FALSE(model->devices.empty());
    std::printf("%s: %zu kernels, %zu API calls, %zu ranges, device %s\n", path.c_str(),
                model->kernels.size(), model->apiCalls.size(), model->ranges.size(),
                model->devices[0].name.c_str());
}

TEST(GpuTrainingTest, RunRecordsFiveAlignedSteps) {
    REQUIRE_GPU_AND_TORCH();
    std::string dir = "/tmp/cp-gpu-run-" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    std::string trace = dir + "/run.cptrace";
    std::string cmd =
        env() + CHOKEPOINT_CLI + " run --at-step --steps 5 -o " + trace + " -- python3 " + script() + " 30";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    checkTrace(trace, 5);
    std::filesystem::remove_all(dir);
}

TEST(GpuTrainingTest, LaunchThenAttachRecordsFiveSteps) {
    REQUIRE_GPU_AND_TORCH();
    std::string dir = "/tmp/cp-gpu-attach-" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    ::chmod(dir.c_str(), 0700);
    std::string launch = "CHOKEPOINT_SOCKET_DIR=" + dir + " " + env() + CHOKEPOINT_CLI +
                         " launch -- python3 " + script() + " 0 > " + dir + "/launch.log 2>&1 & echo $!";
    FILE* p = ::popen(launch.c_str(), "r");
    ASSERT_NE(p, nullptr);
    ::pclose(p);
    std::string pid;
    for (int i = 0; i < 600 && pid.empty(); ++i) {  // CUDA init and import torch take a while
        for (const auto& e : std::filesystem::directory_iterator(dir)) {
            if (e.path().extension() == ".sock") {
                pid = e.path().stem().string();
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_FALSE(pid.empty()) << "no agent socket appeared";
    std::string trace = dir + "/attach.cptrace";
    std::string attach = "CHOKEPOINT_SOCKET_DIR=" + dir + " " + CHOKEPOINT_CLI + " attach " + pid +
                         " --at-step --steps 5 -o " + trace;
    int rc = std::system(attach.c_str());
    ::kill(static_cast<pid_t>(std::stol(pid)), SIGTERM);
    ASSERT_EQ(rc, 0) << attach;
    checkTrace(trace, 5);
    std::filesystem::remove_all(dir);
}

// Review #4/#7/#3 on a GPU (docs/COLLECTORS.md, GPU test plan): GPU records windowed by their
// launch, the drain waits for them, and only real waits become sync rows.
TEST(GpuTrainingTest, RunWindowEdgesAreWholeAndSyncsAreWaits) {
    REQUIRE_GPU_AND_TORCH();
    std::string dir = "/tmp/cp-gpu-edges-" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    std::string trace = dir + "/edges.cptrace";
    std::string cmd =
        env() + CHOKEPOINT_CLI + " run --at-step --steps 5 -o " + trace + " -- python3 " + script() + " 30";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    auto model = chokepoint::core::readCptrace(trace);
    ASSERT_TRUE(model.ok()) << model.error().message;
    ASSERT_GT(model->kernels.size(), 0u);
    for (std::size_t i = 0; i < model->kernels.size(); ++i) {
        ASSERT_TRUE(model->kernels.launchCall[i].valid()) << "kernel " << i << " without its launch";
    }
    EXPECT_EQ(model->stats.count("agent.gpu_records_missing"), 0);
    EXPECT_EQ(model->stats.count("agent.still_running_at_stop"), 0);
    for (std::size_t i = 0; i < model->syncs.size(); ++i) {
        EXPECT_NE(model->syncs.thread[i], chokepoint::core::kNoThread) << "sync " << i;
    }
    std::filesystem::remove_all(dir);
}

// Review #6 on a GPU: PM sampling started from the worker in run mode, never inside cuInit. The job
// must not hang; either samples arrive or the trace says why (counter permission, MIG, vGPU).
TEST(GpuTrainingTest, RunWithGpuMetricsSamplesOrSaysWhy) {
    REQUIRE_GPU_AND_TORCH();
    std::string dir = "/tmp/cp-gpu-pm-" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    std::string trace = dir + "/pm.cptrace";
    std::string cmd = env() + "timeout 300 " + CHOKEPOINT_CLI + " run --at-step --steps 5 --gpu-metrics -o " +
                      trace + " -- python3 " + script() + " 30";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd << " (124: the job hung)";
    auto model = chokepoint::core::readCptrace(trace);
    ASSERT_TRUE(model.ok()) << model.error().message;
    long long samples = 0;
    for (const auto& [key, value] : model->metadata.notes) {
        if (key == "capture.gpu_metrics_samples") {
            samples = std::stoll(value);
        }
    }
    const chokepoint::core::TraceStat* why = model->stats.find("agent.gpu_metrics_unavailable");
    const chokepoint::core::TraceStat* empty = model->stats.find("agent.gpu_metrics_empty");
    EXPECT_TRUE(samples > 0 || why != nullptr)
        << "neither samples nor a reason" << (empty != nullptr ? ": " + empty->detail : std::string());
    if (why != nullptr) {
        std::printf("GPU metrics unavailable: %s\n", why->detail.c_str());
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
