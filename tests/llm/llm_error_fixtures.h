#pragma once
// The vendors' error replies collected from CHIA live in the steering repository's shared/
// folder, which sits beside every checkout of this project (and beside CI's clone); they
// are data we may read but not commit. MACE_LLM_ERROR_FIXTURES points elsewhere.

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace mace::llm {

inline std::filesystem::path llm_error_fixtures() {
  std::vector<std::filesystem::path> candidates;
  if (const char* dir = std::getenv("MACE_LLM_ERROR_FIXTURES")) candidates.emplace_back(dir);
  if (const char* root = std::getenv("MACE_SOURCE_ROOT"))
    candidates.push_back(std::filesystem::path(root) / ".." / "shared" / "fixtures" / "llm-errors");
  for (const auto& c : candidates)
    if (std::filesystem::is_directory(c / "vertex")) return c;
  return {};
}

}  // namespace mace::llm
