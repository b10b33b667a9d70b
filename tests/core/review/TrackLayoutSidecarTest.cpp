#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/review/ReviewSidecar.h"

namespace chokepoint::core {
namespace {

namespace fs = std::filesystem;

class TrackLayoutSidecarTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir =
            fs::temp_directory_path() /
            ("chokepoint-layout-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        m_trace = (m_dir / "run.pt.trace.json.gz").string();
        std::ofstream(m_trace) << "0123456789";
    }
    void TearDown() override { fs::remove_all(m_dir); }

    fs::path m_dir;
    std::string m_trace;
};

timeline::TrackLayout sampleLayout() {
    timeline::TrackLayout layout;
    timeline::setTrackHidden(layout, "gpu/0/13", true);
    timeline::setGroupCollapsed(layout, "Process 1 · \"python\"", true);
    layout.groupOrder = {"Counters", "GPU 0"};
    layout.trackOrder = {"gpu/0/13", "gpu/0/7"};
    return layout;
}

TEST_F(TrackLayoutSidecarTest, RoundTripsBesideTheBookmarks) {
    ReviewNotes notes;
    Bookmark range;
    range.range = {10, 20};
    range.title = "stall";
    notes.add(range);
    ASSERT_TRUE(saveReviewForTrace(m_trace, notes).ok());
    ASSERT_TRUE(saveTrackLayoutForTrace(m_trace, sampleLayout()).ok());

    auto loaded = loadReviewForTrace(m_trace);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    EXPECT_TRUE(loaded->warnings.empty());
    EXPECT_EQ(loaded->notes.size(), 1u);  // the bookmarks survive a layout save
    EXPECT_EQ(loaded->notes.trackLayout, sampleLayout());
}

TEST_F(TrackLayoutSidecarTest, NoSidecarIsWrittenForAnEmptyLayout) {
    ASSERT_TRUE(saveTrackLayoutForTrace(m_trace, {}).ok());
    EXPECT_FALSE(fs::exists(reviewSidecarPath(m_trace)));
}

TEST_F(TrackLayoutSidecarTest, OldSidecarsWithoutALayoutStillLoad) {
    std::ofstream(reviewSidecarPath(m_trace))
        << R"({"format": "chokepoint-review", "version": 1, "bookmarks": [)"
        << R"({"id": 3, "kind": "range", "startNs": 1, "endNs": 2, "title": "t"}]})";
    auto loaded = loadReviewForTrace(m_trace);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    EXPECT_EQ(loaded->notes.size(), 1u);
    EXPECT_TRUE(loaded->notes.trackLayout.empty());
    // And a notes file without a layout is written as before (no "trackLayout" key).
    EXPECT_EQ(serializeReviewSidecar(loaded->notes).find("trackLayout"), std::string::npos);
}

TEST_F(TrackLayoutSidecarTest, BadLayoutIsAWarningNamingTheFileNotAnError) {
    const std::string sidecar = reviewSidecarPath(m_trace);
    for (const char* layout : {R"("trackLayout": 5)", R"("trackLayout": {"hidden": "gpu/0/7"})",
                               R"("trackLayout": {"hidden": ["gpu/0/7", 12]})"}) {
        std::ofstream(sidecar, std::ios::trunc)
            << R"({"format": "chokepoint-review", "version": 1, "bookmarks": [)"
            << R"({"id": 1, "kind": "range", "startNs": 1, "endNs": 2}], )" << layout << "}";
        auto loaded = loadReviewForTrace(m_trace);
        ASSERT_TRUE(loaded.ok()) << layout;
        EXPECT_EQ(loaded->notes.size(), 1u) << layout;
        EXPECT_TRUE(loaded->notes.trackLayout.empty()) << layout;
        ASSERT_EQ(loaded->warnings.size(), 1u) << layout;
        EXPECT_NE(loaded->warnings[0].find(sidecar + ": trackLayout"), std::string::npos)
            << loaded->warnings[0];
    }
    EXPECT_NE(loadReviewForTrace(m_trace)->warnings[0].find("hidden[1]"), std::string::npos);
}

TEST_F(TrackLayoutSidecarTest, UnreadableSidecarIsNotOverwrittenByALayoutSave) {
    const std::string sidecar = reviewSidecarPath(m_trace);
    std::ofstream(sidecar) << "{ not json";
    EXPECT_FALSE(saveTrackLayoutForTrace(m_trace, sampleLayout()).ok());
    std::ifstream in(sidecar);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "{ not json");
}

}  // namespace
}  // namespace chokepoint::core
