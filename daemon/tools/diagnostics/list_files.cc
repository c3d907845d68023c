// list_files: the files of the places (or of one path), with sizes, marking binary files
// and ELF programs; exactly the names the other methods take.

#include <fcntl.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "tools/diagnostic_tools.h"
#include "tools/diagnostics/directory_walk.h"
#include "tools/diagnostics/methods.h"
#include "tools/diagnostics/read_only_file.h"
#include "tools/diagnostics/text.h"

namespace mace::tools::diagnostics {

namespace fs = std::filesystem;
using llm::ToolCallResult;

namespace {

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

}  // namespace

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
      const int probe = is_elf(opened.file.get()) ? 2 : is_binary(opened.file.get()) ? 1 : 0;
      out += entry_line(e, probe) + "\n";
      ++listed;
      continue;
    }
    out += t.name + "/\n";
    for (const auto& e : walk(t, kMaxListedEntries - std::min(listed, kMaxListedEntries), truncated)) {
      int probe = 0;
      if (e.kind == EntryKind::file) {
        os::UniqueFd f(::open(e.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
        if (f) probe = is_elf(f.get()) ? 2 : is_binary(f.get()) ? 1 : 0;
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

}  // namespace mace::tools::diagnostics
