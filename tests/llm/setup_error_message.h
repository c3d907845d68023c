#pragma once
// Tests of setup failures check the text the SetupError carries, which is what maced shows
// whoever configures it. A call that throws nothing fails the test here, so a check of the
// text can never pass by accident.

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "llm/setup_error.h"

namespace mace::llm {

// The what() of the SetupError `make` throws; "" and a test failure when it throws none.
template <class Make>
std::string setup_error_of(Make&& make) {
  try {
    std::forward<Make>(make)();
  } catch (const SetupError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no SetupError was thrown";
  return "";
}

}  // namespace mace::llm
