#pragma once
// The kinds of files a run keeps as its evidence, each with its name in the run's
// directory and the store (log_files.kind) and whether it is a log: a log over the
// per-log limit keeps its head and tail, with a note of what was cut between them.
// Adding a kind: an enumerator here, its word and file name in evidence_kind.cc, and the
// place it goes in evidence_layout.cc.

#include <optional>
#include <string_view>

namespace mace::evidence {

enum class EvidenceKind {
  build_log,        // a build's transcript (the adapter's mace_build.log)
  sim_log,          // one gate workload's simulation transcript (sims' sim.log)
  coverage_data,    // a task's coverage merged over its workloads (verilator_coverage --write)
  coverage_source,  // one annotated source file of it (verilator_coverage --annotate); the
                    // place's `workload` is the file's name in the annotated directory
  waveform,         // the VCD of a failed workload's last cycles (docs/failures.md)
};

// "build_log", "sim_log", "coverage_data", "coverage_source", "waveform": the word the
// store keeps.
std::string_view to_string(EvidenceKind kind);
std::optional<EvidenceKind> evidence_kind_from_string(std::string_view word);

// "build.log", "sim.log", "coverage.dat", "wave.vcd"; "" for coverage_source, named by its
// place.
std::string_view file_name(EvidenceKind kind);

// Whether the per-log size limit applies (head and tail kept) and large copies are
// compressed: text that is read from its ends. Coverage is neither: verilator_coverage and
// people's editors read it whole where it is kept.
bool is_log(EvidenceKind kind);

// Whether a large copy is compressed: logs, and the waveform (its size is bounded where it
// is written, and VCD text shrinks about eightfold; GTKWave opens a .vcd.gz as it is).
bool is_compressed(EvidenceKind kind);

}  // namespace mace::evidence
