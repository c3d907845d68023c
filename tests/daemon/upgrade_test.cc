// Today's maced started on a state directory an earlier MACE left (tests/store/upgrade/,
// one per schema version a release had): it migrates the store and serves every run as a
// user asks for it, its status, log, LLM calls, metrics and kept logs, and every
// evaluation batch.

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/sqlite.h"
#include "support/earlier_states.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::vector<std::string> column(store::Database& db, const std::string& sql) {
  std::vector<std::string> values;
  for (auto stmt = db.prepare(sql); stmt.step();) values.push_back(stmt.text(0));
  return values;
}

class UpgradedMacedTest : public ::testing::TestWithParam<EarlierState> {};

TEST_P(UpgradedMacedTest, ServesEveryRunAndBatchTheEarlierMacedLeft) {
  const EarlierState& earlier = GetParam();
  TempDir dir;
  lay_out(earlier, dir.file("state"), dir.file("checkout"));
  std::vector<std::string> runs, batches, kept_sims;
  {
    store::Database db(dir.file("state") + "/mace.db");
    runs = column(db, "SELECT id FROM runs ORDER BY id");
    if (!column(db, "SELECT name FROM sqlite_master WHERE name = 'eval_batches'").empty())
      batches = column(db, "SELECT id FROM eval_batches");
    if (!column(db, "SELECT name FROM pragma_table_info('log_files') WHERE name = 'kept_at_ms'").empty())
      kept_sims = column(db, "SELECT run_id FROM log_files WHERE workload = 'add.S' AND kept_at_ms IS NOT NULL");
  }
  MacedInstance maced(dir);
  const auto list = maced.mace({"--json", "list", "--limit", "0"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  for (const auto& id : runs) {
    SCOPED_TRACE(earlier.made_by + "run " + id);
    EXPECT_THAT(list.out, HasSubstr("\"run_id\":\"" + id + "\""));
    for (const std::vector<std::string>& command :
         {std::vector<std::string>{"status", id}, {"logs", id}, {"calls", id}, {"metrics", id}}) {
      const auto r = maced.mace(command);
      EXPECT_EQ(r.exit_code == 0 || (command[0] == "status" && r.exit_code == 1), true)
          << command[0] << " exit " << r.exit_code << ": " << r.err;
      EXPECT_THAT(r.err, ::testing::Not(HasSubstr("internal error"))) << command[0];
    }
  }
  for (const auto& id : std::set<std::string>(kept_sims.begin(), kept_sims.end())) {
    const auto sim = maced.mace({"logs", id, "--sim", "add.S"});
    EXPECT_EQ(sim.exit_code, 0) << id << ": " << sim.err;
    EXPECT_THAT(sim.out, HasSubstr("Simulation ->")) << id;
  }
  for (const auto& batch : batches) {
    const auto status = maced.mace({"eval", "status", batch});
    EXPECT_EQ(status.exit_code, 0) << batch << ": " << status.err;
  }
}

INSTANTIATE_TEST_SUITE_P(EachEarlierSchema, UpgradedMacedTest, ::testing::ValuesIn(earlier_states()),
                         [](const ::testing::TestParamInfo<EarlierState>& info) {
                           return "schema" + std::to_string(info.param.schema_version);
                         });

}  // namespace
}  // namespace mace::testing
