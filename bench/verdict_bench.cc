// verdict_bench FILE [REPEATS]: runs read_verdict(FILE) REPEATS times (default 1) and prints
// the verdict, the deciding line and the best time, one `key=value` per line, so that
// bench/verdict.sh can compare it with grep on the same file.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "openpiton/verdict.h"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s FILE [REPEATS]\n", argv[0]);
    return 2;
  }
  const int repeats = argc == 3 ? std::atoi(argv[2]) : 1;
  if (repeats < 1) {
    std::fprintf(stderr, "REPEATS must be a positive integer\n");
    return 2;
  }
  mace::openpiton::VerdictResult result;
  double best = 0;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    result = mace::openpiton::read_verdict(argv[1]);
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    if (i == 0 || dt.count() < best) best = dt.count();
  }
  if (!result.error.empty()) {
    std::fprintf(stderr, "%s\n", result.error.c_str());
    return 1;
  }
  const double mb = static_cast<double>(result.bytes_read) / 1e6;
  std::printf("verdict=%s\n", std::string(mace::openpiton::to_string(result.verdict)).c_str());
  std::printf("marker_line=%s\n", result.marker_line.c_str());
  std::printf("bytes=%llu\n", static_cast<unsigned long long>(result.bytes_read));
  std::printf("seconds=%.6f\n", best);
  std::printf("mb_per_s=%.1f\n", best > 0 ? mb / best : 0.0);
  return 0;
}
