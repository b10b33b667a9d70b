// The analysis settings kept in the review sidecar: round trip, sidecars written before settings
// existed, bad values (a warning naming the file and the field, the bookmarks still load), and the
// two writers (bookmarks, settings) keeping each other's part of the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/review/ReviewSidecar.h"

namespace chokepoint::core {
namespace {

namespace fs = std::filesystem;

class AnalysisSettingsSidecarTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("chokepoint-settings-sidecar-" +
                 std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        m_trace = (m_dir / "run.pt.trace.json.gz").string();
        std::ofstream(m_trace) << "0123456789";
    }
    void TearDown() override { fs::remove_all(m_dir); }

    void writeSidecar(const std::string& text) const {
        std::ofstream(reviewSidecarPath(m_trace), std::ios::binary) << text;
    }
    std::string readSidecarText() const {
        std::ifstream in(reviewSidecarPath(m_trace), std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }

    fs::path m_dir;
    std::string m_trace;
};

AnalysisSettings sampleSettings() {
    AnalysisSettings s;
    s.deviceId = "h100-sxm";
    s.parameterCount = 7e9;
    s.tokensPerStep = 4096;
    s.peakMemoryBytes = 85'899'345'920;
    s.outOfMemoryObserved = true;
    s.precision = "bf16";
    s.thresholds["lowMfu"] = 0.25;
    s.thresholds["shortKernelNs"] = 12'345.5;
    return s;
}

Bookmark rangeBookmark(const std::string& title) {
    Bookmark b;
    b.range = {100, 200};
    b.title = title;
    return b;
}

TEST_F(AnalysisSettingsSidecarTest, SettingsRoundTripExactly) {
    ReviewNotes notes;
    notes.add(rangeBookmark("stall"));
    notes.analysisSettings = sampleSettings();
    notes.analysisSettings.modelFlopsPerStep = 1.2345678901234567e15;
    std::vector<std::string> warnings;
    auto parsed = parseReviewSidecar(serializeReviewSidecar(notes), "x.json", &warnings);
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_TRUE(warnings.empty());
    EXPECT_EQ(parsed->analysisSettings, notes.analysisSettings);
    EXPECT_EQ(*parsed, notes);
}

TEST_F(AnalysisSettingsSidecarTest, DefaultSettingsAreNotWritten) {
    ReviewNotes notes;
    notes.add(rangeBookmark("stall"));
    EXPECT_EQ(serializeReviewSidecar(notes).find("analysisSettings"), std::string::npos);
}

TEST_F(AnalysisSettingsSidecarTest, OldSidecarWithoutSettingsLoadsWithDefaults) {
    writeSidecar(R"({"format": "chokepoint-review", "version": 1,
        "trace": {"fileName": "run.pt.trace.json.gz", "sizeBytes": 10},
        "bookmarks": [{"id": 3, "kind": "range", "startNs": 5, "endNs": 9, "title": "old"}]})");
    auto loaded = loadReviewForTrace(m_trace);
    ASSERT_TRUE(loaded) << loaded.error().message;
    EXPECT_TRUE(loaded->warnings.empty());
    EXPECT_TRUE(loaded->notes.analysisSettings.isDefault());
    ASSERT_EQ(loaded->notes.size(), 1u);
    EXPECT_EQ(loaded->notes.bookmarks()[0].title, "old");
}

TEST_F(AnalysisSettingsSidecarTest, BadValuesWarnNamingFileAndFieldAndTheRestLoads) {
    writeSidecar(R"({"format": "chokepoint-review", "version": 1,
        "bookmarks": [{"id": 1, "startNs": 5, "endNs": 9, "title": "kept"}],
        "analysisSettings": {"device": 42, "modelFlopsPerStep": -3, "tokensPerStep": "many",
                             "parameterCount": 1e9, "outOfMemoryObserved": "yes", "precision": "bf16",
                             "thresholds": {"lowMfu": "low", "hbmLowFraction": 0.2},
                             "fromTheFuture": {"x": 1}}})");
    auto loaded = loadReviewForTrace(m_trace);
    ASSERT_TRUE(loaded) << loaded.error().message;
    const std::string sidecar = reviewSidecarPath(m_trace);
    std::string all;
    for (const std::string& w : loaded->warnings) {
        EXPECT_EQ(w.rfind(sidecar + ": analysisSettings.", 0), 0u) << w;
        all += w + "\n";
    }
    EXPECT_EQ(loaded->warnings.size(), 5u) << all;
    for (const char* field :
         {"analysisSettings.device", "analysisSettings.modelFlopsPerStep", "analysisSettings.tokensPerStep",
          "analysisSettings.outOfMemoryObserved", "analysisSettings.thresholds.lowMfu"}) {
        EXPECT_NE(all.find(field), std::string::npos) << field << " not in\n" << all;
    }
    const AnalysisSettings& s = loaded->notes.analysisSettings;
    EXPECT_TRUE(s.deviceId.empty());
    EXPECT_FALSE(s.modelFlopsPerStep);
    EXPECT_FALSE(s.tokensPerStep);
    ASSERT_TRUE(s.parameterCount);  // valid on its own; pairing is checked where it is applied
    EXPECT_DOUBLE_EQ(*s.parameterCount, 1e9);
    EXPECT_EQ(s.precision, "bf16");
    EXPECT_EQ(s.thresholds.size(), 1u);
    EXPECT_DOUBLE_EQ(s.thresholds.at("hbmLowFraction"), 0.2);
    ASSERT_EQ(loaded->notes.size(), 1u);
    EXPECT_EQ(loaded->notes.bookmarks()[0].title, "kept");
}

TEST_F(AnalysisSettingsSidecarTest, SettingsThatAreNotAnObjectAreIgnoredWithAWarning) {
    writeSidecar(R"({"format": "chokepoint-review", "version": 1, "analysisSettings": [1, 2]})");
    auto loaded = loadReviewForTrace(m_trace);
    ASSERT_TRUE(loaded) << loaded.error().message;
    ASSERT_EQ(loaded->warnings.size(), 1u);
    EXPECT_NE(loaded->warnings[0].find("analysisSettings: expected an object"), std::string::npos)
        << loaded->warnings[0];
    EXPECT_TRUE(loaded->notes.analysisSettings.isDefault());
}

TEST_F(AnalysisSettingsSidecarTest, EachWriterKeepsTheOthersPart) {
    ReviewNotes notes;
    notes.add(rangeBookmark("first"));
    ASSERT_TRUE(saveReviewForTrace(m_trace, notes));
    ASSERT_TRUE(saveAnalysisSettingsForTrace(m_trace, sampleSettings()));
    auto loaded = loadReviewForTrace(m_trace);
    ASSERT_TRUE(loaded) << loaded.error().message;
    EXPECT_EQ(loaded->notes.analysisSettings, sampleSettings());
    ASSERT_EQ(loaded->notes.size(), 1u);

    // The review page saves its notes, loaded before the settings changed: the settings stay.
    notes.add(rangeBookmark("second"));
    ASSERT_TRUE(saveReviewForTrace(m_trace, notes));
    loaded = loadReviewForTrace(m_trace);
    ASSERT_TRUE(loaded) << loaded.error().message;
    EXPECT_EQ(loaded->notes.analysisSettings, sampleSettings());
    EXPECT_EQ(loaded->notes.size(), 2u);

    // Back to the defaults: the settings leave the file, the bookmarks stay.
    ASSERT_TRUE(saveAnalysisSettingsForTrace(m_trace, {}));
    EXPECT_EQ(readSidecarText().find("analysisSettings"), std::string::npos);
    loaded = loadReviewForTrace(m_trace);
    ASSERT_TRUE(loaded) << loaded.error().message;
    EXPECT_TRUE(loaded->notes.analysisSettings.isDefault());
    EXPECT_EQ(loaded->notes.size(), 2u);
}

TEST_F(AnalysisSettingsSidecarTest, DefaultSettingsCreateNoFile) {
    ASSERT_TRUE(saveAnalysisSettingsForTrace(m_trace, {}));
    EXPECT_FALSE(fs::exists(reviewSidecarPath(m_trace)));
}

TEST_F(AnalysisSettingsSidecarTest, AnUnreadableSidecarIsNotOverwritten) {
    const std::string broken = "{\"format\": \"chokepoint-review\", \"version\": 1, \"bookmarks\": [";
    writeSidecar(broken);
    const Status saved = saveAnalysisSettingsForTrace(m_trace, sampleSettings());
    ASSERT_FALSE(saved);
    EXPECT_NE(saved.error().message.find(reviewSidecarPath(m_trace)), std::string::npos)
        << saved.error().message;
    EXPECT_NE(saved.error().message.find("not saved"), std::string::npos) << saved.error().message;
    EXPECT_EQ(readSidecarText(), broken);
}

}  // namespace
}  // namespace chokepoint::core
