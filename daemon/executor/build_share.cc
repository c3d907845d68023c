#include "executor/build_share.h"

#include <sched.h>
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

// The CPUs this process may run on: its affinity mask (what a cpuset, `taskset` or a
// container allows), else the online ones.
int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

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
  return {.cpus = std::max(1, usable_cpus() / builds),
          .memory_mb = machine_memory_mb() / builds};
}

}  // namespace mace::executor
