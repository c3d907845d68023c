// read_file: numbered lines of one text file, from a line or from its end, within a byte
// cap per call.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/diagnostic_tools.h"
#include "tools/diagnostics/methods.h"
#include "tools/diagnostics/read_only_file.h"
#include "tools/diagnostics/text.h"

namespace mace::tools::diagnostics {

using llm::ToolCallResult;

ToolCallResult read_file(const State& state, const ToolArguments& args) {
  const std::string path = args.string("path");
  const auto start_arg = args.optional_integer("start_line");
  const bool tail = args.optional_bool("tail").value_or(false);
  const int64_t max_lines = args.optional_integer("max_lines").value_or(kDefaultReadLines);
  if (max_lines < 1 || max_lines > kMaxReadLines)
    throw Refusal("argument \"max_lines\" must be between 1 and " + std::to_string(kMaxReadLines));
  if (start_arg && *start_arg < 1) throw Refusal("argument \"start_line\" must be at least 1");
  if (start_arg && tail) throw Refusal("give either \"start_line\" or \"tail\", not both");
  const Resolved r = state.resolve(path);
  OpenedFile opened = open_regular(r);
  if (is_binary(opened.file.get()))
    throw Refusal("path " + in_quotes(r.name) +
                  " is a binary file (it holds NUL bytes)" +
                  (is_elf(opened.file.get()) ? "; show a program's symbols with symbols" : ""));

  constexpr std::size_t kReadLineBytes = 4096;
  const Deadline deadline = state.deadline();
  struct Line {
    std::uint64_t number;
    std::string text;
    bool cut;
  };
  std::vector<Line> kept;
  std::deque<Line> window;  // tail mode: the last max_lines lines so far
  const auto first = static_cast<std::uint64_t>(start_arg.value_or(1));
  const auto limit = static_cast<std::uint64_t>(max_lines);
  LineScan scan = scan_lines(opened.file.get(), kReadLineBytes, deadline,
                             [&](std::uint64_t n, std::string_view line, bool cut) {
                               if (tail) {
                                 window.push_back(Line{n, std::string(line), cut});
                                 if (window.size() > limit) window.pop_front();
                                 return true;
                               }
                               if (n >= first && n < first + limit)
                                 kept.push_back(Line{n, std::string(line), cut});
                               return true;  // keep counting for "of N lines"
                             });
  if (tail) kept.assign(window.begin(), window.end());

  std::string body;
  std::uint64_t last_shown = 0;
  bool byte_cap = false;
  for (const auto& l : kept) {
    std::string line = std::to_string(l.number) + ": ";
    append_shown_line(line, l.text, l.cut, kReadLineBytes);
    line += '\n';
    if (body.size() + line.size() > kMaxReadBytes) {
      byte_cap = true;
      break;
    }
    body += line;
    last_shown = l.number;
  }
  const std::string total = scan.timed_out ? "at least " + std::to_string(scan.lines)
                                           : std::to_string(scan.lines);
  std::string head = r.name + " (" + std::to_string(opened.size) + " bytes, " + total + " lines): ";
  if (kept.empty()) {
    head += scan.lines == 0 ? "the file is empty\n"
                            : "no line " + std::to_string(first) + "; it has " + total + " lines\n";
    return ToolCallResult{true, head};
  }
  head += "lines " + std::to_string(kept.front().number) + "-" + std::to_string(last_shown) + "\n";
  if (byte_cap)
    head += "cut at " + std::to_string(kMaxReadBytes / 1024) + " KiB; continue with start_line=" +
            std::to_string(last_shown + 1) + "\n";
  else if (!tail && last_shown < scan.lines)
    head += "more: start_line=" + std::to_string(last_shown + 1) + "\n";
  if (scan.timed_out) head += "stopped early: reading ran out of time\n";
  return ToolCallResult{true, head + body};
}

}  // namespace mace::tools::diagnostics
