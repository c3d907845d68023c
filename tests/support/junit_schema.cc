#include "junit_schema.h"

#include <stdexcept>

#include "child_process.h"

namespace mace::testing {

std::string junit_schema_errors(const std::string& path) {
  const auto r = run_process({"xmllint", "--noout", "--nonet", "--schema", source_root() + "/tests/support/junit.xsd", path});
  if (r.exit_code == 0) return "";
  if (r.exit_code == 127 || r.exit_code < 0)
    throw std::runtime_error("cannot run xmllint (Debian: libxml2-utils): " + r.err);
  return r.err.empty() ? "xmllint exited " + std::to_string(r.exit_code) : r.err;
}

}  // namespace mace::testing
