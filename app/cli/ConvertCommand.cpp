// `chokepoint-cli convert IN OUT [--format cptrace|chrome]`: any supported trace to the native
// .cptrace format or to Chrome-trace JSON (gzip-compressed when OUT ends in .gz).

#include <cstdio>
#include <string>

#include "app/cli/Commands.h"
#include "app/cli/ExitCodes.h"
#include "core/base/Format.h"
#include "core/base/Progress.h"
#include "core/format/ChromeTraceExporter.h"
#include "core/format/CptraceWriter.h"
#include "core/import/TraceLoader.h"

namespace chokepoint::cli {

namespace {

using namespace chokepoint::core;

constexpr const char* kConvertUsage =
    "Usage: chokepoint-cli convert IN OUT [--format cptrace|chrome]\n\n"
    "Converts any supported trace (PyTorch profiler / Kineto JSON, Nsight Systems SQLite export,\n"
    ".cptrace) to the native .cptrace format or to Chrome-trace JSON, which Perfetto UI and\n"
    "chrome://tracing open. Without --format the output format follows OUT's extension:\n"
    "  .cptrace            native format (compact, fast to open)\n"
    "  .json, .json.gz     Chrome-trace JSON (.gz: gzip-compressed)\n"
    "OUT is written atomically (a temporary file renamed into place).\n\n"
    "Exit codes: 0 success, 1 unreadable or invalid IN, 2 wrong arguments, 3 OUT could not be\n"
    "written, 130 cancelled.\n";

}  // namespace

int runConvert(const Args& args) {
    std::vector<std::string> paths;
    std::string format;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "--help" || arg == "-h") {
            std::fputs(kConvertUsage, stdout);
            return kExitOk;
        }
        if (arg == "--format" || arg.rfind("--format=", 0) == 0) {
            if (arg == "--format") {
                if (i + 1 >= args.size()) {
                    std::fprintf(stderr, "chokepoint-cli convert: --format needs a value\n\n%s",
                                 kConvertUsage);
                    return kExitUsage;
                }
                format = args[++i];
            } else {
                format = arg.substr(9);
            }
            if (format != "cptrace" && format != "chrome") {
                std::fprintf(stderr, "chokepoint-cli convert: unknown format '%s' (use cptrace or chrome)\n",
                             format.c_str());
                return kExitUsage;
            }
        } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
            std::fprintf(stderr, "chokepoint-cli convert: unknown option '%s'\n\n%s", arg.c_str(),
                         kConvertUsage);
            return kExitUsage;
        } else {
            paths.push_back(arg);
        }
    }
    if (paths.size() != 2) {
        std::fprintf(stderr, "chokepoint-cli convert: needs IN and OUT\n\n%s", kConvertUsage);
        return kExitUsage;
    }
    const std::string& in = paths[0];
    const std::string& out = paths[1];
    if (format.empty()) {
        if (out.ends_with(".cptrace")) {
            format = "cptrace";
        } else if (out.ends_with(".json") || out.ends_with(".json.gz")) {
            format = "chrome";
        } else {
            std::fprintf(stderr,
                         "chokepoint-cli convert: cannot tell the output format from '%s'; name it .cptrace, "
                         ".json or .json.gz, or pass --format cptrace|chrome\n",
                         out.c_str());
            return kExitUsage;
        }
    }

    Result<TraceModel> model = loadTrace(in);
    if (!model) {
        std::fprintf(stderr, "chokepoint-cli convert: %s\n", model.error().message.c_str());
        return model.error().message == kCancelledMessage ? kExitCancelled : kExitBadInput;
    }
    Status written =
        format == "cptrace" ? writeCptrace(model.value(), out) : exportChromeTrace(model.value(), out);
    if (!written) {
        std::fprintf(stderr, "chokepoint-cli convert: %s\n", written.error().message.c_str());
        return kExitFailure;
    }
    const TraceModel& m = model.value();
    std::size_t events = m.kernels.size() + m.memcpys.size() + m.memsets.size() + m.apiCalls.size() +
                         m.syncs.size() + m.ranges.size() + m.cpuOps.size();
    std::printf("wrote %s (%s, %s events)\n", out.c_str(),
                format == "cptrace" ? ".cptrace" : "Chrome-trace JSON",
                formatCount(static_cast<std::int64_t>(events)).c_str());
    return kExitOk;
}

}  // namespace chokepoint::cli
