#include "collectors/control/CuptiSearch.h"

#include <algorithm>

namespace chokepoint::collectors {

namespace {
constexpr const char* kCuptiSoname = "libcupti.so.13";
}

std::string sitePackagesOf(const std::string& path) {
    for (const char* name : {"/site-packages/", "/dist-packages/"}) {
        std::size_t at = path.find(name);
        if (at != std::string::npos) {
            return path.substr(0, at + std::char_traits<char>::length(name) - 1);
        }
    }
    return {};
}

std::vector<std::string> cuptiCandidates(const std::string& envPath,
                                         const std::vector<std::string>& mappedFiles,
                                         const std::vector<std::string>& cudaRoots) {
    std::vector<std::string> out;
    auto add = [&out](const std::string& candidate) {
        if (!candidate.empty() && std::find(out.begin(), out.end(), candidate) == out.end()) {
            out.push_back(candidate);
        }
    };
    if (!envPath.empty()) {
        bool isFile = envPath.find(".so") != std::string::npos;
        add(isFile ? envPath : envPath + "/" + kCuptiSoname);
    }
    // torch's own libraries first: that is the CUPTI its wheels were built and tested with.
    std::vector<std::string> sites;
    for (const std::string& file : mappedFiles) {
        std::string site = sitePackagesOf(file);
        if (site.empty() || std::find(sites.begin(), sites.end(), site) != sites.end()) {
            continue;
        }
        if (file.find("/torch/") != std::string::npos) {
            sites.insert(sites.begin(), site);
        } else {
            sites.push_back(site);
        }
    }
    for (const std::string& site : sites) {
        add(site + "/nvidia/cu13/lib/" + kCuptiSoname);
        add(site + "/nvidia/cuda_cupti/lib/" + kCuptiSoname);
    }
    for (const std::string& root : cudaRoots) {
        if (root.empty()) {
            continue;
        }
        add(root + "/lib64/" + kCuptiSoname);
        add(root + "/extras/CUPTI/lib64/" + kCuptiSoname);
        add(root + "/targets/x86_64-linux/lib/" + kCuptiSoname);
    }
    add(kCuptiSoname);  // the loader's own search path
    return out;
}

}  // namespace chokepoint::collectors
