#pragma once
// Locates the public reference traces in ../shared/traces. Tests that need one call
// CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "file name"), which skips the test when it is absent (a
// user's clone has no ../shared), or CHOKEPOINT_SHARED_TRACE_ABSENT(message) where they find out
// themselves. With CHOKEPOINT_REQUIRE_SHARED_TRACES=1 in the environment (set by .ci/run when
// ../shared/traces exists) an absent trace fails the test instead: CI never passes on skips.

#include <cstdlib>
#include <cstring>
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

// True when CHOKEPOINT_REQUIRE_SHARED_TRACES is set to anything but "" or "0".
inline bool sharedTracesRequired() {
    const char* v = std::getenv("CHOKEPOINT_REQUIRE_SHARED_TRACES");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

}  // namespace chokepoint::testutils

// Skips the test (fails it when shared traces are required) with `message`.
#define CHOKEPOINT_SHARED_TRACE_ABSENT(message)                                  \
    if (::chokepoint::testutils::sharedTracesRequired()) {                       \
        GTEST_FAIL() << message << " (CHOKEPOINT_REQUIRE_SHARED_TRACES is set)"; \
    } else                                                                       \
        GTEST_SKIP() << message

#define CHOKEPOINT_REQUIRE_SHARED_TRACE(var, fileName)                                   \
    if (!::chokepoint::testutils::sharedTraceExists(fileName)) {                         \
        CHOKEPOINT_SHARED_TRACE_ABSENT("shared trace " << fileName << " not found in "   \
                                                       << CHOKEPOINT_SHARED_TRACES_DIR); \
    }                                                                                    \
    const std::string var = ::chokepoint::testutils::sharedTracePath(fileName)
