#pragma once
// A request maced refused, as it said so: the schema's Error (kind, field, message) carried
// in the method's results (docs/client.md#exit-codes). Thrown out of a command by
// answered() and turned into a message and an exit code by with_maced.

#include <stdexcept>
#include <string>
#include <utility>

#include "mace.capnp.h"

namespace mace::client {

class MacedRefusal : public std::runtime_error {
 public:
  MacedRefusal(api::ErrorKind kind, std::string field, std::string message)
      : std::runtime_error(message), kind_(kind), field_(std::move(field)) {}
  api::ErrorKind kind() const { return kind_; }
  const std::string& field() const { return field_; }

 private:
  api::ErrorKind kind_;
  std::string field_;
};

// The response of a request, or the refusal it carries thrown as MacedRefusal.
template <typename Response>
Response answered(Response&& response) {
  if (response.hasError()) {
    auto error = response.getError();
    throw MacedRefusal(error.getKind(), error.getField().cStr(), error.getMessage().cStr());
  }
  return std::move(response);
}

// The exit code of a refusal of `kind`: the caller's doing (2) or maced's (4).
int exit_code_of(api::ErrorKind kind);

}  // namespace mace::client
