// The JSON form of a run spec. This file owns what only JSON has: types, unknown and
// repeated keys, null for "unset", the text of a finish mask (0x prefix, at least one
// digit), and integers too wide for the typed field. Every other rule about values lives
// in validate_run_spec, which runs on what was read, so both ways in say the same thing.

#include <algorithm>
#include <charconv>
#include <climits>
#include <compare>
#include <set>
#include <span>
#include <unordered_set>
#include <utility>

#include <simdjson.h>

#include "core/json_syntax.h"
#include "core/json_document.h"
#include "core/json_writer.h"
#include "core/printable_text.h"
#include "core/run_spec.h"
#include "os/text.h"

#include "core/joined.h"

namespace mace {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

using FieldNames = std::span<const std::string_view>;

// In the order run_spec_to_json writes them, which is also the order errors are listed.
constexpr std::string_view kTopLevelFields[] = {
    "core", "mesh", "workloads", "objective", "budget", "coverage", "monitors", "run_every_workload",
    "waveform", "waveform_cycles", "parallel_workloads", "rtl_timeout", "max_cycle", "workload_args", "core_descriptor", "options", "backend", "model", "checkouts", "dispatch",
    "tools", "replay", "designs", "sweep", "baseline"};
// The top-level fields that are true or false, and those that are an optional integer
// from 1 to a limit (null: unset): one rule each, by table.
constexpr std::pair<std::string_view, bool RunSpec::*> kBooleans[] = {{"coverage", &RunSpec::coverage},
    {"monitors", &RunSpec::monitors}, {"run_every_workload", &RunSpec::run_every_workload},
    {"waveform", &RunSpec::waveform}, {"baseline", &RunSpec::baseline}};
struct OptionalInteger { std::string_view key; std::optional<int64_t> RunSpec::*member; int64_t most; };
constexpr OptionalInteger kOptionalIntegers[] = {
    {"waveform_cycles", &RunSpec::waveform_cycles, kMaxWaveformCycles},
    {"parallel_workloads", &RunSpec::parallel_workloads, kMaxParallelWorkloads},
    {"rtl_timeout", &RunSpec::rtl_timeout, kMaxCycles},
    {"max_cycle", &RunSpec::max_cycle, kMaxCycles},
    {"checkouts", &RunSpec::checkouts, kMaxCheckouts}};

constexpr std::string_view kBudgetFields[] = {"max_iterations", "max_usd", "max_wall_s"};
constexpr std::string_view kWorkloadArgsFields[] = {"finish_mask", "rtl_timeout", "max_cycle",
                                                    "options"};
constexpr std::string_view kOptionsFields[] = {"rtl_edits", "fast_path", "task_prompts", "build_only"};
constexpr std::string_view kReplayFields[] = {"cache", "bypass", "from"};
constexpr std::string_view kDesignFields[] = {"name", "caches", "config_rtl"};
constexpr std::string_view kGeometryFields[] = {"size", "associativity"};

constexpr std::string_view kBoolean = "must be true or false";
constexpr std::string_view kNonEmptyString = "must be a non-empty string";

// A value echoed in a message is cut short so a megabyte-long string cannot flood a
// terminal or a log line, and what is not printable in it is escaped.
constexpr size_t kMaxEchoedBytes = 60;

// The given value as the user would have written it, in JSON.
std::string describe(element given) {
  if (given.is_string())
    return quoted_for_display(given.get_string().value_unsafe(), kMaxEchoedBytes);
  std::string text = simdjson::minify(given);
  std::string_view shown = os::clip_utf8(text, kMaxEchoedBytes);
  std::string out = json_for_display(shown);
  if (shown.size() < text.size()) out += "...";
  return out;
}

// Callers check the type first. A copy, not the reference value_unsafe() gives, so a
// range-for over it does not outlive the temporary result holding it.
simdjson::dom::array array_of(element e) { return e.get_array().value_unsafe(); }
simdjson::dom::object object_of(element e) { return e.get_object().value_unsafe(); }

std::string child_path(const std::string& parent, std::string_view key) {
  std::string step = key_path_step(key);
  return parent.empty() ? step : parent + "." + step;
}

std::string element_path(const std::string& parent, size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The digits of a finish mask as JSON spells it: hex digits, optionally after 0x.
std::optional<std::string> finish_mask_digits(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  if (text.empty() || !std::all_of(text.begin(), text.end(), is_hex_digit)) return std::nullopt;
  return std::string(text);
}

// Sorting errors by path puts them in the order the normalised spec lists its fields,
// so a user reads them top to bottom: listed names by their place in their object,
// array elements by index, other names (unknown fields, program names) after, by name.
struct PathStep {
  int64_t rank;
  std::string name;
  auto operator<=>(const PathStep&) const = default;
};

FieldNames listed_names(const std::vector<PathStep>& parents) {
  if (parents.empty()) return kTopLevelFields;
  const std::string& top = parents.front().name;
  if (parents.size() == 1 && top == "budget") return kBudgetFields;
  if (parents.size() == 1 && top == "options") return kOptionsFields;
  if (parents.size() == 1 && top == "replay") return kReplayFields;
  if (parents.size() == 2 && top == "workload_args") return kWorkloadArgsFields;
  if (parents.size() == 2 && top == "designs") return kDesignFields;
  if ((parents.size() == 4 && top == "designs") || (parents.size() == 2 && top == "sweep")) return kGeometryFields;
  return {};
}

// A key containing '.' or '[' splits into more steps than it is; the order stays total,
// which is all sorting needs.
std::vector<PathStep> path_sort_key(std::string_view path) {
  std::vector<PathStep> steps;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    size_t close = path[i] == '[' ? path.find(']', i) : std::string_view::npos;
    if (close != std::string_view::npos) {
      int64_t index = 0;
      std::from_chars(path.data() + i + 1, path.data() + close, index);
      steps.push_back({index, ""});
      i = close + 1;
      continue;
    }
    size_t end = path.find_first_of(".[", i + 1);
    if (end == std::string_view::npos) end = path.size();
    std::string_view name = path.substr(i, end - i);
    FieldNames listed = listed_names(steps);
    auto it = std::find(listed.begin(), listed.end(), name);
    int64_t rank = it == listed.end() ? INT64_MAX : it - listed.begin();
    steps.push_back({rank, std::string(name)});
    i = end;
  }
  return steps;
}

void sort_by_path(FieldErrors& errors) {
  std::vector<std::pair<std::vector<PathStep>, FieldError>> keyed;
  keyed.reserve(errors.size());
  for (FieldError& e : errors) keyed.emplace_back(path_sort_key(e.path), std::move(e));
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  errors.clear();
  for (auto& [key, e] : keyed) errors.push_back(std::move(e));
}

class SpecReader {
 public:
  SpecParseResult read(element root);

 private:
  // For a value the spec cannot hold. What validate_run_spec says at or below `path`
  // would only be about the placeholder left in its place, so that is dropped.
  void reject(const std::string& path, std::string_view rule, element given);
  void reject(const std::string& path, std::string message);
  // For a problem with a key (unknown, repeated); the values read keep their checks.
  void report(const std::string& path, std::string message);
  bool was_rejected(std::string_view path) const;
  bool covered_by_rejection(std::string_view path) const;

  // Visits each member once, in document order; a repeated key is reported, not visited.
  template <typename Visit>
  void for_each_member(simdjson::dom::object object, const std::string& path, Visit&& visit);
  // Like for_each_member, reporting keys outside `allowed`.
  template <typename Visit>
  void for_each_field(simdjson::dom::object object, const std::string& path, FieldNames allowed,
                      Visit&& visit);

  std::optional<int64_t> read_integer(element e, const std::string& path, std::string_view rule);
  std::optional<double> read_number(element e, const std::string& path, std::string_view rule);
  std::optional<bool> read_bool(element e, const std::string& path);
  std::optional<std::string> read_string(element e, const std::string& path, std::string_view rule);
  // The array at `path`, or nullopt after refusing it: not an array (`rule`), or longer
  // than `max` (its elements are then not read, so there is one message, not a million).
  std::optional<simdjson::dom::array> read_array(element e, const std::string& path,
                                                 std::string_view rule, size_t max,
                                                 std::string_view what);

  void read_field(std::string_view key, element value, const std::string& path);
  void read_core(element e);
  void read_dispatch(element e);
  void read_mesh(element e);
  void read_workloads(element e);
  void read_budget(element e);
  void read_workload_args(element e);
  void read_workload_entry(element e, const std::string& path, WorkloadArgs& args);
  void read_options(element e);
  void read_tools(element e);
  void read_replay(element e);
  std::vector<std::string> read_function_names(element e, const std::string& path);
  void read_designs(element e);
  void read_design(element e, const std::string& path, DesignPoint& design);
  void read_sweep(element e);
  // A cache name of kCacheNames as an object key; reports any other.
  bool known_cache(std::string_view key, const std::string& path);
  // A size: bytes as an integer, or a string with a unit ("4KiB"); 0 after refusing it.
  int64_t read_size(element e, const std::string& path);
  void add_value_errors();

  RunSpec spec_;
  FieldErrors errors_;
  std::unordered_set<std::string> rejected_;
};

void SpecReader::reject(const std::string& path, std::string_view rule, element given) {
  reject(path, std::string(rule) + ", got " + describe(given));
}

void SpecReader::reject(const std::string& path, std::string message) {
  rejected_.insert(path);
  errors_.push_back({path, std::move(message)});
}

void SpecReader::report(const std::string& path, std::string message) {
  errors_.push_back({path, std::move(message)});
}

bool SpecReader::was_rejected(std::string_view path) const {
  return rejected_.contains(std::string(path));
}

bool SpecReader::covered_by_rejection(std::string_view path) const {
  // Looked up by the path and each enclosing one ("a.b[2]", "a.b", "a"), so a spec with
  // a million bad elements costs a million lookups, not a million squared.
  for (std::string_view enclosing = path;;) {
    if (was_rejected(enclosing)) return true;
    size_t cut = enclosing.find_last_of(".[");
    if (cut == std::string_view::npos || cut == 0) break;
    enclosing = enclosing.substr(0, cut);
  }
  // Rules that compare two fields say nothing useful once one of them was unreadable.
  if (path == "core_descriptor" && was_rejected("core")) return true;
  if (was_rejected("workloads") && path.starts_with("workload_args."))
    for (const auto& entry : spec_.workload_args)
      if (path == "workload_args." + key_path_step(entry.first)) return true;
  return false;
}

template <typename Visit>
void SpecReader::for_each_member(simdjson::dom::object object, const std::string& path,
                                 Visit&& visit) {
  std::set<std::string_view> seen;
  for (simdjson::dom::key_value_pair member : object) {
    std::string member_path = child_path(path, member.key);
    if (!seen.insert(member.key).second) {
      report(member_path, "duplicate key; each key may appear only once");
      continue;
    }
    visit(member.key, member.value, member_path);
  }
}

template <typename Visit>
void SpecReader::for_each_field(simdjson::dom::object object, const std::string& path,
                                FieldNames allowed, Visit&& visit) {
  for_each_member(object, path, [&](std::string_view key, element value, const std::string& member_path) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      report(member_path, "unknown field; expected one of: " + joined(allowed));
      return;
    }
    visit(key, value, member_path);
  });
}

std::optional<int64_t> SpecReader::read_integer(element e, const std::string& path,
                                                std::string_view rule) {
  if (e.type() == element_type::INT64) return e.get_int64().value_unsafe();
  std::string message = std::string(rule) + ", got " + describe(e);
  if (e.type() == element_type::UINT64) message += " (more than the largest integer, 9223372036854775807)";
  reject(path, std::move(message));
  return std::nullopt;
}

std::optional<double> SpecReader::read_number(element e, const std::string& path,
                                              std::string_view rule) {
  switch (e.type()) {
    case element_type::INT64:
    case element_type::UINT64:
    case element_type::DOUBLE:
      return e.get_double().value_unsafe();
    default:
      reject(path, rule, e);
      return std::nullopt;
  }
}

std::optional<bool> SpecReader::read_bool(element e, const std::string& path) {
  if (e.is_bool()) return e.get_bool().value_unsafe();
  reject(path, kBoolean, e);
  return std::nullopt;
}

std::optional<std::string> SpecReader::read_string(element e, const std::string& path,
                                                   std::string_view rule) {
  if (e.is_string()) return std::string(e.get_string().value_unsafe());
  reject(path, rule, e);
  return std::nullopt;
}

std::optional<simdjson::dom::array> SpecReader::read_array(element e, const std::string& path,
                                                          std::string_view rule, size_t max,
                                                          std::string_view what) {
  if (!e.is_array()) {
    reject(path, rule, e);
    return std::nullopt;
  }
  simdjson::dom::array array = array_of(e);
  if (array.size() > max) {
    reject(path, count_limit_message(max, what, array.size()));
    return std::nullopt;
  }
  return array;
}

SpecParseResult SpecReader::read(element root) {
  if (!root.is_object()) {
    reject("", "must be a JSON object holding the run specification", root);
    return {std::nullopt, std::move(errors_)};
  }
  simdjson::dom::object top = object_of(root);
  for_each_field(top, "", kTopLevelFields,
                 [&](std::string_view key, element value, const std::string& path) {
                   read_field(key, value, path);
                 });
  if (top.at_key("workloads").error())
    reject("workloads", "required field is missing; give a non-empty array of workload names");
  if (top.at_key("objective").error())
    reject("objective", "required field is missing; give a non-empty string saying what the run should achieve");
  // Filled so that what is parsed equals what run_spec_to_json(parsed) parses back to.
  if (!spec_.rtl_timeout) spec_.rtl_timeout = kDefaultRtlTimeout;

  add_value_errors();
  if (!errors_.empty()) {
    sort_by_path(errors_);
    return {std::nullopt, std::move(errors_)};
  }
  return {std::move(spec_), {}};
}

void SpecReader::add_value_errors() {
  for (FieldError& e : validate_run_spec(spec_))
    if (!covered_by_rejection(e.path)) errors_.push_back(std::move(e));
}

void SpecReader::read_field(std::string_view key, element value, const std::string& path) {
  for (const auto& [name, member] : kBooleans)
    if (key == name) {
      if (auto b = read_bool(value, path)) spec_.*member = *b;
      return;
    }
  for (const OptionalInteger& field : kOptionalIntegers)
    if (key == field.key) {
      if (!value.is_null()) spec_.*field.member = read_integer(value, path, integer_range_rule(field.most));
      return;
    }
  if (key == "core") {
    read_core(value);
  } else if (key == "mesh") {
    read_mesh(value);
  } else if (key == "workloads") {
    read_workloads(value);
  } else if (key == "objective") {
    if (auto s = read_string(value, path, "must be a non-empty string (not only whitespace)"))
      spec_.objective = std::move(*s);
  } else if (key == "budget") {
    read_budget(value);
  } else if (key == "workload_args") {
    read_workload_args(value);
  } else if (key == "core_descriptor") {
    if (value.is_object())
      spec_.core_descriptor_json = simdjson::minify(value);
    else if (!value.is_null())
      reject(path, "must be a JSON object", value);
  } else if (key == "options") {
    read_options(value);
  } else if (key == "backend") {
    if (!value.is_null())
      spec_.backend = read_string(value, path, "must be one of " + joined(kBackendNames));
  } else if (key == "model") {
    if (!value.is_null()) spec_.model = read_string(value, path, kNonEmptyString);
  } else if (key == "dispatch") {
    read_dispatch(value);
  } else if (key == "tools") {
    read_tools(value);
  } else if (key == "replay") {
    read_replay(value);
  } else if (key == "designs") {
    read_designs(value);
  } else if (key == "sweep") {
    read_sweep(value);
  }
}

void SpecReader::read_core(element e) {
  std::optional<Core> core;
  if (e.is_string()) core = core_from_string(e.get_string().value_unsafe());
  if (core)
    spec_.core = *core;
  else
    reject("core", "must be one of ariane, sparc, pico, generic", e);
}

void SpecReader::read_dispatch(element e) {
  if (e.is_null()) return;
  std::optional<Dispatch> dispatch;
  if (e.is_string()) dispatch = dispatch_from_string(e.get_string().value_unsafe());
  if (dispatch)
    spec_.dispatch = *dispatch;
  else
    reject("dispatch", "must be \"queue\" or \"batches\"", e);
}

void SpecReader::read_mesh(element e) {
  std::string axis_rule = integer_range_rule(kMaxMeshAxis);
  if (!e.is_array() || array_of(e).size() != 2) {
    reject("mesh", "must be a pair of integers [x, y], each from 1 to " + std::to_string(kMaxMeshAxis), e);
    return;
  }
  int* axes[] = {&spec_.mesh_x, &spec_.mesh_y};
  size_t index = 0;
  for (element axis : array_of(e)) {
    std::string path = element_path("mesh", index);
    if (auto n = read_integer(axis, path, axis_rule)) {
      // validate_run_spec checks the range of what an int holds; beyond that only here.
      if (*n < INT_MIN || *n > INT_MAX)
        reject(path, axis_rule, axis);
      else
        *axes[index] = static_cast<int>(*n);
    }
    ++index;
  }
}

void SpecReader::read_workloads(element e) {
  auto names = read_array(e, "workloads", "must be a non-empty array of workload names",
                          kMaxWorkloads, "names");
  if (!names) return;
  size_t index = 0;
  for (element name : *names) {
    // A placeholder keeps later names at their own index, so their errors say where.
    std::string path = element_path("workloads", index++);
    spec_.workloads.push_back(read_string(name, path, kNonEmptyString).value_or(""));
  }
}

void SpecReader::read_budget(element e) {
  if (!e.is_object()) {
    reject("budget", "must be an object with " + joined(kBudgetFields), e);
    return;
  }
  for_each_field(object_of(e), "budget", kBudgetFields,
                 [&](std::string_view key, element value, const std::string& path) {
                   if (key == "max_usd") {
                     if (auto usd = read_number(value, path, max_usd_rule()))
                       spec_.budget.max_usd = *usd;
                     return;
                   }
                   const bool iterations = key == "max_iterations";
                   int64_t& limit =
                       iterations ? spec_.budget.max_iterations : spec_.budget.max_wall_s;
                   std::string rule =
                       integer_range_rule(iterations ? kMaxIterations : kMaxWallSeconds);
                   if (auto n = read_integer(value, path, rule)) limit = *n;
                 });
}

void SpecReader::read_workload_args(element e) {
  if (!e.is_object()) {
    reject("workload_args", "must be an object mapping each workload to {" +
                                joined(kWorkloadArgsFields) + "}", e);
    return;
  }
  if (object_of(e).size() > kMaxWorkloadArgs) {
    reject("workload_args", count_limit_message(kMaxWorkloadArgs, "programs", object_of(e).size()));
    return;
  }
  for_each_member(object_of(e), "workload_args",
                  [&](std::string_view program, element value, const std::string& path) {
                    if (!value.is_object()) {
                      reject(path, "must be an object with " + joined(kWorkloadArgsFields), value);
                      return;
                    }
                    read_workload_entry(value, path, spec_.workload_args[std::string(program)]);
                  });
}

void SpecReader::read_workload_entry(element e, const std::string& path, WorkloadArgs& args) {
  for_each_field(object_of(e), path, kWorkloadArgsFields,
                 [&](std::string_view key, element value, const std::string& field_path) {
                   if (key == "finish_mask") {
                     if (value.is_null()) return;
                     std::optional<std::string> digits;
                     if (value.is_string()) digits = finish_mask_digits(value.get_string().value_unsafe());
                     if (digits)
                       args.finish_mask = std::move(*digits);
                     else
                       reject(field_path, "must be a string of hex digits, optionally prefixed 0x", value);
                     return;
                   }
                   if (key == "rtl_timeout" || key == "max_cycle") {
                     if (value.is_null()) return;
                     (key == "rtl_timeout" ? args.rtl_timeout : args.max_cycle) =
                         read_integer(value, field_path, integer_range_rule(kMaxCycles));
                     return;
                   }
                   auto options = read_array(value, field_path,
                                             "must be an array of strings each starting with '-'",
                                             kMaxOptionsPerWorkload, "options");
                   if (!options) return;
                   size_t index = 0;
                   for (element option : *options) {
                     std::string option_path = element_path(field_path, index++);
                     args.options.push_back(
                         read_string(option, option_path, "must be a string starting with '-'").value_or(""));
                   }
                 });
}

void SpecReader::read_options(element e) {
  if (!e.is_object()) {
    reject("options", "must be an object with " + joined(kOptionsFields), e);
    return;
  }
  for_each_field(object_of(e), "options", kOptionsFields,
                 [&](std::string_view key, element value, const std::string& path) {
                   bool& option = key == "rtl_edits"      ? spec_.options.rtl_edits
                                  : key == "fast_path"    ? spec_.options.fast_path
                                  : key == "task_prompts" ? spec_.options.task_prompts
                                                          : spec_.options.build_only;
                   if (auto b = read_bool(value, path)) option = *b;
                 });
}

void SpecReader::read_tools(element e) {
  auto names = read_array(e, "tools", "must be an array of tool names", kMaxTools, "tool names");
  if (!names) return;
  size_t index = 0;
  for (element name : *names) {
    std::string path = element_path("tools", index++);
    spec_.tools.push_back(read_string(name, path, "must be a tool name (a string)").value_or(""));
  }
}

std::vector<std::string> SpecReader::read_function_names(element e, const std::string& path) {
  std::vector<std::string> names;
  auto elements = read_array(e, path,
                             "must be an array of function names (" +
                                 joined(kReplayFunctions) + ")",
                             std::size(kReplayFunctions), "functions");
  if (!elements) return names;
  size_t index = 0;
  for (element name : *elements) {
    std::string at = element_path(path, index++);
    names.push_back(read_string(name, at, "must be one of " + joined(kReplayFunctions)).value_or(""));
  }
  return names;
}

void SpecReader::read_replay(element e) {
  if (!e.is_object()) {
    reject("replay", "must be an object with " + joined(kReplayFields), e);
    return;
  }
  for_each_field(object_of(e), "replay", kReplayFields,
                 [&](std::string_view key, element value, const std::string& path) {
                   if (key == "cache") {
                     if (!value.is_null()) spec_.replay.cache = read_function_names(value, path);
                   } else if (key == "bypass") {
                     spec_.replay.bypass = read_function_names(value, path);
                   } else if (!value.is_null()) {
                     spec_.replay.from = read_string(value, path, "must be a run ID");
                   }
                 });
}

bool SpecReader::known_cache(std::string_view key, const std::string& path) {
  if (std::find(std::begin(kCacheNames), std::end(kCacheNames), key) != std::end(kCacheNames)) return true;
  report(path, "unknown cache; expected one of: " + joined(kCacheNames));
  return false;
}

int64_t SpecReader::read_size(element e, const std::string& path) {
  constexpr std::string_view rule = "must be a size in bytes, as an integer or a string such as \"4KiB\"";
  std::optional<int64_t> bytes;
  if (e.type() == element_type::INT64 && e.get_int64().value_unsafe() > 0) bytes = e.get_int64().value_unsafe();
  else if (e.is_string()) bytes = parse_size_text(e.get_string().value_unsafe());
  if (!bytes) {
    reject(path, rule, e);
    return 0;
  }
  return *bytes;
}

void SpecReader::read_designs(element e) {
  auto designs = read_array(e, "designs", "must be an array of designs, each {" + joined(kDesignFields) + "}",
                            kMaxDesigns, "designs");
  if (!designs) return;
  size_t index = 0;
  for (element value : *designs) {
    const std::string path = element_path("designs", index++);
    DesignPoint& design = spec_.designs.emplace_back();
    if (!value.is_object()) {
      reject(path, "must be an object with " + joined(kDesignFields), value);
      continue;
    }
    if (object_of(value).at_key("name").error()) reject(path + ".name", "required field is missing; give the design a name");
    read_design(value, path, design);
  }
}

void SpecReader::read_design(element e, const std::string& path, DesignPoint& design) {
  for_each_field(object_of(e), path, kDesignFields, [&](std::string_view key, element value, const std::string& at) {
    if (key == "name") {
      design.name = read_string(value, at, "must be a name of letters, digits, '_', '.' or '-'").value_or("");
    } else if (key == "config_rtl") {
      auto defines = read_array(value, at, "must be an array of RTL defines", kMaxDesignDefines, "RTL defines");
      if (!defines) return;
      size_t i = 0;
      for (element define : *defines)
        design.config_rtl.push_back(read_string(define, element_path(at, i++), "must be an RTL define").value_or(""));
    } else if (!value.is_object()) {
      reject(at, "must be an object mapping caches (" + joined(kCacheNames) + ") to {size, associativity}", value);
    } else {
      for_each_member(object_of(value), at, [&](std::string_view cache, element geometry, const std::string& cache_path) {
        if (!known_cache(cache, cache_path)) return;
        if (!geometry.is_object()) {
          reject(cache_path, "must be an object with size, associativity or both", geometry);
          return;
        }
        CacheOverride& c = design.caches[std::string(cache)];
        for_each_field(object_of(geometry), cache_path, kGeometryFields,
                       [&](std::string_view field, element v, const std::string& field_path) {
                         if (v.is_null()) return;  // the checkout's default
                         if (field == "size") c.size = read_size(v, field_path);
                         else c.associativity = read_integer(v, field_path, "must be an integer, a power of two").value_or(0);
                       });
      });
    }
  });
}

void SpecReader::read_sweep(element e) {
  if (!e.is_object()) {
    reject("sweep", "must be an object mapping caches (" + joined(kCacheNames) + ") to {size: [...], associativity: [...]}", e);
    return;
  }
  for_each_member(object_of(e), "sweep", [&](std::string_view cache, element value, const std::string& path) {
    if (!known_cache(cache, path)) return;
    if (!value.is_object()) {
      reject(path, "must be an object with \"size\" and/or \"associativity\", each a list", value);
      return;
    }
    CacheSweep& sweep = spec_.sweep[std::string(cache)];
    for_each_field(object_of(value), path, kGeometryFields, [&](std::string_view field, element list, const std::string& at) {
      auto values = read_array(list, at, "must be a list of values", kMaxSweepValues, "values");
      if (!values) return;
      size_t i = 0;
      for (element v : *values) {
        const std::string value_path = element_path(at, i++);
        if (field == "size") sweep.sizes.push_back(read_size(v, value_path));
        else sweep.associativities.push_back(read_integer(v, value_path, "must be an integer, a power of two").value_or(0));
      }
    });
  });
}

}  // namespace

SpecParseResult parse_run_spec_json(std::string_view json) {
  // The text first, before anything of it is parsed or kept: a size a caller may have
  // stopped reading at, and bytes a C string or a terminal would take for something else.
  if (auto problem = json_document_problem(json, "a run spec", kMaxSpecJsonBytes))
    return {std::nullopt, {{"", std::move(*problem)}}};
  simdjson::dom::parser parser;
  // An empty view may have no data pointer at all, which padded_string would copy from.
  simdjson::padded_string padded(json.empty() ? std::string_view("") : json);
  auto parsed = parser.parse(padded);
  if (parsed.error())
    return {std::nullopt, {{"", invalid_json_message(json, simdjson::error_message(parsed.error()))}}};
  return SpecReader().read(parsed.value_unsafe());
}

}  // namespace mace
