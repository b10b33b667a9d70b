#pragma once
// Reads and writes ReviewNotes as a JSON "sidecar" file next to the trace, so a review's
// bookmarks and notes reopen with the trace: "run.pt.trace.json.gz" →
// "run.pt.trace.json.gz.chokepoint-review.json". A trace in a folder the user cannot write (a
// read-only share, a mounted archive) keeps its sidecar in the user's data folder instead
// (reviewSidecarPath).
//
// File layout (version 1, UTF-8 JSON):
//   { "format": "chokepoint-review", "version": 1,
//     "trace": { "fileName": "run.pt.trace.json.gz", "sizeBytes": 1152519 },
//     "bookmarks": [ { "id": 1, "kind": "kernel" | "range", "startNs": 0, "endNs": 10,
//                      "kernel": "...", "device": 0, "stream": 7,
//                      "title": "...", "note": "...", "createdUnixMs": 0 } ],
//     "analysisSettings": { "device": "h100-sxm", "modelFlopsPerStep": 1.2e15,
//                           "parameterCount": 7e9, "tokensPerStep": 4096, "peakMemoryBytes": 8e10,
//                           "outOfMemoryObserved": true, "precision": "bf16",
//                           "thresholds": { "lowMfu": 0.25 } },
//     "trackLayout": { "hidden": ["gpu/0/7"], "collapsed": ["GPU 0 · ..."],
//                      "groupOrder": [...], "trackOrder": [...] } }
// "analysisSettings" (core::AnalysisSettings) and "trackLayout" (timeline::TrackLayout) are optional
// and written only when something is set; every field in them is optional. A bad entry there (a
// negative FLOP count, a string for a number, a malformed layout) is left out with a warning naming
// the file and the field, and the rest of the sidecar still loads. Unknown fields are ignored
// (forward compatible); a newer "version" is refused.
//
// The sidecar is untrusted input: a malformed file yields an Error naming the file and the place
// (byte offset for JSON syntax, a path such as "bookmarks[3].endNs" for content), never a crash.
// Writing is atomic (temporary file, then rename), so a crash mid-save never leaves half a file.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/Result.h"
#include "core/review/ReviewNotes.h"

namespace chokepoint::core {

inline constexpr std::string_view kReviewSidecarSuffix = ".chokepoint-review.json";
inline constexpr std::int64_t kReviewSidecarFormatVersion = 1;
// Sidecars larger than this are refused (a review holds kilobytes; this guards against a wrong file).
inline constexpr std::int64_t kMaxReviewSidecarBytes = 64LL * 1024 * 1024;

// Path of the sidecar for `tracePath`: beside the trace (the trace path plus kReviewSidecarSuffix)
// when a sidecar is there or the trace's folder can be written. When the folder exists but cannot
// be written, userReviewsFolder()/<trace file name>-<16 hex digits>.chokepoint-review.json, the
// digits a hash of the trace's absolute path (two traces of one name in two folders keep their own
// review). Every reader and writer goes through this, so they agree.
std::string reviewSidecarPath(std::string_view tracePath);
// The rule above with what it looks up given: whether a sidecar is beside the trace, whether the
// trace's folder exists and cannot be written, and the user's reviews folder ("" when unknown:
// then the sidecar stays beside the trace, and saving says why it failed).
std::string reviewSidecarPathFor(std::string_view tracePath, bool besideExists, bool folderReadOnly,
                                 std::string_view userReviewsDir);
// $XDG_DATA_HOME/chokepoint/reviews, else $HOME/.local/share/chokepoint/reviews, else "".
std::string userReviewsFolder();

// JSON text of `notes`. Strings are escaped per RFC 8259; invalid UTF-8 becomes U+FFFD so the
// output is always valid JSON.
std::string serializeReviewSidecar(const ReviewNotes& notes);
// Parses sidecar JSON. `sourceName` (usually the file path) starts every error message.
// Parts left out (an "analysisSettings" entry that cannot be applied, a malformed "trackLayout")
// are described in `warnings` (when given); the rest still loads.
Result<ReviewNotes> parseReviewSidecar(std::string_view json, std::string_view sourceName,
                                       std::vector<std::string>* warnings = nullptr);

// Reads and parses the sidecar at `sidecarPath`.
Result<ReviewNotes> readReviewSidecar(const std::string& sidecarPath,
                                      std::vector<std::string>* warnings = nullptr);
// Writes `notes` to `sidecarPath` atomically.
Status writeReviewSidecar(const std::string& sidecarPath, const ReviewNotes& notes);

struct ReviewLoad {
    ReviewNotes notes;
    bool sidecarFound = false;
    // e.g. the sidecar was written for a trace of another size; an analysis setting left out
    std::vector<std::string> warnings;
};

// Loads the review of the trace at `tracePath`: empty notes (sidecarFound = false) when there is no
// sidecar, an Error when one exists but cannot be read. Sets notes.traceFileName/traceSizeBytes to
// the trace's current identity so the next save records it.
Result<ReviewLoad> loadReviewForTrace(const std::string& tracePath);
// The writers below each own one part of the sidecar and keep the others as they are on disk; none
// overwrites a sidecar that exists but cannot be read (an Error, nothing written).
// Saves the bookmarks of `notes` beside `tracePath` (see reviewSidecarPath), recording the trace's
// identity. The analysis settings and the track layout written are those already in the sidecar
// when there is one (their own writers below own them), else those of `notes`.
Status saveReviewForTrace(const std::string& tracePath, ReviewNotes notes);
// Sets the analysis settings in the sidecar of `tracePath`. Creates no file for default settings.
Status saveAnalysisSettingsForTrace(const std::string& tracePath, const AnalysisSettings& settings);
// Sets the timeline's track layout in the sidecar of `tracePath`. Creates no file for an empty one.
Status saveTrackLayoutForTrace(const std::string& tracePath, const timeline::TrackLayout& layout);

}  // namespace chokepoint::core
