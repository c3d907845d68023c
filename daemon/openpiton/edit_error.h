#pragma once
// The errors of RTL edits (rtl_edits.h): every refusal and failure of a path, a replacement,
// the journal or a file write is an EditError whose message names the file and the reason.

#include <stdexcept>

namespace mace::openpiton {

// Any refused edit: a bad path, a replacement that does not match exactly once, an I/O error.
class EditError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A path the agent may not touch. The message names the path and the reason.
class PathError : public EditError {
 public:
  using EditError::EditError;
};

}  // namespace mace::openpiton
