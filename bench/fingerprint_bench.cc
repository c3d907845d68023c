// fingerprint_bench CHECKOUT [REPEATS]: takes the source fingerprint of CHECKOUT REPEATS
// times (default 1) and prints the digest, how many changed paths it covered and the best
// time, one `key=value` per line, for bench/fingerprint.sh to set beside `git status`.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "openpiton/source_fingerprint.h"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s CHECKOUT [REPEATS]\n", argv[0]);
    return 2;
  }
  const int repeats = argc == 3 ? std::atoi(argv[2]) : 1;
  if (repeats < 1) {
    std::fprintf(stderr, "REPEATS must be a positive integer\n");
    return 2;
  }
  try {
    mace::openpiton::SourceFingerprint fingerprint;
    double best = 0;
    for (int i = 0; i < repeats; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      // The Verilator version is a string the caller supplies; its cost is not git's.
      fingerprint = mace::openpiton::source_fingerprint(argv[1], "Verilator (bench)");
      const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
      if (i == 0 || dt.count() < best) best = dt.count();
    }
    std::printf("digest=%s\n", fingerprint.digest.c_str());
    std::printf("head=%s\n", fingerprint.head.c_str());
    std::printf("changes=%zu\n", fingerprint.changes.size());
    std::printf("ariane=%s\n", fingerprint.ariane_submodule.c_str());
    std::printf("seconds=%.6f\n", best);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
