#include "openpiton/source_fingerprint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "openpiton/git_command.h"
#include "os/file_io.h"
#include "os/sha256.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxGitOutput = std::size_t{1} << 30;

// The directory holding `.git` (a directory, or a file for worktrees and submodules).
fs::path work_tree_top(const fs::path& start) {
  std::error_code error;
  fs::path dir = fs::absolute(start, error).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();
  for (;;) {
    if (fs::exists(dir / ".git", error)) return dir;
    if (dir == dir.root_path() || !dir.has_parent_path()) break;
    dir = dir.parent_path();
  }
  throw std::runtime_error("source fingerprint: " + start.string() + " is not in a git work tree");
}

std::string run_git(const fs::path& top, const std::vector<std::string>& arguments,
                    const os::CancelToken* cancel) {
  os::ProcessSpec spec = git_command(top, arguments);
  spec.timeout = std::chrono::seconds(300);
  spec.kill_grace = std::chrono::seconds(2);
  spec.tail_bytes = kMaxGitOutput;
  const os::ProcessResult result = os::run_process_group(spec, cancel);
  std::string command = "git";
  for (const auto& argument : arguments) command += " " + argument;
  if (!result.succeeded()) {
    throw std::runtime_error("source fingerprint: `" + command + "` in " + top.string() +
                             " failed (" + git_failure(result) + "): " + result.tail.substr(0, 500));
  }
  if (result.output_bytes != result.tail.size()) {
    throw std::runtime_error("source fingerprint: `" + command + "` printed more than " +
                             std::to_string(kMaxGitOutput) + " bytes");
  }
  return result.tail;
}

std::string hash_file_content(const fs::path& path) {
  try {
    return os::sha256_file_hex(path);
  } catch (const os::FileError& e) {
    return std::string("unreadable:") + std::strerror(e.error());
  }
}

// What the working tree holds at `path` now: the build reads this, whatever the index says.
std::string working_tree_state(const fs::path& path) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) return "deleted";
  if (S_ISLNK(info.st_mode)) {
    std::array<char, 4096> target{};
    const ssize_t n = readlink(path.c_str(), target.data(), target.size());
    return "symlink:" + os::sha256_hex(std::string_view(target.data(), n > 0 ? n : 0));
  }
  if (S_ISDIR(info.st_mode)) return "directory";
  if (!S_ISREG(info.st_mode)) return "special";
  return std::string((info.st_mode & S_IXUSR) ? "exec:" : "file:") + hash_file_content(path);
}

std::string head_commit(const fs::path& top, const os::CancelToken* cancel) {
  std::string out = run_git(top, {"rev-parse", "--verify", "-q", "HEAD"}, cancel);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// Splits a -z record "f1 f2 ... fN path" whose path may itself hold spaces.
std::vector<std::string_view> split_fields(std::string_view record,
                                           std::size_t fields_before_path) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (std::size_t i = 0; i < fields_before_path; ++i) {
    const std::size_t space = record.find(' ', start);
    if (space == std::string_view::npos) return {};
    fields.push_back(record.substr(start, space - start));
    start = space + 1;
  }
  fields.push_back(record.substr(start));
  return fields;
}

struct StatusScan {
  std::string head = "none";
  std::vector<std::string> changes;
};

void scan_status(const fs::path& top, const std::string& prefix, const os::CancelToken* cancel,
                 StatusScan& scan, int depth);

// A changed submodule: its commit when it moved, and its own changes when it has any.
void add_submodule_change(const fs::path& top, const std::string& prefix, std::string_view path,
                          std::string_view sub_flags, const os::CancelToken* cancel, StatusScan& scan,
                          int depth) {
  const fs::path inner = top / std::string(path);
  const std::string shown = prefix + std::string(path);
  std::string commit = "absent";
  if (fs::exists(inner / ".git")) commit = head_commit(inner, cancel);
  scan.changes.push_back("submodule\t" + shown + "\t" + std::string(sub_flags) + ":" + commit);
  const bool dirty = sub_flags.size() == 4 && (sub_flags[2] == 'M' || sub_flags[3] == 'U');
  if (dirty && fs::exists(inner / ".git") && depth < 4) {
    StatusScan inner_scan;
    scan_status(inner, shown + "/", cancel, inner_scan, depth + 1);
    scan.changes.insert(scan.changes.end(), inner_scan.changes.begin(), inner_scan.changes.end());
  }
}

void scan_status(const fs::path& top, const std::string& prefix, const os::CancelToken* cancel,
                 StatusScan& scan, int depth) {
  // --branch for the "# branch.oid" header (HEAD without a second process), but without
  // the ahead/behind count against the upstream, which walks history.
  const std::string out =
      run_git(top,
              {"status", "--porcelain=v2", "-z", "--branch", "--no-ahead-behind",
               "--untracked-files=all", "--ignore-submodules=none"},
              cancel);
  auto unexpected = [&](std::string_view record) {
    return std::runtime_error("source fingerprint: unexpected `git status` output in " +
                              top.string() + ": " + std::string(record.substr(0, 200)));
  };
  std::string_view rest(out);
  auto next_record = [&]() -> std::optional<std::string_view> {
    if (rest.empty()) return std::nullopt;
    const std::size_t end = rest.find('\0');
    if (end == std::string_view::npos) throw unexpected(rest);
    std::string_view record = rest.substr(0, end);
    rest.remove_prefix(end + 1);
    return record;
  };
  while (auto record = next_record()) {
    if (record->empty()) throw unexpected(*record);
    switch ((*record)[0]) {
      case '#': {
        constexpr std::string_view kOid = "# branch.oid ";
        if (record->starts_with(kOid)) {
          const std::string_view oid = record->substr(kOid.size());
          scan.head = oid == "(initial)" ? "none" : std::string(oid);
        }
        break;
      }
      case '1':
      case '2':
      case 'u': {
        const char kind = (*record)[0];
        const std::size_t before_path = kind == '1' ? 8 : kind == '2' ? 9 : 10;
        const auto fields = split_fields(*record, before_path);
        if (fields.empty()) throw unexpected(*record);
        const std::string_view sub_flags = fields[2];
        const std::string_view path = fields.back();
        std::string renamed_from;
        if (kind == '2') {
          const auto origin = next_record();
          if (!origin) throw unexpected(*record);
          renamed_from = "\tfrom:" + prefix + std::string(*origin);
        }
        if (sub_flags.starts_with('S')) {
          add_submodule_change(top, prefix, path, sub_flags, cancel, scan, depth);
        } else {
          scan.changes.push_back(std::string(kind == 'u' ? "unmerged" : "tracked") + "\t" + prefix +
                                 std::string(path) + "\t" +
                                 working_tree_state(top / std::string(path)) + renamed_from);
        }
        break;
      }
      case '?': {
        if (record->size() < 3) throw unexpected(*record);
        const std::string_view path = record->substr(2);
        scan.changes.push_back("untracked\t" + prefix + std::string(path) + "\t" +
                               working_tree_state(top / std::string(path)));
        break;
      }
      case '!': break;
      default: throw unexpected(*record);
    }
  }
}

std::string one_line(std::string_view text) {
  std::string line(text);
  std::replace(line.begin(), line.end(), '\n', ' ');
  std::replace(line.begin(), line.end(), '\r', ' ');
  return line;
}

}  // namespace

std::string SourceFingerprint::text() const {
  std::string text = "mace-source-fingerprint 1\n";
  text += "head=" + head + "\n";
  text += "ariane=" + ariane_submodule + "\n";
  text += "verilator=" + one_line(verilator_version) + "\n";
  text += "changes=" + std::to_string(changes.size()) + "\n";
  for (const auto& change : changes) text += "change=" + one_line(change) + "\n";
  return text;
}

SourceFingerprint source_fingerprint(const fs::path& root, std::string_view verilator_version,
                                     const os::CancelToken* cancel) {
  const fs::path top = work_tree_top(root);
  StatusScan scan;
  scan_status(top, "", cancel, scan, 0);
  std::sort(scan.changes.begin(), scan.changes.end());

  SourceFingerprint fingerprint;
  fingerprint.head = scan.head;
  fingerprint.changes = std::move(scan.changes);
  const fs::path ariane = fs::absolute(root) / std::string(kArianeSubmodulePath);
  fingerprint.ariane_submodule =
      fs::exists(ariane / ".git") ? head_commit(ariane, cancel) : "absent";
  fingerprint.verilator_version = std::string(verilator_version);
  fingerprint.digest = os::sha256_hex(fingerprint.text());
  return fingerprint;
}

std::string head_commit_of(const fs::path& root, const os::CancelToken* cancel) {
  return head_commit(root, cancel);
}

}  // namespace mace::openpiton
