#pragma once
// Shared by the run-spec tests: readable failure output and small spec builders.

#include <ostream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "core/field_error.h"
#include "core/run_spec.h"

namespace mace {

// Without this gtest prints a FieldError as raw bytes.
inline void PrintTo(const FieldError& e, std::ostream* os) {
  *os << "{\"" << e.path << "\", \"" << e.message << "\"}";
}

namespace spec_test {

// A valid spec holding only the required fields, plus `extra` top-level members.
inline std::string spec_json(std::string_view extra = "") {
  std::string json = R"({"workloads":["hello"],"objective":"boot linux")";
  if (!extra.empty()) {
    json += ',';
    json += extra;
  }
  json += '}';
  return json;
}

// The errors for JSON that must not parse.
inline FieldErrors errors_for(std::string_view json) {
  SpecParseResult result = parse_run_spec_json(json);
  EXPECT_FALSE(result.spec.has_value()) << "accepted: " << json;
  EXPECT_FALSE(result.errors.empty()) << "no errors for: " << json;
  return result.errors;
}

// The spec for JSON that must parse.
inline RunSpec parsed(std::string_view json) {
  SpecParseResult result = parse_run_spec_json(json);
  for (const FieldError& e : result.errors) ADD_FAILURE() << e.to_string() << "\n  in: " << json;
  return result.spec.value_or(RunSpec{});
}

// A typed spec that validates, as the structured RPC form would deliver it.
inline RunSpec valid_spec() {
  RunSpec spec;
  spec.workloads = {"hello"};
  spec.objective = "boot linux";
  return spec;
}

}  // namespace spec_test
}  // namespace mace
