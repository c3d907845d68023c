// wave_signals and wave_values: the failed workload's waveform (waveform/wave_query.h),
// read-only, each answer bounded in signals, changes and bytes, saying what it left out.

#include <fstream>
#include <string>
#include <vector>

#include "tools/diagnostic_tools.h"
#include "tools/diagnostics/methods.h"
#include "tools/diagnostics/text.h"
#include "waveform/wave_query.h"

namespace mace::tools::diagnostics {
namespace {

using llm::ToolCallResult;

void require_waveform(const State& state) {
  if (state.waveform.empty())
    throw Refusal("this failure has no waveform (it is traced only for a failed workload whose "
                  "transcript gave the time it failed at)");
}

std::size_t count_argument(const ToolArguments& args, std::string_view name, std::size_t fallback, std::size_t most) {
  const auto n = args.optional_integer(name);
  if (!n) return fallback;
  if (*n < 1 || static_cast<std::size_t>(*n) > most)
    throw ToolArgumentError(std::string(name) + " must be between 1 and " + std::to_string(most));
  return static_cast<std::size_t>(*n);
}

std::optional<std::uint64_t> time_argument(const ToolArguments& args, std::string_view name) {
  const auto n = args.optional_integer(name);
  if (!n) return std::nullopt;
  if (*n < 0) throw ToolArgumentError(std::string(name) + " must be a simulation time, 0 or more");
  return static_cast<std::uint64_t>(*n);
}

// "TOP.a, TOP.b" as its names.
std::vector<std::string> signal_names(const std::string& text) {
  std::vector<std::string> names;
  std::string name;
  for (char c : text + ",") {
    if (c == ',' || c == ' ' || c == '\n' || c == '\t') {
      if (!name.empty()) names.push_back(std::move(name));
      name.clear();
    } else {
      name += c;
    }
  }
  if (names.empty()) throw ToolArgumentError("signals names no signal");
  if (names.size() > waveform::kMaxQueriedSignals)
    throw ToolArgumentError("signals names " + std::to_string(names.size()) + " signals; at most " +
                            std::to_string(waveform::kMaxQueriedSignals) + " per call");
  return names;
}

// Appends `line` unless the answer would pass its limit; false once it has.
bool append_bounded(std::string& out, const std::string& line) {
  if (out.size() + line.size() + 1 > kMaxWaveAnswerBytes) return false;
  out += line;
  out += '\n';
  return true;
}

std::string header_line(const State& state) {
  return "waveform of " + state.waveform_workload + " (times are the verdict line's: 500 per clock cycle)";
}

}  // namespace

ToolCallResult wave_signals(const State& state, const ToolArguments& args) {
  require_waveform(state);
  const std::string scope = args.optional_string("scope").value_or("");
  const std::string filter = args.optional_string("filter").value_or("");
  const std::size_t most = count_argument(args, "max_signals", waveform::kDefaultListed, waveform::kMaxListed);
  std::ifstream in(state.waveform, std::ios::binary);
  if (!in) throw Refusal("the waveform can no longer be read: " + state.waveform.string());
  waveform::VcdReader reader(in, state.waveform.filename().string());
  const waveform::SignalListing listing = waveform::list_signals(reader.header(), scope, filter, most);
  std::string out = header_line(state) + "\n";
  append_bounded(out, std::to_string(listing.matched) + " of " + std::to_string(listing.total_signals) +
                          " signals match" + (scope.empty() ? "" : " under " + in_quotes(scope)) +
                          (filter.empty() ? "" : " containing " + in_quotes(filter)));
  if (!listing.child_scopes.empty()) {
    append_bounded(out, "scopes directly below:");
    for (const auto& child : listing.child_scopes)
      if (!append_bounded(out, "  " + child + "/")) break;
    if (listing.scopes_cut) append_bounded(out, "  ... more scopes; ask for one of these");
  }
  std::size_t shown = 0;
  for (const auto& s : listing.shown) {
    if (!append_bounded(out, s.path + (s.range.empty() ? "" : " " + s.range) + " (" + std::to_string(s.width) +
                                 (s.width == 1 ? " bit)" : " bits)")))
      break;
    ++shown;
  }
  if (shown < listing.matched)
    out += std::to_string(listing.matched - shown) + " more not shown: narrow with scope or filter\n";
  return ToolCallResult{true, out};
}

ToolCallResult wave_values(const State& state, const ToolArguments& args) {
  require_waveform(state);
  waveform::ValuesQuery query;
  query.paths = signal_names(args.string("signals"));
  query.from = time_argument(args, "from");
  query.to = time_argument(args, "to");
  if (query.from && query.to && *query.from > *query.to) throw ToolArgumentError("from is after to");
  query.max_changes = count_argument(args, "max_changes", waveform::kDefaultChanges, waveform::kMaxChanges);
  const waveform::ValuesAnswer a = waveform::signal_values(state.waveform, query, state.call_time_limit);
  std::string out = header_line(state) + "\n";
  if (a.file.first_time && a.file.last_time)
    append_bounded(out, "the file covers times " + std::to_string(*a.file.first_time) + " to " +
                            std::to_string(*a.file.last_time));
  for (const auto& name : a.unknown)
    append_bounded(out, "no signal " + in_quotes(name) + " (wave_signals lists them)");
  bool cut = false;
  for (const auto& s : a.signals) {
    if (!append_bounded(out, s.path + ":")) {
      cut = true;
      break;
    }
    if (s.value_before) append_bounded(out, "  before: " + *s.value_before);
    if (s.changes_left_out)
      append_bounded(out, "  (" + std::to_string(s.changes_left_out) + " earlier changes left out)");
    for (const auto& c : s.changes)
      if (!append_bounded(out, "  " + std::to_string(c.time) + ": " + c.value)) {
        cut = true;
        break;
      }
    if (s.changes.empty()) append_bounded(out, "  no change in the window");
  }
  if (cut) out += "[answer cut at " + std::to_string(kMaxWaveAnswerBytes / 1024) + " KiB: ask for fewer signals or changes]\n";
  if (a.timed_out) out += "[reading stopped at the call's time limit: give a window with to]\n";
  return ToolCallResult{true, out};
}

}  // namespace mace::tools::diagnostics
