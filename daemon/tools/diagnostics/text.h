#pragma once
// Text shown to the model by the diagnostic tools (diagnostic_tools.h). Log bytes are
// arbitrary; what reaches a JSON request must be valid UTF-8 without control characters
// but line ends, so everything a method returns from a file goes through here.

#include <cstddef>
#include <string>
#include <string_view>

namespace mace::tools::diagnostics {

// Appends `s`, with each byte that is neither printable ASCII, a tab, a line end nor part
// of a valid UTF-8 sequence shown as '?'.
void append_printable(std::string& out, std::string_view s);
std::string printable(std::string_view s);

// `s` in double quotes, a NUL byte shown as \0; printable.
std::string in_quotes(std::string_view s);

// One line as shown: cut to `limit` bytes, saying so.
void append_shown_line(std::string& out, std::string_view line, bool already_cut,
                       std::size_t limit);

}  // namespace mace::tools::diagnostics
