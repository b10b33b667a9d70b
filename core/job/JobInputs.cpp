#include "core/job/JobInputs.h"

#include <glob.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/import/TraceLoader.h"
#include "core/job/SummaryFile.h"

namespace chokepoint::job {
namespace {

namespace fs = std::filesystem;

bool hasGlobCharacters(const std::string& text) {
    return text.find_first_of("*?[") != std::string::npos;
}

// "rank2" < "rank10": digit runs compare as numbers.
bool naturalLess(const std::string& a, const std::string& b) {
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < a.size() && j < b.size()) {
        const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
        const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
        if (da && db) {
            std::size_t ei = i;
            std::size_t ej = j;
            while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei])) != 0) {
                ++ei;
            }
            while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej])) != 0) {
                ++ej;
            }
            const std::string na = a.substr(i, ei - i);
            const std::string nb = b.substr(j, ej - j);
            const std::size_t za = na.find_first_not_of('0');
            const std::size_t zb = nb.find_first_not_of('0');
            const std::string ta = za == std::string::npos ? "" : na.substr(za);
            const std::string tb = zb == std::string::npos ? "" : nb.substr(zb);
            if (ta.size() != tb.size()) {
                return ta.size() < tb.size();
            }
            if (ta != tb) {
                return ta < tb;
            }
            i = ei;
            j = ej;
            continue;
        }
        if (a[i] != b[j]) {
            return a[i] < b[j];
        }
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

// A folder's entries that are traces or summaries by their first bytes, and every file named like
// one even when its bytes say otherwise (empty, truncated, unreadable): loading it then fails with
// a reason that names the file, instead of the file silently missing from the job.
std::vector<std::string> folderInputs(const std::string& folder) {
    std::vector<std::string> paths;
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
        std::error_code typeError;
        if (!entry.is_regular_file(typeError)) {
            continue;
        }
        const std::string path = entry.path().string();
        if (looksLikeTraceName(path) || isSummaryFile(path) || core::detectTraceFormat(path).ok()) {
            paths.push_back(path);
        }
    }
    std::sort(paths.begin(), paths.end(), naturalLess);
    return paths;
}

}  // namespace

bool looksLikeTraceName(const std::string& path) {
    std::string name = fs::path(path).filename().string();
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const char* suffix : {".json", ".json.gz", ".cptrace", ".sqlite", ".cpsum"}) {
        const std::size_t n = std::strlen(suffix);
        if (name.size() > n && name.compare(name.size() - n, n, suffix) == 0) {
            return true;
        }
    }
    return false;
}

bool isSummaryFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char magic[sizeof(kSummaryMagic)] = {};
    in.read(magic, sizeof(magic));
    return in.gcount() == static_cast<std::streamsize>(sizeof(magic)) &&
           std::memcmp(magic, kSummaryMagic, sizeof(magic)) == 0;
}

bool looksLikeJob(const std::vector<std::string>& arguments) {
    if (arguments.size() > 1) {
        return true;
    }
    for (const std::string& argument : arguments) {
        std::error_code error;
        if (hasGlobCharacters(argument) || fs::is_directory(argument, error) || isSummaryFile(argument)) {
            return true;
        }
    }
    return false;
}

core::Result<std::vector<std::string>> expandJobInputs(const std::vector<std::string>& arguments) {
    std::vector<std::string> paths;
    std::set<std::string> seen;
    auto add = [&](const std::string& path) {
        std::error_code error;
        const fs::path canonical = fs::weakly_canonical(path, error);
        if (seen.insert(error ? path : canonical.string()).second) {
            paths.push_back(path);
        }
    };
    for (const std::string& argument : arguments) {
        std::error_code error;
        if (fs::is_directory(argument, error)) {
            const std::vector<std::string> inside = folderInputs(argument);
            if (inside.empty()) {
                return core::makeError(argument + ": the folder holds no trace or .cpsum file");
            }
            for (const std::string& path : inside) {
                add(path);
            }
        } else if (fs::exists(argument, error)) {
            add(argument);
        } else if (hasGlobCharacters(argument)) {
            glob_t matches{};
            const int status = ::glob(argument.c_str(), 0, nullptr, &matches);
            std::vector<std::string> found;
            if (status == 0) {
                for (std::size_t i = 0; i < matches.gl_pathc; ++i) {
                    found.emplace_back(matches.gl_pathv[i]);
                }
            }
            globfree(&matches);
            if (found.empty()) {
                return core::makeError(argument + ": no file matches this pattern");
            }
            std::sort(found.begin(), found.end(), naturalLess);
            for (const std::string& path : found) {
                add(path);
            }
        } else {
            return core::makeError(argument + ": no such file or folder");
        }
    }
    return paths;
}

}  // namespace chokepoint::job
