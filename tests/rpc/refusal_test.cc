// How a refused request reaches a client: its kind and field kept apart from the message
// as a value, or, for a client that did not ask for values, the exception text older
// clients read their exit code from.
#include "rpc/refusal.h"

#include <capnp/message.h>
#include <gtest/gtest.h>

#include "rpc/conversions.h"
#include "service/service_error.h"

namespace mace::rpc {
namespace {

Refusal refused(auto thrown) { return refusal_of(std::make_exception_ptr(thrown)); }

TEST(Refusal, ARequestErrorKeepsItsKindAndField) {
  const Refusal r = refused(service::RequestError(service::RequestErrorKind::not_found,
                                                  {"runId", "no run named 'x'"}));
  EXPECT_EQ(r.kind, api::ErrorKind::NOT_FOUND);
  EXPECT_EQ(r.field, "runId");
  EXPECT_EQ(r.message, "no run named 'x'");
  for (auto [kind, wire] : {std::pair{service::RequestErrorKind::invalid, api::ErrorKind::INVALID},
                            {service::RequestErrorKind::not_permitted, api::ErrorKind::NOT_PERMITTED},
                            {service::RequestErrorKind::unavailable, api::ErrorKind::UNAVAILABLE}})
    EXPECT_EQ(refused(service::RequestError(kind, {"f", "m"})).kind, wire);
}

TEST(Refusal, AnUnknownWireValueIsInvalidAndAnythingElseMacedsOwn) {
  EXPECT_EQ(refused(UnknownWireValue("state: 99 is not a run state")).kind, api::ErrorKind::INVALID);
  const Refusal own = refused(std::runtime_error("disk I/O error"));
  EXPECT_EQ(own.kind, api::ErrorKind::INTERNAL);
  EXPECT_EQ(own.field, "");
  EXPECT_EQ(own.message, "disk I/O error");
  EXPECT_EQ(refused(42).kind, api::ErrorKind::INTERNAL);
}

// The words clients built before refusals were values chose their exit code by.
TEST(Refusal, AsAnExceptionItReadsAsOlderClientsExpect) {
  EXPECT_EQ(std::string(as_exception({api::ErrorKind::NOT_FOUND, "runId", "no run named 'x'"})
                            .getDescription().cStr()),
            "runId: no run named 'x'");
  EXPECT_EQ(std::string(as_exception({api::ErrorKind::UNAVAILABLE, "", "no harness"}).getDescription().cStr()),
            "no harness");
  EXPECT_EQ(std::string(as_exception({api::ErrorKind::INTERNAL, "", "disk I/O error"}).getDescription().cStr()),
            "maced internal error: disk I/O error");
}

TEST(Refusal, FillsTheSchemasError) {
  capnp::MallocMessageBuilder message;
  auto error = message.initRoot<api::Error>();
  fill(error, {api::ErrorKind::NOT_PERMITTED, "batchId", "batch b1 is uid 1001's"});
  EXPECT_EQ(error.getKind(), api::ErrorKind::NOT_PERMITTED);
  EXPECT_EQ(std::string(error.getField().cStr()), "batchId");
  EXPECT_EQ(std::string(error.getMessage().cStr()), "batch b1 is uid 1001's");
}

}  // namespace
}  // namespace mace::rpc
