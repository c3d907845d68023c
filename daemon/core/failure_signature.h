#pragma once
// A run's failures grouped by what they have in common, as a regression report groups
// them (dvsim's failure buckets): two workloads that failed with the same verdict and the
// same error line but for its numbers and addresses failed alike, however many there are.
//
// The signature is the verdict and the error line (openpiton/transcript_excerpt.h: the
// transcript's first error line, else its verdict line, else what stopped the run) with
// every hexadecimal address and value written "#" ("0x1f40" → "0x#", "64'h4000" → "N'#",
// "400005a0" → "#"; a word of hex digits with a letter a-f and a digit, or eight letters
// a-f) and every other run of digits "N" ("4498250 : Simulation -> FAIL(HIT
// BAD TRAP)" → "N : Simulation -> FAIL(HIT BAD TRAP)"), blanks collapsed. Names stay: a
// diag's or a module's name tells failures apart.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/verdict.h"

namespace mace {

// `line` with its numbers and hexadecimal addresses normalised (above), at most
// kMaxSignatureBytes.
std::string normalise_error_line(std::string_view line);

// "fail: N : Simulation -> FAIL(HIT BAD TRAP)"; the verdict alone when the line is empty.
std::string failure_signature(Verdict verdict, std::string_view error_line);

// One simulated workload that did not pass, where it ran.
struct FailedWorkload {
  int64_t iteration = 0;
  std::string task_id;
  std::string workload;
  Verdict verdict = Verdict::none;
  std::string error_line;
};

struct FailureGroup {
  std::string signature;
  Verdict verdict = Verdict::none;
  std::string error_line;  // the first member's, as it was
  std::vector<FailedWorkload> members;  // in the order given
};

// Groups by signature, the most members first, ties in the order their first member came.
std::vector<FailureGroup> group_failures(const std::vector<FailedWorkload>& failures);

inline constexpr std::size_t kMaxSignatureBytes = 512;

}  // namespace mace
