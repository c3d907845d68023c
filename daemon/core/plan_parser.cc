#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "core/directive_line.h"
#include "core/json_writer.h"
#include "core/plan.h"
#include "core/task_graph.h"
#include "os/text.h"

namespace mace {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }


std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_task_id(std::string_view s) {
  if (s.empty() || s.size() > kMaxTaskIdBytes) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

bool is_upper_snake(std::string_view s) {
  if (s.empty() || !(s.front() >= 'A' && s.front() <= 'Z')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// Positive decimal without sign or leading junk; overflow is as bad as zero.
std::optional<int64_t> positive_integer(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  int64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n <= 0) return std::nullopt;
  return n;
}

// Splits on any of `separators`, dropping empty pieces.
std::vector<std::string_view> split_any(std::string_view s, std::string_view separators) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || separators.find(s[i]) != std::string_view::npos) {
      if (i > start) out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

enum class Tag { task, caches, config_rtl, network };

struct Tagged {
  Tag tag;
  std::string_view body;
};

// The directive a line holds, or nullopt for prose (see plan.h for what is accepted).
std::optional<Tagged> match_tag(std::string_view line) {
  static constexpr std::pair<std::string_view, Tag> kTags[] = {
      {"CONFIG_RTL", Tag::config_rtl}, {"CACHES", Tag::caches}, {"TASK", Tag::task},
      {"NETWORK", Tag::network}};
  for (const auto& [name, tag] : kTags)
    if (auto body = directive_body(line, name)) return Tagged{tag, *body};
  return std::nullopt;
}

// "key=value" with the key matched case-insensitively; nullopt when the key differs.
std::optional<std::string_view> keyed_value(std::string_view field, std::string_view key) {
  field = os::trim(field);
  if (!os::starts_with_ignoring_case(field, key)) return std::nullopt;
  std::string_view rest = os::trim(field.substr(key.size()));
  if (rest.empty() || rest.front() != '=') return std::nullopt;
  return os::trim(rest.substr(1));
}

struct LineResult {
  std::optional<PlannedTask> task;
  std::string reason;  // set when the line is malformed
};

LineResult parse_task(std::string_view body) {
  LineResult r;
  size_t p1 = body.find('|');
  size_t p2 = p1 == std::string_view::npos ? p1 : body.find('|', p1 + 1);
  size_t p3 = p2 == std::string_view::npos ? p2 : body.find('|', p2 + 1);
  if (p3 == std::string_view::npos) {
    r.reason = "a TASK: line needs <id> | deps=<ids> | kind=<kind> | <instruction>";
    return r;
  }
  PlannedTask t;
  std::string_view id = os::trim(body.substr(0, p1));
  if (!is_task_id(id)) {
    r.reason = "task id \"" + std::string(id) + "\" is not made of letters, digits, _ . -";
    return r;
  }
  t.id = id;

  auto deps = keyed_value(body.substr(p1 + 1, p2 - p1 - 1), "deps");
  if (!deps) {
    r.reason = "task " + t.id + ": second field is not deps=<ids>";
    return r;
  }
  std::string_view dep_list = *deps;
  if (dep_list.size() >= 2 && dep_list.front() == '[' && dep_list.back() == ']')
    dep_list = os::trim(dep_list.substr(1, dep_list.size() - 2));
  if (lower(dep_list) == "none" || dep_list == "-") dep_list = {};
  std::set<std::string_view> listed;
  for (std::string_view dep : split_any(dep_list, ", \t")) {
    if (!is_task_id(dep)) {
      r.reason = "task " + t.id + ": dependency \"" + std::string(dep) + "\" is not a task id";
      return r;
    }
    if (!listed.insert(dep).second) continue;
    if (listed.size() > kMaxTaskDeps) {
      r.reason = "task " + t.id + " depends on more than " + std::to_string(kMaxTaskDeps) +
                 " tasks";
      return r;
    }
    t.deps.emplace_back(dep);
  }

  auto kind = keyed_value(body.substr(p2 + 1, p3 - p2 - 1), "kind");
  if (!kind) {
    r.reason = "task " + t.id + ": third field is not kind=<kind>";
    return r;
  }
  std::optional<TaskKind> parsed_kind = task_kind_from_string(lower(*kind));
  if (!parsed_kind) {
    r.reason = "task " + t.id + ": unknown kind \"" + std::string(*kind) +
               "\" (config, workload, unit_test, rtl)";
    return r;
  }
  t.kind = *parsed_kind;

  t.instruction = os::trim(body.substr(p3 + 1));
  if (t.instruction.empty()) {
    r.reason = "task " + t.id + ": empty instruction";
    return r;
  }
  if (t.instruction.size() > kMaxInstructionBytes) {
    r.reason = "task " + t.id + ": instruction longer than " +
               std::to_string(kMaxInstructionBytes) + " bytes";
    return r;
  }
  r.task = std::move(t);
  return r;
}

// Drops whitespace next to '=' and ',' so "l1d = 8192, 4" reads as one entry.
std::string tighten(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!is_space(s[i])) {
      out += s[i];
      continue;
    }
    size_t j = i;
    while (j < s.size() && is_space(s[j])) ++j;
    bool glue = (!out.empty() && (out.back() == '=' || out.back() == ',')) ||
                (j < s.size() && (s[j] == '=' || s[j] == ','));
    if (!glue) out += ' ';
    i = j - 1;
  }
  return out;
}

// A CACHES:, CONFIG_RTL: or NETWORK: line, checked but not yet tied to its task.
struct Directive {
  size_t line = 0;
  Tag tag = Tag::caches;
  std::string task_id;
  std::vector<std::pair<std::string, CacheOverride>> caches;  // in line order
  std::vector<std::string> defines;
  std::string network;
};

const char* directive_name(Tag tag) {
  switch (tag) {
    case Tag::caches: return "CACHES:";
    case Tag::config_rtl: return "CONFIG_RTL:";
    case Tag::network: return "NETWORK:";
    case Tag::task: break;
  }
  return "TASK:";
}

std::optional<Directive> parse_directive(Tag tag, std::string_view body, std::string& reason) {
  const char* name = directive_name(tag);
  size_t bar = body.find('|');
  if (bar == std::string_view::npos) {
    reason = std::string("a ") + name + " line needs <task id> | ...";
    return std::nullopt;
  }
  Directive d;
  d.tag = tag;
  std::string_view id = os::trim(body.substr(0, bar));
  if (!is_task_id(id)) {
    reason = "task id \"" + std::string(id) + "\" is not made of letters, digits, _ . -";
    return std::nullopt;
  }
  d.task_id = id;
  std::string_view rest = body.substr(bar + 1);
  if (tag == Tag::caches) {
    std::string tight = tighten(rest);
    for (std::string_view entry : split_any(tight, " |;")) {
      size_t eq = entry.find('=');
      std::string cache = lower(entry.substr(0, eq));
      if (eq == std::string_view::npos) {
        reason = "cache entry \"" + std::string(entry) + "\" is not <name>=<size>,<associativity>";
        return std::nullopt;
      }
      if (std::find(std::begin(kCacheNames), std::end(kCacheNames), cache) == std::end(kCacheNames)) {
        reason = "unknown cache \"" + std::string(entry.substr(0, eq)) + "\" (l1i, l1d, l15, l2)";
        return std::nullopt;
      }
      // <size>,<associativity>; <size> alone or ,<associativity> alone keeps the other as
      // the checkout has it (0 until effective_caches fills it in).
      std::string_view value = entry.substr(eq + 1);
      const size_t comma = value.find(',');
      std::string_view size_text = value.substr(0, comma);
      std::string_view ways_text = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
      std::optional<int64_t> size = size_text.empty() ? std::optional<int64_t>(0) : positive_integer(size_text);
      std::optional<int64_t> ways = comma == std::string_view::npos ? std::optional<int64_t>(0) : positive_integer(ways_text);
      if (!size || !ways || (*size == 0 && *ways == 0)) {
        reason = "cache entry \"" + std::string(entry) +
                 "\": size and associativity must be positive integers (one may be left out)";
        return std::nullopt;
      }
      d.caches.emplace_back(cache, CacheOverride{*size, *ways});
    }
    if (d.caches.empty()) {
      reason = "CACHES: line for " + d.task_id + " sets no cache";
      return std::nullopt;
    }
  } else if (tag == Tag::network) {
    std::string network = lower(os::trim(rest));
    if (std::find(std::begin(kNetworkNames), std::end(kNetworkNames), network) == std::end(kNetworkNames)) {
      reason = "network \"" + std::string(os::trim(rest)).substr(0, 64) +
               "\" is not one sims builds (2dmesh_config, xbar_config)";
      return std::nullopt;
    }
    d.network = std::move(network);
  } else {
    for (std::string_view flag : split_any(rest, " \t,|;")) {
      if (!is_upper_snake(flag)) {
        reason = "RTL define \"" + std::string(flag) + "\" is not an UPPER_SNAKE_CASE identifier";
        return std::nullopt;
      }
      d.defines.emplace_back(flag);
      if (d.defines.size() > kMaxDefinesPerLine) {
        reason = "CONFIG_RTL: line for " + d.task_id + " names more than " +
                 std::to_string(kMaxDefinesPerLine) + " defines";
        return std::nullopt;
      }
    }
    if (d.defines.empty()) {
      reason = "CONFIG_RTL: line for " + d.task_id + " names no define";
      return std::nullopt;
    }
  }
  return d;
}

struct Skip {
  size_t line;
  std::string text;
  std::string reason;
};

void add_graph_errors(Plan& plan) {
  if (plan.tasks.empty()) {
    plan.errors.push_back("no valid TASK: line");
    return;
  }
  if (plan.tasks.size() > kMaxPlanTasks) {
    plan.errors.push_back("the plan has " + std::to_string(plan.tasks.size()) +
                          " tasks; at most " + std::to_string(kMaxPlanTasks) + " are run");
    return;
  }
  // A broken reply can hold thousands of the same mistake: list the first, count the rest.
  size_t unlisted = 0;
  auto error = [&](std::string text) {
    if (plan.errors.size() < kMaxPlanErrors) plan.errors.push_back(std::move(text));
    else ++unlisted;
  };
  std::set<std::string> seen, reported;
  for (const auto& t : plan.tasks) {
    if (!seen.insert(t.id).second && reported.insert(t.id).second)
      error("duplicate task id " + t.id);
  }
  for (const auto& t : plan.tasks) {
    for (const auto& dep : t.deps) {
      if (!seen.count(dep)) error("task " + t.id + " depends on undefined task " + dep);
    }
  }
  for (const auto& cycle : dependency_cycles(plan.tasks)) {
    std::string path;
    for (const auto& id : cycle) path += (path.empty() ? "" : " -> ") + id;
    error("dependency cycle " + path);
  }
  if (unlisted > 0) plan.errors.push_back("and " + std::to_string(unlisted) + " more errors");
}

}  // namespace

std::string reply_too_long_error(std::optional<std::uint64_t> whole_size) {
  const std::string limit = std::to_string(kMaxReplyBytes) + " bytes, the most a plan may be";
  if (!whole_size) return "the reply is over " + limit;
  return "the reply is " + std::to_string(*whole_size) + " bytes, over " + limit;
}

Plan parse_plan(std::string_view reply, PlanGrammar grammar) {
  Plan plan;
  if (reply.size() > kMaxReplyBytes) {
    // Not reply.size(): a reader may have stopped one byte past the limit.
    plan.errors.push_back(reply_too_long_error(std::nullopt));
    return plan;
  }
  std::vector<Skip> skips;
  std::vector<Directive> directives;
  std::vector<std::string> lines;

  size_t start = 0;
  while (start <= reply.size()) {
    size_t end = reply.find('\n', start);
    if (end == std::string_view::npos) end = reply.size();
    std::string_view line = reply.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t index = lines.size();
    lines.emplace_back(line);
    start = end + 1;

    auto tagged = match_tag(line);
    if (!tagged) continue;
    std::string reason;
    if (tagged->tag == Tag::network && !grammar.network) {
      skips.push_back({index, std::string(line),
                       "NETWORK: is a co-design search's; this planner cannot choose the network"});
    } else if (tagged->tag == Tag::task) {
      LineResult r = parse_task(tagged->body);
      if (r.task) plan.tasks.push_back(std::move(*r.task));
      else skips.push_back({index, std::string(line), r.reason});
    } else if (auto d = parse_directive(tagged->tag, tagged->body, reason)) {
      d->line = index;
      directives.push_back(std::move(*d));
    } else {
      skips.push_back({index, std::string(line), reason});
    }
  }

  // Directives apply in reply order, so a later CACHES: value wins (REQ-PLAN-12). A
  // duplicated id gets each directive naming it.
  std::map<std::string_view, std::vector<size_t>> tasks_by_id;
  for (size_t i = 0; i < plan.tasks.size(); ++i) tasks_by_id[plan.tasks[i].id].push_back(i);
  for (const Directive& d : directives) {
    auto named = tasks_by_id.find(d.task_id);
    for (size_t i : named == tasks_by_id.end() ? std::vector<size_t>{} : named->second) {
      PlannedTask& t = plan.tasks[i];
      for (const auto& [name, value] : d.caches) t.caches[name] = value;
      t.config_rtl.insert(t.config_rtl.end(), d.defines.begin(), d.defines.end());
      if (!d.network.empty()) t.network = d.network;
    }
    if (named == tasks_by_id.end()) {
      skips.push_back({d.line, lines[d.line],
                       std::string(directive_name(d.tag)) + " names unknown task " + d.task_id});
    }
  }
  for (PlannedTask& t : plan.tasks) {
    std::sort(t.config_rtl.begin(), t.config_rtl.end());
    t.config_rtl.erase(std::unique(t.config_rtl.begin(), t.config_rtl.end()), t.config_rtl.end());
  }

  std::stable_sort(skips.begin(), skips.end(), [](const Skip& a, const Skip& b) { return a.line < b.line; });
  for (auto& s : skips) {
    plan.skipped.push_back(std::move(s.text));
    plan.skip_reasons.push_back(std::move(s.reason));
  }
  add_graph_errors(plan);
  return plan;
}

std::string unit_test_module(const PlannedTask& task) {
  const std::string& text = task.instruction;
  std::size_t start = text.find_first_not_of(" \t");
  if (start == std::string::npos) return "";
  std::size_t end = text.find_first_of(" \t\r\n", start);
  std::string word = text.substr(start, end == std::string::npos ? end : end - start);
  while (!word.empty() && (word.back() == ',' || word.back() == ':' || word.back() == ';'))
    word.pop_back();
  return word;
}

std::string cache_title(std::string_view name) {
  if (name == "l1i") return "L1I";
  if (name == "l1d") return "L1D";
  if (name == "l15") return "L1.5";
  if (name == "l2") return "L2";
  return std::string(name);
}

std::string describe(const CacheOverride& cache) {
  const std::string size = cache.size ? std::to_string(cache.size) + " B" : "the default size";
  const std::string ways = cache.associativity ? std::to_string(cache.associativity) + "-way" : "the default ways";
  return size + " " + ways;
}

std::string plan_to_json(const Plan& plan) {
  JsonWriter w;
  w.begin_object().key("tasks").begin_array();
  for (const auto& t : plan.tasks) {
    w.begin_object().field("id", t.id).key("deps").begin_array();
    for (const auto& d : t.deps) w.value(d);
    w.end_array().field("kind", to_string(t.kind)).field("instruction", t.instruction).key("caches").begin_object();
    for (const auto& [name, c] : t.caches) {
      // 0 is "as the checkout has it": null, so a script never reads it as a size.
      w.key(name).begin_object().key("size");
      c.size ? w.value(c.size) : w.null();
      w.key("associativity");
      c.associativity ? w.value(c.associativity) : w.null();
      w.end_object();
    }
    w.end_object().key("config_rtl").begin_array();
    for (const auto& f : t.config_rtl) w.value(f);
    w.end_array();
    if (!t.network.empty()) w.field("network", t.network);
    w.end_object();
  }
  w.end_array().key("skipped").begin_array();
  for (const auto& s : plan.skipped) w.value(s);
  w.end_array().key("errors").begin_array();
  for (const auto& e : plan.errors) w.value(e);
  w.end_array().end_object();
  return w.take();
}

}  // namespace mace
