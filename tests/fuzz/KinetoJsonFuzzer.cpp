// libFuzzer target for the Kineto / Chrome-trace JSON importer (importKinetoJsonFromMemory): the
// streaming reader, the structural scanner, the event decoder and the model builder. Inputs that
// start with the gzip magic also go through the streaming gzip source. Every input must load (a
// finalized model with consistent tables) or return an Error naming the input; a crash, hang,
// leak or sanitizer report is a bug. Seeds: scripts/run-fuzzers.sh writes small traces.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/import/ByteSource.h"
#include "core/import/KinetoJsonImporter.h"

using namespace chokepoint::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    if (hasGzipMagic(bytes)) {
        auto source = makeGzipByteSource(makeMemoryByteSource(bytes), "fuzz.json.gz");
        std::string block(4096, '\0');
        for (int i = 0; i < 4096; ++i) {  // bounded: at most 16 MiB inflated
            auto got = source->read(block.data(), block.size());
            if (!got.ok()) {
                if (got.error().message.find("fuzz.json.gz") == std::string::npos) {
                    std::abort();
                }
                break;
            }
            if (got.value() == 0) {
                break;
            }
        }
        return 0;
    }
    auto result = importKinetoJsonFromMemory(bytes, "fuzz.json");
    if (!result.ok()) {
        if (result.error().message.rfind("fuzz.json: ", 0) != 0) {
            std::abort();  // every error must name its input
        }
        return 0;
    }
    const TraceModel& model = result.value();
    if (!model.finalized()) {
        std::abort();
    }
    for (std::size_t i = 0; i < model.kernels.size(); ++i) {
        if (model.kernels.endNs[i] < model.kernels.startNs[i] ||
            (model.kernels.launchCall[i].valid() &&
             model.kernels.launchCall[i].index >= model.apiCalls.size())) {
            std::abort();
        }
    }
    for (std::size_t i = 0; i < model.cpuOps.size(); ++i) {
        if (model.cpuOps.endNs[i] < model.cpuOps.startNs[i]) {
            std::abort();
        }
    }
    for (std::size_t i = 0; i < model.apiCalls.size(); ++i) {
        if (model.apiCalls.thread[i] >= model.threads.size()) {
            std::abort();
        }
    }
    return 0;
}
