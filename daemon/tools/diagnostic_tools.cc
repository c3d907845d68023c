#include "tools/diagnostic_tools.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <unordered_map>
#include <utility>

#include "openpiton/process_group.h"
#include "openpiton/verdict.h"
#include "tools/tool_arguments.h"

namespace mace::tools {
namespace {

namespace fs = std::filesystem;
using llm::ToolCallResult;
using Clock = std::chrono::steady_clock;

// A request the tool turns down (a refused path, a file it cannot show, nothing to compare
// with). Becomes an ok=false result; never leaves call().
class Refusal : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------------------------------
// Text shown to the model.

// Log bytes are arbitrary; what reaches a JSON request must be valid UTF-8 without control
// characters but line ends (an escape sequence from a coloured log would otherwise go along
// as is).
void append_printable(std::string& out, std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\t' || c == '\n' || (c >= 0x20 && c < 0x7f)) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf;  // allowed range of the second byte
    if (c >= 0xc2 && c <= 0xdf) {
      n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 3;
      if (c == 0xe0) lo = 0xa0;  // overlong
      if (c == 0xed) hi = 0x9f;  // surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 4;
      if (c == 0xf0) lo = 0x90;
      if (c == 0xf4) hi = 0x8f;
    }
    bool valid = n != 0 && i + n <= s.size();
    for (std::size_t j = 1; valid && j < n; ++j) {
      const auto d = static_cast<unsigned char>(s[i + j]);
      valid = j == 1 ? (d >= lo && d <= hi) : (d & 0xc0) == 0x80;
    }
    if (valid) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += '?';
      ++i;
    }
  }
}

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  append_printable(out, s);
  return out;
}

std::string in_quotes(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\0') {
      out += "\\0";
    } else {
      out += c;
    }
  }
  out += '"';
  return printable(out);
}

// One line as shown: cut to `limit` bytes, saying so.
void append_shown_line(std::string& out, std::string_view line, bool already_cut,
                       std::size_t limit) {
  const bool cut = already_cut || line.size() > limit;
  append_printable(out, line.substr(0, std::min(line.size(), limit)));
  if (cut) out += " [...line cut]";
}

std::string errno_text(int e) { return std::error_code(e, std::generic_category()).message(); }

// ---------------------------------------------------------------------------------------
// Places and paths.

enum class PlaceKind { failed, build, reference, workloads };

struct Place {
  PlaceKind kind;
  std::string name;  // "failed/hello-1", "build/mace_build.log", "workloads"
  fs::path root;     // canonical; a directory, or the build log itself
  bool is_file() const { return kind == PlaceKind::build; }
};

// A path argument after every check: inside `place`, every symlink resolved.
struct Resolved {
  const Place* place = nullptr;
  std::string name;  // the namespace path, normalised ("failed/hello-1/sim.log")
  fs::path path;     // canonical (weakly: the last components may not exist)
};

bool contained(const fs::path& root, const fs::path& p) {
  auto r = root.begin();
  auto q = p.begin();
  for (; r != root.end(); ++r, ++q) {
    if (q == p.end() || *r != *q) return false;
  }
  return true;
}

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

struct Deadline {
  Clock::time_point end;
  bool passed() const { return Clock::now() >= end; }
};

// ---------------------------------------------------------------------------------------
// Read-only files.

class ReadOnlyFile {
 public:
  ReadOnlyFile() = default;
  explicit ReadOnlyFile(int fd) : fd_(fd) {}
  ReadOnlyFile(ReadOnlyFile&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  ReadOnlyFile& operator=(ReadOnlyFile&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  ~ReadOnlyFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

struct OpenedFile {
  ReadOnlyFile file;
  std::uint64_t size = 0;
};

// Opens a resolved path for reading only. O_NONBLOCK so that a FIFO planted in a run
// directory cannot hang the call; O_NOFOLLOW because the path is already canonical, so a
// symlink here means the tree changed under us.
OpenedFile open_regular(const Resolved& r) {
  struct stat st {};
  if (::stat(r.path.c_str(), &st) != 0) {
    const int e = errno;
    throw Refusal("path " + in_quotes(r.name) + ": " + errno_text(e));
  }
  if (S_ISDIR(st.st_mode))
    throw Refusal("path " + in_quotes(r.name) +
                  " is a directory; list it with list_files and name a file in it");
  if (!S_ISREG(st.st_mode)) throw Refusal("path " + in_quotes(r.name) + " is not a regular file");
  const int fd = ::open(r.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    const int e = errno;
    throw Refusal("cannot open " + in_quotes(r.name) + ": " + errno_text(e));
  }
  OpenedFile out{ReadOnlyFile(fd), 0};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw Refusal("path " + in_quotes(r.name) + " is not a regular file");
  out.size = static_cast<std::uint64_t>(st.st_size);
  return out;
}

std::string read_prefix(int fd, std::size_t n) {
  std::string buf(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, buf.data() + got, n - got, static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  buf.resize(got);
  return buf;
}

bool is_binary(int fd) { return read_prefix(fd, kBinaryProbeBytes).find('\0') != std::string::npos; }
bool is_elf(int fd) { return read_prefix(fd, 4) == std::string_view("\x7f" "ELF", 4); }

struct LineScan {
  std::uint64_t lines = 0;
  bool stopped = false;    // the callback asked to stop
  bool timed_out = false;  // the deadline passed first
};

// Calls f(line_number, line, cut) for every line of the file, from its start, keeping at
// most `keep` bytes of each (a line without an end costs `keep`, not gigabytes). f returns
// false to stop. Reads through the descriptor, so only what open_regular allowed is read.
template <typename F>
LineScan scan_lines(int fd, std::size_t keep, const Deadline& deadline, F&& f) {
  LineScan scan;
  if (::lseek(fd, 0, SEEK_SET) < 0) throw Refusal("cannot read the file: " + errno_text(errno));
  std::vector<char> buf(1 << 20);
  std::string line;
  bool cut = false;
  bool partial = false;
  auto deliver = [&]() -> bool {
    if (!cut && !line.empty() && line.back() == '\r') line.pop_back();
    ++scan.lines;
    const bool go_on = f(scan.lines, std::string_view(line), cut);
    line.clear();
    cut = false;
    partial = false;
    return go_on;
  };
  for (;;) {
    const ssize_t r = ::read(fd, buf.data(), buf.size());
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw Refusal("cannot read the file: " + errno_text(errno));
    if (r == 0) break;
    const char* p = buf.data();
    const char* end = p + r;
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      const std::size_t len = static_cast<std::size_t>((nl ? nl : end) - p);
      const std::size_t room = keep - line.size();
      if (len > room) {
        line.append(p, room);
        cut = true;
      } else {
        line.append(p, len);
      }
      partial = true;
      if (nl == nullptr) break;
      if (!deliver()) {
        scan.stopped = true;
        return scan;
      }
      p = nl + 1;
    }
    if (deadline.passed()) {
      scan.timed_out = true;
      return scan;
    }
  }
  if (partial) {
    if (!deliver()) scan.stopped = true;
  }
  return scan;
}

// ---------------------------------------------------------------------------------------
// The tool's state: fixed when it is made, shared by every call (calls may come from
// several threads; nothing here changes after construction).

struct State {
  std::vector<Place> places;
  std::vector<std::string> unavailable;  // scope entries left out, and why
  std::string objdump;                   // absolute path; empty: none found
  std::string objdump_missing;           // why, when empty
  std::map<std::string, std::string> objdump_env;
  std::chrono::milliseconds objdump_timeout{20000};
  std::chrono::milliseconds call_time_limit{30000};

  Deadline deadline() const { return Deadline{Clock::now() + call_time_limit}; }

  const Place* find(std::string_view name) const {
    for (const auto& p : places)
      if (p.name == name) return &p;
    return nullptr;
  }
  const Place* last_failed_run() const {
    const Place* last = nullptr;
    for (const auto& p : places)
      if (p.kind == PlaceKind::failed) last = &p;
    return last;
  }
  std::string place_names() const {
    std::string out;
    for (const auto& p : places) {
      if (!out.empty()) out += ", ";
      out += p.name;
    }
    return out;
  }

  // Checks one path argument (see the header) and resolves it to one place, or to every
  // place of a group ("failed", "reference") when `allow_group`.
  std::vector<Resolved> resolve_many(const std::string& arg, bool allow_group) const {
    auto refuse = [&](const std::string& why) -> Refusal {
      return Refusal("path " + in_quotes(arg) + " refused: " + why);
    };
    if (arg.empty()) throw refuse("it is empty");
    if (arg.find('\0') != std::string::npos) throw refuse("it contains a NUL byte");
    if (arg.front() == '/')
      throw refuse("absolute paths are not allowed; paths start with one of: " + place_names());
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= arg.size()) {
      auto slash = arg.find('/', start);
      if (slash == std::string::npos) slash = arg.size();
      std::string part = arg.substr(start, slash - start);
      if (part == "..") throw refuse("\"..\" components are not allowed");
      if (!part.empty() && part != ".") parts.push_back(std::move(part));
      start = slash + 1;
    }
    if (parts.empty()) throw refuse("it names nothing");

    const std::string& head = parts[0];
    const Place* place = nullptr;
    std::size_t rest_from = 0;
    if (head == kFailedPlace || head == kReferencePlace) {
      if (parts.size() == 1) {
        const PlaceKind kind = head == kFailedPlace ? PlaceKind::failed : PlaceKind::reference;
        std::vector<Resolved> all;
        for (const auto& p : places)
          if (p.kind == kind) all.push_back(Resolved{&p, p.name, p.root});
        if (all.empty()) throw refuse("this scope has no " + head + " run directory");
        if (!allow_group)
          throw refuse("name one run directory in it (" + names_of(all) + ")");
        return all;
      }
      place = find(head + "/" + parts[1]);
      rest_from = 2;
    } else if (head == kBuildPlace) {
      for (const auto& p : places)
        if (p.kind == PlaceKind::build) place = &p;
      if (place && parts.size() > 1) {
        if (parts.size() != 2 || place->name != head + "/" + parts[1])
          throw refuse("build/ holds only " + place->name);
      }
      rest_from = parts.size();
    } else if (head == kWorkloadsPlace) {
      place = find(head);
      rest_from = 1;
    }
    if (place == nullptr)
      throw refuse("it names no place of this scope; paths start with one of: " + place_names());

    fs::path candidate = place->root;
    std::string name = place->name;
    for (std::size_t i = rest_from; i < parts.size(); ++i) {
      candidate /= parts[i];
      name += "/" + parts[i];
    }
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(candidate, ec);
    if (ec) throw refuse("it cannot be resolved: " + ec.message());
    if (!contained(place->root, canonical))
      throw refuse("it resolves outside " + place->name + " (through a symlink)");
    return {Resolved{place, name, canonical}};
  }

  Resolved resolve(const std::string& arg) const { return resolve_many(arg, false).front(); }

  static std::string names_of(const std::vector<Resolved>& rs) {
    std::string out;
    for (const auto& r : rs) out += (out.empty() ? "" : ", ") + r.name;
    return out;
  }
};

// ---------------------------------------------------------------------------------------
// Walking directories, without following symlinked directories.

enum class EntryKind { file, directory, symlink_inside, symlink_outside, other };

struct Entry {
  std::string name;  // namespace path
  fs::path path;     // as found (not resolved)
  EntryKind kind = EntryKind::other;
  std::uintmax_t size = 0;
  std::string link_target;  // namespace path of an inside symlink's target
};

std::vector<Entry> walk(const Resolved& dir, std::size_t cap, bool& truncated) {
  std::vector<Entry> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir.path, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw Refusal("cannot list " + in_quotes(dir.name) + ": " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (out.size() >= cap) {
      truncated = true;
      break;
    }
    if (it.depth() >= 8) it.disable_recursion_pending();
    Entry e;
    e.path = it->path();
    e.name = dir.name + "/" + e.path.lexically_relative(dir.path).generic_string();
    const auto status = it->symlink_status(ec);
    if (ec) {
      ec.clear();
      continue;
    }
    if (fs::is_symlink(status)) {
      fs::path target = fs::weakly_canonical(e.path, ec);
      if (!ec && contained(dir.place->root, target)) {
        e.kind = EntryKind::symlink_inside;
        e.link_target =
            dir.place->name + "/" + target.lexically_relative(dir.place->root).generic_string();
        if (target == dir.place->root) e.link_target = dir.place->name;
      } else {
        e.kind = EntryKind::symlink_outside;
      }
      ec.clear();
    } else if (fs::is_directory(status)) {
      e.kind = EntryKind::directory;
    } else if (fs::is_regular_file(status)) {
      e.kind = EntryKind::file;
      e.size = it->file_size(ec);
      if (ec) ec.clear();
    }
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return out;
}

// The regular files a search or listing covers under `targets`, in order.
struct FileSet {
  std::vector<Resolved> files;
  bool truncated = false;
};

FileSet files_under(const std::vector<Resolved>& targets) {
  FileSet set;
  for (const auto& t : targets) {
    std::error_code ec;
    if (fs::is_directory(fs::symlink_status(t.path, ec))) {
      for (auto& e : walk(t, kMaxListedEntries, set.truncated))
        if (e.kind == EntryKind::file)
          set.files.push_back(Resolved{t.place, e.name, e.path});
    } else {
      set.files.push_back(t);
    }
  }
  return set;
}

// ---------------------------------------------------------------------------------------
// search_logs

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
    if (is_binary(opened.file.fd())) {
      if (set.files.size() == 1)
        throw Refusal("path " + in_quotes(file.name) + " is a binary file (it holds NUL bytes)");
      ++binary;
      continue;
    }
    ++searched;
    LineScan scan = scan_lines(opened.file.fd(), kSearchedLineBytes, deadline,
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

// ---------------------------------------------------------------------------------------
// list_files

std::string entry_line(const Entry& e, int fd_probe_result) {
  std::string line = printable(e.name);
  switch (e.kind) {
    case EntryKind::directory:
      line += "/  (directory)";
      break;
    case EntryKind::file:
      line += "  " + std::to_string(e.size) + " bytes";
      if (fd_probe_result == 1) line += "  (binary)";
      if (fd_probe_result == 2) line += "  (ELF program: see symbols)";
      break;
    case EntryKind::symlink_inside:
      line += "  -> " + printable(e.link_target) + "  (symlink)";
      break;
    case EntryKind::symlink_outside:
      line += "  (symlink leading outside; refused)";
      break;
    case EntryKind::other:
      line += "  (not a regular file)";
      break;
  }
  return line;
}

ToolCallResult list_files(const State& state, const ToolArguments& args) {
  std::vector<Resolved> targets;
  if (auto path = args.optional_string("path")) {
    targets = state.resolve_many(*path, true);
  } else {
    for (const auto& p : state.places) targets.push_back(Resolved{&p, p.name, p.root});
  }
  std::string out;
  std::size_t listed = 0;
  bool truncated = false;
  for (const auto& t : targets) {
    std::error_code ec;
    const auto status = fs::status(t.path, ec);
    if (ec || !fs::exists(status)) throw Refusal("path " + in_quotes(t.name) + ": no such file or directory");
    if (!fs::is_directory(status)) {
      OpenedFile opened = open_regular(t);
      Entry e{t.name, t.path, EntryKind::file, opened.size, {}};
      const int probe = is_elf(opened.file.fd()) ? 2 : is_binary(opened.file.fd()) ? 1 : 0;
      out += entry_line(e, probe) + "\n";
      ++listed;
      continue;
    }
    out += t.name + "/\n";
    for (const auto& e : walk(t, kMaxListedEntries - std::min(listed, kMaxListedEntries), truncated)) {
      int probe = 0;
      if (e.kind == EntryKind::file) {
        const int fd = ::open(e.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd >= 0) {
          ReadOnlyFile f(fd);
          probe = is_elf(fd) ? 2 : is_binary(fd) ? 1 : 0;
        }
      }
      out += "  " + entry_line(e, probe) + "\n";
      ++listed;
    }
  }
  if (truncated) out += "(listing cut at " + std::to_string(kMaxListedEntries) + " entries)\n";
  if (!state.unavailable.empty()) {
    out += "not available:\n";
    for (const auto& u : state.unavailable) out += "  " + u + "\n";
  }
  return ToolCallResult{true, out};
}

// ---------------------------------------------------------------------------------------
// read_file

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
  if (is_binary(opened.file.fd()))
    throw Refusal("path " + in_quotes(r.name) +
                  " is a binary file (it holds NUL bytes)" +
                  (is_elf(opened.file.fd()) ? "; show a program's symbols with symbols" : ""));

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
  LineScan scan = scan_lines(opened.file.fd(), kReadLineBytes, deadline,
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

// ---------------------------------------------------------------------------------------
// compare_transcript

struct Transcript {
  Resolved where;
  std::vector<std::string> lines;
  bool truncated = false;
};

Transcript load_transcript(const State& state, const Resolved& r) {
  OpenedFile opened = open_regular(r);
  if (is_binary(opened.file.fd()))
    throw Refusal("path " + in_quotes(r.name) + " is a binary file (it holds NUL bytes), not a transcript");
  Transcript t{r, {}, false};
  std::size_t bytes = 0;
  LineScan scan = scan_lines(opened.file.fd(), 4096, state.deadline(),
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

// A run of changed lines: a[a_start, a_start+a_len) replaced by b[b_start, b_start+b_len).
struct Change {
  std::size_t a_start, a_len, b_start, b_len;
};

constexpr std::size_t kMaxEditDistance = 2000;

// Myers' O(ND) line diff between a and b, both already stripped of a common prefix and
// suffix. Returns nullopt when more than kMaxEditDistance lines differ (memory is
// O(D^2) for the trace).
std::optional<std::vector<Change>> myers(const std::vector<int>& a, const std::vector<int>& b) {
  const auto n = static_cast<long>(a.size());
  const auto m = static_cast<long>(b.size());
  const long max_d = std::min<long>(n + m, static_cast<long>(kMaxEditDistance));
  const long offset = max_d + 1;
  std::vector<long> v(static_cast<std::size_t>(2 * max_d + 3), 0);
  std::vector<std::vector<long>> trace;  // trace[d][k + d] = furthest x on diagonal k
  long found_d = -1;
  for (long d = 0; d <= max_d && found_d < 0; ++d) {
    for (long k = -d; k <= d; k += 2) {
      long x;
      if (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
        x = v[offset + k + 1];
      else
        x = v[offset + k - 1] + 1;
      long y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) found_d = d;
    }
    std::vector<long> band(static_cast<std::size_t>(2 * d + 1));
    for (long k = -d; k <= d; ++k) band[k + d] = v[offset + k];
    trace.push_back(std::move(band));
  }
  if (found_d < 0) return std::nullopt;

  // Walk back from (n, m), collecting single-line edits, last first.
  struct Edit {
    bool insert;  // a line of b; else a deleted line of a
    long pos;     // its index in b (insert) or a (delete)
  };
  std::vector<Edit> edits;
  long x = n, y = m;
  for (long d = found_d; d > 0; --d) {
    const auto& prev = trace[static_cast<std::size_t>(d - 1)];
    const long k = x - y;
    auto at = [&](long kk) { return prev[kk + d - 1]; };
    const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
    const long prev_k = down ? k + 1 : k - 1;
    const long prev_x = at(prev_k);
    const long prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) --x, --y;
    if (down) {
      edits.push_back(Edit{true, y - 1});
    } else {
      edits.push_back(Edit{false, x - 1});
    }
    x = prev_x;
    y = prev_y;
  }
  std::reverse(edits.begin(), edits.end());

  // Group edits into changes. Between two edits the lines are equal, so positions in a
  // and b advance together.
  std::vector<Change> changes;
  long ai = 0, bi = 0;  // next unconsumed line of a and b
  std::size_t i = 0;
  while (i < edits.size()) {
    // Lines up to this edit are equal.
    const long edit_a = edits[i].insert ? -1 : edits[i].pos;
    const long edit_b = edits[i].insert ? edits[i].pos : -1;
    const long skip = edit_a >= 0 ? edit_a - ai : edit_b - bi;
    ai += skip;
    bi += skip;
    Change c{static_cast<std::size_t>(ai), 0, static_cast<std::size_t>(bi), 0};
    while (i < edits.size()) {
      const Edit& e = edits[i];
      if (e.insert && e.pos == bi) {
        ++bi, ++c.b_len, ++i;
      } else if (!e.insert && e.pos == ai) {
        ++ai, ++c.a_len, ++i;
      } else {
        break;
      }
    }
    changes.push_back(c);
  }
  return changes;
}

ToolCallResult compare_transcript(const State& state, const ToolArguments& args) {
  const int64_t context = args.optional_integer("context").value_or(3);
  const int64_t max_lines = args.optional_integer("max_lines").value_or(kDefaultDiffLines);
  const bool ignore_stamps = args.optional_bool("ignore_cycle_stamps").value_or(false);
  if (context < 0 || context > 20) throw Refusal("argument \"context\" must be between 0 and 20");
  if (max_lines < 1 || max_lines > kMaxDiffLines)
    throw Refusal("argument \"max_lines\" must be between 1 and " + std::to_string(kMaxDiffLines));

  Resolved failed;
  if (auto arg = args.optional_string("transcript")) {
    failed = transcript_of(state, *arg);
  } else {
    const Place* run = state.last_failed_run();
    if (run == nullptr)
      throw Refusal("this scope has no run directory (the task failed before simulating); "
                    "search the build log instead");
    failed = state.resolve(run->name + "/sim.log");
  }

  Resolved reference;
  std::string reference_note;
  if (auto arg = args.optional_string("reference")) {
    reference = transcript_of(state, *arg);
  } else {
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
    if (chosen == nullptr) {
      if (refs.size() != 1) {
        std::string names;
        for (const Place* p : refs) names += (names.empty() ? "" : ", ") + p->name;
        throw Refusal("no reference run of workload " + in_quotes(workload) +
                      "; name one in \"reference\": " + names);
      }
      chosen = refs.front();
      reference_note = " (a run of another workload)";
    }
    reference = state.resolve(chosen->name + "/sim.log");
  }

  const Transcript a = load_transcript(state, reference);
  const Transcript b = load_transcript(state, failed);

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

  // Lines become integers so the diff compares ints, not strings.
  std::unordered_map<std::string, int> ids;
  auto keys = [&](const std::vector<std::string>& lines) {
    std::vector<int> out;
    out.reserve(lines.size());
    for (const auto& l : lines) {
      auto [it, _] = ids.emplace(ignore_stamps ? without_cycle_stamp(l) : l, static_cast<int>(ids.size()));
      out.push_back(it->second);
    }
    return out;
  };
  const std::vector<int> ka = keys(a.lines);
  const std::vector<int> kb = keys(b.lines);
  std::size_t prefix = 0;
  while (prefix < ka.size() && prefix < kb.size() && ka[prefix] == kb[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < ka.size() - prefix && suffix < kb.size() - prefix &&
         ka[ka.size() - 1 - suffix] == kb[kb.size() - 1 - suffix])
    ++suffix;
  if (prefix == ka.size() && prefix == kb.size())
    return ToolCallResult{true, head + "the transcripts are identical\n"};

  const std::vector<int> mid_a(ka.begin() + static_cast<long>(prefix), ka.end() - static_cast<long>(suffix));
  const std::vector<int> mid_b(kb.begin() + static_cast<long>(prefix), kb.end() - static_cast<long>(suffix));
  // One side only adds or drops lines: no search needed, however many.
  auto changes = mid_a.empty() || mid_b.empty()
                     ? std::optional<std::vector<Change>>(std::vector<Change>{
                           Change{0, mid_a.size(), 0, mid_b.size()}})
                     : myers(mid_a, mid_b);
  const auto limit = static_cast<std::size_t>(max_lines);
  std::string body;
  std::size_t shown = 0;
  auto emit = [&](char mark, const std::string& text) -> bool {
    if (shown >= limit) return false;
    body += mark;
    append_shown_line(body, text, false, kMaxShownLineBytes);
    body += '\n';
    ++shown;
    return true;
  };

  if (!changes) {
    head += "# the transcripts differ in more than " + std::to_string(kMaxEditDistance) +
            " lines after line " + std::to_string(prefix) +
            "; here is what follows the first difference in each\n";
    body += "@@ -" + std::to_string(prefix + 1) + " +" + std::to_string(prefix + 1) + " @@\n";
    const std::size_t each = limit / 2;
    for (std::size_t i = prefix; i < a.lines.size() && i < prefix + each; ++i) emit('-', a.lines[i]);
    for (std::size_t i = prefix; i < b.lines.size() && i < prefix + each + (limit % 2); ++i)
      emit('+', b.lines[i]);
    return ToolCallResult{true, head + body};
  }
  for (auto& c : *changes) {
    c.a_start += prefix;
    c.b_start += prefix;
  }

  // Hunks: changes closer than 2*context lines share one.
  const auto ctx = static_cast<std::size_t>(context);
  std::size_t changed_lines = 0;
  for (const auto& c : *changes) changed_lines += c.a_len + c.b_len;
  std::size_t i = 0, hunks = 0, hunks_shown = 0;
  bool cut = false;
  while (i < changes->size()) {
    std::size_t j = i;
    while (j + 1 < changes->size() &&
           (*changes)[j + 1].a_start - ((*changes)[j].a_start + (*changes)[j].a_len) <= 2 * ctx)
      ++j;
    ++hunks;
    const Change& first = (*changes)[i];
    const Change& last = (*changes)[j];
    const std::size_t lead = std::min(ctx, first.a_start);
    const std::size_t a_from = first.a_start - lead;
    const std::size_t b_from = first.b_start - lead;
    const std::size_t trail = std::min(ctx, a.lines.size() - (last.a_start + last.a_len));
    const std::size_t a_to = last.a_start + last.a_len + trail;
    const std::size_t b_to = last.b_start + last.b_len + trail;
    if (!cut) {
      body += "@@ -" + std::to_string(a_from + 1) + "," + std::to_string(a_to - a_from) + " +" +
              std::to_string(b_from + 1) + "," + std::to_string(b_to - b_from) + " @@\n";
      std::size_t ai = a_from;
      for (std::size_t h = i; h <= j && !cut; ++h) {
        const Change& c = (*changes)[h];
        for (; ai < c.a_start && !cut; ++ai) cut = !emit(' ', a.lines[ai]);
        for (std::size_t k = 0; k < c.a_len && !cut; ++k) cut = !emit('-', a.lines[c.a_start + k]);
        for (std::size_t k = 0; k < c.b_len && !cut; ++k) cut = !emit('+', b.lines[c.b_start + k]);
        ai = c.a_start + c.a_len;
      }
      for (; ai < a_to && !cut; ++ai) cut = !emit(' ', a.lines[ai]);
      if (!cut) ++hunks_shown;
    }
    i = j + 1;
  }
  head += "# " + std::to_string(changed_lines) + " changed line(s) in " + std::to_string(hunks) +
          " hunk(s)\n";
  if (cut)
    body += "(diff cut after " + std::to_string(limit) + " lines; " +
            std::to_string(hunks - hunks_shown) +
            " hunk(s) not shown in full: raise max_lines (at most " +
            std::to_string(kMaxDiffLines) + ") or read the transcripts with read_file)\n";
  return ToolCallResult{true, head + body};
}

// ---------------------------------------------------------------------------------------
// symbols

struct ObjdumpOutput {
  std::string text;
  bool cut = false;
  openpiton::ProcessResult result;
};

ObjdumpOutput run_objdump(const State& state, const std::vector<std::string>& args,
                          const fs::path& program, const std::string& shown_name) {
  ObjdumpOutput out;
  openpiton::ProcessSpec spec;
  spec.argv.push_back(state.objdump);
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  // Canonical and so absolute: it cannot be read as an option.
  spec.argv.push_back(program.string());
  spec.env = state.objdump_env;
  spec.working_dir = "/";
  spec.timeout = state.objdump_timeout;
  spec.kill_grace = std::chrono::milliseconds(1000);
  spec.tail_bytes = 4096;
  spec.max_line_bytes = 4096;
  // objdump names the file by the path it was given; the model knows it by its own name.
  const std::string given = program.string();
  spec.on_line = [&](std::string_view line) {
    if (out.text.size() + line.size() + 1 > kMaxObjdumpOutputBytes) {
      out.cut = true;
      return;
    }
    if (line.starts_with(given)) {
      out.text += shown_name;
      line.remove_prefix(given.size());
    }
    out.text.append(line);
    out.text += '\n';
  };
  out.result = openpiton::run_process_group(spec);
  return out;
}

std::string objdump_failure(const State& state, const ObjdumpOutput& o) {
  const auto& r = o.result;
  std::string why = fs::path(state.objdump).filename().string();
  if (r.launch_failed) return why + " could not be started: " + r.error;
  if (r.timed_out)
    return why + " did not finish within " + std::to_string(state.objdump_timeout.count()) + " ms";
  if (r.term_signal) return why + " was killed by signal " + std::to_string(r.term_signal);
  return why + " exited with status " + std::to_string(r.exit_code);
}

struct ElfSymbol {
  std::uint64_t address;
  std::string name;
  std::string section;
};

std::optional<std::uint64_t> parse_hex(std::string_view s) {
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                  : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
                  : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                              : -1;
    if (d < 0) return std::nullopt;
    v = v * 16 + static_cast<std::uint64_t>(d);
  }
  return v;
}

std::vector<std::string> split_blank(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream in{std::string(line)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// objdump -t: "4000003c g       .text.init	00000000 pass".
std::vector<ElfSymbol> parse_symbol_table(const std::string& text) {
  std::vector<ElfSymbol> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto words = split_blank(line);
    if (words.size() < 4 || words[0].size() < 8) continue;
    const auto address = parse_hex(words[0]);
    if (!address || !parse_hex(words[words.size() - 2])) continue;
    out.push_back(ElfSymbol{*address, words.back(), words[words.size() - 3]});
  }
  return out;
}

bool valid_symbol_name(const std::string& s) {
  if (s.empty() || s.size() > 200) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_' || s[0] == '.' || s[0] == '$'))
    return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == '$' || c == '@';
  });
}

ToolCallResult symbols(const State& state, const ToolArguments& args) {
  const auto disassemble = args.optional_string("disassemble");
  if (disassemble && !valid_symbol_name(*disassemble))
    throw Refusal("argument \"disassemble\" must be a symbol name (letters, digits, _ . $ @, "
                  "not starting with a digit), not " + in_quotes(*disassemble));

  Resolved target;
  if (auto arg = args.optional_string("path")) {
    target = state.resolve(*arg);
  } else {
    const Place* run = state.last_failed_run();
    if (run == nullptr)
      throw Refusal("this scope has no run directory (the task failed before simulating), so "
                    "there is no compiled program");
    target = Resolved{run, run->name, run->root};
  }
  if (target.place->is_file()) throw Refusal("path " + in_quotes(target.name) + " is the build log, not a program");

  // The program and the directory whose symbol.tbl goes beside it.
  Resolved program;
  std::string dir_name;
  std::error_code ec;
  if (fs::is_directory(fs::symlink_status(target.path, ec))) {
    dir_name = target.name;
    std::vector<std::string> candidates = {"diag.exe"};
    bool truncated = false;
    std::vector<std::string> elfs;
    for (const auto& e : walk(target, kMaxListedEntries, truncated))
      if (e.kind == EntryKind::file && e.name.ends_with(".elf") &&
          e.name.find('/', target.name.size() + 1) == std::string::npos)
        elfs.push_back(e.name.substr(target.name.size() + 1));
    candidates.insert(candidates.end(), elfs.begin(), elfs.end());
    for (const auto& c : candidates) {
      if (!fs::exists(fs::symlink_status(target.path / c, ec))) continue;
      // A diag.exe that leads outside is refused here rather than passed over.
      program = state.resolve(target.name + "/" + c);
      break;
    }
    if (program.place == nullptr)
      throw Refusal("no compiled program (diag.exe or *.elf) in " + in_quotes(target.name) +
                    "; name one with \"path\"");
  } else {
    program = target;
    dir_name = target.name.substr(0, target.name.rfind('/'));
  }
  OpenedFile opened = open_regular(program);
  if (!is_elf(opened.file.fd())) throw Refusal("path " + in_quotes(program.name) + " is not an ELF program");

  // The run's symbol table: what the testbench takes good_trap and bad_trap from.
  std::string table_text;
  std::string table_name = dir_name + "/symbol.tbl";
  try {
    const Resolved table = state.resolve(table_name);
    OpenedFile t = open_regular(table);
    if (is_binary(t.file.fd())) throw Refusal("it is a binary file");
    scan_lines(t.file.fd(), 1024, state.deadline(), [&](std::uint64_t n, std::string_view line, bool) {
      if (n > 1000) return false;
      table_text.append(line);
      table_text += '\n';
      return true;
    });
  } catch (const Refusal& e) {
    table_text.clear();
    table_name += " (not available: " + std::string(e.what()) + ")";
  }

  std::string out = "program " + program.name + " (" + std::to_string(opened.size) + " bytes)\n";
  out += "== " + table_name + "\n";
  append_printable(out, table_text);

  if (state.objdump.empty()) {
    return ToolCallResult{false, "cannot show the program's symbols: " + state.objdump_missing +
                                     "\n" + out};
  }
  ObjdumpOutput table = run_objdump(state, {"-t"}, program.path, program.name);
  if (!table.result.succeeded()) {
    std::string why = "cannot read the symbols of " + program.name + ": " + objdump_failure(state, table) + "\n";
    append_printable(why, table.text.empty() ? table.result.tail : table.text);
    return ToolCallResult{false, why + "\n" + out};
  }
  const auto elf_symbols = parse_symbol_table(table.text);

  // Each symbol.tbl entry beside the program's symbols at its addresses: a trap address
  // that no longer names pass/fail is a program and table out of step.
  if (!table_text.empty()) {
    out += "== " + dir_name + "/symbol.tbl against the program's symbols\n";
    std::istringstream in(table_text);
    for (std::string line; std::getline(in, line);) {
      const auto words = split_blank(line);
      if (words.size() < 2) continue;
      std::vector<std::uint64_t> addresses;
      for (std::size_t w = 1; w < words.size(); ++w)
        if (auto a = parse_hex(words[w]); a && std::find(addresses.begin(), addresses.end(), *a) == addresses.end())
          addresses.push_back(*a);
      std::string row = printable(words[0]) + ":";
      for (auto address : addresses) {
        std::ostringstream hex;
        hex << std::hex << address;
        std::string names;
        for (const auto& s : elf_symbols)
          if (s.address == address && !s.name.empty() && s.section != "*ABS*")
            names += (names.empty() ? "" : ", ") + printable(s.name) + " (" + printable(s.section) + ")";
        row += " " + hex.str() + " -> " + (names.empty() ? "no symbol of the program here" : names) + ";";
      }
      out += row + "\n";
    }
  }
  out += "== objdump -t " + program.name + "\n";
  append_printable(out, table.text);
  if (table.cut) out += "(cut at " + std::to_string(kMaxObjdumpOutputBytes / 1024) + " KiB)\n";

  if (disassemble) {
    ObjdumpOutput dis = run_objdump(state, {"-d", "--disassemble=" + *disassemble}, program.path, program.name);
    out += "== objdump -d --disassemble=" + *disassemble + " " + program.name + "\n";
    if (!dis.result.succeeded()) {
      out += objdump_failure(state, dis) + "\n";
      append_printable(out, dis.text);
      return ToolCallResult{false, out};
    }
    if (dis.text.find("<" + *disassemble + ">:") == std::string::npos) {
      out += "the program has no symbol named " + in_quotes(*disassemble) + "\n";
      return ToolCallResult{false, out};
    }
    append_printable(out, dis.text);
    if (dis.cut) out += "(cut at " + std::to_string(kMaxObjdumpOutputBytes / 1024) + " KiB)\n";
  }
  return ToolCallResult{true, out};
}

// ---------------------------------------------------------------------------------------
// Making the tool.

// An executable regular file named `program`, found as a path or in `path_var`.
std::string find_program(const std::string& program, const std::string& path_var) {
  auto usable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (program.empty()) return {};
  if (program.find('/') != std::string::npos) {
    std::error_code ec;
    fs::path p = fs::absolute(program, ec);
    return !ec && usable(p) ? p.string() : std::string();
  }
  std::size_t start = 0;
  while (start <= path_var.size()) {
    auto colon = path_var.find(':', start);
    if (colon == std::string::npos) colon = path_var.size();
    const std::string dir = path_var.substr(start, colon - start);
    if (!dir.empty() && dir.front() == '/' && usable(fs::path(dir) / program))
      return (fs::path(dir) / program).string();
    start = colon + 1;
  }
  return {};
}

std::string unique_name(const State& state, const std::string& base) {
  std::string name = base;
  for (int k = 2; state.find(name) != nullptr; ++k) name = base + "~" + std::to_string(k);
  return name;
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// One property of a method's parameters schema.
std::string prop(std::string_view name, std::string_view type, const std::string& description,
                 std::string_view extra = "") {
  return json_string(name) + R"(:{"type":)" + json_string(type) + std::string(extra) +
         R"(,"description":)" + json_string(description) + "}";
}

std::string schema(const std::vector<std::string>& properties,
                   const std::vector<std::string>& required = {}) {
  std::string s = R"({"type":"object","properties":{)";
  for (std::size_t i = 0; i < properties.size(); ++i) s += (i ? "," : "") + properties[i];
  s += "}";
  if (!required.empty()) {
    s += R"(,"required":[)";
    for (std::size_t i = 0; i < required.size(); ++i) s += (i ? "," : "") + json_string(required[i]);
    s += "]";
  }
  return s + "}";
}

const std::string kPathHelp =
    "Paths start with a place: failed/<run>/..., build/<log>, reference/<run>/..., "
    "workloads/... (list_files shows them); absolute paths and '..' are refused.";

std::vector<llm::ToolMethod> methods() {
  const std::string n = std::to_string(kDefaultSearchMatches);
  return {
      {"search_logs",
       "Search the text files of the failed task's run directories and its build log (or of "
       "one path) for a fixed string or a regular expression. Returns matching lines as "
       "path:line: text, at most max_matches of them; lines longer than " +
           std::to_string(kMaxShownLineBytes) +
           " bytes are cut, and only the first 4096 bytes of each line are searched.",
       schema({prop("pattern", "string", "the text or ECMAScript regular expression to look for"),
               prop("mode", "string",
                    "fixed (default): the pattern as it is; regex: a regular expression "
                    "(no back-references)",
                    R"(,"enum":["fixed","regex"])"),
               prop("ignore_case", "boolean", "default false"),
               prop("path", "string",
                    "a file or directory to search instead of the failed runs and the build "
                    "log, e.g. reference/hello-1 or failed/hello-1/sims.log. " + kPathHelp),
               prop("max_matches", "integer",
                    "default " + n + ", at most " + std::to_string(kMaxSearchMatches))},
              {"pattern"})},
      {"list_files",
       "List the files of the failed task's run directories, build log, reference runs and "
       "workloads (or of one path), with sizes; marks binary files and ELF programs.",
       schema({prop("path", "string",
                    "a place or directory to list; default: all of them. " + kPathHelp)})},
      {"read_file",
       "Read lines of one text file, numbered, at most " + std::to_string(kMaxReadBytes / 1024) +
           " KiB per call. Binary files are refused.",
       schema({prop("path", "string", "the file, e.g. failed/hello-1/sim.log. " + kPathHelp),
               prop("start_line", "integer", "first line to return, from 1 (default 1)"),
               prop("max_lines", "integer",
                    "default " + std::to_string(kDefaultReadLines) + ", at most " +
                        std::to_string(kMaxReadLines)),
               prop("tail", "boolean",
                    "true: return the last max_lines lines instead (not with start_line)")},
              {"path"})},
      {"compare_transcript",
       "Compare the failed run's testbench transcript (sim.log) with a reference transcript, "
       "as a unified line diff (reference lines '-', failed lines '+'), with both verdicts.",
       schema({prop("transcript", "string",
                    "the failing transcript or its run directory; default: the failed run's "
                    "sim.log"),
               prop("reference", "string",
                    "the transcript to compare with, or its run directory; default: the "
                    "reference run of the same workload. " + kPathHelp),
               prop("context", "integer", "unchanged lines around each change, 0..20 (default 3)"),
               prop("max_lines", "integer",
                    "diff lines to return, default " + std::to_string(kDefaultDiffLines) +
                        ", at most " + std::to_string(kMaxDiffLines)),
               prop("ignore_cycle_stamps", "boolean",
                    "true: lines that differ only in their leading cycle stamp ('7007250: ') "
                    "count as equal")})},
      {"symbols",
       "Show the compiled program's symbols (objdump -t) beside the run's symbol table "
       "(symbol.tbl, where the testbench reads good_trap and bad_trap from), with each "
       "symbol.tbl address matched to the program's symbols; optionally disassemble one symbol.",
       schema({prop("path", "string",
                    "a run directory (its diag.exe or *.elf) or a program in one; default: the "
                    "failed run"),
               prop("disassemble", "string", "a symbol to disassemble, e.g. pass or main")})},
  };
}

using Handler = ToolCallResult (*)(const State&, const ToolArguments&);

Handler handler_for(const std::string& method) {
  if (method == "search_logs") return search_logs;
  if (method == "list_files") return list_files;
  if (method == "read_file") return read_file;
  if (method == "compare_transcript") return compare_transcript;
  if (method == "symbols") return symbols;
  return nullptr;
}

std::string describe(const State& state) {
  std::string d =
      "Read-only diagnostics of the failed task: search its logs, list and read the files "
      "of its run directories, compare its transcript with a reference, show its program's "
      "symbols. Places: ";
  for (const auto& p : state.places) {
    d += p.name;
    switch (p.kind) {
      case PlaceKind::failed: d += " (failed task's run)"; break;
      case PlaceKind::build: d += " (build transcript)"; break;
      case PlaceKind::reference: d += " (reference run)"; break;
      case PlaceKind::workloads: d += " (workload sources)"; break;
    }
    d += "; ";
  }
  if (!state.unavailable.empty()) d += "not available: " + std::to_string(state.unavailable.size()) + " (see list_files); ";
  if (state.objdump.empty()) d += "symbols is unavailable: " + state.objdump_missing;
  return d;
}

}  // namespace

std::optional<llm::Tool> make_diagnostic_tool(const DiagnosticScope& scope, std::string& error) {
  auto state = std::make_shared<State>();
  state->objdump_timeout = scope.objdump_timeout;
  state->call_time_limit = scope.call_time_limit;

  // Relative scope paths are taken from the checkout root; each place must exist and be
  // what it claims to be (a directory; the log a regular file) once resolved.
  auto place_of = [&](const fs::path& given, bool directory, const std::string& what)
      -> std::optional<fs::path> {
    fs::path p = given.is_relative() && !scope.checkout_root.empty() ? scope.checkout_root / given : given;
    std::error_code ec;
    fs::path canonical = fs::canonical(p, ec);
    if (ec) {
      state->unavailable.push_back(what + " " + p.string() + ": " + ec.message());
      return std::nullopt;
    }
    const bool ok = directory ? fs::is_directory(canonical, ec) : fs::is_regular_file(canonical, ec);
    if (!ok) {
      state->unavailable.push_back(what + " " + p.string() + ": not a " +
                                   (directory ? "directory" : "regular file"));
      return std::nullopt;
    }
    return canonical;
  };
  auto label = [](const fs::path& canonical) {
    std::string name = canonical.filename().string();
    if (name.empty() || name.find('\0') != std::string::npos) name = "run";
    return name;
  };

  for (const auto& dir : scope.run_dirs) {
    if (auto c = place_of(dir, true, "failed run directory")) {
      std::string name = unique_name(*state, std::string(kFailedPlace) + "/" + label(*c));
      state->places.push_back(Place{PlaceKind::failed, std::move(name), *c});
    }
  }
  if (!scope.build_log.empty()) {
    if (auto c = place_of(scope.build_log, false, "build log")) {
      state->places.push_back(Place{PlaceKind::build, std::string(kBuildPlace) + "/" + label(*c), *c});
    }
  }
  bool any_failed_place = !state->places.empty();
  if (!any_failed_place) {
    error = "the diagnostic tools cannot start: none of the failed task's run directories "
            "and no build log exists";
    if (scope.run_dirs.empty() && scope.build_log.empty()) error += " (the scope names none)";
    for (const auto& u : state->unavailable) error += "; " + u;
    return std::nullopt;
  }
  for (const auto& dir : scope.reference_run_dirs) {
    if (auto c = place_of(dir, true, "reference run directory")) {
      std::string name = unique_name(*state, std::string(kReferencePlace) + "/" + label(*c));
      state->places.push_back(Place{PlaceKind::reference, std::move(name), *c});
    }
  }
  if (!scope.workloads_dir.empty()) {
    if (auto c = place_of(scope.workloads_dir, true, "workloads directory"))
      state->places.push_back(Place{PlaceKind::workloads, std::string(kWorkloadsPlace), *c});
  }

  std::map<std::string, std::string> env =
      scope.environment ? *scope.environment : openpiton::inherited_environment();
  const std::string path_var = env.count("PATH") ? env["PATH"] : "/usr/local/bin:/usr/bin:/bin";
  state->objdump = find_program(scope.objdump, path_var);
  if (state->objdump.empty()) state->objdump = find_program(scope.fallback_objdump, path_var);
  if (state->objdump.empty())
    state->objdump_missing = "neither " + in_quotes(scope.objdump) + " nor " +
                             in_quotes(scope.fallback_objdump) + " was found on PATH (" + path_var + ")";
  state->objdump_env = {{"PATH", path_var}, {"LC_ALL", "C"}};

  llm::Tool tool;
  tool.name = std::string(kDiagnosticToolName);
  tool.description = describe(*state);
  tool.methods = methods();
  tool.call = [state](const std::string& method, const std::string& arguments_json) -> ToolCallResult {
    try {
      const Handler handler = handler_for(method);
      if (handler == nullptr) {
        std::string names;
        for (const auto& m : methods()) names += (names.empty() ? "" : ", ") + m.name;
        return ToolCallResult{false, "unknown method " + in_quotes(method) + "; the methods are: " + names};
      }
      return handler(*state, ToolArguments::parse(arguments_json));
    } catch (const ToolArgumentError& e) {
      return ToolCallResult{false, std::string(e.what())};
    } catch (const Refusal& e) {
      return ToolCallResult{false, std::string(e.what())};
    } catch (const std::exception& e) {
      return ToolCallResult{false, method + " failed: " + e.what()};
    } catch (...) {
      return ToolCallResult{false, method + " failed"};
    }
  };
  return tool;
}

}  // namespace mace::tools
