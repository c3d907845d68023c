#include "openpiton/build_marker.h"

#include <unistd.h>

#include <fstream>
#include <system_error>

namespace mace::openpiton {

namespace fs = std::filesystem;

std::optional<std::string> marker_digest(const fs::path& marker) {
  std::ifstream in(marker);
  std::string digest;
  if (!in || !std::getline(in, digest) || digest.empty()) return std::nullopt;
  return digest;
}

std::string write_marker(const fs::path& marker, const BuildConfig& config,
                         const SourceFingerprint& fingerprint) {
  const fs::path temporary = marker.string() + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << fingerprint.digest << "\n"
        << "# The source fingerprint this model was built from, then its configuration.\n"
        << fingerprint.text() << canonical_text(config);
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      return "cannot write " + temporary.string();
    }
  }
  std::error_code error;
  fs::rename(temporary, marker, error);
  if (error) {
    fs::remove(temporary, error);
    return "cannot rename " + temporary.string() + " to " + marker.string();
  }
  return "";
}

}  // namespace mace::openpiton
