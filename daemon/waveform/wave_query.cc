#include "waveform/wave_query.h"

#include <algorithm>
#include <deque>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace mace::waveform {
namespace {

std::ifstream open(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw WaveError(file.string() + ": cannot be opened");
  return in;
}

std::chrono::steady_clock::time_point deadline_after(std::chrono::milliseconds limit) {
  return std::chrono::steady_clock::now() + limit;
}

bool in_scope(std::string_view path, std::string_view scope) {
  if (scope.empty()) return true;
  return path.size() > scope.size() && path.substr(0, scope.size()) == scope && path[scope.size()] == '.';
}

WaveSummary summary_of(const VcdHeader& header, const WalkEnd& end) {
  return {header.timescale, header.signals.size(), end.first_time, end.last_time, end.truncated};
}

}  // namespace

SignalListing list_signals(const VcdHeader& header, std::string_view scope, std::string_view filter,
                           std::size_t max_listed) {
  SignalListing listing;
  listing.total_signals = header.signals.size();
  std::set<std::string> children;
  for (const auto& s : header.signals) {
    if (!in_scope(s.path, scope)) continue;
    const std::string_view below = std::string_view(s.path).substr(scope.empty() ? 0 : scope.size() + 1);
    if (const std::size_t dot = below.find('.'); dot != std::string_view::npos) {
      if (children.size() < max_listed) children.emplace(below.substr(0, dot));
      else listing.scopes_cut = true;
    }
    if (!filter.empty() && s.path.find(filter) == std::string::npos) continue;
    ++listing.matched;
    if (listing.shown.size() < max_listed) listing.shown.push_back(s);
  }
  for (const auto& child : children) listing.child_scopes.push_back(scope.empty() ? child : std::string(scope) + "." + child);
  return listing;
}

ValuesAnswer signal_values(const std::filesystem::path& file, const ValuesQuery& query,
                           std::chrono::milliseconds time_limit) {
  if (query.paths.empty() || query.paths.size() > kMaxQueriedSignals)
    throw std::invalid_argument("between 1 and " + std::to_string(kMaxQueriedSignals) + " signals");
  if (query.max_changes == 0 || query.max_changes > kMaxChanges)
    throw std::invalid_argument("max_changes between 1 and " + std::to_string(kMaxChanges));
  if (query.from && query.to && *query.from > *query.to) throw std::invalid_argument("from is after to");
  std::ifstream in = open(file);
  VcdReader reader(in, file.string());
  const VcdHeader& header = reader.header();

  struct Tracked {
    SignalValues values;
    std::deque<ValueChange> kept;
    std::optional<std::string> before;  // the value before the window, then before the kept
  };
  std::vector<Tracked> tracked;
  std::unordered_map<std::string, std::vector<std::size_t>> by_code;  // into tracked
  ValuesAnswer answer;
  for (const auto& path : query.paths) {
    const Signal* s = header.find(path);
    if (!s) {
      answer.unknown.push_back(path);
      continue;
    }
    by_code[s->code].push_back(tracked.size());
    tracked.push_back({SignalValues{.path = s->path, .width = s->width}, {}, {}});
  }
  std::uint64_t now = 0;
  bool in_window = !query.from;
  const ChangeVisitor visitor{
      .time = [&](std::uint64_t t) {
        now = t;
        if (query.to && t > *query.to) return false;
        if (query.from && t >= *query.from) in_window = true;
        return true;
      },
      .change = [&](std::string_view code, std::string_view value) {
        const auto it = by_code.find(std::string(code));
        if (it == by_code.end()) return;
        for (std::size_t i : it->second) {
          Tracked& t = tracked[i];
          std::string readable = readable_value(value, t.values.width);
          if (!in_window) {
            t.before = std::move(readable);
            continue;
          }
          t.kept.push_back({now, std::move(readable)});
          if (t.kept.size() > query.max_changes) {
            t.before = t.kept.front().value;
            t.kept.pop_front();
            ++t.values.changes_left_out;
          }
        }
      }};
  const WalkEnd end = reader.walk(visitor, deadline_after(time_limit));
  answer.file = summary_of(header, end);
  answer.timed_out = end.timed_out;
  for (auto& t : tracked) {
    t.values.value_before = std::move(t.before);
    t.values.changes.assign(std::make_move_iterator(t.kept.begin()), std::make_move_iterator(t.kept.end()));
    answer.signals.push_back(std::move(t.values));
  }
  return answer;
}

std::vector<RecentChange> changed_last(const std::filesystem::path& file, std::size_t max_depth,
                                       std::size_t count, std::chrono::milliseconds time_limit) {
  std::ifstream in = open(file);
  VcdReader reader(in, file.string());
  const VcdHeader& header = reader.header();
  struct Seen {
    std::uint64_t time = 0;
    std::string value;
    std::uint64_t changes = 0;
  };
  std::unordered_map<std::string, Seen> by_code;  // codes of shallow signals only
  for (const auto& s : header.signals)
    if (s.depth() <= max_depth) by_code.emplace(s.code, Seen{});
  std::uint64_t now = 0, timestamps = 0;
  const ChangeVisitor visitor{.time = [&](std::uint64_t t) {
                                now = t;
                                ++timestamps;
                                return true;
                              },
                              .change = [&](std::string_view code, std::string_view value) {
                                if (timestamps <= 1) return;  // the initial values
                                const auto it = by_code.find(std::string(code));
                                if (it == by_code.end()) return;
                                it->second.time = now;
                                it->second.value.assign(value);
                                ++it->second.changes;
                              }};
  reader.walk(visitor, deadline_after(time_limit));
  std::vector<RecentChange> recent;
  std::set<std::string> named;
  for (const auto& s : header.signals) {
    if (s.depth() > max_depth) continue;
    const Seen& seen = by_code.at(s.code);
    if (seen.changes == 0 || seen.changes * 4 > timestamps) continue;
    if (!named.insert(s.path).second) continue;
    recent.push_back({s.path, seen.time, readable_value(seen.value, s.width)});
  }
  // Latest first; among equal times the shallower (then declared first) signal first.
  std::stable_sort(recent.begin(), recent.end(), [](const RecentChange& a, const RecentChange& b) {
    if (a.time != b.time) return a.time > b.time;
    return std::count(a.path.begin(), a.path.end(), '.') < std::count(b.path.begin(), b.path.end(), '.');
  });
  if (recent.size() > count) recent.resize(count);
  return recent;
}

WaveSummary summarise(const std::filesystem::path& file, std::chrono::milliseconds time_limit) {
  std::ifstream in = open(file);
  VcdReader reader(in, file.string());
  const WalkEnd end = reader.walk({}, deadline_after(time_limit));
  return summary_of(reader.header(), end);
}

}  // namespace mace::waveform
