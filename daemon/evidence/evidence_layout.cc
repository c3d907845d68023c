#include "evidence/evidence_layout.h"

#include <algorithm>

#include "os/sha256.h"

namespace mace::evidence {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxComponentBytes = 96;

bool kept_as_is(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '+' || c == '-';
}

// The directory of what produced the file: the run, its iteration, its task, a narrowing
// rebuild of the task.
fs::path producer_directory(const EvidencePlace& place) {
  fs::path dir = run_directory(place.run_id);
  if (place.iteration > 0) dir /= "iter" + std::to_string(place.iteration);
  if (!place.task_id.empty()) dir /= path_component(place.task_id);
  if (!place.narrowing.empty()) dir = dir / "narrowing" / path_component(place.narrowing);
  return dir;
}

}  // namespace

std::string path_component(std::string_view text) {
  std::string name;
  name.reserve(std::min(text.size(), kMaxComponentBytes));
  for (char c : text.substr(0, kMaxComponentBytes)) name += kept_as_is(c) ? c : '_';
  const bool changed = name != text;
  if (!changed && !name.empty() && name.front() != '.') return name;
  if (name.empty() || name.front() == '.') name.insert(name.begin(), '_');
  os::Sha256 hash;
  hash.update(text);
  return name + "-" + hash.finish_hex().substr(0, 8);
}

fs::path run_directory(std::string_view run_id) { return path_component(run_id); }

fs::path relative_path(const EvidencePlace& place) {
  const fs::path dir = producer_directory(place);
  switch (place.kind) {
    case EvidenceKind::build_log:
      return dir / file_name(place.kind);
    case EvidenceKind::sim_log:
    case EvidenceKind::waveform:
      return dir / "sims" / path_component(place.workload) / file_name(place.kind);
    case EvidenceKind::coverage_data:
      return dir / "coverage" / file_name(place.kind);
    case EvidenceKind::coverage_source:
      return dir / "coverage" / "annotated" / path_component(place.workload);
  }
  return dir / file_name(place.kind);
}

fs::path numbered_name(const fs::path& relative, int n) {
  if (n < 2) return relative;
  const fs::path name = relative.filename();
  return relative.parent_path() / (name.stem().string() + "." + std::to_string(n) + name.extension().string());
}

}  // namespace mace::evidence
