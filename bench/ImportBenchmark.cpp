// chokepoint-bench-import FILE...: imports each trace once (single-threaded) and prints wall time,
// throughput over the uncompressed JSON size, events per second, and resident memory (peak, and
// after the import with the model still alive) against the JSON size. Not a test: run by hand.

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "core/import/ByteSource.h"
#include "core/import/TraceLoader.h"

using namespace chokepoint::core;

namespace {

// Current resident set in bytes, from /proc/self/statm.
std::size_t residentBytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * 4096;
}

// User + system CPU seconds of this process: unlike wall time, not inflated by other processes
// competing for the cores.
double cpuSeconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

std::size_t peakResidentBytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::size_t>(usage.ru_maxrss) * 1024;
}

// Size of the (decompressed) JSON, measured by streaming it through the same byte source.
std::uint64_t uncompressedBytes(const std::string& path, bool& compressed) {
    auto source = openFileByteSource(path);
    if (!source.ok()) {
        return 0;
    }
    compressed = source.value()->compressed();
    std::string block(1 << 20, '\0');
    std::uint64_t total = 0;
    while (true) {
        auto n = source.value()->read(block.data(), block.size());
        if (!n.ok() || n.value() == 0) {
            break;
        }
        total += n.value();
    }
    return total;
}

double mib(double bytes) {
    return bytes / (1024.0 * 1024.0);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s TRACE...\n", argv[0]);
        return 2;
    }
    int failures = 0;
    for (int i = 1; i < argc; ++i) {
        std::string path = argv[i];
        bool compressed = false;
        std::uint64_t jsonBytes = uncompressedBytes(path, compressed);
        std::size_t rssBefore = residentBytes();
        auto start = std::chrono::steady_clock::now();
        double cpuStart = cpuSeconds();
        auto model = loadTrace(path);
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        double cpu = cpuSeconds() - cpuStart;
        if (!model.ok()) {
            std::printf("%s: FAILED: %s\n", path.c_str(), model.error().message.c_str());
            ++failures;
            continue;
        }
        std::size_t rssAfter = residentBytes();
        const TraceModel& m = model.value();
        std::size_t events = m.kernels.size() + m.memcpys.size() + m.memsets.size() + m.apiCalls.size() +
                             m.cpuOps.size() + m.ranges.size() + m.syncs.size();
        std::printf("%s\n", path.c_str());
        std::printf("  JSON %.1f MiB%s, %zu rows (%zu kernels, %zu api calls, %zu cpu ops)\n",
                    mib(double(jsonBytes)), compressed ? " (inflated from gzip)" : "", events,
                    m.kernels.size(), m.apiCalls.size(), m.cpuOps.size());
        std::printf("  wall %.3f s: %.0f MB/s of JSON, %.2f M rows/s; CPU %.3f s: %.0f MB/s of JSON\n",
                    seconds, double(jsonBytes) / 1e6 / seconds, double(events) / 1e6 / seconds, cpu,
                    double(jsonBytes) / 1e6 / cpu);
        std::printf(
            "  RSS after import %.1f MiB (%.2fx JSON; growth %.1f MiB), peak RSS %.1f MiB (%.2fx JSON), "
            "model estimate %.1f MiB\n",
            mib(double(rssAfter)), double(rssAfter) / double(jsonBytes),
            mib(double(rssAfter) - double(rssBefore)), mib(double(peakResidentBytes())),
            double(peakResidentBytes()) / double(jsonBytes), mib(double(m.memoryBytes())));
    }
    return failures == 0 ? 0 : 1;
}
