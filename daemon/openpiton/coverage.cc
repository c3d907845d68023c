#include "openpiton/coverage.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

#include "os/environment.h"
#include "os/program_search.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;

// The value of `key` in a point's keys: \x01key\x02value pairs.
std::string_view key_value(std::string_view keys, std::string_view key) {
  std::size_t at = 0;
  while ((at = keys.find('\x01', at)) != std::string_view::npos) {
    ++at;
    const std::size_t sep = keys.find('\x02', at);
    if (sep == std::string_view::npos) return {};
    const std::size_t end = std::min(keys.find('\x01', sep), keys.size());
    if (keys.substr(at, sep - at) == key) return keys.substr(sep + 1, end - sep - 1);
    at = end;
  }
  return {};
}

bool parse_number(std::string_view text, std::int64_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// "12", "12-15", "3-4,7": the lines a point spans; capped, a range of a line is enough.
std::vector<std::int64_t> span_lines(std::string_view spans) {
  std::vector<std::int64_t> lines;
  while (!spans.empty() && lines.size() < 4096) {
    const std::size_t comma = spans.find(',');
    std::string_view part = spans.substr(0, comma);
    spans = comma == std::string_view::npos ? std::string_view() : spans.substr(comma + 1);
    const std::size_t dash = part.find('-');
    std::int64_t from = 0, to = 0;
    if (!parse_number(part.substr(0, dash), from)) continue;
    to = from;
    if (dash != std::string_view::npos && !parse_number(part.substr(dash + 1), to)) continue;
    for (std::int64_t l = from; l <= to && lines.size() < 4096; ++l) lines.push_back(l);
  }
  return lines;
}

// The top-level module a point's hierarchy counts to (coverage.h).
std::string top_module(std::string_view hierarchy) {
  std::vector<std::string_view> parts;
  while (!hierarchy.empty()) {
    const std::size_t dot = hierarchy.find('.');
    parts.push_back(hierarchy.substr(0, dot));
    hierarchy = dot == std::string_view::npos ? std::string_view() : hierarchy.substr(dot + 1);
  }
  if (!parts.empty() && parts.front() == "TOP") parts.erase(parts.begin());
  // The testbench's first level (cmp_top.monitor), or the design's: system, its chip and
  // chipset, and the instances directly in those (system.chip.tile0).
  std::size_t depth = 2;
  if (parts.size() > 1 && parts[0] == "cmp_top" && parts[1] == "system")
    depth = parts.size() > 2 && (parts[2] == "chip" || parts[2] == "chipset") ? 4 : 3;
  // A name with '*' stands for several instances: they count to the level above them.
  std::size_t keep = 0;
  while (keep < parts.size() && keep < depth && parts[keep].find('*') == std::string_view::npos) ++keep;
  std::size_t from = keep > 1 && parts[0] == "cmp_top" ? 1 : 0;  // "cmp_top." says nothing
  std::string name;
  for (std::size_t i = from; i < keep; ++i) {
    if (!name.empty()) name += '.';
    name += parts[i];
  }
  return name.empty() ? std::string("cmp_top") : name;
}

struct ModuleTally {
  ModuleCoverage counts;
  std::map<std::pair<std::string, std::int64_t>, bool> lines;  // (file, line) -> covered
};

void add_point(ModuleTally& tally, const std::string& file, const std::vector<std::int64_t>& lines,
               bool reached) {
  ++tally.counts.points_total;
  if (reached) ++tally.counts.points_covered;
  for (std::int64_t l : lines) {
    bool& covered = tally.lines[{file, l}];
    covered = covered || reached;
  }
}

void close_tally(ModuleTally& tally) {
  tally.counts.lines_total = static_cast<std::int64_t>(tally.lines.size());
  tally.counts.lines_covered = std::count_if(tally.lines.begin(), tally.lines.end(),
                                             [](const auto& l) { return l.second; });
  tally.lines.clear();
}

// Claims <root>/<n> with mkdir, n above every n there (as the simulator claims run dirs).
fs::path claim_directory(const fs::path& root) {
  fs::create_directories(root);
  long next = 1;
  for (const auto& entry : fs::directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    long n = 0;
    auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
    if (ec == std::errc() && end == name.data() + name.size() && n >= next) next = n + 1;
  }
  for (;; ++next) {
    fs::path dir = root / std::to_string(next);
    if (fs::create_directory(dir)) return dir;
  }
}

std::string last_line(const std::string& text) {
  std::string_view t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.remove_suffix(1);
  const std::size_t nl = t.rfind('\n');
  return std::string(nl == std::string_view::npos ? t : t.substr(nl + 1));
}

// Runs one verilator_coverage command; "" when it succeeded, else why not.
std::string run_tool(const CoverageRequest& request, const std::map<std::string, std::string>& env,
                     std::vector<std::string> argv, const fs::path& dir, CoverageResult& result) {
  os::ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.env = env;
  spec.working_dir = dir.string();
  spec.purpose = os::CommandPurpose::coverage;
  spec.timeout = request.time_limit;
  spec.kill_grace = std::chrono::seconds(3);
  spec.tail_bytes = 4096;
  const os::ProcessResult pr = request.checkout.run(spec, request.cancel);
  if (pr.host_stop != os::HostStop::none) {
    result.host_stop = pr.host_stop;
    return "verilator_coverage was stopped: " + pr.host_stop_detail;
  }
  if (pr.launch_failed) return "cannot launch verilator_coverage: " + pr.error;
  if (pr.cancelled) return "cancelled";
  if (pr.timed_out) return "verilator_coverage did not finish within its time limit";
  if (!pr.succeeded())
    return "verilator_coverage failed (exit status " + std::to_string(pr.exit_code) +
           "): " + last_line(pr.tail);
  return "";
}

}  // namespace

CoverageSummary summarise_coverage_data(std::istream& in) {
  std::map<std::string, ModuleTally> modules;
  ModuleTally total;
  std::string line;
  std::size_t points = 0;
  while (points < kMaxCoveragePoints && std::getline(in, line)) {
    // C '<keys>' <count>
    if (line.size() < 5 || line[0] != 'C' || line[1] != ' ' || line[2] != '\'') continue;
    const std::size_t close = line.rfind('\'');
    if (close <= 2) continue;
    const std::string_view keys = std::string_view(line).substr(3, close - 3);
    std::string_view count_text = std::string_view(line).substr(close + 1);
    while (!count_text.empty() && count_text.front() == ' ') count_text.remove_prefix(1);
    std::int64_t count = 0;
    if (!parse_number(count_text, count)) continue;
    const std::string_view page = key_value(keys, "page");
    if (page.rfind("v_line/", 0) != 0 && page.rfind("v_branch/", 0) != 0) continue;
    ++points;
    const std::string file(key_value(keys, "f"));
    std::vector<std::int64_t> lines = span_lines(key_value(keys, "S"));
    if (lines.empty()) lines = span_lines(key_value(keys, "l"));
    const std::string module = top_module(key_value(keys, "h"));
    auto& tally = modules[module];
    tally.counts.module = module;
    add_point(tally, file, lines, count > 0);
    add_point(total, file, lines, count > 0);
  }
  CoverageSummary summary;
  for (auto& [name, tally] : modules) {
    close_tally(tally);
    summary.modules.push_back(tally.counts);
  }
  close_tally(total);
  summary.total = total.counts;
  return summary;
}

CoverageResult merge_coverage(const CoverageRequest& request) {
  CoverageResult result;
  std::vector<std::string> inputs;
  for (const auto& dir : request.run_dirs) {
    std::error_code ec;
    const fs::path data = fs::absolute(dir / "coverage.dat", ec);
    if (!ec && fs::is_regular_file(data, ec))
      inputs.push_back(data.string());
    else
      result.runs_without_data.push_back(dir);
  }
  if (inputs.empty()) {
    result.error = request.run_dirs.empty()
                       ? "no simulation ran, so there is no coverage to merge"
                       : "no simulation wrote coverage.dat: the checkout's testbench main "
                         "(piton/tools/verilator/my_top.cpp) writes it only once "
                         "scripts/patch_openpiton.sh has patched it";
    return result;
  }
  const auto env = request.checkout.environment(
      request.base_environment ? *request.base_environment : os::inherited_environment());
  auto path = env.find("PATH");
  if (path == env.end() || !os::find_program("verilator_coverage", path->second)) {
    result.error = "verilator_coverage is not on the checkout's PATH (Debian: package verilator)";
    return result;
  }
  try {
    result.directory = claim_directory(fs::absolute(request.checkout.model_dir(request.build_id)) / "coverage");
  } catch (const std::exception& e) {
    result.error = std::string("cannot make a directory for the merged coverage: ") + e.what();
    return result;
  }
  result.data = result.directory / "coverage.dat";
  result.annotated = result.directory / "annotated";
  std::vector<std::string> write = {"verilator_coverage", "--write", result.data.string()};
  write.insert(write.end(), inputs.begin(), inputs.end());
  if (std::string why = run_tool(request, env, write, result.directory, result); !why.empty()) {
    result.error = "merging: " + why;
    return result;
  }
  result.runs_merged = inputs.size();
  if (std::string why = run_tool(request, env,
                                 {"verilator_coverage", "--annotate", result.annotated.string(),
                                  result.data.string()},
                                 result.directory, result);
      !why.empty()) {
    result.error = "annotating: " + why;
    return result;
  }
  std::ifstream in(result.data, std::ios::binary);
  if (!in) {
    result.error = "cannot read " + result.data.string();
    return result;
  }
  result.summary = summarise_coverage_data(in);
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(result.annotated, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec) && !it->is_symlink(ec))
      result.annotated_files.push_back(fs::relative(it->path(), result.annotated, ec));
    if (result.annotated_files.size() >= kMaxAnnotatedFiles) break;
  }
  std::sort(result.annotated_files.begin(), result.annotated_files.end());
  result.merged = true;
  return result;
}

}  // namespace mace::openpiton
