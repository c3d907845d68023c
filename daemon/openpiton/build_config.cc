#include "openpiton/build_config.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

#include "os/sha256.h"

namespace mace::openpiton {
namespace {

// The canonical text must stay unambiguous whatever a string holds: a newline inside a
// network name must not be able to pose as another field.
std::string escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '%') {
      out += "%25";
    } else if (c == '\n') {
      out += "%0A";
    } else if (c == '\r') {
      out += "%0D";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

CacheGeometry& CacheSet::operator[](Cache c) {
  return const_cast<CacheGeometry&>(std::as_const(*this)[c]);
}

const CacheGeometry& CacheSet::operator[](Cache c) const {
  switch (c) {
    case Cache::l1i: return l1i;
    case Cache::l1d: return l1d;
    case Cache::l15: return l15;
    case Cache::l2: return l2;
  }
  throw std::invalid_argument("unknown cache");
}

std::vector<std::string> normalise_defines(const std::vector<std::string>& defines) {
  std::set<std::string> unique(defines.begin(), defines.end());
  unique.emplace(kDefaultRtlDefine);
  return {unique.begin(), unique.end()};
}

std::vector<std::string> build_defines(const BuildConfig& config) {
  std::vector<std::string> defines = normalise_defines(config.rtl_defines);
  if (config.monitors) std::erase(defines, std::string(kDefaultRtlDefine));
  return defines;
}

std::string canonical_text(const BuildConfig& config) {
  // Versioned so that a deliberate change of this format is visible in every ID at once.
  // Defines are normalised here too: {} and {MINIMAL_MONITORING} build the same model.
  // Extra flags keep their order, since sims applies repeated options in order.
  std::string text = "mace-build-config 1\n";
  text += "core=" + std::string(to_string(config.core)) + "\n";
  text += "x_tiles=" + std::to_string(config.x_tiles) + "\n";
  text += "y_tiles=" + std::to_string(config.y_tiles) + "\n";
  for (Cache cache : kAllCaches) {
    const CacheGeometry& geometry = config.caches[cache];
    text += std::string(to_string(cache)) + "=" + std::to_string(geometry.size_bytes) + "/" +
            std::to_string(geometry.associativity) + "\n";
  }
  text += "network=" + escaped(config.network) + "\n";
  const auto defines = normalise_defines(config.rtl_defines);
  text += "defines=" + std::to_string(defines.size()) + "\n";
  for (const auto& define : defines) text += "define=" + escaped(define) + "\n";
  text += "rtl_edits=" + escaped(config.rtl_edits_hash) + "\n";
  text += "flags=" + std::to_string(config.extra_flags.size()) + "\n";
  for (const auto& flag : config.extra_flags) text += "flag=" + escaped(flag) + "\n";
  // Only when set, so every model built before monitors existed keeps its ID.
  if (config.monitors) text += "monitors=1\n";
  return text;
}

std::string build_id(const BuildConfig& config) {
  return std::string(kBuildIdPrefix) + os::sha256_hex(canonical_text(config)).substr(0, 16);
}

std::optional<Cache> way_rule_violation(const BuildConfig& config) {
  if (config.core != Core::ariane) return std::nullopt;
  const int64_t l15_ways = config.caches.l15.associativity;
  if (config.caches.l1d.associativity > l15_ways) return Cache::l1d;
  if (config.caches.l1i.associativity > l15_ways) return Cache::l1i;
  return std::nullopt;
}

std::string way_rule_message(const BuildConfig& config, Cache cache) {
  return std::string(to_string(cache)) + " has " +
         std::to_string(config.caches[cache].associativity) + " ways, more than the L1.5's " +
         std::to_string(config.caches.l15.associativity);
}

}  // namespace mace::openpiton
