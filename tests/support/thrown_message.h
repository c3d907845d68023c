#pragma once
// Tests of failures that throw check the text of what was thrown: what a person is shown.
// A call that throws nothing (or something else) fails the test here, so a check of the
// text can never pass by accident.

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace mace::testing {

// The what() of the `Error` that `make` throws; "" and a test failure when it throws none.
template <class Error, class Make>
std::string thrown_message(Make&& make) {
  try {
    std::forward<Make>(make)();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "nothing of the expected type was thrown";
  return "";
}

}  // namespace mace::testing
