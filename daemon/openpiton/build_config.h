#pragma once
// A build configuration of OpenPiton: everything that decides which model a build makes,
// and nothing else. Two configurations that are equal build the same model from the same
// checkout, so the build ID is derived from the configuration alone (REQ-EXEC-5,
// REQ-VER-12).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mace::openpiton {

enum class Core { ariane, sparc, pico, generic };

std::string_view to_string(Core core);
std::optional<Core> core_from_string(std::string_view name);

struct CacheGeometry {
  int64_t size_bytes = 0;
  int64_t associativity = 0;
  bool operator==(const CacheGeometry&) const = default;
};

// The four caches OpenPiton lets a build size.
enum class Cache { l1i, l1d, l15, l2 };
inline constexpr Cache kAllCaches[] = {Cache::l1i, Cache::l1d, Cache::l15, Cache::l2};
std::string_view to_string(Cache cache);  // "l1i", "l1d", "l15", "l2"

struct CacheSet {
  CacheGeometry l1i, l1d, l15, l2;
  CacheGeometry& operator[](Cache c);
  const CacheGeometry& operator[](Cache c) const;
  bool operator==(const CacheSet&) const = default;
};

// The caches a core gets when a configuration leaves them out: read from the checkout's
// own configuration (piton/tools/src/sims/manycore.config, falling back to
// piton/tools/bin/pyhplib.py), never guessed. See cache_defaults.h.

inline constexpr std::string_view kDefaultRtlDefine = "MINIMAL_MONITORING";

struct BuildConfig {
  Core core = Core::ariane;
  int x_tiles = 1;
  int y_tiles = 1;
  // Every cache, defaults filled in (see with_defaults in cache_defaults.h).
  CacheSet caches;
  // The network a co-design search chose; empty: OpenPiton's default.
  std::string network;
  // Sorted, unique; always includes kDefaultRtlDefine (which a build with monitors leaves out).
  std::vector<std::string> rtl_defines;
  // Hash of the RTL edits the build carries (hex); empty: none.
  std::string rtl_edits_hash;
  // Extra sims flags, e.g. "-vlt_build_args=--coverage-line" for coverage (REQ-EXEC-6).
  std::vector<std::string> extra_flags;
  // Built with OpenPiton's monitors (without kDefaultRtlDefine), whose lines tell what each
  // tile did (tile_figures.h) at the price of a far longer transcript: another model.
  bool monitors = false;

  bool operator==(const BuildConfig&) const = default;
};

// Sorted union of kDefaultRtlDefine and `defines`.
std::vector<std::string> normalise_defines(const std::vector<std::string>& defines);
// The defines a build of `config` gets: normalise_defines', without kDefaultRtlDefine when
// it is built with monitors.
std::vector<std::string> build_defines(const BuildConfig& config);

// What every build ID starts with, so MACE's models can be told from others.
inline constexpr std::string_view kBuildIdPrefix = "mace_";

// kBuildIdPrefix followed by a hash of every field above in a fixed canonical text form: the
// same on every machine and in every process, and different whenever any field differs.
std::string build_id(const BuildConfig& config);

// The canonical text the ID hashes, for people debugging a surprising rebuild.
std::string canonical_text(const BuildConfig& config);

// Ariane's rule (REQ-EXEC-13): an L1D or L1I with more ways than the L1.5 cannot be built.
// Returns the cache that breaks it ("l1d" or "l1i"; l1d is checked first), or nullopt.
std::optional<Cache> way_rule_violation(const BuildConfig& config);

// What a way-rule failure tells triage, e.g. "l1d has 8 ways, more than the L1.5's 4".
std::string way_rule_message(const BuildConfig& config, Cache cache);

}  // namespace mace::openpiton
