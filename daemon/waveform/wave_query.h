#pragma once
// The questions asked of a failure's waveform (docs/failures.md, "The waveform around a
// failure"): which scopes and signals it holds, the values of named signals over a stretch
// of time, and which signals near the top of the design changed last before it ends. Each
// answer is bounded in signals, changes and time spent, and says what it left out, so that
// a model or a person asking about a multi-gigabyte file gets a short answer.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "waveform/vcd.h"

namespace mace::waveform {

inline constexpr std::size_t kDefaultListed = 100;
inline constexpr std::size_t kMaxListed = 1000;
inline constexpr std::size_t kMaxQueriedSignals = 16;
inline constexpr std::size_t kDefaultChanges = 50;
inline constexpr std::size_t kMaxChanges = 1000;

// What a waveform file is, from one pass over it.
struct WaveSummary {
  std::string timescale;
  std::size_t signals = 0;
  std::optional<std::uint64_t> first_time, last_time;
  bool truncated = false;
};

// The signals whose path starts with `scope` (a whole scope: "TOP.cmp_top" holds
// "TOP.cmp_top.x", not "TOP.cmp_topx"; "" for all) and contains `filter` ("" for all), the
// first `max_listed` in declaration order, and the scopes directly below `scope`.
struct SignalListing {
  std::size_t total_signals = 0;
  std::size_t matched = 0;
  std::vector<Signal> shown;
  std::vector<std::string> child_scopes;  // at most max_listed
  bool scopes_cut = false;
};
SignalListing list_signals(const VcdHeader& header, std::string_view scope, std::string_view filter,
                           std::size_t max_listed);

struct ValueChange {
  std::uint64_t time = 0;
  std::string value;  // readable_value's
};

struct SignalValues {
  std::string path;
  int width = 1;
  // The value it held when the kept changes begin (at `from`, or just before the first
  // kept change when older ones were left out); unset when the file gives none by then.
  std::optional<std::string> value_before;
  std::vector<ValueChange> changes;  // the last ones in the window, oldest first
  std::size_t changes_left_out = 0;  // older changes in the window not kept
};

struct ValuesQuery {
  std::vector<std::string> paths;        // at most kMaxQueriedSignals
  std::optional<std::uint64_t> from, to; // the window; unset: the file's start or end
  std::size_t max_changes = kDefaultChanges;  // per signal, at most kMaxChanges
};

struct ValuesAnswer {
  std::vector<SignalValues> signals;  // in the order asked, those the file has
  std::vector<std::string> unknown;   // paths the file does not have
  WaveSummary file;
  bool timed_out = false;
};

// Throws WaveError for a file that is not a readable VCD, std::invalid_argument for a query
// over the limits above.
ValuesAnswer signal_values(const std::filesystem::path& file, const ValuesQuery& query,
                           std::chrono::milliseconds time_limit);

struct RecentChange {
  std::string path;
  std::uint64_t time = 0;  // its last change
  std::string value;       // what it changed to
};

// The signals at most `max_depth` deep (TOP.cmp_top.x is 3) that changed last before the
// file ends, latest first, at most `count`. Signals that change at more than a quarter of
// the timestamps (clocks, free-running counters) are left out, and so is what the first
// timestamp sets (the initial values). Throws WaveError as signal_values does.
std::vector<RecentChange> changed_last(const std::filesystem::path& file, std::size_t max_depth,
                                       std::size_t count, std::chrono::milliseconds time_limit);

// One pass over the file. Throws WaveError as signal_values does.
WaveSummary summarise(const std::filesystem::path& file, std::chrono::milliseconds time_limit);

}  // namespace mace::waveform
