// compare_transcript: the failed run's transcript against a reference one, as a unified
// line diff (line_diff.h) with both verdicts.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "openpiton/verdict.h"
#include "os/line_diff.h"
#include "tools/diagnostic_tools.h"
#include "tools/diagnostics/methods.h"
#include "tools/diagnostics/read_only_file.h"
#include "tools/diagnostics/text.h"

namespace mace::tools::diagnostics {

namespace fs = std::filesystem;
using llm::ToolCallResult;

namespace {

// The workload of a run directory name: "memstress-12" -> "memstress".
std::string workload_of(std::string_view run_name) {
  std::string name(run_name);
  if (auto tilde = name.rfind('~'); tilde != std::string::npos) name.resize(tilde);
  auto dash = name.rfind('-');
  if (dash == std::string::npos || dash + 1 == name.size()) return name;
  for (std::size_t i = dash + 1; i < name.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return name;
  return name.substr(0, dash);
}

struct Transcript {
  Resolved where;
  std::vector<std::string> lines;
  bool truncated = false;
};

Transcript load_transcript(const State& state, const Resolved& r) {
  OpenedFile opened = open_regular(r);
  if (is_binary(opened.file.get()))
    throw Refusal("path " + in_quotes(r.name) + " is a binary file (it holds NUL bytes), not a transcript");
  Transcript t{r, {}, false};
  std::size_t bytes = 0;
  LineScan scan = scan_lines(opened.file.get(), 4096, state.deadline(),
                             [&](std::uint64_t, std::string_view line, bool) {
                               bytes += line.size() + 1;
                               if (bytes > kMaxDiffInputBytes) {
                                 t.truncated = true;
                                 return false;
                               }
                               t.lines.emplace_back(line);
                               return true;
                             });
  if (scan.timed_out) t.truncated = true;
  return t;
}

// A run directory names its transcript; a file is taken as it is.
Resolved transcript_of(const State& state, const std::string& arg) {
  Resolved r = state.resolve(arg);
  std::error_code ec;
  if (fs::is_directory(fs::symlink_status(r.path, ec))) {
    r = state.resolve(r.name + "/sim.log");
  }
  return r;
}

// Cycle stamps ("7007250: ", "   250 : ") differ between runs that behave alike.
std::string without_cycle_stamp(const std::string& line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  const std::size_t digits = i;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  if (i == digits) return line;
  std::size_t j = i;
  while (j < line.size() && line[j] == ' ') ++j;
  if (j == line.size() || line[j] != ':') return line;
  return "#" + line.substr(j);
}

// The failed transcript: the one named, else the last failed run's sim.log.
Resolved failed_transcript(const State& state, const ToolArguments& args) {
  if (auto arg = args.optional_string("transcript")) return transcript_of(state, *arg);
  const Place* run = state.last_failed_run();
  if (run == nullptr)
    throw Refusal("this scope has no run directory (the task failed before simulating); "
                  "search the build log instead");
  return state.resolve(run->name + "/sim.log");
}

// The transcript to compare with, and a note for the header when it is not what was asked.
struct Reference {
  Resolved where;
  std::string note;
};

// With no "reference" argument: the reference run of the failed run's workload, or the
// only reference run there is, whatever its workload.
Reference default_reference(const State& state, const Resolved& failed) {
  std::vector<const Place*> refs;
  for (const auto& p : state.places)
    if (p.kind == PlaceKind::reference) refs.push_back(&p);
  if (refs.empty())
    throw Refusal("no reference transcript: this scope has no reference run; name a "
                  "transcript to compare with in \"reference\" (any sim.log under " +
                  state.place_names() + ")");
  const std::string run_name = failed.name.substr(0, failed.name.rfind('/'));
  const std::string workload = workload_of(run_name.substr(run_name.rfind('/') + 1));
  const Place* chosen = nullptr;
  for (const Place* p : refs)
    if (workload_of(p->name.substr(p->name.rfind('/') + 1)) == workload) chosen = p;
  std::string note;
  if (chosen == nullptr) {
    if (refs.size() != 1) {
      std::string names;
      for (const Place* p : refs) names += (names.empty() ? "" : ", ") + p->name;
      throw Refusal("no reference run of workload " + in_quotes(workload) +
                    "; name one in \"reference\": " + names);
    }
    chosen = refs.front();
    note = " (a run of another workload)";
  }
  return Reference{state.resolve(chosen->name + "/sim.log"), note};
}

Reference reference_transcript(const State& state, const ToolArguments& args,
                               const Resolved& failed) {
  if (auto arg = args.optional_string("reference")) {
    return Reference{transcript_of(state, *arg), ""};
  }
  return default_reference(state, failed);
}

// The diff's file lines and, per transcript, its length and verdict.
std::string diff_header(const Transcript& a, const Transcript& b,
                        const std::string& reference_note, bool ignore_stamps) {
  std::string head = "--- " + a.where.name + reference_note + "\n+++ " + b.where.name + "\n";
  for (const Transcript* t : {&a, &b}) {
    const auto v = openpiton::read_verdict(t->where.path);
    head += "# " + t->where.name + ": " + std::to_string(t->lines.size()) + " lines, verdict " +
            std::string(openpiton::to_string(v.verdict));
    if (!v.marker_line.empty()) head += " (" + printable(v.marker_line) + ")";
    if (t->truncated)
      head += "; only its first " + std::to_string(t->lines.size()) + " lines are compared";
    head += "\n";
  }
  if (ignore_stamps) head += "# cycle stamps at line starts are ignored\n";
  return head;
}

os::LineDiff diff_transcripts(const Transcript& a, const Transcript& b, bool ignore_stamps) {
  // Lines become integers so the diff compares ints, not strings.
  std::unordered_map<std::string, int> ids;
  auto keys = [&](const std::vector<std::string>& lines) {
    std::vector<int> out;
    out.reserve(lines.size());
    for (const auto& l : lines) {
      auto [it, _] = ids.emplace(ignore_stamps ? without_cycle_stamp(l) : l,
                                 static_cast<int>(ids.size()));
      out.push_back(it->second);
    }
    return out;
  };
  const std::vector<int> ka = keys(a.lines);
  const std::vector<int> kb = keys(b.lines);
  return os::diff_lines(ka, kb);
}

// The lines of the diff, cut once `limit` of them are shown.
class DiffBody {
 public:
  explicit DiffBody(std::size_t limit) : limit_(limit) {}

  // One line marked ' ', '-' or '+'; false, and nothing added, once the limit is reached.
  bool emit(char mark, const std::string& text) {
    if (shown_ >= limit_) return false;
    text_ += mark;
    append_shown_line(text_, text, false, kMaxShownLineBytes);
    text_ += '\n';
    ++shown_;
    return true;
  }
  // A hunk header or a note, not counted as a line of the diff.
  void add(const std::string& text) { text_ += text; }

  const std::string& text() const { return text_; }

 private:
  std::size_t limit_;
  std::size_t shown_ = 0;
  std::string text_;
};

// When the transcripts differ too much for a minimal diff: what follows the first
// difference in each, half of the lines from each.
ToolCallResult after_first_difference(std::string head, const os::LineDiff& diff,
                                      const Transcript& a, const Transcript& b,
                                      std::size_t limit) {
  DiffBody body(limit);
  const std::size_t prefix = diff.changes.front().a_start;
  head += "# the transcripts differ in more than " + std::to_string(os::kMaxDiffDistance) +
          " lines after line " + std::to_string(prefix) +
          "; here is what follows the first difference in each\n";
  body.add("@@ -" + std::to_string(prefix + 1) + " +" + std::to_string(prefix + 1) + " @@\n");
  const std::size_t each = limit / 2;
  for (std::size_t i = prefix; i < a.lines.size() && i < prefix + each; ++i)
    body.emit('-', a.lines[i]);
  for (std::size_t i = prefix; i < b.lines.size() && i < prefix + each + (limit % 2); ++i)
    body.emit('+', b.lines[i]);
  return ToolCallResult{true, head + body.text()};
}

// changes[first..last] with `context` unchanged lines around them, as a unified diff hunk:
// a[a_from, a_to) against b[b_from, b_to).
struct Hunk {
  std::size_t first, last;
  std::size_t a_from, a_to, b_from, b_to;
};

// The hunk that starts at changes[i]: changes closer than 2*context lines share one.
Hunk hunk_at(const std::vector<os::LineChange>& changes, std::size_t i, std::size_t context,
             std::size_t a_lines) {
  std::size_t j = i;
  while (j + 1 < changes.size() &&
         changes[j + 1].a_start - (changes[j].a_start + changes[j].a_len) <= 2 * context)
    ++j;
  const os::LineChange& first = changes[i];
  const os::LineChange& last = changes[j];
  const std::size_t lead = std::min(context, first.a_start);
  const std::size_t trail = std::min(context, a_lines - (last.a_start + last.a_len));
  return Hunk{i,
              j,
              first.a_start - lead,
              last.a_start + last.a_len + trail,
              first.b_start - lead,
              last.b_start + last.b_len + trail};
}

// Writes one hunk; false when the body's limit cut it short.
bool write_hunk(DiffBody& body, const Hunk& h, const std::vector<os::LineChange>& changes,
                const Transcript& a, const Transcript& b) {
  body.add("@@ -" + std::to_string(h.a_from + 1) + "," + std::to_string(h.a_to - h.a_from) +
           " +" + std::to_string(h.b_from + 1) + "," + std::to_string(h.b_to - h.b_from) +
           " @@\n");
  bool cut = false;
  std::size_t ai = h.a_from;
  for (std::size_t n = h.first; n <= h.last && !cut; ++n) {
    const os::LineChange& c = changes[n];
    for (; ai < c.a_start && !cut; ++ai) cut = !body.emit(' ', a.lines[ai]);
    for (std::size_t k = 0; k < c.a_len && !cut; ++k) cut = !body.emit('-', a.lines[c.a_start + k]);
    for (std::size_t k = 0; k < c.b_len && !cut; ++k) cut = !body.emit('+', b.lines[c.b_start + k]);
    ai = c.a_start + c.a_len;
  }
  for (; ai < h.a_to && !cut; ++ai) cut = !body.emit(' ', a.lines[ai]);
  return !cut;
}

// A minimal diff as unified hunks with `context` lines, as many as `limit` lines allow.
ToolCallResult in_hunks(std::string head, const os::LineDiff& diff, const Transcript& a,
                        const Transcript& b, std::size_t limit, std::size_t context) {
  const std::vector<os::LineChange>& changes = diff.changes;
  DiffBody body(limit);
  std::size_t changed_lines = 0;
  for (const auto& c : changes) changed_lines += c.a_len + c.b_len;
  std::size_t i = 0, hunks = 0, hunks_shown = 0;
  bool cut = false;
  while (i < changes.size()) {
    const Hunk hunk = hunk_at(changes, i, context, a.lines.size());
    ++hunks;
    if (!cut) {
      cut = !write_hunk(body, hunk, changes, a, b);
      if (!cut) ++hunks_shown;
    }
    i = hunk.last + 1;
  }
  head += "# " + std::to_string(changed_lines) + " changed line(s) in " + std::to_string(hunks) +
          " hunk(s)\n";
  if (cut)
    body.add("(diff cut after " + std::to_string(limit) + " lines; " +
             std::to_string(hunks - hunks_shown) +
             " hunk(s) not shown in full: raise max_lines (at most " +
             std::to_string(kMaxDiffLines) + ") or read the transcripts with read_file)\n");
  return ToolCallResult{true, head + body.text()};
}

}  // namespace

ToolCallResult compare_transcript(const State& state, const ToolArguments& args) {
  const int64_t context = args.optional_integer("context").value_or(3);
  const int64_t max_lines = args.optional_integer("max_lines").value_or(kDefaultDiffLines);
  const bool ignore_stamps = args.optional_bool("ignore_cycle_stamps").value_or(false);
  if (context < 0 || context > 20) throw Refusal("argument \"context\" must be between 0 and 20");
  if (max_lines < 1 || max_lines > kMaxDiffLines)
    throw Refusal("argument \"max_lines\" must be between 1 and " + std::to_string(kMaxDiffLines));

  const Resolved failed = failed_transcript(state, args);
  const Reference reference = reference_transcript(state, args, failed);
  const Transcript a = load_transcript(state, reference.where);
  const Transcript b = load_transcript(state, failed);

  std::string head = diff_header(a, b, reference.note, ignore_stamps);
  const os::LineDiff diff = diff_transcripts(a, b, ignore_stamps);
  if (diff.changes.empty()) return ToolCallResult{true, head + "the transcripts are identical\n"};
  const auto limit = static_cast<std::size_t>(max_lines);
  if (!diff.minimal) return after_first_difference(std::move(head), diff, a, b, limit);
  return in_hunks(std::move(head), diff, a, b, limit, static_cast<std::size_t>(context));
}

}  // namespace mace::tools::diagnostics
