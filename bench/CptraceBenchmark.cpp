// chokepoint-bench-cptrace FILE [--repeat N] [--keep OUT.cptrace] [--compress|--no-compress]
//
// Imports FILE (any supported trace) with loadTrace, writes it as .cptrace, then times reading the
// .cptrace back against importing FILE, single-threaded, and compares the .cptrace size with the
// gzipped JSON size (FILE's own size when it is gzip; FILE gzipped at level 6 in memory otherwise).
// Both wall time and process CPU time (std::clock) are reported: on a shared, loaded machine the
// CPU time is the steadier measure of single-threaded work. Targets (issue 2): .cptrace load at least 10x
// faster than the JSON import, and the .cptrace file no larger than the gzipped JSON.

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/format/CptraceReader.h"
#include "core/format/CptraceWriter.h"
#include "core/import/TraceLoader.h"

namespace {

using namespace chokepoint::core;
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double cpuMsSince(std::clock_t start) {
    return 1000.0 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool isGzip(const std::string& bytes) {
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
           static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::size_t gzippedSize(const std::string& bytes) {
    z_stream z{};
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        return 0;
    }
    std::string out(deflateBound(&z, static_cast<uLong>(bytes.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    std::size_t size = z.total_out;
    deflateEnd(&z);
    return size;
}

std::size_t rows(const TraceModel& m) {
    return m.kernels.size() + m.memcpys.size() + m.memsets.size() + m.apiCalls.size() + m.syncs.size() +
           m.ranges.size() + m.cpuOps.size();
}

}  // namespace

int main(int argc, char** argv) {
    std::string input, keep;
    int repeat = 5;
    CptraceWriteOptions writeOptions;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--repeat" && i + 1 < argc) {
            repeat = std::max(1, std::atoi(argv[++i]));
        } else if (arg == "--compress") {
            writeOptions.compress = true;  // every chunk
            writeOptions.compressMaxRawBytes = static_cast<std::size_t>(-1);
        } else if (arg == "--no-compress") {
            writeOptions.compress = false;
        } else if (arg == "--keep" && i + 1 < argc) {
            keep = argv[++i];
        } else if (arg == "--help" || arg == "-h" || !input.empty()) {
            std::fprintf(stderr,
                         "Usage: chokepoint-bench-cptrace FILE [--repeat N] [--keep OUT.cptrace] "
                         "[--compress|--no-compress]\n");
            return arg == "--help" || arg == "-h" ? 0 : 2;
        } else {
            input = arg;
        }
    }
    if (input.empty()) {
        std::fprintf(stderr,
                     "Usage: chokepoint-bench-cptrace FILE [--repeat N] [--keep OUT.cptrace] "
                     "[--compress|--no-compress]\n");
        return 2;
    }

    const std::string inputBytes = readAll(input);
    const bool gzip = isGzip(inputBytes);
    const std::size_t gzSize = gzip ? inputBytes.size() : gzippedSize(inputBytes);

    std::vector<double> importMs, importCpuMs;
    std::size_t importedRows = 0;
    TraceModel model;
    for (int i = 0; i < repeat; ++i) {
        auto start = Clock::now();
        std::clock_t cpuStart = std::clock();
        Result<TraceModel> loaded = loadTrace(input);
        importMs.push_back(msSince(start));
        importCpuMs.push_back(cpuMsSince(cpuStart));
        if (!loaded) {
            std::fprintf(stderr, "%s\n", loaded.error().message.c_str());
            return 1;
        }
        importedRows = rows(loaded.value());
        if (i == repeat - 1) {
            model = std::move(loaded.value());
        }
    }

    const std::string out =
        keep.empty()
            ? (std::filesystem::temp_directory_path() / ("bench-" + std::to_string(::getpid()) + ".cptrace"))
                  .string()
            : keep;
    auto writeStart = Clock::now();
    if (Status s = writeCptrace(model, out, writeOptions); !s) {
        std::fprintf(stderr, "%s\n", s.error().message.c_str());
        return 3;
    }
    const double writeMs = msSince(writeStart);
    const std::size_t cptraceSize = std::filesystem::file_size(out);

    std::vector<double> readMs, readCpuMs;
    std::size_t readRows = 0;
    for (int i = 0; i < repeat; ++i) {
        auto start = Clock::now();
        std::clock_t cpuStart = std::clock();
        Result<TraceModel> read = readCptrace(out);
        readMs.push_back(msSince(start));
        readCpuMs.push_back(cpuMsSince(cpuStart));
        if (!read) {
            std::fprintf(stderr, "%s\n", read.error().message.c_str());
            return 1;
        }
        readRows = rows(read.value());
    }
    if (keep.empty()) {
        std::filesystem::remove(out);
    }

    const double jsonMs = median(importMs);
    const double cptraceMs = median(readMs);
    const double jsonCpuMs = median(importCpuMs);
    const double cptraceCpuMs = median(readCpuMs);
    std::printf("input:            %s (%zu bytes%s)\n", input.c_str(), inputBytes.size(),
                gzip ? ", gzip" : "");
    std::printf("rows:             %zu imported, %zu read back%s\n", importedRows, readRows,
                importedRows == readRows ? "" : "  MISMATCH");
    std::printf("JSON import:      %.1f ms wall, %.1f ms CPU (medians of %d)\n", jsonMs, jsonCpuMs, repeat);
    std::printf(".cptrace write:   %.1f ms wall\n", writeMs);
    std::printf(".cptrace load:    %.1f ms wall, %.1f ms CPU (medians of %d)\n", cptraceMs, cptraceCpuMs,
                repeat);
    const double speedup = jsonMs / cptraceMs;
    const double cpuSpeedup = jsonCpuMs / cptraceCpuMs;
    std::printf("load speed-up:    %.1fx wall, %.1fx CPU  (target >= 10x: %s)\n", speedup, cpuSpeedup,
                std::min(speedup, cpuSpeedup) >= 10.0
                    ? "met"
                    : (std::max(speedup, cpuSpeedup) >= 10.0 ? "met on one measure" : "NOT met"));
    std::printf("gzipped JSON:     %zu bytes\n", gzSize);
    std::printf(".cptrace size:    %zu bytes = %.3f of the gzipped JSON  (target <= 1: %s)\n", cptraceSize,
                static_cast<double>(cptraceSize) / static_cast<double>(gzSize),
                cptraceSize <= gzSize ? "met" : "NOT met");
    return importedRows == readRows ? 0 : 1;
}
