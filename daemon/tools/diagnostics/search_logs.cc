// search_logs: matching lines of the failed task's text files (or of one path), found by a
// fixed string or a regular expression, at a bounded cost per line and per call.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tools/diagnostic_tools.h"
#include "tools/diagnostics/directory_walk.h"
#include "tools/diagnostics/methods.h"
#include "tools/diagnostics/read_only_file.h"
#include "tools/diagnostics/text.h"

namespace mace::tools::diagnostics {

using llm::ToolCallResult;

ToolCallResult search_logs(const State& state, const ToolArguments& args) {
  const std::string pattern = args.string("pattern");
  const std::string mode = args.optional_string("mode").value_or("fixed");
  const bool ignore_case = args.optional_bool("ignore_case").value_or(false);
  int64_t max_matches = args.optional_integer("max_matches").value_or(kDefaultSearchMatches);
  if (pattern.empty()) throw Refusal("argument \"pattern\" must not be empty");
  if (pattern.size() > kMaxPatternBytes)
    throw Refusal("argument \"pattern\" is longer than " + std::to_string(kMaxPatternBytes) +
                  " bytes");
  if (pattern.find('\0') != std::string::npos)
    throw Refusal("argument \"pattern\" must not contain a NUL byte");
  if (mode != "fixed" && mode != "regex")
    throw Refusal("argument \"mode\" must be \"fixed\" or \"regex\", not " + in_quotes(mode));
  if (max_matches < 1) throw Refusal("argument \"max_matches\" must be at least 1");
  std::string note;
  if (max_matches > kMaxSearchMatches) {
    max_matches = kMaxSearchMatches;
    note = " (max_matches lowered to " + std::to_string(kMaxSearchMatches) + ")";
  }

  std::optional<std::regex> regex;
  std::string needle = pattern;
  if (mode == "regex") {
    auto flags = std::regex::ECMAScript;
    if (ignore_case) flags |= std::regex::icase;
#ifdef __GLIBCXX__
    // A backtracking matcher can take exponential time on a pattern like (a+)+b and
    // recurses once per input character; the polynomial (Thompson) executor does neither.
    flags |= std::regex_constants::__polynomial;
#endif
    try {
      regex.emplace(pattern, flags);
    } catch (const std::regex_error& e) {
      throw Refusal("invalid regular expression " + in_quotes(pattern) + ": " + e.what() +
                    " (use mode \"fixed\" to search for the text as it is)");
    }
  } else if (ignore_case) {
    std::transform(needle.begin(), needle.end(), needle.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  }
  // Only the first kSearchedLineBytes of a line are searched: bounded time per line.
  constexpr std::size_t kSearchedLineBytes = 4096;
  auto matches = [&](std::string_view line) {
    if (regex) return std::regex_search(line.begin(), line.end(), *regex);
    if (!ignore_case) return line.find(needle) != std::string_view::npos;
    std::string lowered(line);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lowered.find(needle) != std::string::npos;
  };

  std::vector<Resolved> targets;
  if (auto path = args.optional_string("path")) {
    targets = state.resolve_many(*path, true);
  } else {
    for (const auto& p : state.places)
      if (p.kind == PlaceKind::failed || p.kind == PlaceKind::build)
        targets.push_back(Resolved{&p, p.name, p.root});
  }
  const FileSet set = files_under(targets);
  const Deadline deadline = state.deadline();

  std::string body;
  int64_t found = 0;
  std::size_t searched = 0, binary = 0, unreadable = 0;
  std::set<std::string> files_with_matches;
  bool capped = false, timed_out = false;
  for (const auto& file : set.files) {
    if (capped || timed_out) break;
    OpenedFile opened;
    try {
      opened = open_regular(file);
    } catch (const Refusal&) {
      if (set.files.size() == 1) throw;
      ++unreadable;
      continue;
    }
    if (is_binary(opened.file.get())) {
      if (set.files.size() == 1)
        throw Refusal("path " + in_quotes(file.name) + " is a binary file (it holds NUL bytes)");
      ++binary;
      continue;
    }
    ++searched;
    LineScan scan = scan_lines(opened.file.get(), kSearchedLineBytes, deadline,
                               [&](std::uint64_t n, std::string_view line, bool cut) {
                                 if (!matches(line)) return true;
                                 if (found == max_matches) {
                                   capped = true;
                                   return false;
                                 }
                                 ++found;
                                 files_with_matches.insert(file.name);
                                 body += file.name + ":" + std::to_string(n) + ": ";
                                 append_shown_line(body, line, cut, kMaxShownLineBytes);
                                 body += '\n';
                                 return true;
                               });
    timed_out = scan.timed_out;
  }

  std::string head;
  if (found == 0) {
    head = "no match for " + in_quotes(pattern) + " (" + mode + ") in " +
           std::to_string(searched) + " text file(s) of " + State::names_of(targets);
  } else {
    head = std::to_string(found) + " match(es) of " + in_quotes(pattern) + " (" + mode + ") in " +
           std::to_string(files_with_matches.size()) + " file(s); searched " +
           std::to_string(searched) + " text file(s)";
  }
  if (binary) head += "; skipped " + std::to_string(binary) + " binary file(s)";
  if (unreadable) head += "; " + std::to_string(unreadable) + " unreadable";
  head += note + "\n";
  if (capped)
    head += "stopped at the first " + std::to_string(max_matches) +
            " matches: narrow the pattern or the path, or raise max_matches (at most " +
            std::to_string(kMaxSearchMatches) + ")\n";
  if (timed_out) head += "stopped early: the search ran out of time; narrow the path\n";
  if (set.truncated)
    head += "only the first " + std::to_string(kMaxListedEntries) + " entries were searched\n";
  return ToolCallResult{true, head + body};
}

}  // namespace mace::tools::diagnostics
