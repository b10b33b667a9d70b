// The Chrome-trace JSON exporter: valid JSON whatever the names hold, exact timestamps, one event
// per row, flows from launch calls to GPU work, counters, and gzip output.

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <simdjson.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "core/base/JsonEscape.h"
#include "core/format/ChromeTraceExporter.h"
#include "tests/core/format/ModelCompare.h"

namespace chokepoint::formattest {
namespace {

struct Parsed {
    std::map<std::string, int> byPh;
    std::map<std::string, int> byCat;
    std::vector<std::string> kernelNames;
    bool hasDeviceProperties = false;
    bool hasDistributedInfo = false;
};

Parsed parse(const std::string& json) {
    Parsed p;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    auto error = parser.parse(simdjson::padded_string(json)).get(doc);
    EXPECT_EQ(error, simdjson::SUCCESS) << simdjson::error_message(error);
    if (error) {
        return p;
    }
    simdjson::dom::array events;
    EXPECT_EQ(doc["traceEvents"].get(events), simdjson::SUCCESS);
    for (simdjson::dom::element e : events) {
        std::string_view ph, cat, name;
        EXPECT_EQ(e["ph"].get(ph), simdjson::SUCCESS);
        EXPECT_EQ(e["name"].get(name), simdjson::SUCCESS);
        EXPECT_TRUE(e["pid"].is_int64());
        EXPECT_TRUE(e["ts"].is_number());
        if (e["cat"].get(cat) == simdjson::SUCCESS) {
            ++p.byCat[std::string(cat)];
        }
        ++p.byPh[std::string(ph)];
        if (cat == "kernel") {
            p.kernelNames.emplace_back(name);
        }
        if (ph == "f") {
            std::string_view bp;
            EXPECT_EQ(e["bp"].get(bp), simdjson::SUCCESS);
            EXPECT_EQ(bp, "e");
        }
    }
    p.hasDeviceProperties = doc["deviceProperties"].is_array();
    p.hasDistributedInfo = doc["distributedInfo"].is_object();
    return p;
}

TEST(JsonEscape, EscapesSpecialCharactersAndReplacesInvalidUtf8) {
    EXPECT_EQ(jsonString("plain"), "\"plain\"");
    EXPECT_EQ(jsonString("a\"b\\c"), "\"a\\\"b\\\\c\"");
    EXPECT_EQ(jsonString("\n\t\x01\x1f\x7f"), "\"\\n\\t\\u0001\\u001f\\u007f\"");
    EXPECT_EQ(jsonString(std::string("nul\0x", 5)), "\"nul\\u0000x\"");
    EXPECT_EQ(jsonString("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80"),
              "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80\"");
    const std::string fffd = "\xEF\xBF\xBD";
    EXPECT_EQ(jsonString("\xff"), "\"" + fffd + "\"");
    EXPECT_EQ(jsonString("\xc3"), "\"" + fffd + "\"");                                   // truncated sequence
    EXPECT_EQ(jsonString("\xc0\xaf"), "\"" + fffd + fffd + "\"");                        // overlong
    EXPECT_EQ(jsonString("\xed\xa0\x80"), "\"" + fffd + fffd + fffd + "\"");             // surrogate
    EXPECT_EQ(jsonString("\xf4\x90\x80\x80"), "\"" + fffd + fffd + fffd + fffd + "\"");  // > U+10FFFF
}

TEST(ChromeTraceExport, EveryRowBecomesOneEventAndTheJsonIsValid) {
    TraceModel m = fullModel(3);
    const std::string json = chromeTraceJson(m);
    Parsed p = parse(json);
    EXPECT_EQ(p.byCat["kernel"], static_cast<int>(m.kernels.size()));
    EXPECT_EQ(p.byCat["gpu_memcpy"], static_cast<int>(m.memcpys.size()));
    EXPECT_EQ(p.byCat["gpu_memset"], static_cast<int>(m.memsets.size()));
    EXPECT_EQ(p.byCat["cuda_runtime"] + p.byCat["cuda_driver"], static_cast<int>(m.apiCalls.size()));
    EXPECT_EQ(p.byCat["cuda_sync"], static_cast<int>(m.syncs.size()));
    EXPECT_EQ(p.byCat["user_annotation"] + p.byCat["gpu_user_annotation"], static_cast<int>(m.ranges.size()));
    EXPECT_EQ(p.byCat["cpu_op"] + p.byCat["python_function"], static_cast<int>(m.cpuOps.size()));
    int launched = 0;
    for (std::size_t i = 0; i < m.kernels.size(); ++i)
        launched += m.kernels.launchCall[i].valid() ? 1 : 0;
    for (std::size_t i = 0; i < m.memcpys.size(); ++i)
        launched += m.memcpys.launchCall[i].valid() ? 1 : 0;
    for (std::size_t i = 0; i < m.memsets.size(); ++i)
        launched += m.memsets.launchCall[i].valid() ? 1 : 0;
    EXPECT_GT(launched, 0);
    EXPECT_EQ(p.byPh["s"], launched);
    EXPECT_EQ(p.byPh["f"], launched);
    std::size_t samples = 0;
    for (const CounterTrack& t : m.counters)
        samples += t.timesNs.size();
    EXPECT_EQ(p.byPh["C"], static_cast<int>(samples));
    EXPECT_GT(p.byPh["M"], 0);
    EXPECT_TRUE(p.hasDeviceProperties);
    EXPECT_TRUE(p.hasDistributedInfo);
    // Names with quotes, backslashes, tabs, control bytes and invalid UTF-8 survive as valid JSON.
    EXPECT_NE(json.find("\"nn.Module: Linear\\t\\\"x\\\"\\\\\""), std::string::npos);
    EXPECT_NE(json.find("\"weird\\u0001\xEF\xBF\xBD(name\""), std::string::npos);
    // Input shapes recorded as a JSON array are written as an array.
    EXPECT_NE(json.find("\"Input Dims\":[[8, 1024], [1024, 4096]]"), std::string::npos);
}

TEST(ChromeTraceExport, TimestampsAreMicrosecondsWithNanosecondPrecision) {
    testutils::TraceBuilder b;
    b.kernel("k", 1'234'567, 1'234'568);
    b.kernel("neg", -2'500, -1'000);
    TraceModel m = b.build();
    const std::string json = chromeTraceJson(m);
    EXPECT_NE(json.find("\"ts\":1234.567,\"dur\":0.001"), std::string::npos) << json;
    EXPECT_NE(json.find("\"ts\":-2.500,\"dur\":1.500"), std::string::npos) << json;
    parse(json);
}

TEST(ChromeTraceExport, NonFiniteCountersAndNegativeDurationsStayValid) {
    testutils::TraceBuilder b;
    b.kernel("backwards", 2000, 1000);
    TraceModel m = b.build();
    CounterTrack t;
    t.name = "x";
    t.timesNs = {1, 2, 3};
    t.values = {std::nan(""), 1.5, HUGE_VAL};
    m.counters.push_back(t);
    const std::string json = chromeTraceJson(m);
    Parsed p = parse(json);
    EXPECT_EQ(p.byPh["C"], 1);
    EXPECT_NE(json.find("\"dur\":0.000"), std::string::npos);
}

TEST(ChromeTraceExport, EmptyModelIsAValidDocument) {
    TraceModel m;
    m.finalize();
    Parsed p = parse(chromeTraceJson(m));
    EXPECT_TRUE(p.byPh.empty());
}

TEST(ChromeTraceExport, GzipPathIsCompressed) {
    TraceModel m = fullModel(2);
    const std::string path =
        (std::filesystem::temp_directory_path() / ("chrome-" + std::to_string(::getpid()) + ".json.gz"))
            .string();
    ASSERT_TRUE(exportChromeTrace(m, path).ok());
    gzFile file = gzopen(path.c_str(), "rb");
    ASSERT_NE(file, nullptr);
    std::string json;
    char buffer[65536];
    int n = 0;
    while ((n = gzread(file, buffer, sizeof buffer)) > 0) {
        json.append(buffer, static_cast<std::size_t>(n));
    }
    gzclose(file);
    EXPECT_EQ(json, chromeTraceJson(m));
    std::filesystem::remove(path);

    Status bad = exportChromeTrace(m, "/nonexistent-dir-q/out.json");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("/nonexistent-dir-q/out.json"), std::string::npos);
}

}  // namespace
}  // namespace chokepoint::formattest

namespace chokepoint::formattest {
namespace {

// Stack samples become thread-scoped instant events on their thread with the stack in args (what
// Perfetto's JSON importer displays), one per sample.
TEST(ChromeTraceExport, StackSamplesAreInstantEventsWithTheStackInArgs) {
    TraceModel m = fullModel(2);
    ASSERT_GT(m.stackSamples.size(), 0u);
    const std::string json = chromeTraceJson(m);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(simdjson::padded_string(json)).get(doc), simdjson::SUCCESS);
    std::size_t samples = 0;
    bool sawDeepStack = false;
    for (simdjson::dom::element e : doc["traceEvents"].get_array()) {
        std::string_view cat;
        if (e["cat"].get(cat) != simdjson::SUCCESS || cat != "python_stack_sample") {
            continue;
        }
        const std::size_t i = samples++;
        ASSERT_LT(i, m.stackSamples.size());
        EXPECT_EQ(std::string_view(e["ph"]), "i");
        EXPECT_EQ(std::string_view(e["s"]), "t");
        const ThreadIndex t = m.stackSamples.thread[i];
        EXPECT_EQ(int64_t(e["tid"]), t < m.threads.size() ? m.threads[t].tid : 0);
        EXPECT_DOUBLE_EQ(double(e["ts"]), static_cast<double>(m.stackSamples.timeNs[i]) / 1000.0);
        simdjson::dom::array stack = e["args"]["stack"].get_array();
        const std::span<const FrameIndex> frames = m.stack(m.stackSamples.stack[i]);
        ASSERT_EQ(stack.size(), frames.size());
        if (frames.size() == 3) {
            sawDeepStack = true;
            // Leaf first: the dataset frame, then the DataLoader, then main with its file and line.
            EXPECT_EQ(std::string_view(e["name"]).find("__getitem__"), 0u);  // its invalid byte replaced
            EXPECT_EQ(std::string_view(stack.at(2)), "main (train.py:88)");
        }
    }
    EXPECT_EQ(samples, m.stackSamples.size());
    EXPECT_TRUE(sawDeepStack);
}

}  // namespace
}  // namespace chokepoint::formattest
