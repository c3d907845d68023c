#include "evidence/evidence_kind.h"

namespace mace::evidence {

std::string_view to_string(EvidenceKind kind) {
  switch (kind) {
    case EvidenceKind::build_log:
      return "build_log";
    case EvidenceKind::sim_log:
      return "sim_log";
  }
  return "";
}

std::optional<EvidenceKind> evidence_kind_from_string(std::string_view word) {
  for (EvidenceKind kind : {EvidenceKind::build_log, EvidenceKind::sim_log})
    if (to_string(kind) == word) return kind;
  return std::nullopt;
}

std::string_view file_name(EvidenceKind kind) {
  switch (kind) {
    case EvidenceKind::build_log:
      return "build.log";
    case EvidenceKind::sim_log:
      return "sim.log";
  }
  return "";
}

bool is_log(EvidenceKind kind) {
  switch (kind) {
    case EvidenceKind::build_log:
    case EvidenceKind::sim_log:
      return true;
  }
  return false;
}

}  // namespace mace::evidence
