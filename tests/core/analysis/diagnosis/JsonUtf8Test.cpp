// The analysis and comparison JSON writers use the one escaper (core/base/JsonEscape.h): names that
// are not valid UTF-8 (a kernel or range name straight from a trace) still give valid JSON.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <memory>
#include <string>

#include "core/analysis/diagnosis/Analyzer.h"
#include "core/analysis/diagnosis/Compare.h"
#include "core/analysis/diagnosis/ReportWriters.h"
#include "tests/core/analysis/diagnosis/SyntheticTraces.h"

namespace chokepoint::analysis {
namespace {

std::shared_ptr<const AnalysisReport> analyzeWithBadName() {
    testutils::SyntheticJob job;
    for (int s = 0; s < 4; ++s) {
        const core::TimestampNs t = testutils::SyntheticJob::stepStart(s);
        job.step(s);
        job.launched("gemm_\xff\xfe_bad\xc3", t + 100'000, t + 9'000'000);  // invalid UTF-8
    }
    auto r = analyzeTrace(std::make_shared<const core::TraceModel>(job.build()), AnalysisOptions{});
    EXPECT_TRUE(r.ok());
    return r.ok() ? r.value() : nullptr;
}

TEST(JsonUtf8, AnalysisAndDiffJsonStayValidWithInvalidUtf8Names) {
    const auto r = analyzeWithBadName();
    ASSERT_TRUE(r);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    const std::string analysis = writeJsonReport(*r);
    ASSERT_NE(analysis.find("\xEF\xBF\xBD"), std::string::npos);  // U+FFFD in place of the bad bytes
    EXPECT_EQ(parser.parse(analysis).get(doc), simdjson::SUCCESS);
    const std::string diff = writeJsonComparison(compareReports(*r, *r));
    EXPECT_EQ(parser.parse(diff).get(doc), simdjson::SUCCESS);
}

}  // namespace
}  // namespace chokepoint::analysis
