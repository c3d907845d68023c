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

namespace {

// Only the first kSearchedLineBytes of a line are searched: bounded time per line.
constexpr std::size_t kSearchedLineBytes = 4096;

// The arguments of one search, checked.
struct SearchArguments {
  std::string pattern;
  std::string mode;  // "fixed" or "regex"
  bool ignore_case = false;
  int64_t max_matches = kDefaultSearchMatches;
  std::string note;  // for the summary, when max_matches was lowered
};

SearchArguments read_arguments(const ToolArguments& args) {
  SearchArguments a;
  a.pattern = args.string("pattern");
  a.mode = args.optional_string("mode").value_or("fixed");
  a.ignore_case = args.optional_bool("ignore_case").value_or(false);
  a.max_matches = args.optional_integer("max_matches").value_or(kDefaultSearchMatches);
  if (a.pattern.empty()) throw Refusal("argument \"pattern\" must not be empty");
  if (a.pattern.size() > kMaxPatternBytes)
    throw Refusal("argument \"pattern\" is longer than " + std::to_string(kMaxPatternBytes) +
                  " bytes");
  if (a.pattern.find('\0') != std::string::npos)
    throw Refusal("argument \"pattern\" must not contain a NUL byte");
  if (a.mode != "fixed" && a.mode != "regex")
    throw Refusal("argument \"mode\" must be \"fixed\" or \"regex\", not " + in_quotes(a.mode));
  if (a.max_matches < 1) throw Refusal("argument \"max_matches\" must be at least 1");
  if (a.max_matches > kMaxSearchMatches) {
    a.max_matches = kMaxSearchMatches;
    a.note = " (max_matches lowered to " + std::to_string(kMaxSearchMatches) + ")";
  }
  return a;
}

std::string lowered(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The pattern as applied to one line: a fixed string, or an ECMAScript regular expression.
class LineMatcher {
 public:
  explicit LineMatcher(const SearchArguments& a) : ignore_case_(a.ignore_case), needle_(a.pattern) {
    if (a.mode == "regex") {
      auto flags = std::regex::ECMAScript;
      if (a.ignore_case) flags |= std::regex::icase;
#ifdef __GLIBCXX__
      // A backtracking matcher can take exponential time on a pattern like (a+)+b and
      // recurses once per input character; the polynomial (Thompson) executor does neither.
      flags |= std::regex_constants::__polynomial;
#endif
      try {
        regex_.emplace(a.pattern, flags);
      } catch (const std::regex_error& e) {
        throw Refusal("invalid regular expression " + in_quotes(a.pattern) + ": " + e.what() +
                      " (use mode \"fixed\" to search for the text as it is)");
      }
    } else if (a.ignore_case) {
      needle_ = lowered(needle_);
    }
  }

  bool matches(std::string_view line) const {
    if (regex_) return std::regex_search(line.begin(), line.end(), *regex_);
    if (!ignore_case_) return line.find(needle_) != std::string_view::npos;
    return lowered(std::string(line)).find(needle_) != std::string::npos;
  }

 private:
  std::optional<std::regex> regex_;
  bool ignore_case_;
  std::string needle_;  // a fixed pattern, lowered when ignoring case
};

// The path argument's files, else those of the failed runs and the build log.
std::vector<Resolved> search_targets(const State& state, const ToolArguments& args) {
  std::vector<Resolved> targets;
  if (auto path = args.optional_string("path")) {
    targets = state.resolve_many(*path, true);
  } else {
    for (const auto& p : state.places)
      if (p.kind == PlaceKind::failed || p.kind == PlaceKind::build)
        targets.push_back(Resolved{&p, p.name, p.root});
  }
  return targets;
}

// What one search found, and why it stopped early if it did.
struct SearchTally {
  std::string body;  // the matching lines shown
  int64_t found = 0;
  std::size_t searched = 0, binary = 0, unreadable = 0;
  std::set<std::string> files_with_matches;
  bool capped = false, timed_out = false;
};

// Searches `files` until max_matches are found or the deadline passes. A file that cannot
// be searched is counted and passed over, unless it is the only one: then it is refused.
SearchTally search_files(const std::vector<Resolved>& files, const LineMatcher& matcher,
                         int64_t max_matches, const Deadline& deadline) {
  SearchTally tally;
  for (const auto& file : files) {
    if (tally.capped || tally.timed_out) break;
    OpenedFile opened;
    try {
      opened = open_regular(file);
    } catch (const Refusal&) {
      if (files.size() == 1) throw;
      ++tally.unreadable;
      continue;
    }
    if (is_binary(opened.file.get())) {
      if (files.size() == 1)
        throw Refusal("path " + in_quotes(file.name) + " is a binary file (it holds NUL bytes)");
      ++tally.binary;
      continue;
    }
    ++tally.searched;
    LineScan scan = scan_lines(opened.file.get(), kSearchedLineBytes, deadline,
                               [&](std::uint64_t n, std::string_view line, bool cut) {
                                 if (!matcher.matches(line)) return true;
                                 if (tally.found == max_matches) {
                                   tally.capped = true;
                                   return false;
                                 }
                                 ++tally.found;
                                 tally.files_with_matches.insert(file.name);
                                 tally.body += file.name + ":" + std::to_string(n) + ": ";
                                 append_shown_line(tally.body, line, cut, kMaxShownLineBytes);
                                 tally.body += '\n';
                                 return true;
                               });
    tally.timed_out = scan.timed_out;
  }
  return tally;
}

// The counts, then whatever cut the search short.
std::string summary(const SearchArguments& a, const SearchTally& tally,
                    const std::vector<Resolved>& targets, bool truncated) {
  std::string head;
  if (tally.found == 0) {
    head = "no match for " + in_quotes(a.pattern) + " (" + a.mode + ") in " +
           std::to_string(tally.searched) + " text file(s) of " + State::names_of(targets);
  } else {
    head = std::to_string(tally.found) + " match(es) of " + in_quotes(a.pattern) + " (" +
           a.mode + ") in " + std::to_string(tally.files_with_matches.size()) +
           " file(s); searched " + std::to_string(tally.searched) + " text file(s)";
  }
  if (tally.binary) head += "; skipped " + std::to_string(tally.binary) + " binary file(s)";
  if (tally.unreadable) head += "; " + std::to_string(tally.unreadable) + " unreadable";
  head += a.note + "\n";
  if (tally.capped)
    head += "stopped at the first " + std::to_string(a.max_matches) +
            " matches: narrow the pattern or the path, or raise max_matches (at most " +
            std::to_string(kMaxSearchMatches) + ")\n";
  if (tally.timed_out) head += "stopped early: the search ran out of time; narrow the path\n";
  if (truncated)
    head += "only the first " + std::to_string(kMaxListedEntries) + " entries were searched\n";
  return head;
}

}  // namespace

ToolCallResult search_logs(const State& state, const ToolArguments& args) {
  const SearchArguments a = read_arguments(args);
  const LineMatcher matcher(a);
  const std::vector<Resolved> targets = search_targets(state, args);
  const FileSet set = files_under(targets);
  const SearchTally tally = search_files(set.files, matcher, a.max_matches, state.deadline());
  return ToolCallResult{true, summary(a, tally, targets, set.truncated) + tally.body};
}

}  // namespace mace::tools::diagnostics
