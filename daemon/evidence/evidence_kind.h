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
  build_log,  // a build's transcript (the adapter's mace_build.log)
  sim_log,    // one gate workload's simulation transcript (sims' sim.log)
};

// "build_log", "sim_log": the word the store keeps.
std::string_view to_string(EvidenceKind kind);
std::optional<EvidenceKind> evidence_kind_from_string(std::string_view word);

// "build.log", "sim.log".
std::string_view file_name(EvidenceKind kind);

// Whether the per-log size limit applies (head and tail kept) and large copies are
// compressed: text that is read from its ends.
bool is_log(EvidenceKind kind);

}  // namespace mace::evidence
