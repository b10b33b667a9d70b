#include "core/job/JobLoader.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "core/base/HeapRelease.h"
#include "core/import/TraceLoader.h"
#include "core/job/JobInputs.h"
#include "core/job/RankIdentity.h"
#include "core/job/RankSplit.h"
#include "core/job/SummaryFile.h"

namespace chokepoint::job {

std::vector<RankSummary> summarizeModel(std::shared_ptr<const core::TraceModel> model,
                                        const std::string& path, int orderIndex,
                                        const analysis::AnalysisOptions& options, std::string* error) {
    analysis::AnalysisOptions rankOptions = options;
    rankOptions.progress = {};
    rankOptions.sourcePath = path;
    rankOptions.metrics.tensorBoardOverview = false;  // a view table: the summary does not read it
    std::vector<RankSummary> out;
    std::vector<RankPart> parts = splitRanks(*model, orderIndex);
    if (parts.empty()) {
        auto report = analysis::analyzeTrace(model, rankOptions);
        if (!report.ok()) {
            if (error != nullptr) {
                *error = path + ": " + report.error().message;
            }
            return out;
        }
        out.push_back(summarizeRank(*model, *report.value(), identifyRank(*model, path, orderIndex)));
        return out;
    }
    for (RankPart& part : parts) {
        auto report = analysis::analyzeTrace(part.model, rankOptions);
        if (!report.ok()) {
            if (error != nullptr) {
                *error = path + ": GPU " + std::to_string(part.deviceIndex) + ": " + report.error().message;
            }
            continue;
        }
        RankSummary summary = summarizeRank(part.model, *report.value(), part.identity);
        summary.warnings.push_back("one of " + std::to_string(parts.size()) + " ranks split from " + path +
                                   " by GPU (GPU " + std::to_string(part.deviceIndex) + ")");
        out.push_back(std::move(summary));
    }
    return out;
}

LoadedJob loadJob(const std::vector<std::string>& paths, const JobLoadOptions& options) {
    LoadedJob job;
    // Buffers of 1 MiB and more (a rank's columns, its JSON chunks) get their own mappings, returned
    // to the system when freed. By default glibc raises this threshold after each such free, so the
    // next rank's big buffers land in the workers' heaps, where fragmentation keeps them resident:
    // measured on 4 real ranks with 2 workers, peak memory 32 MB instead of 45 MB, same speed.
    core::mapLargeBuffersSeparately(1 << 20);
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const unsigned workers = std::max(1u, std::min<unsigned>(options.workers > 0 ? options.workers : cores,
                                                             static_cast<unsigned>(paths.size())));
    std::vector<std::vector<RankSummary>> summaries(paths.size());
    std::vector<std::string> errors(paths.size());
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> done{0};
    std::atomic<bool> cancelled{false};

    auto work = [&]() {
        for (;;) {
            const std::size_t i = next.fetch_add(1);
            if (i >= paths.size() || cancelled.load()) {
                return;
            }
            const std::string& path = paths[i];
            if (isSummaryFile(path)) {
                auto summary = readSummaryFile(path);
                if (summary.ok()) {
                    summaries[i].push_back(std::move(summary).value());
                } else {
                    errors[i] = summary.error().message;
                }
            } else {
                auto model = core::loadTrace(path);
                if (!model.ok()) {
                    errors[i] = model.error().message;
                } else {
                    auto shared = std::make_shared<const core::TraceModel>(std::move(model).value());
                    summaries[i] = summarizeModel(std::move(shared), path, static_cast<int>(i),
                                                  options.analysis, &errors[i]);
                }
                // The rank's model and report are freed; give the pages back before the next rank
                // so that peak memory stays near one rank's analysis per worker (glibc keeps freed
                // memory in per-thread arenas otherwise).
                core::releaseFreedHeapMemory();
            }
            const std::size_t finished = done.fetch_add(1) + 1;
            if (options.progress && !options.progress(finished, paths.size())) {
                cancelled.store(true);
            }
        }
    };
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < workers; ++w) {
        pool.emplace_back(work);
    }
    work();
    for (std::thread& t : pool) {
        t.join();
    }
    job.cancelled = cancelled.load();

    for (std::size_t i = 0; i < paths.size(); ++i) {
        if (!errors[i].empty()) {
            job.problems.push_back({paths[i], -1, errors[i]});
        }
        for (RankSummary& summary : summaries[i]) {
            job.ranks.push_back(std::make_shared<const RankSummary>(std::move(summary)));
        }
    }
    std::map<RankSource, int> sources;
    for (const auto& rank : job.ranks) {
        ++sources[rank->rankSource];
    }
    for (const auto& [source, count] : sources) {
        job.identityNote += (job.identityNote.empty() ? "ranks from " : ", ") +
                            std::string(toString(source)) + " (" + std::to_string(count) + ")";
    }
    return job;
}

}  // namespace chokepoint::job
