#pragma once
// Where a run's evidence lives: one directory per run under the archive's root (by
// default `<state directory>/runs`), laid out by what produced each file:
//
//   <root>/<run id>/
//     iter<N>/<task>/build.log                        the task's build transcript
//     iter<N>/<task>/sims/<workload>/sim.log          each gate workload's transcript
//     iter<N>/<task>/sims/<workload>/wave.vcd         the waveform before its failure
//     iter<N>/<task>/coverage/coverage.dat            the task's coverage, merged
//     iter<N>/<task>/coverage/annotated/<file>        its annotated source files
//     iter<N>/<task>/narrowing/<what was undone>/...  a narrowing rebuild's, the same way
//
// A file over the compression threshold gets `.gz` (evidence/chunked_gzip.h); a second
// file of one kind at one place (a model reused for a re-simulation after a build-only
// check) is `build.2.log`, `build.3.log`, ... Names come from task ids, workload names
// and narrowing descriptions, which people and models write: each becomes one safe path
// component (path_component), never `.`, `..`, a hidden name or one with a '/'.
//
// A new kind of evidence is a new EvidenceKind with its file name and where it goes
// (evidence_kind.h, evidence_layout.cc): nothing else here changes.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "evidence/evidence_kind.h"

namespace mace::evidence {

// What a file is evidence of: the run, the iteration and task (0 and "" for the run as a
// whole), the narrowing rebuild ("" for the task's own build) and the workload ("" for
// what is not one workload's).
struct EvidencePlace {
  std::string run_id;
  int64_t iteration = 0;
  std::string task_id;
  std::string narrowing;
  std::string workload;
  EvidenceKind kind = EvidenceKind::build_log;
};

// `text` as one file name: letters, digits and `._+-` kept, anything else `_`; a name
// that was changed, is empty, starts with `.` or is longer than 96 bytes gets `-` and 8
// hex digits of its SHA-256, so two different texts never share a name.
std::string path_component(std::string_view text);

// The run's directory, relative to the archive's root.
std::filesystem::path run_directory(std::string_view run_id);

// Where a file of `place` goes, relative to the root, before the number that keeps a
// second one apart (numbered_name) and before `.gz`.
std::filesystem::path relative_path(const EvidencePlace& place);

// `build.log` as `build.<n>.log` (n >= 2), the n-th file of a kind at one place.
std::filesystem::path numbered_name(const std::filesystem::path& relative, int n);

}  // namespace mace::evidence
