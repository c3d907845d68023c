#pragma once
// The evidence archive: every run's own copies of what proves what it did (its builds'
// transcripts, its simulations' sim.logs), kept in a directory of the run's under maced's
// state directory (evidence_layout.h), so that nothing done later in a checkout (another
// run on the same model, a model removed, an evaluation job's clean-up, the model store's
// eviction) can change or remove them. Bounded per file (kept_file.h) and in total
// (retention.h). It knows files only: which run a file is of, and when it was kept, is the
// store's (log_files), and the caller records it.

#include <filesystem>
#include <string_view>

#include "evidence/evidence_layout.h"
#include "evidence/kept_file.h"
#include "evidence/retention.h"

namespace mace::evidence {

struct EvidenceSettings {
  std::filesystem::path root;  // absolute; created when first needed
  KeepLimits keep = {};
  RetentionLimits retention = {};
};

class EvidenceArchive {
 public:
  explicit EvidenceArchive(EvidenceSettings settings) : settings_(std::move(settings)) {}

  const EvidenceSettings& settings() const { return settings_; }

  // Copies `source` into the run's directory at `place`'s path. Throws os::FileError.
  KeptFile keep(const EvidencePlace& place, const std::filesystem::path& source) const;

  // The run's whole directory and everything in it; nothing when it has none. Throws
  // os::FileError when something of it cannot be removed.
  void remove_run(std::string_view run_id) const;

  std::filesystem::path run_path(std::string_view run_id) const {
    return settings_.root / run_directory(run_id);
  }

 private:
  EvidenceSettings settings_;
};

}  // namespace mace::evidence
