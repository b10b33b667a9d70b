#include "core/import/TraceLoader.h"

#include <gtest/gtest.h>

#include "core/format/CptraceFormat.h"
#include "tests/core/import/ImportTestUtils.h"

using namespace chokepoint::core;
using chokepoint::testutils::gzipBytes;
using chokepoint::testutils::TempFile;

namespace {

const char* kTinyTrace = R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
  "ts": 1, "dur": 2, "args": {"device": 0, "stream": 7}}]})";

}  // namespace

TEST(TraceLoader, DetectsFormatsByContentNotName) {
    TempFile json(".txt");
    json.write(std::string("\n\t  ") + kTinyTrace);
    ASSERT_TRUE(detectTraceFormat(json.path()).ok());
    EXPECT_EQ(detectTraceFormat(json.path()).value(), TraceFormat::KinetoJson);

    TempFile gz(".json");  // gzip content under a misleading name
    gz.write(gzipBytes(kTinyTrace));
    EXPECT_EQ(detectTraceFormat(gz.path()).value(), TraceFormat::KinetoJson);
    auto model = loadTrace(gz.path());
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_EQ(model->kernels.size(), 1u);
    EXPECT_EQ(model->metadata.sourcePath, gz.path());
    EXPECT_EQ(model->metadata.sourceFormat, "kineto-json");

    TempFile sqlite(".bin");
    sqlite.write(std::string("SQLite format 3\0", 16) + std::string(100, '\0'));
    EXPECT_EQ(detectTraceFormat(sqlite.path()).value(), TraceFormat::NsysSqlite);

    TempFile cptrace(".json");
    cptrace.write(std::string(kCptraceMagic, kCptraceMagicSize) + std::string(8, '\0'));
    EXPECT_EQ(detectTraceFormat(cptrace.path()).value(), TraceFormat::Cptrace);

    TempFile gzGarbage(".gz");
    gzGarbage.write(gzipBytes("this is not json"));
    auto garbage = detectTraceFormat(gzGarbage.path());
    ASSERT_FALSE(garbage.ok());
    EXPECT_NE(garbage.error().message.find(gzGarbage.path()), std::string::npos);

    TempFile text(".json");
    text.write("hello");
    auto unknown = detectTraceFormat(text.path());
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("unknown trace format"), std::string::npos);
}

TEST(TraceLoader, NamesOfFormats) {
    EXPECT_EQ(toString(TraceFormat::KinetoJson), "kineto-json");
    EXPECT_EQ(toString(TraceFormat::NsysSqlite), "nsys-sqlite");
    EXPECT_EQ(toString(TraceFormat::Cptrace), "cptrace");
    EXPECT_EQ(toString(TraceFormat::Unknown), "unknown");
}

TEST(TraceLoader, CorruptSqliteOrCptraceIsAnErrorNotACrash) {
    TempFile sqlite(".sqlite");
    sqlite.write(std::string("SQLite format 3\0", 16) + std::string(50, 'x'));
    auto a = loadTrace(sqlite.path());
    ASSERT_FALSE(a.ok());
    EXPECT_NE(a.error().message.find(sqlite.path()), std::string::npos) << a.error().message;
    TempFile cptrace(".cptrace");
    cptrace.write(std::string(kCptraceMagic, kCptraceMagicSize) + "\x01");
    auto b = loadTrace(cptrace.path());
    ASSERT_FALSE(b.ok());
    EXPECT_NE(b.error().message.find(cptrace.path()), std::string::npos) << b.error().message;
}
