// Every Kineto trace in ../shared/traces, imported and checked against an independent count made
// here from the raw file: zlib's gzread inflates it and simdjson's DOM parser (not the importer's
// streaming On-Demand reader) counts events per phase and category, sums kernel durations, and
// reads device and distributed info. The traces README's category counts are a second check on
// that counter. Skips cleanly when the shared traces are absent.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "core/import/KinetoJsonImporter.h"
#include "core/import/TraceLoader.h"
#include "tests/core/import/ImportTestUtils.h"
#include "tests/testutils/SharedTraces.h"

using namespace chokepoint::core;
using chokepoint::testutils::readMaybeGzip;

namespace {

// Figures from /work/shared/traces/README.md ("cats: ...", ProfilerStep counts, rank/world size).
struct ReadmeFigures {
    const char* file;
    std::int64_t kernel, memcpy, memset, runtime, driver, cpuOp, userAnnotation, gpuUserAnnotation, python;
    int steps;
    int rank, worldSize;  // -1 when the README says "no distributedInfo"
    const char* gpuName;  // nullptr when no device properties
};

// gtest prints parameters in test names and failures; the file name says it all.
void PrintTo(const ReadmeFigures& figures, std::ostream* os) {
    *os << figures.file;
}

const ReadmeFigures kTraces[] = {
    {"hta-trace-diff-control__control.json.gz", 8568, 228, 654, 24692, 0, 40506, 288, 0, 0, 6, 3, 8,
     "NVIDIA A100-PG509-200"},
    {"hta-trace-diff-test__test.json.gz", 9876, 4856, 900, 21167, 0, 31236, 288, 0, 0, 6, 1, 2,
     "Tesla V100-SXM2-16GB"},
    {"hta-ns-resolution__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 4350, 1600, 145, 15329, 0, 23910, 70,
     15, 0, 5, 0, 1, "Tesla V100-SXM2-32GB"},
    {"hta-negative-queue__rank0.json.gz", 6080, 1390, 277, 33924, 0, 25185, 360, 0, 0, 5, 0, 16,
     "NVIDIA A100-SXM4-80GB"},
    {"hta-amd-mi250__mi250_minitoy_train_ROCm6_2_kineto.json.gz", 14, 2, 0, 21, 0, 70, 3, 2, 0, 2, -1, -1,
     "AMD Radeon Graphics"},
    {"hta-cpu-only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", 0, 0, 0, 0, 0, 4, 11, 0, 0, 1, 34, 300,
     nullptr},
    {"param-linear__linear_kineto.json.gz", 8716, 0, 1640, 14515, 0, 36998, 80, 0, 0, 0, -1, -1,
     "NVIDIA GeForce RTX 2080 Ti"},
    {"tracelens-h100__gaunernst_bert-small-uncased__1016001.json.gz", 60, 1, 0, 110, 22, 479, 1, 1, 1385, 1,
     -1, -1, "NVIDIA H100 80GB HBM3"},
};

// Independent census of a trace made with simdjson DOM.
struct Census {
    std::map<std::string, std::int64_t> completeByCategory;  // ph X, category lower-cased
    std::int64_t profilerStepsHost = 0;                      // X named ProfilerStep#N, host side
    std::int64_t profilerStepOperators = 0;                  // 2021: ProfilerStep#N as an Operator
    double kernelDurationUs = 0;
    std::set<std::int64_t> launchCorrelations;  // "correlation" of runtime/driver calls
    std::vector<std::int64_t> kernelCorrelations;
    std::int64_t kernelsWithLaunch = 0;  // kernels whose correlation matches a launch call
    std::int64_t instants = 0;           // instant events other than memory events
    std::int64_t memoryEvents = 0;       // "[memory]" instants (profile_memory=True)
    std::size_t deviceCount = 0;
    std::string firstDeviceName;
    bool hasDistributed = false;
    std::int64_t rank = 0, worldSize = 0;
};

std::string lowerCase(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return out;
}

Census census(const std::string& text) {
    Census c;
    simdjson::dom::parser parser;
    simdjson::padded_string json(text);
    simdjson::dom::element root = parser.parse(json);
    for (simdjson::dom::element e : root["traceEvents"].get_array()) {
        std::string_view ph, cat, name;
        if (e["ph"].get(ph) != simdjson::SUCCESS) {
            continue;
        }
        if (e["cat"].get(cat) != simdjson::SUCCESS) {
            cat = {};
        }
        if (e["name"].get(name) != simdjson::SUCCESS) {
            name = {};
        }
        if ((ph == "i" || ph == "I") && name == "[memory]") {
            ++c.memoryEvents;
        } else if (ph == "i" || ph == "I") {
            ++c.instants;
        }
        if (ph != "X") {
            continue;
        }
        std::string category = lowerCase(cat);
        ++c.completeByCategory[category];
        bool step = name.substr(0, 13) == "ProfilerStep#";
        if (step && (category == "user_annotation" || category == "operator" || category == "cpu_op")) {
            ++c.profilerStepsHost;
        }
        if (step && (category == "operator" || category == "cpu_op")) {
            ++c.profilerStepOperators;
        }
        std::int64_t correlation = 0;
        if (e["args"]["correlation"].get(correlation) != simdjson::SUCCESS) {
            correlation = 0;
        }
        if (category == "cuda_runtime" || category == "cuda_driver" || category == "runtime") {
            c.launchCorrelations.insert(correlation);
        }
        if (category == "kernel") {
            c.kernelCorrelations.push_back(correlation);
            double dur = 0;
            if (e["dur"].get(dur) == simdjson::SUCCESS) {
                c.kernelDurationUs += dur;
            } else {
                std::int64_t d = 0;
                if (e["dur"].get(d) == simdjson::SUCCESS) {
                    c.kernelDurationUs += double(d);
                }
            }
        }
    }
    for (std::int64_t k : c.kernelCorrelations) {
        c.kernelsWithLaunch += c.launchCorrelations.count(k) > 0;
    }
    simdjson::dom::array devices;
    if (root["deviceProperties"].get(devices) == simdjson::SUCCESS ||
        root["computeProperties"].get(devices) == simdjson::SUCCESS) {
        c.deviceCount = devices.size();
        for (simdjson::dom::element d : devices) {
            std::string_view n;
            if (d["name"].get(n) == simdjson::SUCCESS) {
                c.firstDeviceName = std::string(n);
                break;
            }
        }
    }
    simdjson::dom::object dist;
    if (root["distributedInfo"].get(dist) == simdjson::SUCCESS) {
        c.hasDistributed = true;
        if (dist["rank"].get(c.rank) != simdjson::SUCCESS ||
            dist["world_size"].get(c.worldSize) != simdjson::SUCCESS) {
            c.rank = c.worldSize = -1;
        }
    }
    return c;
}

std::int64_t at(const Census& c, const char* category) {
    auto it = c.completeByCategory.find(category);
    return it == c.completeByCategory.end() ? 0 : it->second;
}

class RealKinetoTrace : public ::testing::TestWithParam<ReadmeFigures> {};

}  // namespace

TEST_P(RealKinetoTrace, CountsMatchAnIndependentCensus) {
    const ReadmeFigures& r = GetParam();
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, r.file);
    Census c = census(readMaybeGzip(path));

    // The census agrees with the README (checks the independent counter itself).
    EXPECT_EQ(at(c, "kernel"), r.kernel);
    EXPECT_EQ(at(c, "gpu_memcpy"), r.memcpy);
    EXPECT_EQ(at(c, "gpu_memset"), r.memset);
    EXPECT_EQ(at(c, "cuda_runtime"), r.runtime);
    EXPECT_EQ(at(c, "cuda_driver"), r.driver);
    EXPECT_EQ(at(c, "cpu_op"), r.cpuOp);
    EXPECT_EQ(at(c, "user_annotation"), r.userAnnotation);
    EXPECT_EQ(at(c, "gpu_user_annotation"), r.gpuUserAnnotation);
    EXPECT_EQ(at(c, "python_function"), r.python);
    EXPECT_EQ(c.profilerStepsHost, r.steps);

    auto result = loadTrace(path);
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();

    EXPECT_EQ(std::int64_t(m.kernels.size()), at(c, "kernel"));
    EXPECT_EQ(std::int64_t(m.memcpys.size()), at(c, "gpu_memcpy"));
    EXPECT_EQ(std::int64_t(m.memsets.size()), at(c, "gpu_memset"));
    EXPECT_EQ(std::int64_t(m.apiCalls.size()), at(c, "cuda_runtime") + at(c, "cuda_driver"));
    EXPECT_EQ(std::int64_t(m.cpuOps.size()),
              at(c, "cpu_op") - c.profilerStepOperators + at(c, "python_function"));
    EXPECT_EQ(std::int64_t(m.ranges.size()),
              at(c, "user_annotation") + at(c, "gpu_user_annotation") + c.profilerStepOperators);
    EXPECT_EQ(m.stats.count("import.instant_events"), c.instants);
    EXPECT_EQ(m.stats.count("import.memory_events") + m.stats.count("import.host_memory_events") +
                  m.stats.count("import.unusable_memory_event"),
              c.memoryEvents);
    EXPECT_EQ(m.stats.count("import.unknown_category"), 0);

    std::int64_t hostSteps = 0;
    for (std::size_t i = 0; i < m.ranges.size(); ++i) {
        hostSteps += m.ranges.source[i] == RangeSource::UserAnnotation &&
                     m.text(m.ranges.name[i]).substr(0, 13) == "ProfilerStep#";
    }
    EXPECT_EQ(hostSteps, r.steps);

    // Total kernel time: the census sums doubles in microseconds, the model exact nanoseconds.
    double kernelNs = 0;
    for (std::size_t i = 0; i < m.kernels.size(); ++i) {
        kernelNs += double(m.kernels.durationNs(i));
    }
    EXPECT_NEAR(kernelNs, c.kernelDurationUs * 1000.0, 1.0 + 1e-9 * kernelNs);

    // Devices and ranks.
    EXPECT_EQ(m.devices.size(), c.deviceCount);
    if (r.gpuName != nullptr) {
        ASSERT_FALSE(m.devices.empty());
        EXPECT_EQ(m.devices[0].name, r.gpuName);
        EXPECT_GT(m.devices[0].smCount, 0);
        EXPECT_GT(m.devices[0].totalMemoryBytes, 0);
    }
    EXPECT_EQ(m.distributed.present, c.hasDistributed);
    EXPECT_EQ(m.distributed.present, r.rank >= 0);
    if (r.rank >= 0) {
        EXPECT_EQ(m.distributed.rank, r.rank);
        EXPECT_EQ(m.distributed.worldSize, r.worldSize);
    }

    // Launch links: exactly the kernels whose correlation id has a runtime/driver call in the file
    // (some launches happen before the capture window opens).
    std::int64_t linked = 0;
    for (std::size_t i = 0; i < m.kernels.size(); ++i) {
        linked += m.kernels.launchCall[i].valid();
    }
    EXPECT_EQ(linked, c.kernelsWithLaunch);
    EXPECT_EQ(m.stats.count("import.no_gpu_events") > 0, m.gpuEventCount() == 0);
}

INSTANTIATE_TEST_SUITE_P(SharedTraces, RealKinetoTrace, ::testing::ValuesIn(kTraces),
                         [](const ::testing::TestParamInfo<ReadmeFigures>& param) {
                             std::string name = param.param.file;
                             name = name.substr(0, name.find("__"));
                             for (char& ch : name) {
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) {
                                     ch = '_';
                                 }
                             }
                             return name;
                         });

// The 2021-format V100 fragment with the legacy "computeProperties" key.
TEST(RealKinetoTrace2021, LegacyCategoriesAndComputeProperties) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "kineto-tbplugin__gpu_metrics_input.json");
    Census c = census(readMaybeGzip(path));
    auto result = loadTrace(path);
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    EXPECT_EQ(std::int64_t(m.kernels.size()), at(c, "kernel"));
    EXPECT_EQ(at(c, "kernel"), 30);
    EXPECT_EQ(std::int64_t(m.memcpys.size()), at(c, "memcpy"));
    EXPECT_EQ(std::int64_t(m.apiCalls.size()), at(c, "runtime"));
    EXPECT_EQ(std::int64_t(m.cpuOps.size()), at(c, "operator") - c.profilerStepOperators);
    EXPECT_EQ(c.profilerStepOperators, 1);
    ASSERT_EQ(m.ranges.size(), 1u);
    EXPECT_EQ(m.text(m.ranges.name[0]).substr(0, 13), "ProfilerStep#");
    ASSERT_EQ(m.devices.size(), 4u);
    EXPECT_EQ(m.devices[0].name, "Tesla V100-DGXS-32GB");
    EXPECT_EQ(m.devices[0].computeMajor, 7);
    EXPECT_EQ(m.devices[0].smCount, 80);
    EXPECT_EQ(m.devices[0].maxThreadsPerSm, 2048);
    // Kernels sit on "stream 7" text tids; the stream comes from args.
    for (std::size_t i = 0; i < m.kernels.size(); ++i) {
        EXPECT_EQ(m.kernels.streamId[i], 7);
        EXPECT_TRUE(m.kernels.launchCall[i].valid());
    }
    for (std::size_t i = 0; i < m.memcpys.size(); ++i) {
        EXPECT_EQ(m.memcpys.kind[i], MemcpyKind::HostToDevice);
        EXPECT_EQ(m.memcpys.srcKind[i], MemoryKind::Pageable);
    }
}

TEST(RealKinetoTraceDetails, NanosecondResolutionTimestampsAreExact) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "hta-ns-resolution__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
    auto result = loadTrace(path);
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    // First event in the file: "ts": 1712195495519689.047, "dur": 63.813 (an evaluate_function op).
    bool found = false;
    for (std::size_t i = 0; i < m.cpuOps.size() && !found; ++i) {
        found = m.cpuOps.startNs[i] == 1712195495519689047 && m.cpuOps.endNs[i] == 1712195495519752860;
    }
    EXPECT_TRUE(found);
    ASSERT_FALSE(m.devices.empty());
    EXPECT_EQ(m.devices.size(), 8u);
    EXPECT_EQ(m.metadata.hostName, "twshared39868.02.pnb3.facebook.com");
}

TEST(RealKinetoTraceDetails, AmdTraceIsRecognised) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "hta-amd-mi250__mi250_minitoy_train_ROCm6_2_kineto.json.gz");
    auto result = loadTrace(path);
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    ASSERT_FALSE(m.devices.empty());
    EXPECT_EQ(m.devices[0].vendor, "AMD");
    EXPECT_EQ(m.devices[0].smCount, 104);
    EXPECT_EQ(m.devices[0].warpSize, 64);
    bool hip = false;
    for (std::size_t i = 0; i < m.apiCalls.size(); ++i) {
        hip = hip || m.text(m.apiCalls.name[i]).substr(0, 3) == "hip";
    }
    EXPECT_TRUE(hip);
    for (std::size_t i = 0; i < m.kernels.size(); ++i) {
        EXPECT_EQ(m.kernels.deviceIndex[i], 2);  // the toy ran on GPU 2
    }
    for (std::size_t i = 0; i < m.memcpys.size(); ++i) {
        EXPECT_EQ(m.memcpys.kind[i], MemcpyKind::HostToDevice);
    }
    EXPECT_EQ(m.metadata.captureStartUnixNs, 1735632360000000000);
}

TEST(RealKinetoTraceDetails, CpuOnlyTraceLoadsAndSaysSo) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "hta-cpu-only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
    auto result = loadTrace(path);
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    EXPECT_EQ(m.gpuEventCount(), 0u);
    const TraceStat* stat = m.stats.find("import.no_gpu_events");
    ASSERT_NE(stat, nullptr);
    EXPECT_EQ(stat->severity, Severity::Info);
    EXPECT_EQ(m.distributed.backend, "gloo");
}

TEST(RealKinetoTraceDetails, PlainAndGzipFilesGiveTheSameModel) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "hta-trace-diff-control__control.json.gz");
    chokepoint::testutils::TempFile plain(".json");
    plain.write(readMaybeGzip(path));  // 33 MB: several refills of the reader's window
    auto fromGzip = loadTrace(path);
    auto fromPlain = loadTrace(plain.path());
    ASSERT_TRUE(fromGzip.ok()) << fromGzip.error().message;
    ASSERT_TRUE(fromPlain.ok()) << fromPlain.error().message;
    const TraceModel& a = fromGzip.value();
    const TraceModel& b = fromPlain.value();
    ASSERT_EQ(a.kernels.size(), b.kernels.size());
    ASSERT_EQ(a.apiCalls.size(), b.apiCalls.size());
    ASSERT_EQ(a.cpuOps.size(), b.cpuOps.size());
    EXPECT_EQ(a.kernels.startNs, b.kernels.startNs);
    EXPECT_EQ(a.kernels.endNs, b.kernels.endNs);
    EXPECT_EQ(a.kernels.correlationId, b.kernels.correlationId);
    EXPECT_EQ(a.cpuOps.startNs, b.cpuOps.startNs);
    for (std::size_t i = 0; i < a.cpuOps.size(); i += 97) {
        EXPECT_EQ(a.text(a.cpuOps.name[i]), b.text(b.cpuOps.name[i]));
        EXPECT_EQ(a.text(a.cpuOps.inputShapes[i]), b.text(b.cpuOps.inputShapes[i]));
    }
}
