#pragma once
// A request the service cannot honour because of what the caller asked for (an unknown
// run, say). The RPC edge turns it into the schema's Error, or, for a client that did not
// ask for errors as values, an exception whose text starts with the field.

#include <stdexcept>

#include "core/field_error.h"

namespace mace::service {

// Why: the schema's ErrorKind less `internal`, which is never the caller's doing.
enum class RequestErrorKind {
  invalid,        // a field's value is not accepted
  not_found,      // it names something maced does not have
  not_permitted,  // it names something the caller may not see or change
  unavailable,    // this maced does not offer it
};

class RequestError : public std::runtime_error {
 public:
  RequestError(RequestErrorKind kind, FieldError e)
      : std::runtime_error(e.to_string()), kind_(kind), error_(std::move(e)) {}
  RequestErrorKind kind() const { return kind_; }
  const FieldError& field_error() const { return error_; }

 private:
  RequestErrorKind kind_;
  FieldError error_;
};

}  // namespace mace::service
