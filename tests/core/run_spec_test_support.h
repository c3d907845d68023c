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

// A core descriptor of the smallest valid form (core_descriptor.h), minified; a spec of
// the core generic also needs RTL edits on (kGenericOn).
inline constexpr std::string_view kDescriptor =
    R"({"name":"c","isa":"RV32I","top_module":"c","files":["piton/design/c.v"],)"
    R"("reset_vector":"0x0","memory_interface":{"protocol":"obi"}})";
inline std::string generic_json() {
  return R"("core":"generic","options":{"rtl_edits":true},"core_descriptor":)" + std::string(kDescriptor);
}

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
