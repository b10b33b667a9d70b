// chokepoint-make-job: writes a synthetic multi-rank training job (SyntheticJob.h) as one
// rank-<N>.cptrace (or Kineto rank-<N>.pt.trace.json) per rank into a folder, and prints what it made (the
// late rank, its cause, how late, the clock offsets) so tests and people can check an analysis against it.

#include <charconv>
#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "samples/synthetic/SyntheticJob.h"
#include "samples/synthetic/SyntheticJobWriter.h"

namespace {

constexpr const char* kUsage =
    "usage: chokepoint-make-job -o DIR [options]\n"
    "  --ranks N            world size (default 8)\n"
    "  --steps N            training steps (default 4)\n"
    "  --ranks-per-host N   ranks per host node<k> (default 8)\n"
    "  --late-rank R        the late rank (default: none)\n"
    "  --cause C            none|data|longer-kernels|extra-kernels|host|before-window\n"
    "  --late-by-us U       how late (default: 15 % of the step)\n"
    "  --tp T               tensor-parallel group size (default 1)\n"
    "  --sharded            data-parallel gradients as reduce-scatter + all-gather\n"
    "  --no-overlap         the first gradient bucket blocks compute (default: it overlaps backward)\n"
    "  --skew-us U          clock offsets drawn in [-U, +U] us, per host (default 200)\n"
    "  --per-rank-clock     a clock offset per rank instead of per host\n"
    "  --missing 3,5        ranks simulated but not written\n"
    "  --uneven             one rank misses the job's last collective\n"
    "  --seed S             (default 1)\n"
    "  --format F           cptrace (rank-N.cptrace, default) or kineto (rank-N.pt.trace.json)\n";

bool parseInt(std::string_view text, long long& out) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

int usageError(const std::string& message) {
    std::fprintf(stderr, "chokepoint-make-job: %s\n%s", message.c_str(), kUsage);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace chokepoint;
    samples::SyntheticJobOptions options;
    samples::SyntheticJobFormat format = samples::SyntheticJobFormat::Cptrace;
    std::string outDir;
    const std::vector<std::string> args(argv + 1, argv + argc);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (a == "--per-rank-clock") {
            options.perHostClock = false;
            continue;
        }
        if (a == "--uneven") {
            options.unevenCollectives = true;
            continue;
        }
        if (a == "--no-overlap") {
            options.overlapFirstBucket = false;
            continue;
        }
        if (a == "--sharded") {
            options.shardedDataParallel = true;
            continue;
        }
        if (i + 1 >= args.size()) {
            return usageError(a + " needs a value");
        }
        const std::string& v = args[++i];
        long long n = 0;
        auto number = [&](long long low, long long high) { return parseInt(v, n) && n >= low && n <= high; };
        if (a == "-o" || a == "--output") {
            outDir = v;
        } else if (a == "--format") {
            if (v != "cptrace" && v != "kineto") {
                return usageError("unknown format '" + v + "' (cptrace or kineto)");
            }
            format = v == "kineto" ? samples::SyntheticJobFormat::KinetoJson
                                   : samples::SyntheticJobFormat::Cptrace;
        } else if (a == "--cause") {
            auto cause = samples::parseLateCause(v);
            if (!cause) {
                return usageError("unknown cause '" + v + "'");
            }
            options.cause = *cause;
        } else if (a == "--missing") {
            std::string_view rest = v;
            while (!rest.empty()) {
                const std::size_t comma = rest.find(',');
                if (!parseInt(rest.substr(0, comma), n)) {
                    return usageError("--missing takes ranks like 3,5, not '" + v + "'");
                }
                options.missingRanks.push_back(static_cast<int>(n));
                rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
            }
        } else if (a == "--ranks" && number(1, 4096)) {
            options.ranks = static_cast<int>(n);
        } else if (a == "--steps" && number(1, 1000)) {
            options.steps = static_cast<int>(n);
        } else if (a == "--ranks-per-host" && number(1, 4096)) {
            options.ranksPerHost = static_cast<int>(n);
        } else if (a == "--late-rank" && number(-1, 4095)) {
            options.lateRank = static_cast<int>(n);
        } else if (a == "--late-by-us" && number(0, 10'000'000)) {
            options.lateByNs = n * 1000;
        } else if (a == "--tp" && number(1, 4096)) {
            options.tensorParallelSize = static_cast<int>(n);
        } else if (a == "--skew-us" && number(0, 10'000'000)) {
            options.clockSkewNsMax = n * 1000;
        } else if (a == "--seed" && number(0, 1LL << 62)) {
            options.seed = static_cast<std::uint64_t>(n);
        } else {
            return usageError("bad option or value: " + a + " " + v);
        }
    }
    if (outDir.empty()) {
        return usageError("-o DIR is required");
    }
    if (core::Status valid = samples::validate(options); !valid.ok()) {
        return usageError(valid.error().message);
    }
    const auto started = std::chrono::steady_clock::now();
    std::vector<core::TraceModel> ranks = samples::makeSyntheticJob(options);
    const auto built = std::chrono::steady_clock::now();
    if (core::Status written = samples::writeSyntheticJob(ranks, outDir, format); !written.ok()) {
        std::fprintf(stderr, "chokepoint-make-job: %s\n", written.error().message.c_str());
        return 3;
    }
    const auto done = std::chrono::steady_clock::now();
    const samples::SyntheticJobTruth truth = samples::syntheticJobTruth(options);
    auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
    std::printf("wrote %zu rank traces to %s (built in %.0f ms, written in %.0f ms)\n", ranks.size(),
                outDir.c_str(), ms(built - started), ms(done - built));
    std::printf("world size %d, %d steps, nominal step %.3f ms, %d collectives per rank per step\n",
                truth.worldSize, options.steps, static_cast<double>(truth.nominalStepNs) / 1e6,
                truth.collectivesPerStep);
    if (truth.lateRank >= 0) {
        std::printf("late rank %d, cause %s, late by %.3f ms\n", truth.lateRank,
                    std::string(samples::lateCauseName(truth.cause)).c_str(),
                    static_cast<double>(truth.lateByNs) / 1e6);
    } else {
        std::printf("no late rank\n");
    }
    if (truth.unevenRank >= 0) {
        std::printf("rank %d misses the last collective\n", truth.unevenRank);
    }
    std::printf("clock offsets (us):");
    for (std::size_t r = 0; r < truth.clockOffsetsNs.size() && r < 64; ++r) {
        std::printf(" %.3f", static_cast<double>(truth.clockOffsetsNs[r]) / 1e3);
    }
    std::printf(truth.clockOffsetsNs.size() > 64 ? " ...\n" : "\n");
    return 0;
}
