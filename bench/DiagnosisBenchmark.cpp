// chokepoint-bench-diagnosis FILE...: times the whole analysis (analyzeTrace: measurement engine,
// device match, MFU, verdicts per step/phase/overall, fixes, and the text + JSON writers) on each
// trace FILE against the time loadTrace takes to import it. The analysis must stay under a quarter
// of the import time; run it on files of 1x, 4x and 16x size (chokepoint-make-synthetic-kineto)
// to show it stays linear in events. Best of 3 runs; wall and CPU seconds (the machine may be
// shared). Not a test: run by hand.

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "core/analysis/devices/DeviceDatabase.h"
#include "core/analysis/diagnosis/Analyzer.h"
#include "core/analysis/diagnosis/ReportWriters.h"
#include "core/import/TraceLoader.h"

using namespace chokepoint;

namespace {

double cpuSeconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

double wallSeconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Timing {
    double wall = 1e30;
    double cpu = 1e30;
    void keepBest(double w, double c) {
        wall = std::min(wall, w);
        cpu = std::min(cpu, c);
    }
};

std::size_t eventCount(const core::TraceModel& m) {
    return m.kernels.size() + m.memcpys.size() + m.memsets.size() + m.apiCalls.size() + m.syncs.size() +
           m.ranges.size() + m.cpuOps.size();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s TRACE...\n", argv[0]);
        return 2;
    }
    core::Result<analysis::DeviceDatabase> devices = analysis::DeviceDatabase::loadBuiltin();
    if (!devices) {
        std::fprintf(stderr, "device database: %s\n", devices.error().message.c_str());
        return 1;
    }
    analysis::AnalysisOptions options;
    options.devices = &devices.value();
    std::printf("%-44s %9s %9s %9s %9s %9s %7s %7s %9s %s\n", "trace", "events", "import s", "analyze s",
                "imp cpu", "ana cpu", "ratio", "cpu rat", "ns/event", "verdict");
    for (int i = 1; i < argc; ++i) {
        const std::string path = argv[i];
        Timing import, analyze;
        std::shared_ptr<const core::TraceModel> model;
        for (int run = 0; run < 3; ++run) {
            const double w0 = wallSeconds(), c0 = cpuSeconds();
            core::Result<core::TraceModel> loaded = core::loadTrace(path);
            import.keepBest(wallSeconds() - w0, cpuSeconds() - c0);
            if (!loaded) {
                std::fprintf(stderr, "%s\n", loaded.error().message.c_str());
                return 1;
            }
            model = std::make_shared<const core::TraceModel>(std::move(loaded.value()));
        }
        std::string verdict;
        for (int run = 0; run < 3; ++run) {
            const double w0 = wallSeconds(), c0 = cpuSeconds();
            auto report = analysis::analyzeTrace(model, options);
            if (!report) {
                std::fprintf(stderr, "%s: %s\n", path.c_str(), report.error().message.c_str());
                return 1;
            }
            const std::string text = analysis::writeTextReport(*report.value());
            const std::string json = analysis::writeJsonReport(*report.value());
            analyze.keepBest(wallSeconds() - w0, cpuSeconds() - c0);
            verdict = std::string(analysis::toString(report.value()->overall.bottleneck)) + " (" +
                      std::to_string(text.size() + json.size()) + " B written)";
        }
        const std::size_t events = eventCount(*model);
        std::string name = path.substr(path.find_last_of('/') + 1);
        if (name.size() > 44) {
            name = name.substr(0, 41) + "...";
        }
        // ns/event from CPU time: wall time is unreliable on a shared machine.
        std::printf("%-44s %9zu %9.3f %9.3f %9.3f %9.3f %7.3f %7.3f %9.1f %s\n", name.c_str(), events,
                    import.wall, analyze.wall, import.cpu, analyze.cpu, analyze.wall / import.wall,
                    analyze.cpu / import.cpu, events ? 1e9 * analyze.cpu / double(events) : 0.0,
                    verdict.c_str());
    }
    return 0;
}
