#pragma once
// The marker a finished build leaves beside its model (.mace_build_ok): the source
// fingerprint it was built from, so a later build of the same configuration from the same
// sources reuses the model in place (REQ-VER-12), and anything else rebuilds it.

#include <filesystem>
#include <optional>
#include <string>

#include "openpiton/build_config.h"
#include "openpiton/source_fingerprint.h"

namespace mace::openpiton {

// The digest the marker records; nullopt when there is no marker or it is empty.
std::optional<std::string> marker_digest(const std::filesystem::path& marker);

// Writes the marker (the digest on its first line; the fingerprint and configuration
// below it, for people). Written to a temporary name and renamed, so a crash mid-write
// never leaves a marker a later build could take for a good one. Returns what went wrong,
// or "".
std::string write_marker(const std::filesystem::path& marker, const BuildConfig& config,
                         const SourceFingerprint& fingerprint);

}  // namespace mace::openpiton
