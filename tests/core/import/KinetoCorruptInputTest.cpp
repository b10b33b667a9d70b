// Corrupt and hostile input: each case must give a clear Error naming the file and the place, or
// load with the problem counted in TraceStats. Never a crash or a hang.

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "core/import/KinetoJsonImporter.h"
#include "core/import/TraceLoader.h"
#include "tests/core/import/ImportTestUtils.h"

using namespace chokepoint::core;
using chokepoint::testutils::gzipBytes;
using chokepoint::testutils::TempFile;

namespace {

// A small but complete trace used as the base of the truncation and mutation cases.
std::string sampleTrace() {
    std::string json = R"JSON({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "numSms": 108, "totalGlobalMem": 85000000000}],
  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2},
  "traceEvents": [
)JSON";
    for (int i = 0; i < 40; ++i) {
        std::string ts = std::to_string(1000 + i * 10) + ".5";
        std::string corr = std::to_string(100 + i);
        json += R"(  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )" + ts +
                R"(, "dur": 8, "args": {"External id": )" + corr + R"(, "Input Dims": [[4, 4], [4, 4]]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )" +
                ts + R"(, "dur": 2, "args": {"correlation": )" + corr + R"(}},
  {"ph": "s", "id": )" +
                corr + R"(, "pid": 1, "tid": 1, "ts": )" + ts + R"(, "cat": "ac2g", "name": "ac2g"},
  {"ph": "X", "cat": "kernel", "name": "gemm \"quoted\" \\ name", "pid": 0, "tid": 7, "ts": )" +
                ts + R"(, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": )" + corr +
                R"(, "grid": [1, 1, 1], "block": [32, 1, 1]}},
)";
    }
    json += R"(  {"name": "process_name", "ph": "M", "ts": 0, "pid": 1, "tid": 0, "args": {"name": "python"}}
  ],
  "displayTimeUnit": "ms"
}
)";
    return json;
}

void expectNamedError(const Result<TraceModel>& result, const std::string& name) {
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().message.find(name), std::string::npos) << result.error().message;
}

}  // namespace

TEST(KinetoCorruptInput, SampleLoadsCleanly) {
    auto result = importKinetoJsonFromMemory(sampleTrace(), "sample.json");
    ASSERT_TRUE(result.ok()) << result.error().message;
    EXPECT_EQ(result->kernels.size(), 40u);
    EXPECT_EQ(result->text(result->kernels.name[0]), "gemm \"quoted\" \\ name");
    EXPECT_FALSE(result->stats.hasAtLeast(Severity::Warning));
}

TEST(KinetoCorruptInput, TruncatedJsonLoadsToItsLastWholeEventOrIsAnErrorWithAByteOffset) {
    const std::string json = sampleTrace();
    const std::size_t lastBrace = json.rfind('}');
    const std::size_t eventsStart = json.find("\"traceEvents\"");
    const std::size_t firstEventEnd = json.find("}},", eventsStart) + 2;  // end of the first event
    std::size_t errors = 0, partial = 0;
    std::size_t previousKernels = 0;
    for (std::size_t cut = 0; cut <= lastBrace; cut += (cut < 600 ? 1 : 7)) {
        auto result = importKinetoJsonFromMemory(std::string_view(json).substr(0, cut), "cut.json");
        if (cut < firstEventEnd) {
            // No whole event yet: nothing to show, a clear error.
            ASSERT_FALSE(result.ok()) << "cut at " << cut;
            const std::string& message = result.error().message;
            EXPECT_EQ(message.rfind("cut.json: ", 0), 0u) << message;
            if (cut > 0 && json.find_first_not_of(" \n", 0) < cut) {
                EXPECT_NE(message.find("byte "), std::string::npos) << message;
            }
            ++errors;
            continue;
        }
        // After a whole event the trace opens with what was written, and says it was cut short.
        ASSERT_TRUE(result.ok()) << "cut at " << cut << ": " << result.error().message;
        const TraceStat* truncated = result->stats.find("import.truncated");
        ASSERT_NE(truncated, nullptr) << "cut at " << cut;
        EXPECT_EQ(truncated->severity, Severity::Warning);
        EXPECT_NE(truncated->detail.find("last whole event"), std::string::npos) << truncated->detail;
        EXPECT_LE(result->kernels.size(), 40u);
        EXPECT_GE(result->kernels.size(), previousKernels) << "cut at " << cut;  // more data, more events
        previousKernels = result->kernels.size();
        ++partial;
    }
    EXPECT_GT(errors, 100u);
    EXPECT_GT(partial, 400u);
    EXPECT_EQ(previousKernels, 40u);
    // Cutting only trailing whitespace loads without a warning.
    auto whole = importKinetoJsonFromMemory(std::string_view(json).substr(0, lastBrace + 1), "ok.json");
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ(whole->stats.find("import.truncated"), nullptr);
}

TEST(KinetoCorruptInput, TruncatedGzipLoadsWhatItHoldsOrIsAnErrorNamingTheFile) {
    const std::string gz = gzipBytes(sampleTrace());
    for (std::size_t cut : {std::size_t{2}, std::size_t{10}}) {
        TempFile file(".json.gz");
        file.write(gz.substr(0, cut));
        expectNamedError(loadTrace(file.path()), file.path());
    }
    TempFile whole(".json.gz");
    whole.write(gz);
    auto ok = loadTrace(whole.path());
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    EXPECT_EQ(ok->kernels.size(), 40u);
    EXPECT_EQ(ok->stats.find("import.truncated"), nullptr);
    // A gzip stream cut inside its deflate data opens to its last whole event and says why.
    for (std::size_t cut : {gz.size() / 2, gz.size() - 9, gz.size() - 1}) {
        TempFile half(".json.gz");
        half.write(gz.substr(0, cut));
        auto cutResult = importKinetoJson(half.path());
        ASSERT_TRUE(cutResult.ok()) << cutResult.error().message;
        const TraceStat* truncated = cutResult->stats.find("import.truncated");
        ASSERT_NE(truncated, nullptr) << "cut at " << cut;
        EXPECT_NE(truncated->detail.find("truncated gzip"), std::string::npos) << truncated->detail;
        EXPECT_LE(cutResult->kernels.size(), 40u);
    }
}

TEST(KinetoCorruptInput, CorruptGzipDataIsAnError) {
    std::string gz = gzipBytes(sampleTrace());
    for (std::size_t i = 20; i < 60; ++i) {
        gz[i] = static_cast<char>(gz[i] ^ 0x5a);
    }
    TempFile file(".gz");
    file.write(gz);
    expectNamedError(importKinetoJson(file.path()), file.path());
}

TEST(KinetoCorruptInput, ConcatenatedGzipMembersAreRead) {
    const std::string json = sampleTrace();
    const std::size_t half = json.size() / 2;
    TempFile file(".json.gz");
    file.write(gzipBytes(json.substr(0, half)) + gzipBytes(json.substr(half)));
    auto result = importKinetoJson(file.path());
    ASSERT_TRUE(result.ok()) << result.error().message;
    EXPECT_EQ(result->kernels.size(), 40u);
}

TEST(KinetoCorruptInput, WrongTypesAreCountedNotFatal) {
    const char* json = R"JSON({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": "12", "dur": 1},
  {"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 13, "dur": [1],
   "args": {"device": "zero", "stream": {"x": 1}, "correlation": true, "grid": "big", "block": [1, "two", 3]}},
  {"ph": "X", "cat": "cpu_op", "name": 42, "pid": {}, "tid": [], "ts": 14, "dur": 2, "args": 5},
  {"ph": 7, "cat": null, "name": "c", "ts": 15},
  42,
  "not an event",
  null,
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMalloc", "pid": 1, "tid": 1, "ts": 16, "dur": 1}
], "deviceProperties": {"oops": 1}, "distributedInfo": [1, 2], "schemaVersion": "one"})JSON";
    auto result = importKinetoJsonFromMemory(json, "types.json");
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    EXPECT_GT(m.stats.count("import.wrong_type"), 5);
    EXPECT_EQ(m.stats.count("import.malformed_event"), 3);
    EXPECT_EQ(m.stats.count("import.missing_timestamp"), 1);  // kernel "a": ts was a string
    EXPECT_EQ(m.kernels.size(), 1u);                          // kernel "b", dur missing -> 0
    EXPECT_EQ(m.kernels.endNs[0], m.kernels.startNs[0]);
    EXPECT_EQ(m.kernels.blockX[0], 1);
    EXPECT_EQ(m.kernels.blockZ[0], 3);
    EXPECT_EQ(m.cpuOps.size(), 1u);
    EXPECT_EQ(m.text(m.cpuOps.name[0]), "42");
    EXPECT_EQ(m.apiCalls.size(), 1u);
    EXPECT_TRUE(m.devices.empty());
    EXPECT_FALSE(m.distributed.present);
    EXPECT_TRUE(m.stats.hasAtLeast(Severity::DataLoss));
}

TEST(KinetoCorruptInput, MissingFieldsGetDefaultsAndAreCounted) {
    const char* json = R"JSON({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "no_dur", "pid": 0, "tid": 7, "ts": 10},
  {"ph": "X", "cat": "kernel", "name": "no_ts", "pid": 0, "tid": 7, "dur": 1},
  {"cat": "kernel", "name": "no_ph", "pid": 0, "tid": 7, "ts": 10, "dur": 1},
  {"ph": "X", "cat": "kernel", "pid": 0, "tid": 7, "ts": 11, "dur": 1},
  {"ph": "X", "cat": "cpu_op", "name": "no_pid_tid", "ts": 12, "dur": 1},
  {"ph": "X", "name": "no_cat", "pid": 1, "tid": 1, "ts": 12, "dur": 1},
  {}
]})JSON";
    auto result = importKinetoJsonFromMemory(json, "missing.json");
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    EXPECT_EQ(m.kernels.size(), 2u);  // no_dur (0 length) and the nameless one
    EXPECT_EQ(m.cpuOps.size(), 1u);
    EXPECT_EQ(m.stats.count("import.missing_timestamp"), 1);
    EXPECT_EQ(m.stats.count("import.event_without_phase"), 2);
    EXPECT_EQ(m.stats.count("import.missing_field"), 2);  // no dur, no name
    EXPECT_EQ(m.stats.count("import.unknown_category"), 1);
    const TraceStat* unknown = m.stats.find("import.unknown_category");
    ASSERT_NE(unknown, nullptr);
    EXPECT_NE(unknown->detail.find("no_cat"), std::string::npos);
}

TEST(KinetoCorruptInput, NegativeAndOverlappingDurations) {
    const char* json = R"JSON({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "neg", "pid": 0, "tid": 7, "ts": 10, "dur": -5,
   "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "user_annotation", "name": "outer", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
  {"ph": "X", "cat": "user_annotation", "name": "straddles", "pid": 1, "tid": 1, "ts": 5, "dur": 10},
  {"ph": "X", "cat": "cpu_op", "name": "op1", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
  {"ph": "X", "cat": "cpu_op", "name": "op2", "pid": 1, "tid": 1, "ts": 5, "dur": 10}
]})JSON";
    auto result = importKinetoJsonFromMemory(json, "neg.json");
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    ASSERT_EQ(m.kernels.size(), 1u);
    EXPECT_EQ(m.kernels.startNs[0], 10000);
    EXPECT_EQ(m.kernels.endNs[0], 10000);
    EXPECT_EQ(m.stats.count("import.negative_duration_clamped"), 1);
    EXPECT_EQ(m.stats.count("nesting.range_partial_overlap"), 1);
    EXPECT_EQ(m.stats.count("nesting.cpu_op_partial_overlap"), 1);
}

TEST(KinetoCorruptInput, HugeNumbersAreCountedNotFatal) {
    const char* json = R"JSON({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "ts1e300", "pid": 0, "tid": 7, "ts": 1e300, "dur": 1},
  {"ph": "X", "cat": "kernel", "name": "ts2pow70", "pid": 0, "tid": 7, "ts": 1180591620717411303424, "dur": 1},
  {"ph": "X", "cat": "kernel", "name": "dur1e300", "pid": 0, "tid": 7, "ts": 1, "dur": 1e300},
  {"ph": "X", "cat": "kernel", "name": "sum_overflows", "pid": 0, "tid": 7, "ts": 9223372036854775.0,
   "dur": 9223372036854775.0},
  {"ph": "X", "cat": "kernel", "name": "big_args", "pid": 1180591620717411303424, "tid": -1e300, "ts": 2,
   "dur": 1, "args": {"device": 10000000000, "stream": 1e300, "correlation": 1180591620717411303424,
   "grid": [1e300, -5, 99999999999], "bytes": 1e400}},
  {"ph": "X", "cat": "cpu_op", "name": "tiny", "pid": 1, "tid": 1, "ts": 1e-300, "dur": 1e-300}
], "baseTimeNanoseconds": 1e300})JSON";
    auto result = importKinetoJsonFromMemory(json, "huge.json");
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    EXPECT_EQ(m.stats.count("import.missing_timestamp"), 2);  // ts 1e300 and 2^70 dropped
    EXPECT_EQ(m.kernels.size(), 3u);
    EXPECT_GT(m.stats.count("import.value_out_of_range"), 5);
    ASSERT_EQ(m.cpuOps.size(), 1u);
    EXPECT_EQ(m.cpuOps.startNs[0], 0);
    for (std::size_t i = 0; i < m.kernels.size(); ++i) {
        EXPECT_GE(m.kernels.endNs[i], m.kernels.startNs[i]);
        EXPECT_GE(m.kernels.deviceIndex[i], 0);
    }
}

TEST(KinetoCorruptInput, MalformedNumbersAreCounted) {
    const char* json = R"JSON({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 1e, "dur": 1},
  {"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 2, "dur": -, "args": {"stream": 01}}
]})JSON";
    auto result = importKinetoJsonFromMemory(json, "num.json");
    ASSERT_TRUE(result.ok()) << result.error().message;
    EXPECT_EQ(result->stats.count("import.malformed_number"), 3);
    EXPECT_EQ(result->kernels.size(), 1u);  // "a" has no usable ts
}

TEST(KinetoCorruptInput, ZeroByteFileDirectoryAndMissingFile) {
    TempFile empty(".json");
    empty.write("");
    auto a = loadTrace(empty.path());
    expectNamedError(a, empty.path());
    EXPECT_NE(a.error().message.find("empty"), std::string::npos);
    auto a2 = importKinetoJson(empty.path());
    expectNamedError(a2, empty.path());

    TempFile dir("-dir");
    std::filesystem::create_directory(dir.path());
    auto b = loadTrace(dir.path());
    expectNamedError(b, dir.path());
    EXPECT_NE(b.error().message.find("directory"), std::string::npos);
    expectNamedError(importKinetoJson(dir.path()), dir.path());

    const std::string missing = dir.path() + "/does-not-exist.json";
    expectNamedError(loadTrace(missing), missing);
    expectNamedError(importKinetoJson(missing), missing);

    TempFile spaces(".json");
    spaces.write("   \n\t ");
    expectNamedError(loadTrace(spaces.path()), spaces.path());
    expectNamedError(importKinetoJson(spaces.path()), spaces.path());
}

TEST(KinetoCorruptInput, RandomGarbageNeverCrashes) {
    std::mt19937 rng(12345);
    for (int round = 0; round < 300; ++round) {
        std::string bytes(1 + rng() % 400, '\0');
        for (char& c : bytes) {
            c = static_cast<char>(rng() & 0xff);
        }
        if (round % 2 == 0) {
            bytes[0] = '{';  // get past the first-byte check
        }
        auto result = importKinetoJsonFromMemory(bytes, "garbage.bin");
        if (!result.ok()) {
            EXPECT_EQ(result.error().message.rfind("garbage.bin: ", 0), 0u);
        }
    }
    TempFile file(".bin");
    file.write(
        std::string("\x7f"
                    "ELF\x02\x01\x01\0\0\0",
                    10));
    auto result = loadTrace(file.path());
    expectNamedError(result, file.path());
    EXPECT_NE(result.error().message.find("unknown trace format"), std::string::npos);
}

TEST(KinetoCorruptInput, MutatedTracesNeverCrash) {
    const std::string base = sampleTrace();
    std::mt19937 rng(777);
    const char kJsonBytes[] = "{}[]\",:0123456789.eE-+ \\tnfu";
    int loaded = 0;
    for (int round = 0; round < 400; ++round) {
        std::string json = base;
        int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits; ++e) {
            std::size_t at = rng() % json.size();
            switch (rng() % 3) {
                case 0:
                    json[at] = kJsonBytes[rng() % (sizeof kJsonBytes - 1)];
                    break;
                case 1:
                    json.erase(at, 1 + rng() % 8);
                    break;
                default:
                    json.insert(at, 1, kJsonBytes[rng() % (sizeof kJsonBytes - 1)]);
                    break;
            }
        }
        auto result = importKinetoJsonFromMemory(json, "mutant.json");
        if (result.ok()) {
            ++loaded;
            EXPECT_TRUE(result->finalized());
        } else {
            EXPECT_EQ(result.error().message.rfind("mutant.json: ", 0), 0u) << result.error().message;
        }
    }
    EXPECT_GT(loaded, 0);
}

TEST(KinetoCorruptInput, StructuralErrorsNameTheByteAndEvent) {
    auto r1 = importKinetoJsonFromMemory(R"({"traceEvents": [{"ph": "X"} {"ph": "X"}]})", "x.json");
    ASSERT_FALSE(r1.ok());
    EXPECT_NE(r1.error().message.find("x.json: byte 29"), std::string::npos) << r1.error().message;
    auto r2 = importKinetoJsonFromMemory(R"({"traceEvents": [{"ph": "X", "ts": 1,}]})", "y.json");
    ASSERT_FALSE(r2.ok());
    EXPECT_NE(r2.error().message.find("event #0"), std::string::npos) << r2.error().message;
    auto r3 = importKinetoJsonFromMemory(R"({"traceEvents": {}})", "z.json");
    ASSERT_FALSE(r3.ok());
    EXPECT_NE(r3.error().message.find("not an array"), std::string::npos) << r3.error().message;
    auto r4 = importKinetoJsonFromMemory(R"({"other": 1})", "w.json");
    ASSERT_FALSE(r4.ok());
    EXPECT_NE(r4.error().message.find("traceEvents"), std::string::npos) << r4.error().message;
    auto r5 = importKinetoJsonFromMemory(R"({"traceEvents": []} trailing)", "t.json");
    ASSERT_FALSE(r5.ok());
    EXPECT_NE(r5.error().message.find("after the end"), std::string::npos) << r5.error().message;
    auto r6 = importKinetoJsonFromMemory(R"({"traceEvents": [], "bad": tru})", "l.json");
    ASSERT_FALSE(r6.ok());
    EXPECT_NE(r6.error().message.find("l.json: byte"), std::string::npos) << r6.error().message;
}

TEST(KinetoCorruptInput, CpuOnlyTraceLoadsAndSaysSo) {
    const char* json = R"JSON({"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 5, "dur": 10}
], "deviceProperties": []})JSON";
    auto result = importKinetoJsonFromMemory(json, "cpu.json");
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceStat* stat = result->stats.find("import.no_gpu_events");
    ASSERT_NE(stat, nullptr);
    EXPECT_EQ(stat->severity, Severity::Info);
    EXPECT_EQ(result->cpuOps.size(), 1u);
    EXPECT_EQ(result->ranges.size(), 1u);
}

TEST(KinetoCorruptInput, OversizedListsStayBounded) {
    // Thousands of device entries and of distinct counter series: bounded work, loss counted.
    std::string json = "{\"deviceProperties\": [";
    for (int i = 0; i < 1100; ++i) {
        json += std::string(i ? "," : "") + "{\"id\": " + std::to_string(i) + ", \"name\": \"GPU\"}";
    }
    json += "], \"traceEvents\": [";
    for (int i = 0; i < 20000; ++i) {
        json += std::string(i ? "," : "") + "{\"ph\": \"C\", \"name\": \"c" + std::to_string(i) +
                "\", \"pid\": 1, \"ts\": 1, \"args\": {\"v\": 1}}";
    }
    json += "]}";
    auto result = importKinetoJsonFromMemory(json, "big.json");
    ASSERT_TRUE(result.ok()) << result.error().message;
    EXPECT_EQ(result->devices.size(), 1024u);
    EXPECT_EQ(result->stats.count("import.too_many_devices"), 1);
    EXPECT_EQ(result->counters.size(), 20000u);
}
