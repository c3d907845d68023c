#include "executor/build_share.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <string>

namespace mace::executor {
namespace {

std::int64_t machine_memory_mb() {
  std::ifstream meminfo("/proc/meminfo");
  std::string name;
  std::int64_t kib = 0;
  while (meminfo >> name >> kib) {
    if (name == "MemTotal:") return kib / 1024;
    meminfo.ignore(256, '\n');
  }
  return 0;
}

std::atomic<int> builds_in_process{0};

}  // namespace

LocalBuildSlot::LocalBuildSlot() : under_way_(++builds_in_process) {}
LocalBuildSlot::~LocalBuildSlot() { --builds_in_process; }
int LocalBuildSlot::in_process() { return builds_in_process.load(); }

int compile_jobs(const BuildShare& share) {
  int jobs = std::max(1, share.cpus);
  if (share.memory_mb > 0)
    jobs = std::min<std::int64_t>(jobs, std::max<std::int64_t>(1, share.memory_mb / kMemoryPerCompileJobMb));
  return jobs;
}

BuildShare local_build_share(int concurrent_builds) {
  const int builds = std::max(1, concurrent_builds);
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return {.cpus = std::max(1, static_cast<int>(cpus > 0 ? cpus : 1) / builds),
          .memory_mb = machine_memory_mb() / builds};
}

}  // namespace mace::executor
