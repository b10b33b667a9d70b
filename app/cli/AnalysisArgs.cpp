#include "app/cli/AnalysisArgs.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "app/cli/ExitCodes.h"
#include "core/analysis/diagnosis/AnalysisSettingsOptions.h"
#include "core/base/ScaledNumber.h"
#include "core/model/DeviceSlice.h"

namespace chokepoint::cli {

std::optional<double> parseScaledNumber(const std::string& text) {
    return core::parseScaledNumber(text);
}

bool parseAnalysisArgs(const Args& args, std::size_t fileCount, AnalysisArgs& out, std::string& error) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const auto next = [&](std::string& value) {
            if (i + 1 >= args.size()) {
                error = a + " needs a value";
                return false;
            }
            value = args[++i];
            return true;
        };
        const auto number = [&](std::optional<double>& value) {
            std::string text;
            if (!next(text)) {
                return false;
            }
            value = parseScaledNumber(text);
            if (!value) {
                error = a + ": '" + text + "' is not a positive number";
                return false;
            }
            return true;
        };
        bool ok = true;
        if (a == "--help" || a == "-h") {
            out.help = true;
        } else if (a == "--print-config") {
            out.printConfig = true;
        } else if (a == "--model-flops") {
            ok = number(out.modelFlops);
        } else if (a == "--params") {
            ok = number(out.params);
        } else if (a == "--tokens-per-step") {
            ok = number(out.tokensPerStep);
        } else if (a == "--peak-memory") {
            ok = number(out.peakMemory);
        } else if (a == "--oom") {
            out.outOfMemory = true;
        } else if (a == "--device") {
            ok = next(out.device);
        } else if (a == "--device-index") {
            std::string text;
            ok = next(text);
            if (ok) {
                char* end = nullptr;
                const long value = std::strtol(text.c_str(), &end, 10);
                if (text.empty() || *end != '\0' || value < 0 || value > 32767) {
                    error = "--device-index: '" + text + "' is not a GPU index (0, 1, ...)";
                    ok = false;
                } else {
                    out.deviceIndex = static_cast<std::int16_t>(value);
                }
            }
        } else if (a == "--precision") {
            ok = next(out.precision);
        } else if (a == "--config") {
            ok = next(out.configPath);
        } else if (a == "--format") {
            ok = next(out.format);
            if (ok && out.format != "text" && out.format != "json" && out.format != "markdown" &&
                out.format != "csv-kernels" && out.format != "csv-ops") {
                error = "--format must be text, json, markdown, csv-kernels or csv-ops";
                ok = false;
            }
        } else if (a == "--json") {
            out.format = "json";  // as `info --json`
        } else if (a == "--output" || a == "-o") {
            ok = next(out.output);
        } else if (a == "--explain") {
            out.explain = true;
        } else if (a == "--all-steps") {
            out.allSteps = true;
        } else if (a == "--no-snippets") {
            out.noSnippets = true;
        } else if (!a.empty() && a[0] == '-' && a != "-") {
            error = "unknown option " + a;
            ok = false;
        } else {
            out.files.push_back(a);
        }
        if (!ok) {
            return false;
        }
    }
    if (out.help || out.printConfig) {
        return true;
    }
    if (fileCount == 0 ? out.files.empty() : out.files.size() != fileCount) {
        error = fileCount <= 1 ? "expected one trace file"
                               : "expected " + std::to_string(fileCount) + " trace files";
        return false;
    }
    if (out.modelFlops && (out.params || out.tokensPerStep)) {
        error = "give either --model-flops or --params with --tokens-per-step, not both";
        return false;
    }
    if (out.params.has_value() != out.tokensPerStep.has_value() && !out.modelFlops) {
        error = "--params and --tokens-per-step go together";
        return false;
    }
    return true;
}

int checkDeviceIndex(const core::TraceModel& model, const AnalysisSetup& setup, const std::string& path,
                     const char* command) {
    if (!setup.options.deviceIndex) {
        return kExitOk;
    }
    const std::vector<std::int16_t> devices = core::devicesWithGpuWork(model);
    if (std::find(devices.begin(), devices.end(), *setup.options.deviceIndex) != devices.end()) {
        return kExitOk;
    }
    std::string withWork;
    for (std::int16_t d : devices) {
        withWork += (withWork.empty() ? "" : ", ") + std::to_string(d);
    }
    std::fprintf(stderr, "chokepoint-cli %s: --device-index %d: %s has no GPU work on GPU %d (%s)\n", command,
                 *setup.options.deviceIndex, path.c_str(), *setup.options.deviceIndex,
                 devices.empty() ? "no GPU did any work in it" : ("GPUs with work: " + withWork).c_str());
    return kExitUsage;
}

int prepareAnalysis(const AnalysisArgs& args, AnalysisSetup& setup) {
    analysis::AnalysisOptions& o = setup.options;
    o.modelFlopsPerStep = args.modelFlops;
    o.parameterCount = args.params;
    o.tokensPerStep = args.tokensPerStep;
    o.peakMemoryBytes = args.peakMemory;
    o.outOfMemoryObserved = args.outOfMemory;
    o.deviceIndex = args.deviceIndex;
    if (!args.precision.empty()) {
        o.precision = analysis::precisionFromName(args.precision);
        if (!o.precision) {
            std::fprintf(stderr, "chokepoint-cli: --precision must be fp64, fp32, tf32, bf16, fp16 or fp8\n");
            return kExitUsage;
        }
    }
    if (!args.configPath.empty()) {
        core::Result<analysis::DiagnosisConfig> config = analysis::loadDiagnosisConfig(args.configPath);
        if (!config) {
            std::fprintf(stderr, "chokepoint-cli: %s\n", config.error().message.c_str());
            return kExitBadInput;
        }
        o.config = config.value();
    }
    core::Result<analysis::DeviceDatabase> devices = analysis::DeviceDatabase::loadDefault();
    if (!devices) {
        std::fprintf(stderr, "chokepoint-cli: device database: %s\n", devices.error().message.c_str());
        return kExitBadInput;
    }
    setup.devices = std::make_unique<analysis::DeviceDatabase>(std::move(devices.value()));
    o.devices = setup.devices.get();
    if (!args.device.empty()) {
        if (setup.devices->find(args.device) == nullptr) {
            std::fprintf(stderr, "chokepoint-cli: unknown device '%s'; known ids:", args.device.c_str());
            for (const analysis::DeviceSpec* spec : setup.devices->all()) {
                std::fprintf(stderr, " %s", spec->id.c_str());
            }
            std::fprintf(stderr, "\n");
            return kExitUsage;
        }
        o.deviceName = args.device;
    }
    return kExitOk;
}

int writeOutput(const std::string& path, const std::string& text, const char* command) {
    if (path.empty() || path == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
    }
    std::ofstream out(path, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
        std::fprintf(stderr, "chokepoint-cli %s: cannot write %s\n", command, path.c_str());
        return kExitFailure;
    }
    return kExitOk;
}

}  // namespace chokepoint::cli
