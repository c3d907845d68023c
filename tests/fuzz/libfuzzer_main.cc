// One fuzz target (targets.h) as a libFuzzer binary, MACE_FUZZ_TARGET naming it: libFuzzer
// chooses the inputs by the coverage they reach and the comparisons they nearly pass,
// where mace_fuzz mutates blindly. A violated promise is a crash to libFuzzer, so it keeps
// the input (crash-<sha1>) like any other finding. scripts/fuzz.sh builds and runs these.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

#include "targets.h"

#ifndef MACE_FUZZ_TARGET
#error "MACE_FUZZ_TARGET names the target this binary runs"
#endif

namespace {

const mace::fuzz::Target& the_target() {
  static const mace::fuzz::Target* target = [] {
    for (const auto& t : mace::fuzz::all_targets())
      if (t.name == MACE_FUZZ_TARGET) return &t;
    std::fprintf(stderr, "no fuzz target named %s\n", MACE_FUZZ_TARGET);
    std::abort();
  }();
  return *target;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const mace::fuzz::Target& target = the_target();
  // mace_fuzz cuts its inputs to the target's size; here the input is refused instead
  // (-1: not kept in the corpus), so what libFuzzer keeps replays alike in both.
  if (size > target.max_size) return -1;
  try {
    target.check(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const mace::fuzz::Violation& v) {
    std::fprintf(stderr, "%s: the input violates: %s\n", MACE_FUZZ_TARGET, v.what());
    std::abort();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: the reader threw what it promises never to: %s\n", MACE_FUZZ_TARGET,
                 e.what());
    std::abort();
  }
  return 0;
}
