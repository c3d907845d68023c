#pragma once
// A request maced refuses or fails, as it reaches the client: the schema's Error in the
// method's results for a client that asked for errors as values (Maced.version), else the
// exception clients built before that know, its text starting with the field.

#include <exception>
#include <string>

#include <kj/exception.h>

#include "mace.capnp.h"

namespace mace::rpc {

struct Refusal {
  api::ErrorKind kind = api::ErrorKind::INTERNAL;
  std::string field;    // "" for none
  std::string message;  // without the field
};

// What was thrown while answering: a service::RequestError keeps its kind and field, an
// unknown wire value is `invalid`, anything else maced's own failure (`internal`).
Refusal refusal_of(std::exception_ptr thrown);

// As older clients know it: "runId: no run named 'x'", "maced internal error: ..." for
// maced's own failures (the words mace chose its exit code by).
kj::Exception as_exception(const Refusal& refusal);

// Fills `error` of a method's results.
void fill(api::Error::Builder out, const Refusal& refusal);

}  // namespace mace::rpc
