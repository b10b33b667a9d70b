// libFuzzer target for the Nsight Systems SQLite importer: the input bytes are opened as a
// read-only in-memory database (sqlite3_deserialize) and imported with the same code as a file.
// Any result is fine; a crash, a sanitizer report, a hang or an error without the source name is a bug.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/import/NsysSqliteImporter.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto result = chokepoint::core::importNsysSqliteBytes(data, size, "fuzz.sqlite");
    if (!result.ok() && result.error().message.find("fuzz.sqlite") == std::string::npos &&
        result.error().message != chokepoint::core::kCancelledMessage) {
        std::abort();  // every error must name its input
    }
    if (result.ok()) {
        const auto& kernels = result.value().kernels;
        for (std::size_t i = 0; i < kernels.size(); ++i) {
            if (kernels.endNs[i] < kernels.startNs[i]) {
                std::abort();  // negative durations must have been clamped
            }
        }
    }
    return 0;
}
