// How mace renders maced's answers (client/render.h), tested on messages built here: the
// words of each wire enum are the daemon's own, the JSON of a run keeps the field names
// scripts read, and the human lines hold what they say they do.
#include "client/render.h"

#include <capnp/message.h>
#include <capnp/schema.h>

#include <set>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/run_state.h"
#include "core/task_stage.h"

namespace mace::client {
namespace {

using ::testing::HasSubstr;

// Every word the client gives an enumerant of wire enum `Wire` (through `name`).
template <typename Wire, typename Name>
std::set<std::string> wire_words(Name name) {
  std::set<std::string> words;
  for (auto enumerant : capnp::Schema::from<Wire>().getEnumerants())
    words.insert(name(static_cast<Wire>(enumerant.getOrdinal())));
  return words;
}

// Every word the daemon gives an enumerator of `Core` (core/enum_text.h's walk).
template <typename Core>
std::set<std::string> core_words() {
  std::set<std::string> words;
  for (int i = 0;; ++i) {
    const std::string_view name = to_string(static_cast<Core>(i));
    if (name.empty()) break;
    words.insert(std::string(name));
  }
  return words;
}

// The client names a wire value by its enumerant; the store and the daemon by core's
// to_string. The words must be the same ones, or `--json` and the store disagree.
TEST(Render, TheRunStatesAndTaskStagesWordsAreTheDaemons) {
  EXPECT_EQ(wire_words<api::RunState>(state_name), core_words<RunState>());
  EXPECT_EQ(wire_words<api::TaskStage>(stage_name), core_words<TaskStage>());
}

// The JSON of a run summary is the scripting interface: its field names and null for what
// has not happened are fixed (docs/client.md).
TEST(Render, ARunSummarysJsonKeepsItsFieldsAndNullsForWhatHasNotHappened) {
  capnp::MallocMessageBuilder message;
  auto run = message.initRoot<api::RunSummary>();
  run.setRunId("20261207-120000-000-abcd");
  run.setState(api::RunState::BUDGET_EXCEEDED);
  run.setCore("pico");
  run.setMeshX(2);
  run.setMeshY(1);
  run.setSubmittedAtMs(1765108800000);
  run.setStartedAtMs(1765108801000);
  run.setPlanner("direct");
  JsonWriter w;
  write_json(w, run.asReader());
  const std::string json = w.str();
  EXPECT_THAT(json, HasSubstr(R"("run_id":"20261207-120000-000-abcd","state":"budget_exceeded")"));
  EXPECT_THAT(json, HasSubstr(R"("mesh":[2,1])"));
  EXPECT_THAT(json, HasSubstr(R"("started_at_ms":1765108801000,"finished_at_ms":null)"));
  EXPECT_THAT(json, HasSubstr(R"("replay_of":null)"));
  EXPECT_THAT(json, HasSubstr(R"("planner":"direct","outcome":null)"));
  EXPECT_EQ(outcome_word(run.asReader()), "budget_exceeded (direct)");
  run.setOutcome("caught");
  EXPECT_EQ(outcome_word(run.asReader()), "caught") << "a fault check's conclusion";
}

TEST(Render, AHumanRowHoldsTheRunOnOneLineWithItsObjectiveCut) {
  capnp::MallocMessageBuilder message;
  auto run = message.initRoot<api::RunSummary>();
  run.setRunId("r1");
  run.setState(api::RunState::PASSED);
  run.setCore("sparc");
  run.setMeshX(2);
  run.setMeshY(2);
  run.setObjective("line one\nline two\t" + std::string(80, 'x'));
  const std::string row = human_summary_row(run.asReader());
  EXPECT_EQ(row.find('\n'), std::string::npos);
  EXPECT_THAT(row, HasSubstr("passed"));
  EXPECT_THAT(row, HasSubstr("2x2"));
  EXPECT_THAT(row, HasSubstr("line one line two"));
  EXPECT_THAT(row, HasSubstr("..."));
}

TEST(Render, CyclesAreGroupedInThousands) {
  EXPECT_EQ(cycles_text(0), "0");
  EXPECT_EQ(cycles_text(999), "999");
  EXPECT_EQ(cycles_text(13886), "13,886");
  EXPECT_EQ(cycles_text(6943250), "6,943,250");
}

}  // namespace
}  // namespace mace::client
