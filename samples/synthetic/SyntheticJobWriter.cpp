#include "samples/synthetic/SyntheticJobWriter.h"

#include <filesystem>

#include "core/format/CptraceWriter.h"

namespace chokepoint::samples {

core::Status writeSyntheticJob(const std::vector<core::TraceModel>& ranks, const std::string& folder) {
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec) {
        return core::makeError(folder + ": cannot create the folder: " + ec.message());
    }
    for (const core::TraceModel& model : ranks) {
        const std::filesystem::path file =
            std::filesystem::path(folder) / ("rank-" + std::to_string(model.distributed.rank) + ".cptrace");
        core::Status written = core::writeCptrace(model, file.string());
        if (!written.ok()) {
            return written;
        }
    }
    return core::Ok{};
}

}  // namespace chokepoint::samples
