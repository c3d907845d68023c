// The wire's enums and records as the daemon writes them (rpc/conversions.h).
#include "rpc/conversions.h"

#include <capnp/message.h>
#include <gtest/gtest.h>

namespace mace::rpc {
namespace {

// Every run state crosses the wire and back as itself.
TEST(Conversions, EveryRunStateRoundTrips) {
  for (int i = 0; i <= static_cast<int>(RunState::cancelled); ++i) {
    const auto state = static_cast<RunState>(i);
    EXPECT_EQ(from_wire(to_wire(state)), state) << to_string(state);
  }
  EXPECT_THROW(from_wire(static_cast<api::RunState>(200)), UnknownWireValue);
}

TEST(Conversions, ARunSummaryCarriesTheRecordsFields) {
  store::RunRecord run;
  run.id = "20261207-120000-000-abcd";
  run.state = RunState::budget_exceeded;
  run.submitted_by_uid = 1001;
  run.reason = "the budget's 3 iterations were used";
  capnp::MallocMessageBuilder message;
  auto out = message.initRoot<api::RunSummary>();
  fill(out, run);
  EXPECT_EQ(std::string(out.getRunId().cStr()), run.id);
  EXPECT_EQ(out.getState(), api::RunState::BUDGET_EXCEEDED);
  EXPECT_EQ(out.getSubmittedByUid(), 1001u);
  EXPECT_EQ(std::string(out.getReason().cStr()), run.reason);
}

}  // namespace
}  // namespace mace::rpc
