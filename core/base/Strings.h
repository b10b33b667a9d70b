#pragma once
// The one lower-case helper every library uses. Prefix and suffix tests need no helper: they are
// std::string_view's (and std::string's) own starts_with / ends_with.

#include <string>
#include <string_view>

namespace chokepoint::core {

// ASCII lower case: 'A'..'Z' become 'a'..'z', every other byte (UTF-8 sequences included) stays.
constexpr char toLower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

inline std::string toLower(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        c = toLower(c);
    }
    return out;
}

}  // namespace chokepoint::core
