#include "evidence/evidence_kind.h"

namespace mace::evidence {
namespace {

constexpr EvidenceKind kKinds[] = {EvidenceKind::build_log, EvidenceKind::sim_log,
                                   EvidenceKind::coverage_data, EvidenceKind::coverage_source,
                                   EvidenceKind::waveform};

}  // namespace

std::string_view to_string(EvidenceKind kind) {
  switch (kind) {
    case EvidenceKind::build_log:
      return "build_log";
    case EvidenceKind::sim_log:
      return "sim_log";
    case EvidenceKind::coverage_data:
      return "coverage_data";
    case EvidenceKind::coverage_source:
      return "coverage_source";
    case EvidenceKind::waveform:
      return "waveform";
  }
  return "";
}

std::optional<EvidenceKind> evidence_kind_from_string(std::string_view word) {
  for (EvidenceKind kind : kKinds)
    if (to_string(kind) == word) return kind;
  return std::nullopt;
}

std::string_view file_name(EvidenceKind kind) {
  switch (kind) {
    case EvidenceKind::build_log:
      return "build.log";
    case EvidenceKind::sim_log:
      return "sim.log";
    case EvidenceKind::coverage_data:
      return "coverage.dat";
    case EvidenceKind::coverage_source:
      return "";
    case EvidenceKind::waveform:
      return "wave.vcd";
  }
  return "";
}

bool is_log(EvidenceKind kind) {
  switch (kind) {
    case EvidenceKind::build_log:
    case EvidenceKind::sim_log:
      return true;
    case EvidenceKind::coverage_data:
    case EvidenceKind::coverage_source:
    case EvidenceKind::waveform:
      return false;
  }
  return false;
}

bool is_compressed(EvidenceKind kind) { return is_log(kind) || kind == EvidenceKind::waveform; }

}  // namespace mace::evidence
