#pragma once
// JSON string escaping for our writers (Chrome-trace export, `chokepoint-cli info --json`).
// Output is always valid JSON and valid UTF-8, whatever bytes a trace name holds: quotes,
// backslashes and control characters are escaped, and each byte of an invalid UTF-8 sequence
// (stray continuation bytes, overlong forms, surrogates, code points past U+10FFFF, a truncated
// sequence) is replaced by U+FFFD.

#include <string>
#include <string_view>

namespace chokepoint::core {

// Appends `text` as a quoted JSON string to `out`.
void appendJsonString(std::string& out, std::string_view text);

// `text` as a quoted JSON string.
std::string jsonString(std::string_view text);

}  // namespace chokepoint::core
