#pragma once
// The lower-case and trim helpers every library uses. Prefix and suffix tests need no helper: they
// are std::string_view's (and std::string's) own starts_with / ends_with.

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

// `text` without leading and trailing spaces and tabs.
constexpr std::string_view trimSpaces(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
        text.remove_suffix(1);
    }
    return text;
}

}  // namespace chokepoint::core
