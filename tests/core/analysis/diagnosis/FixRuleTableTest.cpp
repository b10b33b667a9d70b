// The fix rule table (core/analysis/diagnosis/FixRules.h): its documentation in docs/ANALYSIS.md
// cannot drift from it, and every snippet it names is compiled in. After changing the table, run
// this test with CHOKEPOINT_UPDATE_DOCS=1 to rewrite the generated section of docs/ANALYSIS.md.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "core/analysis/diagnosis/FixRules.h"
#include "core/analysis/diagnosis/FixSnippets.h"

using namespace chokepoint::analysis;

namespace {

const std::string kDocsPath = std::string(CHOKEPOINT_SOURCE_DIR) + "/docs/ANALYSIS.md";
const std::string kBegin =
    "<!-- fix-rules:begin (generated from core/analysis/diagnosis/FixRuleTable.cpp by FixRuleTableTest; "
    "do not edit) -->\n";
const std::string kEnd = "<!-- fix-rules:end -->";

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST(FixRuleTable, DocsListTheRulesFromTheTable) {
    std::string docs = readFile(kDocsPath);
    const std::size_t begin = docs.find(kBegin);
    ASSERT_NE(begin, std::string::npos) << "docs/ANALYSIS.md lacks the marker " << kBegin;
    const std::size_t from = begin + kBegin.size();
    const std::size_t end = docs.find(kEnd, from);
    ASSERT_NE(end, std::string::npos) << "docs/ANALYSIS.md lacks the marker " << kEnd;
    const std::string expected = fixRulesMarkdown();
    if (const char* update = std::getenv("CHOKEPOINT_UPDATE_DOCS");
        update != nullptr && std::string(update) == "1") {
        docs.replace(from, end - from, expected);
        std::ofstream(kDocsPath, std::ios::binary) << docs;
        return;
    }
    EXPECT_EQ(docs.substr(from, end - from), expected)
        << "docs/ANALYSIS.md and the fix rule table differ: run this test with CHOKEPOINT_UPDATE_DOCS=1";
}

TEST(FixRuleTable, EveryRuleIsCompleteAndNamedOnce) {
    std::set<std::string_view> ids;
    for (const FixRule& rule : fixRules()) {
        EXPECT_TRUE(ids.insert(rule.id).second) << rule.id;
        EXPECT_FALSE(rule.title.empty()) << rule.id;
        EXPECT_FALSE(rule.reads.empty()) << rule.id;
        EXPECT_FALSE(rule.shownWhen.empty()) << rule.id;
        EXPECT_FALSE(rule.gain.empty()) << rule.id;
        EXPECT_NE(rule.apply, nullptr) << rule.id;
        EXPECT_EQ(rule.conflictsWith.empty(), rule.conflict.empty()) << rule.id;
        for (const std::string_view other : rule.conflictsWith) {
            EXPECT_NE(findFixRule(other), nullptr) << rule.id << " conflicts with unknown " << other;
        }
        EXPECT_EQ(findFixRule(rule.id), &rule);
    }
    EXPECT_EQ(fixRules().size(), 19u);
}

TEST(FixRuleTable, HeadlineOrdersHaveOnePlaceEach) {
    for (int i = 0; i < kBottleneckCount; ++i) {
        const auto b = static_cast<Bottleneck>(i);
        std::set<int> positions;
        for (const FixRule& rule : fixRules()) {
            for (const HeadlineRank& rank : rule.order) {
                if (rank.bottleneck == b) {
                    EXPECT_TRUE(positions.insert(rank.position).second) << toString(b) << " " << rule.id;
                }
            }
        }
        // Positions run 0..n-1 without gaps.
        int expected = 0;
        for (const int position : positions) {
            EXPECT_EQ(position, expected++) << toString(b);
        }
        EXPECT_EQ(headlineOrder(b).size(), positions.size()) << toString(b);
    }
    EXPECT_EQ(headlineOrder(Bottleneck::MemoryBandwidth), (std::vector<std::string_view>{"R6", "R5", "R4"}));
    EXPECT_EQ(headlineOrder(Bottleneck::MemoryCapacity),
              (std::vector<std::string_view>{"R4", "R7", "R8", "R11"}));
}

TEST(FixRuleTable, EverySnippetIsCompiledInAndUsed) {
    std::set<std::string_view> named;
    for (const FixRule& rule : fixRules()) {
        for (const std::string_view snippet : rule.snippets) {
            EXPECT_TRUE(named.insert(snippet).second) << snippet << " is named twice";
            const std::string_view text = fixSnippet(snippet);
            EXPECT_FALSE(text.empty())
                << rule.id << ": resources/fixes/" << snippet << ".py is not compiled in";
            // The compiled-in copy is the file in the source tree (CMake re-embeds on change).
            const std::string file = readFile(std::string(CHOKEPOINT_SOURCE_DIR) + "/resources/fixes/" +
                                              std::string(snippet) + ".py");
            EXPECT_EQ(text, file) << snippet;
        }
    }
    for (const std::string_view name : fixSnippetNames()) {
        EXPECT_TRUE(named.count(name) == 1) << "resources/fixes/" << name << ".py is named by no rule";
    }
    EXPECT_TRUE(fixSnippet("no-such-snippet").empty());
}
