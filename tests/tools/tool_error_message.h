#pragma once
// Tests of tools that cannot be made check the text the ToolError carries. A call that
// throws nothing fails the test here, so a check of the text can never pass by accident.

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "tools/tool_error.h"

namespace mace::tools {

// The what() of the ToolError `make` throws; "" and a test failure when it throws none.
template <class Make>
std::string tool_error_of(Make&& make) {
  try {
    std::forward<Make>(make)();
  } catch (const ToolError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ToolError was thrown";
  return "";
}

}  // namespace mace::tools
