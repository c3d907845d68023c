#include "executor/simulation_footprints.h"

#include <deque>
#include <map>
#include <mutex>

namespace mace::executor {
namespace {

constexpr std::size_t kMaxModels = 4096;

struct Footprints {
  std::mutex mutex;
  std::map<std::string, std::int64_t> peak;
  std::deque<std::string> order;  // first seen first
};

Footprints& footprints() {
  static Footprints all;
  return all;
}

}  // namespace

void record_simulation_footprint(const std::string& build_id, std::int64_t peak_rss_bytes) {
  if (build_id.empty() || peak_rss_bytes <= 0) return;
  Footprints& all = footprints();
  std::lock_guard lock(all.mutex);
  auto [it, added] = all.peak.try_emplace(build_id, peak_rss_bytes);
  if (!added) {
    it->second = std::max(it->second, peak_rss_bytes);
    return;
  }
  all.order.push_back(build_id);
  if (all.order.size() > kMaxModels) {
    all.peak.erase(all.order.front());
    all.order.pop_front();
  }
}

std::int64_t simulation_footprint(const std::string& build_id) {
  Footprints& all = footprints();
  std::lock_guard lock(all.mutex);
  const auto it = all.peak.find(build_id);
  return it == all.peak.end() ? 0 : it->second;
}

}  // namespace mace::executor
