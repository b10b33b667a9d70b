// Stands in for a training process on a machine without a GPU: does what the CUDA driver does in
// cuInit (dlopen CUDA_INJECTION64_PATH and call InitializeInjection), then runs "training steps"
// marked with NVTX ranges named "step", each spinning the CPU for a while, with a forked
// "DataLoader worker" spinning alongside. Publishes model facts the way the Python helper does.
//   fake_cuda_app STEPS STEP_MS     (STEPS 0: until SIGTERM, then exit 0)
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

volatile sig_atomic_t g_stop = 0;

void onTerm(int) {
    g_stop = 1;
}

void spin(int ms) {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    volatile unsigned long x = 0;
    while (std::chrono::steady_clock::now() < end) {
        x = x + 1;
    }
}

}  // namespace

int main(int argc, char** argv) {
    int steps = argc > 1 ? std::atoi(argv[1]) : 10;
    int stepMs = argc > 2 ? std::atoi(argv[2]) : 10;
    const char* injection = std::getenv("CUDA_INJECTION64_PATH");
    if (injection != nullptr && *injection != '\0' && std::strcmp(injection, "none") != 0) {
        void* lib = ::dlopen(injection, RTLD_NOW | RTLD_LOCAL);
        if (lib == nullptr) {
            std::fprintf(stderr, "fake_cuda_app: %s\n", ::dlerror());
            return 2;
        }
        auto init = reinterpret_cast<int (*)()>(::dlsym(lib, "InitializeInjection"));
        if (init == nullptr || init() != 1) {
            std::fprintf(stderr, "fake_cuda_app: InitializeInjection failed\n");
            return 2;
        }
    }
    pid_t worker = ::fork();
    if (worker == 0) {
        for (;;) {
            spin(50);  // a busy DataLoader worker until the parent ends it
        }
    }
    struct sigaction term {};
    term.sa_handler = &onTerm;
    ::sigaction(SIGTERM, &term, nullptr);
    nvtxMarkA("chokepoint:meta parameter_count=124000000 tokens_per_step=8192");
    for (int i = 0; (steps == 0 || i < steps) && g_stop == 0; ++i) {
        nvtxRangePushA("step");
        nvtxRangePushA("forward");
        spin(stepMs / 2);
        nvtxRangePop();
        spin(stepMs - stepMs / 2);
        nvtxRangePop();
    }
    if (worker > 0) {
        ::kill(worker, SIGKILL);
        ::waitpid(worker, nullptr, 0);
    }
    return 0;
}
