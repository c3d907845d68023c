#pragma once
// A request the service cannot honour because of what the caller asked for (an unknown
// run, say). The RPC edge turns it into an exception whose text starts with the field.

#include <stdexcept>

#include "core/field_error.h"

namespace mace::service {

class RequestError : public std::runtime_error {
 public:
  explicit RequestError(FieldError e) : std::runtime_error(e.to_string()), error_(std::move(e)) {}
  const FieldError& field_error() const { return error_; }

 private:
  FieldError error_;
};

}  // namespace mace::service
