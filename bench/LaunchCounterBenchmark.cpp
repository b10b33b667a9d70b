// chokepoint-bench-launch-counter: what the agent adds to each kernel launch while it counts steps
// from launches (collectors/agent/LaunchStepCounter: a name hash and an append under a mutex, and
// a clock read when the launch is the anchor's), on one launching thread and on two, with the
// worker folding the launches in as it does every loop. CUPTI's own callback cost is not in it
// (that needs a GPU). Not a test: run by hand.
//
//   chokepoint-bench-launch-counter [LAUNCHES]   (default 5,000,000)

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "collectors/agent/LaunchStepCounter.h"

using chokepoint::collectors::LaunchStepCounter;

namespace {

// Kernel names of the lengths PyTorch launches (mangled templates run to a few hundred bytes).
std::vector<std::string> stepNames() {
    std::vector<std::string> names;
    for (int i = 0; i < 40; ++i) {
        std::string name =
            "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, "
            "float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 3> >"
            "(int, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::"
            "MulFunctor<float> >, at::detail::Array<char*, 3>)#";
        names.push_back(name + std::to_string(i));
    }
    return names;
}

double nsPerLaunch(int threads, std::size_t launchesPerThread, bool anchorKnown) {
    LaunchStepCounter counter;
    counter.reset();
    const std::vector<std::string> names = stepNames();
    if (anchorKnown) {  // let the counter find the period first, so the anchor is stamped
        for (int k = 0; k < 3; ++k) {
            for (const std::string& n : names) {
                counter.onLaunch(n.c_str());
            }
        }
        counter.repetitionsStarted(LaunchStepCounter::kMinRecountNs);
    }
    std::atomic<bool> done{false};
    std::thread worker([&] {  // folds launches in every 5 ms, as the agent's worker loop does
        chokepoint::core::TimestampNs now = 2 * LaunchStepCounter::kMinRecountNs;
        while (!done.load()) {
            counter.repetitionsStarted(now);
            now += 5'000'000;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    });
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> launchers;
    for (int t = 0; t < threads; ++t) {
        launchers.emplace_back([&] {
            for (std::size_t i = 0; i < launchesPerThread; ++i) {
                counter.onLaunch(names[i % names.size()].c_str());
            }
        });
    }
    for (std::thread& t : launchers) {
        t.join();
    }
    const auto elapsed = std::chrono::steady_clock::now() - start;
    done = true;
    worker.join();
    return std::chrono::duration<double, std::nano>(elapsed).count() / static_cast<double>(launchesPerThread);
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t launches = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 5'000'000;
    std::printf("launches per thread: %zu; kernel names of %zu bytes\n", launches, stepNames()[0].size());
    std::printf("%-44s %10s\n", "case", "ns/launch");
    std::printf("%-44s %10.1f\n", "1 thread, from the first launch", nsPerLaunch(1, launches, false));
    std::printf("%-44s %10.1f\n", "1 thread, anchor known (stamped)", nsPerLaunch(1, launches, true));
    std::printf("%-44s %10.1f\n", "2 threads, anchor known (wall per launch)",
                nsPerLaunch(2, launches, true));
    return 0;
}
