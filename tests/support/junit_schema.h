#pragma once
// JUnit XML checked as a CI's test view would read it: against tests/support/junit.xsd, the
// format's common structure, with xmllint (Debian: libxml2-utils).

#include <string>

namespace mace::testing {

// xmllint's complaints about the file at `path`; "" when it is valid JUnit XML. Throws when
// xmllint cannot be run.
std::string junit_schema_errors(const std::string& path);

}  // namespace mace::testing
