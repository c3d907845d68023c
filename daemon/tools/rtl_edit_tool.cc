#include "tools/rtl_edit_tool.h"

#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>

#include "os/file_io.h"
#include "os/line_diff.h"
#include "os/path_containment.h"
#include "os/text.h"
#include "tools/tool_arguments.h"

namespace mace::tools {
namespace fs = std::filesystem;
using openpiton::DesignPath;
using openpiton::EditError;
using openpiton::PathError;

namespace {

constexpr std::string_view kToolName = "rtl_edit";
// A search reads every design file; past this size a file is generated data, not RTL.
constexpr uintmax_t kSearchMaxFileBytes = 16 * 1024 * 1024;
constexpr size_t kSearchMaxOutputBytes = 64 * 1024;
constexpr size_t kSearchLineShown = 240;
// std::regex walks each line from every start position; long generated lines would make a
// simple pattern take seconds each.
constexpr size_t kRegexMaxLine = 2000;
constexpr size_t kRegexMaxPattern = 1000;
constexpr std::chrono::seconds kSearchTimeBudget{20};
constexpr size_t kReadMaxLine = 4096;
constexpr size_t kDiffMaxBytes = 16 * 1024;
constexpr size_t kBinaryProbe = 8192;

[[noreturn]] void refuse(std::string_view path, const std::string& reason) {
  throw PathError("refused path '" + std::string(path) + "': " + reason);
}

bool is_real_directory(const fs::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

fs::path canonical_design(const fs::path& root) {
  if (!is_real_directory(root / "piton") || !is_real_directory(root / "piton" / "design"))
    throw PathError(std::string(openpiton::kDesignDir) + " is not a directory of the checkout");
  return root / "piton" / "design";
}

// Where list and search look: a directory (or one file) inside piton/design/. Files go
// through resolve_design_path; a directory must obey the same rule, which it cannot check
// because it refuses directories.
struct SearchRoot {
  fs::path absolute;  // canonical
  std::string relative;
  bool is_file = false;
};

SearchRoot resolve_search_root(const fs::path& root, const std::optional<std::string>& argument) {
  const fs::path design = canonical_design(root);
  const std::string shown = argument.value_or(std::string(openpiton::kDesignDir));
  if (!argument || argument->empty()) return {design, std::string(openpiton::kDesignDir), false};
  if (shown.find('\0') != std::string::npos) refuse(shown, "path contains a NUL byte");
  if (shown.front() == '/') refuse(shown, "path is absolute");
  std::vector<std::string> parts;
  std::istringstream in(shown);
  for (std::string part; std::getline(in, part, '/');) {
    if (part == "..") refuse(shown, "path has a '..' component");
    if (!part.empty() && part != ".") parts.push_back(part);
  }
  if (parts.size() < 2 || parts[0] != "piton" || parts[1] != "design")
    refuse(shown, "path is outside " + std::string(openpiton::kDesignDir) + "/");
  fs::path target = root;
  for (const std::string& part : parts) target /= part;
  std::error_code ec;
  const fs::path real = fs::canonical(target, ec);
  if (ec) refuse(shown, ec.message());
  if (!os::is_inside(real, design))
    refuse(shown, "path escapes " + std::string(openpiton::kDesignDir) +
                      "/ through a symlink (resolves to " + real.string() + ")");
  const fs::file_status status = fs::status(real, ec);
  if (fs::is_directory(status))
    return {real, real.lexically_relative(root).generic_string(), false};
  if (fs::is_regular_file(status)) {
    const DesignPath file = openpiton::resolve_design_path(root, shown);
    return {file.absolute, file.relative, true};
  }
  refuse(shown, "path is neither a directory nor a regular file");
}

// Symlinks are not followed into directories: one could lead anywhere, and a file reached
// through a link that stays inside also has its real path here. A symlinked file is kept,
// under its real path (the name its edits are staged by), when resolve_design_path accepts
// it, as read would.
std::vector<std::string> design_files(const fs::path& root, const SearchRoot& where) {
  if (where.is_file) return {where.relative};
  std::vector<std::string> files;
  std::error_code ec;
  auto options = fs::directory_options::skip_permission_denied;
  for (auto it = fs::recursive_directory_iterator(where.absolute, options, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::file_status st = it->symlink_status(ec);
    if (ec) break;
    const std::string relative = it->path().lexically_relative(root).generic_string();
    if (fs::is_regular_file(st)) {
      files.push_back(relative);
    } else if (fs::is_symlink(st)) {
      try {
        const DesignPath target = openpiton::resolve_design_path(root, relative);
        if (target.exists) files.push_back(target.relative);
      } catch (const EditError&) {
        // A link out of the design or to a directory: not the agent's to see.
      }
    }
  }
  if (ec) throw EditError("cannot list " + where.relative + ": " + ec.message());
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

bool has_glob_chars(std::string_view glob) {
  return glob.find_first_of("*?[") != std::string_view::npos;
}

// "*.v" matches file names, "chip/*/rtl/*.v" whole paths, ".v" (no wildcard) is a suffix.
bool matches_glob(const std::string& relative, const std::optional<std::string>& glob) {
  if (!glob || glob->empty()) return true;
  if (!has_glob_chars(*glob)) return relative.ends_with(*glob);
  if (glob->find('/') == std::string::npos) {
    const std::string name = relative.substr(relative.rfind('/') + 1);
    return ::fnmatch(glob->c_str(), name.c_str(), 0) == 0;
  }
  // A glob naming directories may be written from piton/design/ or from the checkout root.
  return ::fnmatch(glob->c_str(), relative.c_str(), 0) == 0 ||
         ::fnmatch(("piton/design/" + *glob).c_str(), relative.c_str(), 0) == 0 ||
         ::fnmatch(("*/" + *glob).c_str(), relative.c_str(), 0) == 0;
}

bool is_staged(const fs::path& staging_dir, const std::string& relative) {
  std::error_code ec;
  return fs::is_regular_file(fs::symlink_status(staging_dir / relative, ec));
}

bool looks_binary(std::string_view content) {
  return content.substr(0, kBinaryProbe).find('\0') != std::string_view::npos;
}

std::string cut(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  return std::string(text.substr(0, max)) + " [... " + std::to_string(text.size() - max) +
         " more characters]";
}

std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// ---- methods -----------------------------------------------------------------------------

struct Context {
  fs::path checkout_root;
  fs::path staging_dir;
  // Two replaces in one file at once (an MCP client may overlap calls) would each start from
  // the same staged text and the later write would drop the earlier edit.
  std::mutex replace_mutex;
};

std::string list(const Context& ctx, const ToolArguments& args) {
  const auto path = args.optional_string("path");
  const auto glob = args.optional_string("glob");
  const fs::path root = openpiton::canonical_checkout_root(ctx.checkout_root);
  const SearchRoot where = resolve_search_root(root, path);
  std::vector<std::string> files = design_files(root, where);
  std::erase_if(files, [&](const std::string& f) { return !matches_glob(f, glob); });
  std::string out;
  const size_t shown = std::min(files.size(), kRtlListMaxEntries);
  for (size_t i = 0; i < shown; ++i) {
    out += files[i];
    if (is_staged(ctx.staging_dir, files[i])) out += "  (changed by you)";
    out += '\n';
  }
  const std::string filter = glob && !glob->empty() ? " matching '" + *glob + "'" : "";
  if (files.empty()) return "no files under " + where.relative + filter + "\n";
  if (shown < files.size()) {
    out += "... and " + std::to_string(files.size() - shown) + " more (" +
           std::to_string(files.size()) + " files under " + where.relative + filter +
           "); narrow the listing with path or glob\n";
  } else {
    out += std::to_string(files.size()) + " files under " + where.relative + filter + "\n";
  }
  return out;
}

std::string read(const Context& ctx, const ToolArguments& args) {
  const std::string path = args.string("path");
  const int64_t offset = args.optional_integer("offset").value_or(1);
  const auto limit = args.optional_integer("limit");
  if (offset < 1) throw ToolArgumentError("argument \"offset\" must be a line number from 1");
  if (limit && *limit < 1) throw ToolArgumentError("argument \"limit\" must be at least 1");

  const DesignPath where = openpiton::resolve_design_path(ctx.checkout_root, path);
  const std::string content =
      openpiton::read_staged_or_checkout(ctx.checkout_root, ctx.staging_dir, path);
  const std::string name =
      where.relative + (is_staged(ctx.staging_dir, where.relative) ? " (as changed by you)" : "");
  if (looks_binary(content))
    return name + ": a binary file of " + std::to_string(content.size()) + " bytes, not shown\n";
  const std::vector<std::string_view> lines = os::split_lines_dropping_newlines(content);
  if (lines.empty()) return name + ": empty file\n";
  const size_t total = lines.size();
  if (static_cast<uint64_t>(offset) > total)
    throw ToolArgumentError("argument \"offset\" is " + std::to_string(offset) + " but " +
                            where.relative + " has " + std::to_string(total) + " lines");
  const size_t first = static_cast<size_t>(offset);
  size_t last = total;
  if (limit && static_cast<uint64_t>(*limit) < total - first + 1)
    last = first + static_cast<size_t>(*limit) - 1;

  std::string body;
  size_t n = first;
  for (; n <= last; ++n) {
    char number[24];
    std::snprintf(number, sizeof number, "%6zu\t", n);
    std::string line = number + cut(lines[n - 1], kReadMaxLine) + "\n";
    if (body.size() + line.size() > kRtlReadMaxBytes && n > first) break;
    body += line;
  }
  const size_t shown_last = n - 1;
  std::string out = name + ": lines " + std::to_string(first) + "-" + std::to_string(shown_last) +
                    " of " + std::to_string(total) + "\n" + body;
  if (shown_last == total && !content.ends_with('\n')) out += "\\ No newline at end of file\n";
  if (shown_last < last) {
    out += "[cut at " + std::to_string(kRtlReadMaxBytes / 1024) + " KiB; read on with offset=" +
           std::to_string(shown_last + 1) + "]\n";
  }
  return out;
}

// A query as search applies it to one line: a text, or a regular expression matched
// against the line's first kRegexMaxLine characters; either may ignore ASCII case.
class LineMatcher {
 public:
  LineMatcher(const std::string& query, bool use_regex, bool ignore_case)
      : ignore_case_(ignore_case), needle_(ignore_case ? ascii_lower(query) : query) {
    if (!use_regex) return;
    if (query.size() > kRegexMaxPattern)
      throw ToolArgumentError("argument \"query\" is longer than " +
                              std::to_string(kRegexMaxPattern) + " characters");
    // __polynomial (libstdc++) matches with an NFA simulation, so no pattern backtracks
    // exponentially or recurses once per character of a long line; it refuses back-references.
    auto flags = std::regex::ECMAScript | std::regex_constants::__polynomial;
    if (ignore_case) flags |= std::regex::icase;
    try {
      pattern_.emplace(query, flags);
    } catch (const std::regex_error& e) {
      throw ToolArgumentError("argument \"query\" is not a valid regular expression: " +
                              std::string(e.what()));
    }
  }

  bool matches(std::string_view line) const {
    if (pattern_) {
      const std::string_view head = line.substr(0, kRegexMaxLine);
      return std::regex_search(head.begin(), head.end(), *pattern_);
    }
    return ignore_case_ ? ascii_lower(line).find(needle_) != std::string::npos
                        : line.find(needle_) != std::string_view::npos;
  }

 private:
  std::optional<std::regex> pattern_;
  bool ignore_case_;
  std::string needle_;  // lowered when ignoring case
};

// A design file as search reads it: the staged version when there is one; nullopt when it
// is binary, unreadable or too big to be RTL.
std::optional<std::string> searchable_text(const Context& ctx, const fs::path& root,
                                           const std::string& relative) {
  const fs::path path = is_staged(ctx.staging_dir, relative) ? ctx.staging_dir / relative : root / relative;
  std::optional<std::string> content = os::try_read_file(path, kSearchMaxFileBytes);
  if (!content || looks_binary(*content)) return std::nullopt;
  return content;
}

// What one search found, and where its time budget ran out.
struct SearchTally {
  std::string body;  // the matching lines shown
  size_t matches = 0, shown = 0, files_matched = 0, searched = 0, skipped = 0;
  std::string stopped_at;  // empty: the search did not run out of time

  void search_lines(const std::string& relative, const std::string& content,
                    const LineMatcher& matcher, std::chrono::steady_clock::time_point deadline) {
    bool file_matched = false;
    const std::vector<std::string_view> lines = os::split_lines_dropping_newlines(content);
    for (size_t i = 0; i < lines.size(); ++i) {
      // Also within a file: one big file with long lines can take a regex minutes.
      if (i % 64 == 63 && std::chrono::steady_clock::now() > deadline) {
        stopped_at = relative + ":" + std::to_string(i + 1);
        break;
      }
      if (!matcher.matches(lines[i])) continue;
      ++matches;
      file_matched = true;
      if (shown < kRtlSearchMaxMatches && body.size() < kSearchMaxOutputBytes) {
        body += relative + ":" + std::to_string(i + 1) + ": " + cut(lines[i], kSearchLineShown) +
                "\n";
        ++shown;
      }
    }
    if (file_matched) ++files_matched;
  }

  // The matching lines, then the counts and whatever cut the search short.
  std::string report(const std::string& query, const std::string& scope) const {
    std::string out = body;
    if (matches == 0) {
      out += "no matches for '" + query + "' in " + scope + " (" + std::to_string(searched) +
             " files searched)\n";
    } else if (shown < matches) {
      out += "... " + std::to_string(matches - shown) + " more matches not shown (" +
             std::to_string(matches) + " in " + std::to_string(files_matched) +
             " files); narrow the search with path, glob or a longer query\n";
    } else {
      out += std::to_string(matches) + " matches in " + std::to_string(files_matched) +
             " files\n";
    }
    if (skipped > 0)
      out += std::to_string(skipped) + " binary, unreadable or oversized files skipped\n";
    if (!stopped_at.empty()) {
      out += "search stopped after " + std::to_string(kSearchTimeBudget.count()) + " s at " +
             stopped_at + " (the counts above cover only what came before); narrow it with "
             "path or glob\n";
    }
    return out;
  }
};

// Searches `files` in order until kSearchTimeBudget runs out.
SearchTally search_files(const Context& ctx, const fs::path& root,
                         const std::vector<std::string>& files, const LineMatcher& matcher) {
  const auto deadline = std::chrono::steady_clock::now() + kSearchTimeBudget;
  SearchTally tally;
  for (const std::string& relative : files) {
    if (!tally.stopped_at.empty()) break;
    if (std::chrono::steady_clock::now() > deadline) {
      tally.stopped_at = relative;
      break;
    }
    const std::optional<std::string> content = searchable_text(ctx, root, relative);
    if (!content) {
      ++tally.skipped;
      continue;
    }
    ++tally.searched;
    tally.search_lines(relative, *content, matcher, deadline);
  }
  return tally;
}

std::string search(const Context& ctx, const ToolArguments& args) {
  const std::string query = args.string("query");
  const auto path = args.optional_string("path");
  const auto glob = args.optional_string("glob");
  const bool use_regex = args.optional_bool("regex").value_or(false);
  const bool ignore_case = args.optional_bool("ignore_case").value_or(false);
  if (query.empty()) throw ToolArgumentError("argument \"query\" is empty");
  const LineMatcher matcher(query, use_regex, ignore_case);

  const fs::path root = openpiton::canonical_checkout_root(ctx.checkout_root);
  const SearchRoot where = resolve_search_root(root, path);
  std::vector<std::string> files = design_files(root, where);
  std::erase_if(files, [&](const std::string& f) { return !matches_glob(f, glob); });

  const SearchTally tally = search_files(ctx, root, files, matcher);
  const std::string scope = where.relative + (glob && !glob->empty() ? " (" + *glob + ")" : "");
  return tally.report(query, scope);
}

std::string replace(Context& ctx, const ToolArguments& args) {
  const std::string path = args.string("path");
  const std::string old_text = args.string("old_text");
  const std::string new_text = args.string("new_text");
  if (old_text.empty())
    throw ToolArgumentError(
        "argument \"old_text\" is empty: replace changes text already in a file, it does not "
        "create files");
  if (old_text == new_text)
    throw ToolArgumentError("old_text and new_text are the same: nothing to change");

  std::lock_guard lock(ctx.replace_mutex);
  const DesignPath where = openpiton::resolve_design_path(ctx.checkout_root, path);
  const std::string before =
      openpiton::read_staged_or_checkout(ctx.checkout_root, ctx.staging_dir, path);
  const std::string after = openpiton::stage_replacement(
      ctx.checkout_root, ctx.staging_dir, openpiton::TextReplacement{path, old_text, new_text});
  std::string diff =
      os::unified_diff_text(before, after, "a/" + where.relative, "b/" + where.relative);
  if (diff.size() > kDiffMaxBytes) {
    diff.resize(kDiffMaxBytes);
    diff += "\n[diff cut at " + std::to_string(kDiffMaxBytes / 1024) + " KiB]\n";
  }
  return "replaced 1 place in " + where.relative +
         " (recorded for the build; the checkout itself is unchanged)\n" + diff;
}

// ---- schemas -----------------------------------------------------------------------------

// Schemas as the models read them: adjacent literals, one property per line.
constexpr const char* kListSchema =
    R"({"type":"object","properties":{)"
    R"("path":{"type":"string","description":"Directory (or file) relative to the checkout )"
    R"(root, inside piton/design/. Default: piton/design."},)"
    R"("glob":{"type":"string","description":"Only files matching this: a file-name glob )"
    R"((\"*.v\"), a path glob (\"chip/tile/*/rtl/*.v\"), or a suffix (\".vh\")."}}})";

constexpr const char* kReadSchema =
    R"({"type":"object","properties":{)"
    R"("path":{"type":"string","description":"File relative to the checkout root, e.g. )"
    R"(piton/design/chip/tile/rtl/tile.v."},)"
    R"("offset":{"type":"integer","minimum":1,"description":"First line to show (from 1). )"
    R"(Default 1."},)"
    R"("limit":{"type":"integer","minimum":1,"description":"How many lines to show. Default: )"
    R"(to the end, up to 64 KiB."}},)"
    R"("required":["path"]})";

constexpr const char* kSearchSchema =
    R"({"type":"object","properties":{)"
    R"("query":{"type":"string","description":"Text to find in each line; when regex is true, )"
    R"(an ECMAScript regular expression without back-references, matched against the first )"
    R"(2000 characters of each line."},)"
    R"("path":{"type":"string","description":"Directory or file inside piton/design/ to )"
    R"(search. Default: piton/design."},)"
    R"("glob":{"type":"string","description":"Only files matching this, as for list )"
    R"((e.g. \"*.v\")."},)"
    R"("regex":{"type":"boolean","description":"Treat query as a regular expression. )"
    R"(Default false."},)"
    R"("ignore_case":{"type":"boolean","description":"Ignore ASCII case. Default false."}},)"
    R"("required":["query"]})";

constexpr const char* kReplaceSchema =
    R"({"type":"object","properties":{)"
    R"("path":{"type":"string","description":"File relative to the checkout root, inside )"
    R"(piton/design/."},)"
    R"("old_text":{"type":"string","description":"Exact text now in the file (whitespace and )"
    R"(newlines included, no line numbers); it must occur exactly once."},)"
    R"("new_text":{"type":"string","description":"Text to put in its place (may be empty to )"
    R"(delete)."}},)"
    R"("required":["path","old_text","new_text"]})";

}  // namespace

llm::Tool make_rtl_edit_tool(const fs::path& checkout_root, fs::path staging_dir) {
  auto ctx = std::make_shared<Context>();
  ctx->checkout_root = checkout_root;
  ctx->staging_dir =
      staging_dir.empty() ? openpiton::default_staging_dir(checkout_root) : std::move(staging_dir);

  llm::Tool tool;
  tool.name = std::string(kToolName);
  tool.description =
      "Read and edit the OpenPiton design sources of this task's checkout. Paths are relative "
      "to the checkout root and must lie under piton/design/ (the testbench under piton/verif/ "
      "cannot be changed). Edits are recorded and applied for the task's build; read and search "
      "show the files as you changed them.";
  tool.methods = {
      {"list", "List files under piton/design/ (or a sub-directory), optionally filtered.",
       kListSchema},
      {"read",
       "Show a file with line numbers (the numbers are not part of the text), your edited "
       "version if you changed it.",
       kReadSchema},
      {"search",
       "Find lines containing a text or matching a regular expression, shown as "
       "path:line: text.",
       kSearchSchema},
      {"replace",
       "Replace the one place in a file where old_text occurs by new_text. Refused when old_text "
       "occurs zero or several times: copy it exactly from read, with enough surrounding lines "
       "to be unique. Returns the diff of the change.",
       kReplaceSchema},
  };
  tool.call = [ctx](const std::string& method,
                    const std::string& arguments_json) -> llm::ToolCallResult {
    const std::string where = std::string(kToolName) + "." + method + ": ";
    if (method != "list" && method != "read" && method != "search" && method != "replace") {
      return {false, "unknown method '" + method + "' of " + std::string(kToolName) +
                         "; it has list, read, search and replace"};
    }
    try {
      const ToolArguments args = ToolArguments::parse(arguments_json);
      if (method == "list") return {true, list(*ctx, args)};
      if (method == "read") return {true, read(*ctx, args)};
      if (method == "search") return {true, search(*ctx, args)};
      return {true, replace(*ctx, args)};
    } catch (const std::exception& e) {
      return {false, where + e.what()};
    } catch (...) {
      return {false, where + "failed"};
    }
  };
  return tool;
}

StagedRtlEdits collect_staged_rtl_edits(const fs::path& checkout_root, fs::path staging_dir) {
  if (staging_dir.empty()) staging_dir = openpiton::default_staging_dir(checkout_root);
  StagedRtlEdits out;
  out.edits = openpiton::load_staged_edits(checkout_root, staging_dir);
  out.files = openpiton::edited_files(out.edits);
  out.diff = openpiton::unified_diff(out.edits, checkout_root);
  return out;
}

}  // namespace mace::tools
