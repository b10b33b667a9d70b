// chokepoint-make-samples OUTDIR: writes one synthetic .cptrace per scenario into OUTDIR.
// The build runs it so that the GUI's "Open sample" and the README's first command have a trace to
// open before real captures exist; every file it writes is labelled synthetic.

#include <cstdio>
#include <filesystem>
#include <string>

#include "core/format/CptraceWriter.h"
#include "samples/synthetic/SyntheticTrainingJob.h"

int main(int argc, char** argv) {
    using namespace chokepoint;
    if (argc != 2) {
        std::fprintf(stderr, "usage: chokepoint-make-samples OUTDIR\n");
        return 2;
    }
    std::filesystem::path outDir = argv[1];
    std::error_code ec;
    std::filesystem::create_directories(outDir, ec);
    if (ec) {
        std::fprintf(stderr, "chokepoint-make-samples: cannot create %s: %s\n", outDir.c_str(),
                     ec.message().c_str());
        return 3;
    }
    const samples::SyntheticScenario scenarios[] = {
        samples::SyntheticScenario::DataBound,    samples::SyntheticScenario::DataBoundFixed,
        samples::SyntheticScenario::ComputeBound, samples::SyntheticScenario::LaunchBound,
        samples::SyntheticScenario::MemoryBound,
    };
    for (samples::SyntheticScenario scenario : scenarios) {
        samples::SyntheticOptions options;
        options.scenario = scenario;
        core::TraceModel model = samples::makeSyntheticTrainingTrace(options);
        std::filesystem::path file =
            outDir / ("synthetic-" + std::string(samples::scenarioName(scenario)) + ".cptrace");
        core::Status written = core::writeCptrace(model, file.string());
        if (!written.ok()) {
            std::fprintf(stderr, "chokepoint-make-samples: %s\n", written.error().message.c_str());
            return 3;
        }
    }
    return 0;
}
