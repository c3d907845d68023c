#pragma once
// What one diagnostic tool may read (diagnostic_tools.h): its places, and the rules by
// which a path argument names a file in one of them or is refused. Every path a method
// takes is checked here first, so these are the tool's refusal rules in one place.

#include <chrono>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mace::tools::diagnostics {

using Clock = std::chrono::steady_clock;

// A request the tool turns down (a refused path, a file it cannot show, nothing to compare
// with). Becomes an ok=false result; never leaves call().
class Refusal : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class PlaceKind { failed, build, reference, workloads };

struct Place {
  PlaceKind kind;
  std::string name;            // "failed/hello-1", "build/mace_build.log", "workloads"
  std::filesystem::path root;  // canonical; a directory, or the build log itself
  bool is_file() const { return kind == PlaceKind::build; }
};

// A path argument after every check: inside `place`, every symlink resolved.
struct Resolved {
  const Place* place = nullptr;
  std::string name;            // the namespace path, normalised ("failed/hello-1/sim.log")
  std::filesystem::path path;  // canonical (weakly: the last components may not exist)
};

// Whether `p` is `root` or lies under it (both canonical).
bool contained(const std::filesystem::path& root, const std::filesystem::path& p);

struct Deadline {
  Clock::time_point end;
  bool passed() const { return Clock::now() >= end; }
};

// The tool's state: fixed when it is made, shared by every call (calls may come from
// several threads; nothing here changes after construction).
struct State {
  std::vector<Place> places;
  std::vector<std::string> unavailable;  // scope entries left out, and why
  std::string objdump;                   // absolute path; empty: none found
  std::string objdump_missing;           // why, when empty
  std::map<std::string, std::string> objdump_env;
  std::chrono::milliseconds objdump_timeout{20000};
  std::chrono::milliseconds call_time_limit{30000};
  // The failed workload's waveform (a VCD) and the workload's name; empty: none, and the
  // wave_* methods say so.
  std::filesystem::path waveform;
  std::string waveform_workload;

  Deadline deadline() const { return Deadline{Clock::now() + call_time_limit}; }

  const Place* find(std::string_view name) const;
  const Place* last_failed_run() const;
  std::string place_names() const;

  // Checks one path argument (the rules are in diagnostic_tools.h) and resolves it to one
  // place, or to every place of a group ("failed", "reference") when `allow_group`. A path
  // that breaks a rule is a Refusal naming it and the reason.
  std::vector<Resolved> resolve_many(const std::string& arg, bool allow_group) const;

  Resolved resolve(const std::string& arg) const { return resolve_many(arg, false).front(); }

  static std::string names_of(const std::vector<Resolved>& rs);
};

}  // namespace mace::tools::diagnostics
