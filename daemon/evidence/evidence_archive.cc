#include "evidence/evidence_archive.h"

#include <system_error>

#include "os/file_io.h"

namespace mace::evidence {

KeptFile EvidenceArchive::keep(const EvidencePlace& place, const std::filesystem::path& source) const {
  return keep_copy(source, settings_.root / relative_path(place), {.cut_to_log_limit = is_log(place.kind), .compress_when_large = is_compressed(place.kind)},
                   settings_.keep);
}

void EvidenceArchive::remove_run(std::string_view run_id) const {
  const std::filesystem::path dir = run_path(run_id);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (ec) os::throw_file_error("remove", dir, ec.value());
}

}  // namespace mace::evidence
