// Step and phase markers (NameRules.h, "Step and phase markers").

#include <string>
#include <string_view>
#include <vector>

#include "core/names/NameRules.h"

namespace chokepoint::names {

namespace {

constexpr std::string_view kHelperPrefix = "chokepoint:";

// The helper's range names are exact words after "chokepoint:"; "chokepoint:step" takes any suffix
// ("#12").
bool isHelperName(std::string_view name, std::string_view word) {
    if (!name.starts_with(kHelperPrefix)) {
        return false;
    }
    const std::string_view rest = name.substr(kHelperPrefix.size());
    return rest == word;
}

}  // namespace

std::vector<std::string> defaultStepMarkerPrefixes() {
    return {std::string(kProfilerStepPrefix), std::string(kHelperStepPrefix), std::string(kPlainStepPrefix)};
}

std::vector<std::string> parseStepMarkers(std::string_view noteValue) {
    std::vector<std::string> out;
    std::size_t begin = 0;
    while (begin <= noteValue.size()) {
        std::size_t end = noteValue.find('|', begin);
        if (end == std::string_view::npos) {
            end = noteValue.size();
        }
        std::string_view part = noteValue.substr(begin, end - begin);
        while (!part.empty() && (part.front() == ' ' || part.front() == '\t')) {
            part.remove_prefix(1);
        }
        while (!part.empty() && (part.back() == ' ' || part.back() == '\t')) {
            part.remove_suffix(1);
        }
        if (!part.empty()) {
            out.emplace_back(part);
        }
        begin = end + 1;
    }
    return out.empty() ? defaultStepMarkerPrefixes() : out;
}

bool matchesStepMarker(std::string_view name, std::string_view prefix) {
    return !prefix.empty() && name.starts_with(prefix);
}

bool isProfilerStepName(std::string_view name) {
    return name.starts_with(kProfilerStepPrefix);
}

MarkerRole markerRoleOf(std::string_view name) {
    if (isProfilerStepName(name) || name.starts_with(kHelperStepPrefix)) {
        // "chokepoint:step#3"; "chokepoint:stepper" is not the helper's.
        const std::string_view rest = name.starts_with(kHelperStepPrefix)
                                          ? name.substr(kHelperStepPrefix.size())
                                          : std::string_view("#");
        if (rest.empty() || rest.front() == '#') {
            return MarkerRole::Step;
        }
        return MarkerRole::None;
    }
    if (!name.starts_with(kHelperPrefix)) {
        return MarkerRole::None;
    }
    if (isHelperName(name, "data")) {
        return MarkerRole::DataWait;
    }
    if (isHelperName(name, "forward")) {
        return MarkerRole::Forward;
    }
    if (isHelperName(name, "backward")) {
        return MarkerRole::Backward;
    }
    if (isHelperName(name, "optimizer")) {
        return MarkerRole::Optimizer;
    }
    if (name.starts_with("chokepoint:meta ") || name == "chokepoint:meta") {
        return MarkerRole::Meta;
    }
    return MarkerRole::None;
}

std::string_view toString(MarkerRole role) {
    switch (role) {
        case MarkerRole::None:
            return "none";
        case MarkerRole::Step:
            return "step";
        case MarkerRole::DataWait:
            return "data-wait";
        case MarkerRole::Forward:
            return "forward";
        case MarkerRole::Backward:
            return "backward";
        case MarkerRole::Optimizer:
            return "optimizer";
        case MarkerRole::Meta:
            return "meta";
    }
    return "none";
}

}  // namespace chokepoint::names
