// chokepoint-bench-timeline-paint [MILLIONS...]: paint time per frame of the timeline widget,
// offscreen, for synthetic traces of N million kernels (default 1 and 10) on 8 streams of 2 GPUs,
// at three zoom levels: everything, 1 % of the trace (mid) and a 20 µs window (deep). The target
// is 16 ms per frame (60 Hz). Also prints the time to build the track layout and its memory.
//
// Run with QT_QPA_PLATFORM=offscreen. Painting goes through QWidget::render into a 1920x1080 image,
// the same path as the screenshots.

#include <QApplication>
#include <QImage>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "core/model/TraceModel.h"
#include "core/timeline/TimelineTracks.h"
#include "ui/views/timeline/TimelineWidget.h"

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// CPU time of this thread: unlike wall time it does not grow when other processes share the cores.
double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// N kernels round-robin over 8 streams: a realistic mix of durations (2..200 µs) with small
// launch gaps, so every zoom level has both dense and sparse regions.
std::shared_ptr<const chokepoint::core::TraceModel> syntheticModel(std::size_t kernels) {
    using namespace chokepoint;
    core::TraceModel model;
    model.metadata.synthetic = true;
    model.metadata.sourceFormat = "synthetic";
    model.deviceOrAdd(0).name = "Synthetic GPU 0";
    model.deviceOrAdd(1).name = "Synthetic GPU 1";
    std::vector<core::StringId> names;
    for (int i = 0; i < 64; ++i) {
        names.push_back(model.intern("kernel_" + std::to_string(i) + "_sm90_xmma_gemm_bf16bf16_bf16f32"));
    }
    model.kernels.reserve(kernels);
    constexpr int kStreams = 8;
    std::vector<core::TimestampNs> cursor(kStreams, 0);
    std::uint64_t state = 42;
    for (std::size_t i = 0; i < kernels; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const int stream = static_cast<int>(i % kStreams);
        const core::DurationNs duration = 2'000 + static_cast<core::DurationNs>((state >> 33) % 198'000);
        const core::DurationNs gap = 500 + static_cast<core::DurationNs>((state >> 17) % 3'000);
        core::KernelRow row;
        row.startNs = cursor[static_cast<std::size_t>(stream)] + gap;
        row.endNs = row.startNs + duration;
        cursor[static_cast<std::size_t>(stream)] = row.endNs;
        row.deviceIndex = static_cast<std::int16_t>(stream / 4);
        row.streamId = 7 + stream % 4;
        row.name = names[(state >> 40) % names.size()];
        model.kernels.add(row);
    }
    model.finalize();
    return std::make_shared<const core::TraceModel>(std::move(model));
}

struct FrameTimes {
    double medianMs = 0;
    double maxMs = 0;
    double cpuMedianMs = 0;
    std::size_t items = 0;
    std::size_t folded = 0;
};

FrameTimes measure(chokepoint::ui::TimelineWidget& widget, QImage& image, int frames) {
    std::vector<double> times;
    std::vector<double> cpuTimes;
    FrameTimes result;
    for (int i = 0; i < frames + 2; ++i) {
        const auto start = Clock::now();
        const double cpuStart = threadCpuMs();
        widget.render(&image);
        const double ms = msSince(start);
        if (i >= 2) {  // the first frames warm caches and fonts
            times.push_back(ms);
            cpuTimes.push_back(threadCpuMs() - cpuStart);
        }
    }
    std::sort(times.begin(), times.end());
    std::sort(cpuTimes.begin(), cpuTimes.end());
    result.cpuMedianMs = cpuTimes[cpuTimes.size() / 2];
    result.medianMs = times[times.size() / 2];
    result.maxMs = times.back();
    result.items = widget.lastFrameStats().itemsPainted;
    result.folded = widget.lastFrameStats().foldedItems;
    return result;
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    std::vector<double> millions;
    for (int i = 1; i < argc; ++i) {
        millions.push_back(std::atof(argv[i]));
    }
    if (millions.empty()) {
        millions = {1, 10};
    }
    constexpr int kFrames = 20;
    const QSize size(1920, 1080);
    std::printf(
        "Timeline paint benchmark: %dx%d offscreen, %d frames per zoom (median / max), target 16 ms\n",
        size.width(), size.height(), kFrames);
    for (double m : millions) {
        const auto n = static_cast<std::size_t>(m * 1e6);
        auto start = Clock::now();
        auto model = syntheticModel(n);
        const double buildModelMs = msSince(start);
        start = Clock::now();
        auto tracks =
            std::make_shared<const chokepoint::timeline::TrackSet>(chokepoint::timeline::buildTracks(*model));
        const double buildTracksMs = msSince(start);
        std::printf("\n%zu kernels, 8 streams, span %.2f s: model %.0f ms, track layout %.0f ms (%.0f MiB)\n",
                    n, static_cast<double>(model->timeSpan().durationNs()) / 1e9, buildModelMs, buildTracksMs,
                    static_cast<double>(tracks->memoryBytes()) / (1024.0 * 1024.0));

        chokepoint::ui::TimelineWidget widget;
        widget.resize(size);
        widget.setData(model, tracks);
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        const chokepoint::core::TimeRange span = model->timeSpan();
        struct Zoom {
            const char* name;
            chokepoint::core::TimeRange range;
        };
        const chokepoint::core::TimestampNs middle = span.startNs + span.durationNs() / 2;
        const Zoom zooms[] = {
            {"all", span},
            {"mid (1 %)", {middle, middle + span.durationNs() / 100}},
            {"deep (20 us)", {middle, middle + 20'000}},
        };
        for (const Zoom& zoom : zooms) {
            widget.showRange(zoom.range);
            const FrameTimes t = measure(widget, image, kFrames);
            std::printf(
                "  %-13s window %-9.3g ms  wall %6.2f ms/frame median, %6.2f max;  CPU %6.2f ms median  "
                "%5zu items (%zu folded)  %s\n",
                zoom.name, static_cast<double>(widget.visibleRange().durationNs()) / 1e6, t.medianMs, t.maxMs,
                t.cpuMedianMs, t.items, t.folded, t.medianMs <= 16.0 ? "ok" : "OVER 16 ms");
        }
    }
    return 0;
}
