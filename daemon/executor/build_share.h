#pragma once
// How many compile jobs one build may run. sims runs `make -j` without a limit,
// which on a small machine means as many g++ processes as the model has C++ files (a sparc
// 1x1 build peaked near 10 GiB on 2 cores). The builder bounds it (BuildOptions::
// max_parallelism); this decides the bound from what the executor gave the build: a Slurm
// job its allocation, the local executor its share of the machine among the builds it
// runs at once.

#include <cstdint>

namespace mace::executor {

// What one build was given.
struct BuildShare {
  int cpus = 1;
  std::int64_t memory_mb = 0;  // 0: not limited (a Slurm partition's default)
};

// The memory one compile job of a Verilator model's C++ may take. The largest files of a
// sparc 1x1 model compile in about 1 GiB at -O (docs/openpiton-findings.md); a bound that
// is too low costs speed, one too high costs the machine.
inline constexpr std::int64_t kMemoryPerCompileJobMb = 1024;

// The compile jobs for `share`: its CPUs, fewer when its memory holds fewer jobs; at
// least 1.
int compile_jobs(const BuildShare& share);

// This machine divided between `concurrent_builds` builds: the CPUs maced may run on (its
// affinity: a cpuset, `taskset`, a container's limit; else the online ones) and its total
// memory (MemTotal), each divided evenly, rounded down, at least 1 CPU.
BuildShare local_build_share(int concurrent_builds);

// Counts the builds under way in this process (every run's) while it lives, so a build
// knows how many it shares the machine with when it starts. A build that started earlier
// keeps the share it was given.
class LocalBuildSlot {
 public:
  LocalBuildSlot();
  ~LocalBuildSlot();
  LocalBuildSlot(const LocalBuildSlot&) = delete;
  LocalBuildSlot& operator=(const LocalBuildSlot&) = delete;
  // This one included.
  int builds_under_way() const { return under_way_; }
  // The builds under way in this process now.
  static int in_process();

 private:
  int under_way_;
};

}  // namespace mace::executor
