#include "core/run_spec.h"

#include "core/core_descriptor.h"

#include "core/joined.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <simdjson.h>

#include "core/json_writer.h"
#include "core/printable_text.h"
#include "core/sims_option_allowlist.h"
#include "os/text.h"

namespace mace {
namespace {

constexpr std::array<std::pair<Core, std::string_view>, 4> kCoreNames{{
    {Core::ariane, "ariane"},
    {Core::sparc, "sparc"},
    {Core::pico, "pico"},
    {Core::generic, "generic"},
}};

// A value echoed in a message is cut short so a megabyte-long string cannot flood a
// terminal or a log line, and what is not printable in it is escaped, so a message
// never carries what the spec was refused for to a terminal.
constexpr size_t kMaxEchoedBytes = 60;

std::string echo_string(std::string_view s) { return quoted_for_display(s, kMaxEchoedBytes); }

// The shortest text that reads back as `d`: a user who wrote 0.1 sees 0.1, not
// 0.10000000000000001.
std::string number_text(double d) {
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  return buf;
}

std::string got(std::string_view expectation, std::string_view given) {
  std::string out(expectation);
  out += ", got ";
  out += given;
  return out;
}

std::string got(std::string_view expectation, int64_t n) {
  return got(expectation, std::to_string(n));
}


// A loop, not std::views::values: clang 14 (the sanitizer and fuzzing build) cannot
// instantiate libstdc++ 12's views.
std::string core_names() {
  std::vector<std::string_view> names;
  for (const auto& [core, name] : kCoreNames) names.push_back(name);
  return joined(names);
}

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Whitespace and control bytes would split or garble the simulator's argv and the log
// file names a workload name becomes.
bool has_blank_or_control(std::string_view s) {
  for (unsigned char c : s)
    if (c <= 0x20 || c == 0x7f) return true;
  return false;
}

bool is_blank(std::string_view s) {
  for (unsigned char c : s)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') return false;
  return true;
}

bool check_length(FieldErrors& errors, const std::string& path, std::string_view value,
                  size_t max_bytes) {
  if (value.size() <= max_bytes) return true;
  errors.push_back({path, "must be at most " + std::to_string(max_bytes) + " bytes, got " +
                              std::to_string(value.size())});
  return false;
}

bool check_printable(FieldErrors& errors, const std::string& path, std::string_view value,
                     TextKind kind) {
  auto problem = unprintable_text_problem(value, kind);
  if (problem) errors.push_back({path, *problem});
  return !problem;
}

// The length and the characters of a string field, checked before its own rules (which
// would otherwise echo, or act on, text that is not what it claims to be). False after
// saying why.
bool check_text(FieldErrors& errors, const std::string& path, std::string_view value,
                size_t max_bytes, TextKind kind = TextKind::line) {
  return check_length(errors, path, value, max_bytes) && check_printable(errors, path, value, kind);
}

// False after saying so when a list is longer than its limit; its elements are then not
// checked one by one (a spec with a million of them would get a million messages).
bool check_count(FieldErrors& errors, const std::string& path, size_t count, size_t max,
                 std::string_view what) {
  if (count <= max) return true;
  errors.push_back({path, count_limit_message(max, what, count)});
  return false;
}

// Why `name` cannot name a gate workload, or empty when it can.
std::string workload_name_problem(std::string_view name) {
  if (name.empty()) return got("must be a non-empty string", echo_string(name));
  if (has_blank_or_control(name))
    return got("must not contain whitespace or control characters (it becomes a simulator "
               "argument and part of file names)",
               echo_string(name));
  if (name.find('/') != std::string_view::npos)
    return got("must not contain '/' (it names a program under workloads/)", echo_string(name));
  if (name == "." || name == "..")
    return got("must not be . or .. (it becomes part of file names)", echo_string(name));
  if (name.front() == '-')
    return got("must not start with '-' (the simulator would read it as an option)",
               echo_string(name));
  return {};
}

// What OpenPiton's sims accepts of a printable name: it pastes the name into a shell
// command line (`find` in backticks), so the rule is an allowlist, the adapter's, checked
// with the spec rather than when the first simulation would start, after planning.
std::string workload_name_charset_problem(std::string_view name) {
  const bool allowed = std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '+' || c == '-';
  });
  if (!allowed)
    return got("must be ASCII letters, digits, '_', '.', '+' and '-' only (sims pastes it into "
               "a shell command line)",
               echo_string(name));
  if (name.front() == '.' || name.find("..") != std::string_view::npos)
    return got("must not start with '.' or contain \"..\" (it becomes part of file names)",
               echo_string(name));
  return {};
}

void check_range(FieldErrors& errors, const std::string& path, std::optional<int64_t> n,
                 int64_t max) {
  if (n && (*n < 1 || *n > max)) errors.push_back({path, got(integer_range_rule(max), *n)});
}

void check_workloads(const RunSpec& spec, FieldErrors& errors) {
  if (spec.workloads.empty()) {
    errors.push_back({"workloads", got("must be a non-empty array of workload names", "[]")});
    return;
  }
  if (!check_count(errors, "workloads", spec.workloads.size(), kMaxWorkloads, "names")) return;
  std::unordered_map<std::string_view, size_t> first_index;
  for (size_t i = 0; i < spec.workloads.size(); ++i) {
    std::string path = "workloads[" + std::to_string(i) + "]";
    const std::string& name = spec.workloads[i];
    if (!check_length(errors, path, name, kMaxWorkloadNameBytes)) continue;
    // Its own rules first: they say why ASCII blanks and controls cannot be in a name.
    if (std::string problem = workload_name_problem(name); !problem.empty()) {
      errors.push_back({path, problem});
      continue;
    }
    if (!check_printable(errors, path, name, TextKind::line)) continue;
    if (std::string problem = workload_name_charset_problem(name); !problem.empty()) {
      errors.push_back({path, problem});
      continue;
    }
    auto [first, inserted] = first_index.emplace(name, i);
    if (!inserted) errors.push_back({path, "duplicate of workloads[" + std::to_string(first->second) + "]"});
  }
}

void check_budget(const Budget& budget, FieldErrors& errors) {
  check_range(errors, "budget.max_iterations", budget.max_iterations, kMaxIterations);
  // Written so NaN fails too: every comparison with NaN is false.
  if (!(budget.max_usd > 0 && budget.max_usd <= kMaxUsd))
    errors.push_back({"budget.max_usd", got(max_usd_rule(), number_text(budget.max_usd))});
  check_range(errors, "budget.max_wall_s", budget.max_wall_s, kMaxWallSeconds);
}

// "expected one of: ..." for the workloads a program could have named, few enough to read.
std::string listing(const std::vector<std::string>& workloads) {
  constexpr size_t kMaxListed = 10;
  std::unordered_set<std::string_view> seen;
  std::string out;
  size_t listed = 0, unlisted = 0;
  for (std::string_view name : workloads) {
    if (name.empty() || !seen.insert(name).second) continue;
    if (listed == kMaxListed) {
      ++unlisted;
      continue;
    }
    out += listed++ ? ", " : "expected one of: ";
    std::string_view shown = os::clip_utf8(name, kMaxEchoedBytes);
    out += key_path_step(shown);
    if (shown.size() < name.size()) out += "...";
  }
  if (listed == 0) return "the workload list is empty";
  if (unlisted) out += ", and " + std::to_string(unlisted) + " more";
  return out;
}

// sims pastes option values into shell commands it runs as maced's user. This comes first
// because it says why (the allowlist would only say the option is not one of its forms).
std::optional<std::string> shell_unsafe_option(const std::string& option) {
  static constexpr std::string_view kSafe =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,:+/@%=-";
  if (option.find_first_not_of(kSafe) != std::string::npos)
    return std::string("may hold only letters, digits and _.,:+/@%=- (sims passes options "
                       "through a shell)");
  return std::nullopt;
}

void check_workload_options(const std::string& path, const WorkloadArgs& args,
                            FieldErrors& errors) {
  const std::string options_path = path + ".options";
  if (!check_count(errors, options_path, args.options.size(), kMaxOptionsPerWorkload, "options"))
    return;
  for (size_t i = 0; i < args.options.size(); ++i) {
    const std::string& option = args.options[i];
    std::string where = options_path + "[" + std::to_string(i) + "]";
    if (!check_text(errors, where, option, kMaxOptionBytes)) continue;
    if (option.empty() || option.front() != '-') {
      errors.push_back({where, got("must be a string starting with '-'", echo_string(option))});
    } else if (auto unsafe = shell_unsafe_option(option)) {
      errors.push_back({where, got(*unsafe, echo_string(option))});
    } else if (auto problem = sims_option_problem(option)) {
      errors.push_back({where, *problem});
    }
  }
}

// The only error validate_run_spec reports at the exact path "workload_args.<program>"
// is the first one below; the JSON parser relies on that to drop it when `workloads`
// itself was unreadable.
void check_workload_args(const RunSpec& spec, FieldErrors& errors) {
  if (!check_count(errors, "workload_args", spec.workload_args.size(), kMaxWorkloadArgs,
                   "programs"))
    return;
  std::unordered_set<std::string_view> workloads(spec.workloads.begin(), spec.workloads.end());
  std::optional<std::string> known;  // built once: a spec may name many unknown programs
  for (const auto& [program, args] : spec.workload_args) {
    std::string path = "workload_args." + key_path_step(program);
    if (!workloads.contains(program)) {
      if (!known) known = listing(spec.workloads);
      errors.push_back({path, "not one of the workloads; " + *known});
    }
    if (args.finish_mask.size() > kMaxFinishMaskDigits) {
      errors.push_back({path + ".finish_mask",
                        "must be at most " + std::to_string(kMaxFinishMaskDigits) +
                            " hex digits (one per tile of a 256x256 mesh), got " +
                            std::to_string(args.finish_mask.size())});
    } else {
      for (char c : args.finish_mask) {
        if (!is_hex_digit(c)) {
          errors.push_back({path + ".finish_mask", got("must be a string of hex digits",
                                                       echo_string(args.finish_mask))});
          break;
        }
      }
    }
    check_range(errors, path + ".rtl_timeout", args.rtl_timeout, kMaxCycles);
    check_range(errors, path + ".max_cycle", args.max_cycle, kMaxCycles);
    check_workload_options(path, args, errors);
  }
}

void check_tools(const RunSpec& spec, FieldErrors& errors) {
  if (!check_count(errors, "tools", spec.tools.size(), kMaxTools, "tool names")) return;
  std::unordered_map<std::string_view, size_t> first_index;
  for (size_t i = 0; i < spec.tools.size(); ++i) {
    std::string path = "tools[" + std::to_string(i) + "]";
    const std::string& name = spec.tools[i];
    if (!check_text(errors, path, name, kMaxToolNameBytes)) continue;
    if (!is_tool_name(name)) {
      errors.push_back({path, got("must be a tool name: a lowercase letter, then lowercase "
                                  "letters, digits and _",
                                  echo_string(name))});
      continue;
    }
    auto [first, inserted] = first_index.emplace(name, i);
    if (!inserted)
      errors.push_back({path, "duplicate of tools[" + std::to_string(first->second) + "]"});
  }
}

void check_function_names(const std::vector<std::string>& names, const std::string& field,
                          FieldErrors& errors) {
  // Each function at most once, so a longer list has a duplicate.
  if (!check_count(errors, field, names.size(), std::size(kReplayFunctions), "functions"))
    return;
  std::unordered_map<std::string_view, size_t> first_index;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string path = field + "[" + std::to_string(i) + "]";
    const std::string& name = names[i];
    bool known = false;
    for (std::string_view f : kReplayFunctions) known = known || f == name;
    if (!known) {
      errors.push_back({path, got("must be one of " + joined(kReplayFunctions), echo_string(name))});
      continue;
    }
    auto [first, inserted] = first_index.emplace(name, i);
    if (!inserted)
      errors.push_back({path, "duplicate of " + field + "[" + std::to_string(first->second) + "]"});
  }
}

// REQ-REPLAY-2, 3.
void check_replay(const RunSpec& spec, FieldErrors& errors) {
  const ReplaySettings& r = spec.replay;
  if (r.cache) check_function_names(*r.cache, "replay.cache", errors);
  check_function_names(r.bypass, "replay.bypass", errors);
  if (r.from && check_text(errors, "replay.from", *r.from, kMaxRunIdBytes) &&
      (r.from->empty() || r.from->find_first_of("/ \t\n") != std::string::npos))
    errors.push_back({"replay.from", got("must be a run ID", echo_string(*r.from))});
  if (!r.bypass.empty() && !r.from)
    errors.push_back({"replay.bypass",
                      "needs replay.from, the run whose cache entries serve the bypassed calls "
                      "(a new run's own tags have none)"});
}

void check_core_descriptor(const RunSpec& spec, FieldErrors& errors) {
  if (spec.core == Core::generic) {
    if (!spec.core_descriptor_json) {
      errors.push_back({"core_descriptor", "required when core is generic"});
      return;
    }
  } else {
    if (spec.core_descriptor_json)
      errors.push_back({"core_descriptor", "only allowed when core is generic, got core " +
                                               echo_string(to_string(spec.core))});
    return;
  }
  // Checked as text first: its strings are printed with the spec, and JSON escapes only
  // the control characters among them.
  if (!check_text(errors, "core_descriptor", *spec.core_descriptor_json, kMaxCoreDescriptorBytes))
    return;
  simdjson::dom::parser parser;
  simdjson::padded_string text(*spec.core_descriptor_json);
  auto parsed = parser.parse(text);
  if (parsed.error() || !parsed.value_unsafe().is_object()) {
    errors.push_back({"core_descriptor", got("must be a JSON object", echo_string(*spec.core_descriptor_json))});
    return;
  }
  // Its form only: whether the Generic Tile can host the core it describes is the run's
  // support check (REQ-EXEC-20), which ends the run unsupported_core instead.
  for (auto& error : parse_core_descriptor(*spec.core_descriptor_json).errors)
    errors.push_back(std::move(error));
  // The wrapper is written by an rtl task's agent (the spec's scope: "with RTL edits on").
  if (!spec.options.rtl_edits)
    errors.push_back({"options.rtl_edits", "must be true when core is generic: an rtl task "
                                           "writes the core's wrapper"});
}

void check_objective(const RunSpec& spec, FieldErrors& errors) {
  if (!check_text(errors, "objective", spec.objective, kMaxObjectiveBytes, TextKind::prose))
    return;
  if (is_blank(spec.objective))
    errors.push_back({"objective", got("must be a non-empty string (not only whitespace)",
                                       echo_string(spec.objective))});
}

void check_llm_choice(const RunSpec& spec, FieldErrors& errors) {
  if (spec.backend && check_text(errors, "backend", *spec.backend, kMaxBackendBytes)) {
    bool known = false;
    for (std::string_view name : kBackendNames) known = known || name == *spec.backend;
    if (!known)
      errors.push_back({"backend", got("must be one of " + joined(kBackendNames),
                                       echo_string(*spec.backend))});
  }
  if (spec.model && check_text(errors, "model", *spec.model, kMaxModelBytes) && spec.model->empty())
    errors.push_back({"model", got("must be a non-empty string", echo_string(*spec.model))});
}

}  // namespace

std::string max_usd_rule() {
  return "must be a number above 0 and at most " + std::to_string(static_cast<int64_t>(kMaxUsd));
}

std::string key_path_step(std::string_view key) {
  if (key.size() <= kMaxWorkloadNameBytes && !unprintable_text_problem(key, TextKind::line))
    return std::string(key);
  return quoted_for_display(key, kMaxEchoedBytes);
}

std::string count_limit_message(size_t max, std::string_view what, size_t count) {
  return "must hold at most " + std::to_string(max) + " " + std::string(what) + ", got " +
         std::to_string(count);
}

std::string integer_range_rule(int64_t max) {
  return "must be an integer from 1 to " + std::to_string(max);
}

int64_t RunSpec::effective_rtl_timeout(const std::string& program) const {
  auto it = workload_args.find(program);
  if (it != workload_args.end() && it->second.rtl_timeout) return *it->second.rtl_timeout;
  return effective_rtl_timeout();
}

std::optional<int64_t> RunSpec::effective_max_cycle(const std::string& program) const {
  auto it = workload_args.find(program);
  if (it != workload_args.end() && it->second.max_cycle) return it->second.max_cycle;
  return max_cycle;
}

bool is_tool_name(std::string_view name) {
  if (name.empty() || name.front() < 'a' || name.front() > 'z') return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

std::string_view to_string(Core c) {
  for (auto& [core, name] : kCoreNames)
    if (core == c) return name;
  return "unknown";
}

std::optional<Core> core_from_string(std::string_view s) {
  for (auto& [core, name] : kCoreNames)
    if (name == s) return core;
  return std::nullopt;
}

FieldErrors validate_run_spec(const RunSpec& spec) {
  FieldErrors errors;
  // A typed spec can carry any integer cast to Core, so its name is checked too.
  if (!core_from_string(to_string(spec.core)))
    errors.push_back({"core", got("must be one of " + core_names(),
                                  static_cast<int64_t>(spec.core))});
  std::string axis_rule = integer_range_rule(kMaxMeshAxis);
  if (spec.mesh_x < 1 || spec.mesh_x > kMaxMeshAxis)
    errors.push_back({"mesh[0]", got(axis_rule, spec.mesh_x)});
  if (spec.mesh_y < 1 || spec.mesh_y > kMaxMeshAxis)
    errors.push_back({"mesh[1]", got(axis_rule, spec.mesh_y)});
  check_workloads(spec, errors);
  check_objective(spec, errors);
  check_budget(spec.budget, errors);
  check_range(errors, "rtl_timeout", spec.rtl_timeout, kMaxCycles);
  check_range(errors, "max_cycle", spec.max_cycle, kMaxCycles);
  check_range(errors, "waveform_cycles", spec.waveform_cycles, kMaxWaveformCycles);
  check_range(errors, "parallel_workloads", spec.parallel_workloads, kMaxParallelWorkloads);
  check_workload_args(spec, errors);
  check_core_descriptor(spec, errors);
  check_llm_choice(spec, errors);
  check_range(errors, "checkouts", spec.checkouts, kMaxCheckouts);
  check_tools(spec, errors);
  check_replay(spec, errors);
  for (FieldError& e : check_design_points(spec.designs, spec.sweep)) errors.push_back(std::move(e));
  return errors;
}

namespace {

// A parameter left at 0 (the checkout's default) is null, as the JSON form spells it.
void write_parameter(JsonWriter& w, std::string_view key, int64_t value) {
  w.key(key);
  value ? w.value(value) : w.null();
}

void write_design_fields(JsonWriter& w, const RunSpec& spec) {
  w.key("designs").begin_array();
  for (const auto& d : spec.designs) {
    w.begin_object().field("name", d.name).key("caches").begin_object();
    for (const auto& [cache, c] : d.caches) {
      w.key(cache).begin_object();
      write_parameter(w, "size", c.size);
      write_parameter(w, "associativity", c.associativity);
      w.end_object();
    }
    w.end_object().key("config_rtl").begin_array();
    for (const auto& define : d.config_rtl) w.value(define);
    w.end_array().end_object();
  }
  w.end_array();
  w.key("sweep").begin_object();
  for (const auto& [cache, values] : spec.sweep) {
    w.key(cache).begin_object();
    if (!values.sizes.empty()) {
      w.key("size").begin_array();
      for (int64_t v : values.sizes) w.value(v);
      w.end_array();
    }
    if (!values.associativities.empty()) {
      w.key("associativity").begin_array();
      for (int64_t v : values.associativities) w.value(v);
      w.end_array();
    }
    w.end_object();
  }
  w.end_object();
  w.field("baseline", spec.baseline);
}

}  // namespace

std::string run_spec_to_json(const RunSpec& spec, bool pretty) {
  JsonWriter w(pretty);
  w.begin_object();
  w.field("core", to_string(spec.core));
  w.key("mesh").begin_array().value(spec.mesh_x).value(spec.mesh_y).end_array();
  w.key("workloads").begin_array();
  for (const std::string& name : spec.workloads) w.value(name);
  w.end_array();
  w.field("objective", spec.objective);
  w.key("budget").begin_object();
  w.field("max_iterations", spec.budget.max_iterations);
  w.field("max_usd", spec.budget.max_usd);
  w.field("max_wall_s", spec.budget.max_wall_s);
  w.end_object();
  w.field("coverage", spec.coverage);
  w.field("monitors", spec.monitors);
  w.field("run_every_workload", spec.run_every_workload);
  w.field("waveform", spec.waveform);
  w.key("waveform_cycles");
  spec.waveform_cycles ? w.value(*spec.waveform_cycles) : w.null();
  w.key("parallel_workloads");
  spec.parallel_workloads ? w.value(*spec.parallel_workloads) : w.null();
  w.field("rtl_timeout", spec.effective_rtl_timeout());
  w.key("max_cycle");
  spec.max_cycle ? w.value(*spec.max_cycle) : w.null();
  w.key("workload_args").begin_object();
  for (const auto& [program, args] : spec.workload_args) {
    w.key(program).begin_object();
    // An empty mask is the per-tile default, which the JSON form spells null: "" is not
    // a mask a user may write.
    w.key("finish_mask");
    args.finish_mask.empty() ? w.null() : w.value(args.finish_mask);
    w.key("rtl_timeout");
    args.rtl_timeout ? w.value(*args.rtl_timeout) : w.null();
    w.key("max_cycle");
    args.max_cycle ? w.value(*args.max_cycle) : w.null();
    w.key("options").begin_array();
    for (const std::string& option : args.options) w.value(option);
    w.end_array();
    w.end_object();
  }
  w.end_object();
  w.key("core_descriptor");
  spec.core_descriptor_json ? w.raw(*spec.core_descriptor_json) : w.null();
  w.key("options").begin_object();
  w.field("rtl_edits", spec.options.rtl_edits);
  w.field("fast_path", spec.options.fast_path);
  w.field("task_prompts", spec.options.task_prompts);
  w.field("build_only", spec.options.build_only);
  w.end_object();
  w.key("backend");
  spec.backend ? w.value(*spec.backend) : w.null();
  w.key("model");
  spec.model ? w.value(*spec.model) : w.null();
  w.key("checkouts");
  spec.checkouts ? w.value(*spec.checkouts) : w.null();
  w.key("dispatch");
  spec.dispatch ? w.value(to_string(*spec.dispatch)) : w.null();
  w.key("tools").begin_array();
  for (const std::string& name : spec.tools) w.value(name);
  w.end_array();
  w.key("replay").begin_object();
  w.key("cache");
  if (spec.replay.cache) {
    w.begin_array();
    for (const std::string& f : *spec.replay.cache) w.value(f);
    w.end_array();
  } else {
    w.null();
  }
  w.key("bypass").begin_array();
  for (const std::string& f : spec.replay.bypass) w.value(f);
  w.end_array();
  w.key("from");
  spec.replay.from ? w.value(*spec.replay.from) : w.null();
  w.end_object();
  write_design_fields(w, spec);
  w.end_object();
  return w.take();
}

std::vector<std::string> extra_build_flags(const RunSpec& spec) {
  if (spec.coverage) return {std::string(kCoverageBuildFlag)};
  return {};
}

}  // namespace mace
