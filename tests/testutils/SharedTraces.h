#pragma once
// Locates the public reference traces in ../shared/traces. Tests that need one call
// CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "file name"), which skips the test when it is absent (a
// user's clone has no ../shared).

#include <filesystem>
#include <string>

namespace chokepoint::testutils {

inline std::string sharedTracePath(const std::string& fileName) {
    return std::string(CHOKEPOINT_SHARED_TRACES_DIR) + "/" + fileName;
}

inline bool sharedTraceExists(const std::string& fileName) {
    std::error_code ec;
    return std::filesystem::is_regular_file(sharedTracePath(fileName), ec);
}

}  // namespace chokepoint::testutils

#define CHOKEPOINT_REQUIRE_SHARED_TRACE(var, fileName)                                                   \
    if (!::chokepoint::testutils::sharedTraceExists(fileName)) {                                         \
        GTEST_SKIP() << "shared trace " << fileName << " not found in " << CHOKEPOINT_SHARED_TRACES_DIR; \
    }                                                                                                    \
    const std::string var = ::chokepoint::testutils::sharedTracePath(fileName)
