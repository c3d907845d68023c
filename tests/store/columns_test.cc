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

// A record with members a column holds other than as they are.
struct Held {
  int64_t started = 0;
  std::string replay_of = {};
  std::optional<RunState> state = {};
  std::vector<std::string> deps = {};
  std::vector<std::string> flags = {};
  std::vector<std::string> defines = {};
  bool operator==(const Held&) const = default;
};

const auto kHeldColumns = columns(
    column("started", &Held::started, null_when_none), column("replay_of", &Held::replay_of, null_when_none),
    column("state", &Held::state, null_when_none), column("deps", &Held::deps, json_list),
    column("flags", &Held::flags, words), column("defines", &Held::defines, sorted_words));

class HeldColumnsTest : public ::testing::Test {
 protected:
  HeldColumnsTest() : db_(dir_.path() / "h.db") {
    db_.exec("CREATE TABLE held (started INTEGER, replay_of TEXT, state TEXT, deps TEXT, flags TEXT, "
             "defines TEXT)");
  }
  void insert(const Held& held) {
    auto stmt = db_.prepare("INSERT INTO held (" + kHeldColumns.names() + ") VALUES (" +
                            kHeldColumns.parameters() + ")");
    kHeldColumns.bind(stmt, 1, held).run();
  }
  Held read_back() {
    auto stmt = db_.prepare("SELECT " + kHeldColumns.names() + " FROM held");
    EXPECT_TRUE(stmt.step());
    return kHeldColumns.read(db_, stmt);
  }
  std::string row() {
    auto stmt = db_.prepare(
        "SELECT quote(started) || ' ' || quote(replay_of) || ' ' || quote(state) || ' ' || deps || ' ' || "
        "quote(flags) || ' ' || quote(defines) FROM held");
    EXPECT_TRUE(stmt.step());
    return stmt.text(0);
  }

  testing::TempDir dir_;
  Database db_;
};

TEST_F(HeldColumnsTest, TheRecordsNoneIsNullAndReadsBackAsNone) {
  insert(Held{});
  EXPECT_EQ(row(), "NULL NULL NULL [] '' ''");
  EXPECT_EQ(read_back(), Held{});
}

TEST_F(HeldColumnsTest, ListsAreStoredAsTheirColumnSaysAndComeBackTheSame) {
  const Held held{1700000000000, "R1", RunState::running, {"t1", "t \"2\""}, {"-b", "-a"}, {"Z", "A"}};
  insert(held);
  EXPECT_EQ(row(), R"(1700000000000 'R1' 'running' ["t1","t \"2\""] '-b -a' 'A Z')");
  Held expected = held;
  expected.defines = {"A", "Z"};  // a set comes back in order
  EXPECT_EQ(read_back(), expected);
}

TEST_F(HeldColumnsTest, AWordThatWouldNotSplitBackIsRefusedAndNothingIsWritten) {
  EXPECT_THROW(insert(Held{.flags = {"two words"}}), std::invalid_argument);
  EXPECT_THROW(insert(Held{.defines = {""}}), std::invalid_argument);
  auto count = db_.prepare("SELECT count(*) FROM held");
  ASSERT_TRUE(count.step());
  EXPECT_EQ(count.int64(0), 0);
}

TEST_F(HeldColumnsTest, AListThatIsNotJsonIsAnErrorNamingItsColumn) {
  db_.exec("INSERT INTO held (deps, flags, defines) VALUES ('[\"a\",', '', '')");
  try {
    read_back();
    FAIL() << "read a broken list";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("deps"));
  }
}

TEST(Columns, AnUpsertUpdatesEveryColumnButItsKey) {
  const auto three = columns(column("name", &Sample::name), column("count", &Sample::count),
                             column("state", &Sample::state));
  EXPECT_EQ(three.updates_from_excluded(1), "count = excluded.count, state = excluded.state");
  EXPECT_EQ(three.updates_from_excluded(3), "");
}

}  // namespace
}  // namespace mace::store
