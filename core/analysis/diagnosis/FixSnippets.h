#pragma once
// The fix rules' PyTorch snippets: resources/fixes/*.py, compiled into chokepoint_diagnosis by
// core/analysis/diagnosis/CMakeLists.txt (the command-line tool needs no resource files at run time).

#include <string_view>
#include <vector>

namespace chokepoint::analysis {

// The text of resources/fixes/<name>.py; empty when there is no such file.
std::string_view fixSnippet(std::string_view name);
// Every embedded snippet's name (file name without ".py"), sorted.
std::vector<std::string_view> fixSnippetNames();

}  // namespace chokepoint::analysis
