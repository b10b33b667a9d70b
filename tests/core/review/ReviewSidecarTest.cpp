#include "core/review/ReviewSidecar.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace chokepoint::core {
namespace {

namespace fs = std::filesystem;

class ReviewSidecarTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir =
            fs::temp_directory_path() /
            ("chokepoint-review-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
        m_trace = (m_dir / "run.pt.trace.json.gz").string();
        std::ofstream(m_trace) << "0123456789";  // 10 bytes stand in for the trace
    }
    void TearDown() override { fs::remove_all(m_dir); }

    void writeSidecar(const std::string& text) const {
        std::ofstream(reviewSidecarPath(m_trace), std::ios::binary) << text;
    }

    fs::path m_dir;
    std::string m_trace;
};

ReviewNotes sampleNotes() {
    ReviewNotes notes;
    Bookmark range;
    range.range = {1'000, 2'000'000'000'000};
    range.title = "Input stall \"before\" step 3";
    range.note = "line 1\nline 2\ttab \\ backslash \x01 ctl, ünïcødé ✓";
    range.createdUnixMs = 1'700'000'000'000;
    notes.add(range);
    Bookmark kernel;
    kernel.kind = BookmarkKind::Kernel;
    kernel.range = {-5, 40};
    kernel.kernelName = "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>";
    kernel.deviceIndex = 1;
    kernel.streamId = 7;
    kernel.title = "slow gelu";
    notes.add(kernel);
    return notes;
}

TEST_F(ReviewSidecarTest, SidecarPathSitsBesideTheTrace) {
    EXPECT_EQ(reviewSidecarPath("/a/b/run.json.gz"), "/a/b/run.json.gz.chokepoint-review.json");
}

TEST_F(ReviewSidecarTest, ATraceInAFolderThatCannotBeWrittenKeepsItsReviewInTheUsersFolder) {
    // A writable folder, or a sidecar already beside the trace: beside it, as always.
    EXPECT_EQ(reviewSidecarPathFor("/share/a/run.json.gz", false, false, "/home/u/reviews"),
              "/share/a/run.json.gz.chokepoint-review.json");
    EXPECT_EQ(reviewSidecarPathFor("/share/a/run.json.gz", true, true, "/home/u/reviews"),
              "/share/a/run.json.gz.chokepoint-review.json");
    // A read-only folder (a team share, a mounted archive): the user's reviews folder, named after
    // the trace and its folder, the same path each time.
    const std::string a = reviewSidecarPathFor("/share/a/run.json.gz", false, true, "/home/u/reviews");
    EXPECT_EQ(fs::path(a).parent_path(), fs::path("/home/u/reviews"));
    EXPECT_TRUE(fs::path(a).filename().string().starts_with("run.json.gz-")) << a;
    EXPECT_TRUE(a.ends_with(std::string(kReviewSidecarSuffix))) << a;
    EXPECT_EQ(a, reviewSidecarPathFor("/share/a/run.json.gz", false, true, "/home/u/reviews"));
    EXPECT_EQ(a, reviewSidecarPathFor("/share/a/../a/run.json.gz", false, true, "/home/u/reviews"));
    // The same file name in another folder is another trace with its own review.
    EXPECT_NE(a, reviewSidecarPathFor("/share/b/run.json.gz", false, true, "/home/u/reviews"));
    // No user folder known: beside the trace, where saving then says why it failed.
    EXPECT_EQ(reviewSidecarPathFor("/share/a/run.json.gz", false, true, ""),
              "/share/a/run.json.gz.chokepoint-review.json");
}

TEST_F(ReviewSidecarTest, TheUsersReviewsFolderIsCreatedOnTheFirstSave) {
    const char* oldData = std::getenv("XDG_DATA_HOME");
    const std::string saved = oldData != nullptr ? oldData : "";
    ::setenv("XDG_DATA_HOME", (m_dir / "data").c_str(), 1);
    EXPECT_EQ(fs::path(userReviewsFolder()), m_dir / "data" / "chokepoint" / "reviews");
    const std::string sidecar = (fs::path(userReviewsFolder()) / "run.json").string();
    ASSERT_FALSE(fs::exists(fs::path(sidecar).parent_path()));
    const Status written = writeReviewSidecar(sidecar, sampleNotes());
    if (oldData != nullptr) {
        ::setenv("XDG_DATA_HOME", saved.c_str(), 1);
    } else {
        ::unsetenv("XDG_DATA_HOME");
    }
    ASSERT_TRUE(written) << written.error().message;
    auto back = readReviewSidecar(sidecar);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->size(), 2u);
}

TEST_F(ReviewSidecarTest, SerializedTextIsValidJsonAndRoundTrips) {
    const ReviewNotes notes = sampleNotes();
    const std::string text = serializeReviewSidecar(notes);
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    ASSERT_FALSE(parser.parse(text).get(root)) << text;

    auto parsed = parseReviewSidecar(text, "mem");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    ASSERT_EQ(parsed->size(), notes.size());
    for (std::size_t i = 0; i < notes.size(); ++i) {
        EXPECT_EQ(parsed->bookmarks()[i], notes.bookmarks()[i]) << i;
    }
}

TEST_F(ReviewSidecarTest, InvalidUtf8IsReplacedNotEmitted) {
    ReviewNotes notes;
    Bookmark b;
    b.range = {0, 1};
    b.title = std::string("bad \xC3\x28 and \xFF end");
    notes.add(b);
    auto parsed = parseReviewSidecar(serializeReviewSidecar(notes), "mem");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->bookmarks()[0].title, "bad \xEF\xBF\xBD( and \xEF\xBF\xBD end");
}

TEST_F(ReviewSidecarTest, SaveAndReloadBesideTrace) {
    auto empty = loadReviewForTrace(m_trace);
    ASSERT_TRUE(empty.ok()) << empty.error().message;
    EXPECT_FALSE(empty->sidecarFound);
    EXPECT_TRUE(empty->notes.empty());

    ASSERT_TRUE(saveReviewForTrace(m_trace, sampleNotes()).ok());
    EXPECT_TRUE(fs::exists(reviewSidecarPath(m_trace)));
    EXPECT_FALSE(fs::exists(reviewSidecarPath(m_trace) + ".tmp"));

    auto loaded = loadReviewForTrace(m_trace);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    EXPECT_TRUE(loaded->sidecarFound);
    EXPECT_TRUE(loaded->warnings.empty());
    EXPECT_EQ(loaded->notes.size(), 2u);
    EXPECT_EQ(loaded->notes.traceFileName, "run.pt.trace.json.gz");
    EXPECT_EQ(loaded->notes.traceSizeBytes, 10);
    // New bookmarks after a reload do not reuse ids.
    ReviewNotes notes = loaded->notes;
    Bookmark extra;
    const auto id = notes.add(extra);
    EXPECT_GT(id, 2u);
}

TEST_F(ReviewSidecarTest, WarnsWhenTheTraceChanged) {
    ASSERT_TRUE(saveReviewForTrace(m_trace, sampleNotes()).ok());
    std::ofstream(m_trace, std::ios::app) << "more bytes";
    auto loaded = loadReviewForTrace(m_trace);
    ASSERT_TRUE(loaded.ok());
    ASSERT_EQ(loaded->warnings.size(), 1u);
    EXPECT_NE(loaded->warnings[0].find("bookmarks may not line up"), std::string::npos);
    EXPECT_EQ(loaded->notes.traceSizeBytes, 20);
}

TEST_F(ReviewSidecarTest, SyntaxErrorNamesFileAndByteOffset) {
    const std::string text =
        R"({"format": "chokepoint-review", "version": 1, "bookmarks": [ {"id": 1, "startNs": 12x } ]})";
    writeSidecar(text);
    auto loaded = loadReviewForTrace(m_trace);
    ASSERT_FALSE(loaded.ok());
    const std::string& message = loaded.error().message;
    EXPECT_NE(message.find(reviewSidecarPath(m_trace)), std::string::npos) << message;
    const std::size_t expected = text.find("12x");
    EXPECT_NE(message.find("byte "), std::string::npos) << message;
    // The reported offset points at or just after the bad number.
    const auto at = message.find("byte ") + 5;
    const std::size_t offset = std::stoul(message.substr(at));
    EXPECT_GE(offset, expected - 2) << message;
    EXPECT_LE(offset, expected + 4) << message;
}

TEST_F(ReviewSidecarTest, TruncatedFileIsAnError) {
    std::string text = serializeReviewSidecar(sampleNotes());
    for (std::size_t cut :
         {std::size_t{0}, std::size_t{1}, text.size() / 3, text.size() / 2, text.size() - 3}) {
        auto parsed = parseReviewSidecar(std::string_view(text).substr(0, cut), "cut.json");
        ASSERT_FALSE(parsed.ok()) << "cut at " << cut;
        EXPECT_EQ(parsed.error().message.rfind("cut.json: ", 0), 0u) << parsed.error().message;
    }
}

TEST_F(ReviewSidecarTest, ContentErrorsNameTheField) {
    struct Case {
        const char* json;
        const char* expectedPlace;
    };
    const Case cases[] = {
        {R"([1, 2])", "top level"},
        {R"({"format": "other", "version": 1})", "format"},
        {R"({"format": "chokepoint-review", "version": 99})", "newer Chokepoint"},
        {R"({"format": "chokepoint-review", "version": 1, "bookmarks": {}})", "bookmarks: expected an array"},
        {R"({"format": "chokepoint-review", "version": 1, "bookmarks": [{"id": 1, "startNs": 5, "endNs": 1}]})",
         "bookmarks[0].endNs"},
        {R"({"format": "chokepoint-review", "version": 1, "bookmarks": [{"id": 1, "startNs": 0, "endNs": 1},
            {"id": 2, "startNs": "0", "endNs": 1}]})",
         "bookmarks[1].startNs"},
        {R"({"format": "chokepoint-review", "version": 1, "bookmarks": [{"id": 1, "startNs": 0, "endNs": 1},
            {"id": 1, "startNs": 0, "endNs": 1}]})",
         "bookmarks[1].id: duplicate"},
        {R"({"format": "chokepoint-review", "version": 1, "bookmarks": [{"id": 3, "kind": "blob", "startNs": 0, "endNs": 1}]})",
         "bookmarks[0].kind"},
        {R"({"format": "chokepoint-review", "version": 1, "bookmarks": [{"id": 3, "kind": "kernel", "startNs": 0, "endNs": 1}]})",
         "needs \"device\""},
        {R"({"format": "chokepoint-review", "version": 1, "bookmarks": [{"id": 3, "startNs": 0, "endNs": 1, "device": 99999999999}]})",
         "bookmarks[0].device"},
        {R"({"format": "chokepoint-review", "version": 1, "bookmarks": [{"id": -3, "startNs": 0, "endNs": 1}]})",
         "bookmarks[0].id"},
    };
    for (const Case& c : cases) {
        auto parsed = parseReviewSidecar(c.json, "side.json");
        ASSERT_FALSE(parsed.ok()) << c.json;
        EXPECT_NE(parsed.error().message.find(c.expectedPlace), std::string::npos) << parsed.error().message;
        EXPECT_EQ(parsed.error().message.rfind("side.json: ", 0), 0u) << parsed.error().message;
    }
}

TEST_F(ReviewSidecarTest, UnknownFieldsAreIgnored) {
    auto parsed = parseReviewSidecar(
        R"({"format": "chokepoint-review", "version": 1, "future": [1, {"x": null}],
            "bookmarks": [{"id": 4, "startNs": 0, "endNs": 9, "colour": "red"}]})",
        "side.json");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    ASSERT_EQ(parsed->size(), 1u);
    EXPECT_EQ(parsed->bookmarks()[0].id, 4u);
    EXPECT_EQ(parsed->bookmarks()[0].range.endNs, 9);
}

TEST_F(ReviewSidecarTest, BinaryGarbageIsAnErrorNotACrash) {
    std::string garbage;
    for (int i = 0; i < 4096; ++i) {
        garbage.push_back(static_cast<char>((i * 131 + 7) & 0xFF));
    }
    writeSidecar(garbage);
    auto loaded = loadReviewForTrace(m_trace);
    EXPECT_FALSE(loaded.ok());
}

TEST_F(ReviewSidecarTest, WriteToMissingFolderFailsWithPath) {
    const std::string path = (m_dir / "no-such-dir" / "x.json").string();
    Status status = writeReviewSidecar(path, sampleNotes());
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.error().message.find("no-such-dir"), std::string::npos);
}

}  // namespace
}  // namespace chokepoint::core
