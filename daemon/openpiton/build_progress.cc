#include "openpiton/build_progress.h"

#include <algorithm>
#include <set>
#include <vector>

#include "os/file_io.h"
#include "os/text.h"

namespace mace::openpiton {
namespace fs = std::filesystem;
namespace {

// Generated .mk lists are a few KiB; a bigger one is not Verilator's.
constexpr std::size_t kMaxMakefileBytes = 4 * 1024 * 1024;

// The words of every `NAME = \` / `NAME += \` list in `text` whose NAME is one of
// `lists`, one per continued line.
std::vector<std::string> make_list_words(std::string_view text, const std::set<std::string_view>& lists) {
  std::vector<std::string> words;
  bool in_list = false;
  for (std::string_view line : os::split_lines_dropping_newlines(text)) {
    std::string_view t = os::trim(line);
    if (!in_list) {
      const auto eq = t.find('=');
      if (eq == std::string_view::npos) continue;
      std::string_view name = t.substr(0, eq);
      if (!name.empty() && name.back() == '+') name.remove_suffix(1);
      name = os::trim(name);
      in_list = lists.count(name) > 0 && t.ends_with("\\");
      continue;
    }
    const bool continued = t.ends_with("\\");
    if (continued) t = os::trim(t.substr(0, t.size() - 1));
    if (!t.empty()) words.emplace_back(t);
    in_list = continued;
  }
  return words;
}

// The word after `flag` in a command line, or "".
std::string_view word_after(std::string_view line, std::string_view flag) {
  std::size_t at = 0;
  while ((at = line.find(flag, at)) != std::string_view::npos) {
    const bool starts_word = at == 0 || line[at - 1] == ' ' || line[at - 1] == '\t';
    const std::size_t after = at + flag.size();
    if (starts_word && after < line.size() && line[after] == ' ') {
      std::string_view rest = line.substr(after);
      rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
      return rest.substr(0, rest.find_first_of(" \t"));
    }
    at = after;
  }
  return {};
}

bool is_compiler_command(std::string_view line) {
  for (std::string_view compiler : {"g++ ", "c++ ", "gcc ", "cc ", "clang++ ", "clang ", "ccache "})
    if (line.starts_with(compiler)) return true;
  return false;
}

bool has_word(std::string_view line, std::string_view word) {
  std::size_t at = 0;
  while ((at = line.find(word, at)) != std::string_view::npos) {
    const std::size_t end = at + word.size();
    const bool starts = at == 0 || line[at - 1] == ' ';
    const bool ends = end == line.size() || line[end] == ' ';
    if (starts && ends) return true;
    at = end;
  }
  return false;
}

}  // namespace

namespace {

// Whether make will compile `object`: its .o is missing, or older than the .cpp Verilator
// wrote beside it. A rebuild over an earlier model (another fingerprint, an RTL edit) finds
// every .o in place, and only the regenerated sources' objects are compiled again. Header
// changes (make's .d files) are not followed: the reader raises the total if make compiles
// more than this says.
bool out_of_date(const fs::path& obj_dir, const std::string& object) {
  std::error_code error;
  const auto built = fs::last_write_time(obj_dir / (object + ".o"), error);
  if (error) return true;
  const auto source = fs::last_write_time(obj_dir / (object + ".cpp"), error);
  return !error && source > built;
}

}  // namespace

namespace {

// The listed objects make will compile, and the .mk lists' text (for the source dirs).
std::set<std::string> listed_objects_to_build(const fs::path& obj_dir, const std::string& prefix,
                                              std::string& top_mk) {
  const auto classes = os::try_read_file(obj_dir / (prefix + "_classes.mk"), kMaxMakefileBytes);
  if (!classes) return {};
  std::vector<std::string> objects =
      make_list_words(*classes, {"VM_CLASSES_FAST", "VM_CLASSES_SLOW", "VM_SUPPORT_FAST",
                                 "VM_SUPPORT_SLOW", "VM_GLOBAL_FAST", "VM_GLOBAL_SLOW"});
  if (const auto top = os::try_read_file(obj_dir / (prefix + ".mk"), kMaxMakefileBytes)) {
    top_mk = *top;
    for (auto& user : make_list_words(*top, {"VM_USER_CLASSES"})) objects.push_back(std::move(user));
  }
  std::set<std::string> out;
  for (auto& object : objects)
    if (out_of_date(obj_dir, object)) out.insert(std::move(object));
  return out;
}

// `NAME = value` of a makefile, or "".
std::string make_variable(std::string_view text, std::string_view name) {
  for (std::string_view line : os::split_lines_dropping_newlines(text)) {
    const std::string_view t = os::trim(line);
    const auto eq = t.find('=');
    if (eq != std::string_view::npos && os::trim(t.substr(0, eq)) == name)
      return std::string(os::trim(t.substr(eq + 1)));
  }
  return {};
}

int64_t size_of_first(const std::vector<fs::path>& candidates) {
  for (const auto& path : candidates) {
    std::error_code error;
    const auto size = fs::file_size(path, error);
    if (!error) return static_cast<int64_t>(size);
  }
  return -1;
}

}  // namespace

int objects_to_build(const fs::path& obj_dir, std::string_view prefix) {
  std::string top_mk;
  return static_cast<int>(listed_objects_to_build(obj_dir, std::string(prefix), top_mk).size());
}

std::map<std::string, int64_t> object_source_sizes(const fs::path& obj_dir, std::string_view prefix) {
  std::string top_mk;
  const auto objects = listed_objects_to_build(obj_dir, std::string(prefix), top_mk);
  std::vector<fs::path> dirs = {obj_dir};
  for (auto& dir : make_list_words(top_mk, {"VM_USER_DIR"})) dirs.emplace_back(dir);
  if (const std::string root = make_variable(top_mk, "VERILATOR_ROOT"); !root.empty())
    dirs.push_back(fs::path(root) / "include");
  std::map<std::string, int64_t> sizes;
  for (const auto& object : objects) {
    std::vector<fs::path> candidates;
    for (const auto& dir : dirs)
      for (const char* extension : {".cpp", ".c", ".cc"}) candidates.push_back(dir / (object + extension));
    sizes[object] = size_of_first(candidates);
  }
  return sizes;
}

void BuildProgressReader::start_compiling(std::string_view obj_dir, std::string_view prefix) {
  weights_ = object_source_sizes(fs::path(obj_dir), prefix);
  progress_.objects_total = static_cast<int>(weights_.size());
  int64_t known = 0, count = 0;
  for (const auto& [object, bytes] : weights_) {
    if (bytes < 0) continue;
    known += bytes;
    ++count;
  }
  if (count == 0) return;  // no size read: progress counts objects only
  mean_weight_ = std::max<int64_t>(1, known / count);
  for (auto& [object, bytes] : weights_) {
    if (bytes < 0) bytes = mean_weight_;
    progress_.work_total += bytes;
  }
}

void BuildProgressReader::object_started(std::string_view object_file) {
  ++progress_.objects_done;
  // A total read wrong must not make a bar run past its end.
  if (progress_.objects_total && progress_.objects_done > progress_.objects_total)
    progress_.objects_total = progress_.objects_done;
  if (mean_weight_ == 0) return;
  const std::string object(fs::path(object_file).stem());
  const auto it = weights_.find(object);
  const int64_t weight = it == weights_.end() ? mean_weight_ : it->second;
  work_started_ += weight;
  progress_.work_total = std::max(progress_.work_total, work_started_);
  progress_.work_done = work_started_ - weight / 2;
}

bool BuildProgressReader::feed(std::string_view line) {
  const BuildProgress before = progress_;
  if (progress_.phase == BuildPhase::verilating) {
    // sims echoes the make it runs: "sims: make -j -C <obj_dir> -f Vcmp_top.mk Vcmp_top".
    if (line.starts_with("sims: make ") || line.starts_with("sims: make\t")) {
      const std::string_view dir = word_after(line, "-C");
      std::string_view makefile = word_after(line, "-f");
      if (!dir.empty() && makefile.ends_with(".mk")) {
        makefile.remove_suffix(3);
        start_compiling(dir, makefile);
        link_target_ = std::string(makefile);
      }
      progress_.phase = BuildPhase::compiling;
    }
    return !(progress_ == before);
  }
  if (!is_compiler_command(line)) return false;
  if (has_word(line, "-c")) {
    const std::string_view output = word_after(line, "-o");
    if (output.ends_with(".o")) object_started(output);
  } else if (!link_target_.empty() && word_after(line, "-o") == link_target_) {
    progress_.phase = BuildPhase::linking;
    progress_.work_done = progress_.work_total;
  }
  return !(progress_ == before);
}

}  // namespace mace::openpiton
