#include "rpc/refusal.h"

#include "rpc/conversions.h"
#include "service/service_error.h"

namespace mace::rpc {
namespace {

api::ErrorKind to_wire(service::RequestErrorKind kind) {
  switch (kind) {
    case service::RequestErrorKind::invalid: return api::ErrorKind::INVALID;
    case service::RequestErrorKind::not_found: return api::ErrorKind::NOT_FOUND;
    case service::RequestErrorKind::not_permitted: return api::ErrorKind::NOT_PERMITTED;
    case service::RequestErrorKind::unavailable: return api::ErrorKind::UNAVAILABLE;
  }
  return api::ErrorKind::INTERNAL;
}

}  // namespace

Refusal refusal_of(std::exception_ptr thrown) {
  try {
    std::rethrow_exception(thrown);
  } catch (const service::RequestError& e) {
    return {to_wire(e.kind()), e.field_error().path, e.field_error().message};
  } catch (const UnknownWireValue& e) {
    return {api::ErrorKind::INVALID, "", e.what()};
  } catch (const kj::Exception& e) {
    return {api::ErrorKind::INTERNAL, "", e.getDescription().cStr()};
  } catch (const std::exception& e) {
    return {api::ErrorKind::INTERNAL, "", e.what()};
  } catch (...) {
    return {api::ErrorKind::INTERNAL, "", "an exception of unknown type"};
  }
}

kj::Exception as_exception(const Refusal& refusal) {
  if (refusal.kind == api::ErrorKind::INTERNAL) return failure("maced internal error: " + refusal.message);
  return failure(refusal.field.empty() ? refusal.message : refusal.field + ": " + refusal.message);
}

void fill(api::Error::Builder out, const Refusal& refusal) {
  out.setKind(refusal.kind);
  out.setField(refusal.field);
  out.setMessage(refusal.message);
}

}  // namespace mace::rpc
