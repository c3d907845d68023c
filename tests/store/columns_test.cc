// A table's columns listed once with the record members they hold: the names, parameters
// and SET list a statement needs, and a record written and read back through real SQLite
// with every kind of member a record has.
#include "store/columns.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/run_state.h"
#include "temp_dir.h"

namespace mace::store {
namespace {

using ::testing::HasSubstr;

struct Sample {
  std::string name = {};
  int64_t count = 0;
  uint32_t uid = 0;
  int small = 0;
  bool flag = false;
  double seconds = 0;
  RunState state = RunState::queued;
  std::optional<int64_t> cycles = {};
  std::optional<double> ratio = {};
  std::optional<std::string> note = {};
  std::optional<RunState> last = {};
};

const auto kSampleColumns = columns(
    column("name", &Sample::name), column("count", &Sample::count), column("uid", &Sample::uid),
    column("small", &Sample::small), column("flag", &Sample::flag), column("seconds", &Sample::seconds),
    column("state", &Sample::state), column("cycles", &Sample::cycles), column("ratio", &Sample::ratio),
    column("note", &Sample::note), column("last", &Sample::last));

TEST(Columns, GiveTheNamesParametersAndAssignmentsOfAStatement) {
  const auto two = columns(column("name", &Sample::name), column("count", &Sample::count));
  EXPECT_EQ(two.names(), "name, count");
  EXPECT_EQ(two.names("s"), "s.name, s.count");
  EXPECT_EQ(two.parameters(), "?1, ?2");
  EXPECT_EQ(two.parameters(3), "?3, ?4");
  EXPECT_EQ(two.assignments(2), "name = ?2, count = ?3");
  EXPECT_EQ(kSampleColumns.count, 11);
}

class ColumnsTest : public ::testing::Test {
 protected:
  ColumnsTest() : db_(dir_.path() / "t.db") {
    db_.exec("CREATE TABLE samples (id INTEGER PRIMARY KEY, name TEXT, count INTEGER, uid INTEGER, "
             "small INTEGER, flag INTEGER, seconds REAL, state TEXT, cycles INTEGER, ratio REAL, note TEXT, "
             "last TEXT)");
  }
  void insert(const Sample& sample) {
    auto stmt = db_.prepare("INSERT INTO samples (" + kSampleColumns.names() + ") VALUES (" +
                            kSampleColumns.parameters() + ")");
    kSampleColumns.bind(stmt, 1, sample).run();
  }
  Sample read_back(const std::string& where = "") {
    auto stmt = db_.prepare("SELECT id, " + kSampleColumns.names() + " FROM samples " + where);
    EXPECT_TRUE(stmt.step());
    return kSampleColumns.read(db_, stmt, 1);
  }

  testing::TempDir dir_;
  Database db_;
};

TEST_F(ColumnsTest, ARecordComesBackAsItWasWritten) {
  Sample sample{"add.S", int64_t{1} << 40, 4000000000u, -3, true, 1.25, RunState::passed,
                6943250, 0.5, std::string("kept"), RunState::cancelled};
  insert(sample);
  const Sample back = read_back();
  EXPECT_EQ(back.name, "add.S");
  EXPECT_EQ(back.count, int64_t{1} << 40);
  EXPECT_EQ(back.uid, 4000000000u);
  EXPECT_EQ(back.small, -3);
  EXPECT_TRUE(back.flag);
  EXPECT_EQ(back.seconds, 1.25);
  EXPECT_EQ(back.state, RunState::passed);
  EXPECT_EQ(back.cycles, 6943250);
  EXPECT_EQ(back.ratio, 0.5);
  EXPECT_EQ(back.note, "kept");
  EXPECT_EQ(back.last, RunState::cancelled);
}

TEST_F(ColumnsTest, AnOptionalLeftOutIsNullAndReadsBackAsNothing) {
  insert(Sample{});
  auto stmt = db_.prepare("SELECT cycles IS NULL, ratio IS NULL, note IS NULL, state, last FROM samples");
  ASSERT_TRUE(stmt.step());
  EXPECT_EQ(stmt.int64(0) + stmt.int64(1) + stmt.int64(2), 3);
  EXPECT_EQ(stmt.text(3), "queued") << "an enum is stored as its word";
  EXPECT_EQ(stmt.text(4), "") << "an optional word with none is the empty word";
  const Sample back = read_back();
  EXPECT_FALSE(back.cycles);
  EXPECT_FALSE(back.ratio);
  EXPECT_FALSE(back.note);
  EXPECT_FALSE(back.last);
}

TEST_F(ColumnsTest, AnUpdateSetsTheColumnsFromTheRecord) {
  insert(Sample{.name = "a", .count = 1});
  const auto counts = columns(column("count", &Sample::count), column("state", &Sample::state));
  auto stmt = db_.prepare("UPDATE samples SET " + counts.assignments(2) + " WHERE name = ?1");
  stmt.bind(1, "a");
  counts.bind(stmt, 2, Sample{.count = 7, .state = RunState::error}).run();
  const Sample back = read_back();
  EXPECT_EQ(back.count, 7);
  EXPECT_EQ(back.state, RunState::error);
}

TEST_F(ColumnsTest, AnUnknownWordIsAnErrorNamingItsColumn) {
  db_.exec("INSERT INTO samples (name, state) VALUES ('x', 'exploded')");
  auto stmt = db_.prepare("SELECT id, " + kSampleColumns.names() + " FROM samples");
  ASSERT_TRUE(stmt.step());
  try {
    kSampleColumns.read(db_, stmt, 1);
    FAIL() << "read an unknown state";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown state \"exploded\""));
  }
}

}  // namespace
}  // namespace mace::store
