#pragma once
// Which files a task's RTL edits change, read from the unified diff the store keeps of them
// (`--- a/PATH` / `+++ b/PATH` headers, as openpiton::unified_diff writes them): what a
// configuration names as "the edited files".

#include <string>
#include <string_view>
#include <vector>

namespace mace {

// The paths of the diff's `+++ b/PATH` headers that follow a `--- ` header, in the order
// they come, each once; a file the edits delete (`+++ /dev/null`) by its `--- a/PATH`.
// Content lines that merely look like headers (inside a hunk) are not headers.
std::vector<std::string> edited_files(std::string_view unified_diff);

}  // namespace mace
