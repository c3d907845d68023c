#include "store/sqlite.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>

#include "temp_dir.h"

namespace mace::store {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::TempDir;
using ::testing::Not;

int64_t count_rows(Database& db, const char* table) {
  auto stmt = db.prepare(std::string("SELECT count(*) FROM ") + table);
  stmt.step();
  return stmt.int64(0);
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(Sqlite, ErrorsNameTheFileAndSqlitesMessage) {
  TempDir dir;
  Database db(dir.db());
  EXPECT_THAT(message_of([&] { db.prepare("SELECT * FROM no_such_table"); }),
              AllOf(HasSubstr(dir.db().string()), HasSubstr("no such table: no_such_table")));
  EXPECT_THAT(message_of([&] { db.exec("CREATE TABLE t(x); CREATE TABLE t(x)"); }),
              AllOf(HasSubstr(dir.db().string()), HasSubstr("table t already exists")));
}

TEST(Sqlite, OpeningInAMissingDirectoryThrowsNamingThePath) {
  TempDir dir;
  auto path = dir.path() / "absent" / "mace.db";
  EXPECT_THAT(message_of([&] { Database db(path); }), HasSubstr(path.string()));
}

TEST(Sqlite, ConstraintFailureOnStepThrowsAndLeavesStatementReusable) {
  TempDir dir;
  Database db(dir.db());
  db.exec("CREATE TABLE t(x INTEGER PRIMARY KEY)");
  auto insert = db.prepare("INSERT INTO t(x) VALUES (?1)");
  insert.bind(1, 1).run();
  insert.reset();
  insert.bind(1, 1);
  EXPECT_THAT(message_of([&] { insert.run(); }), HasSubstr("UNIQUE constraint failed: t.x"));
  insert.reset();
  insert.bind(1, 2).run();
  EXPECT_EQ(count_rows(db, "t"), 2);
}

TEST(Sqlite, BindsAndReadsEveryType) {
  TempDir dir;
  Database db(dir.db());
  db.exec("CREATE TABLE t(a TEXT, b INTEGER, c REAL, d TEXT, e INTEGER, f TEXT)");
  auto insert = db.prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  std::string with_nul("a\0b", 3);
  insert.bind(1, with_nul)
      .bind(2, int64_t{1} << 40)
      .bind(3, 2.5)
      .bind(4, std::nullopt)
      .bind(5, std::optional<int64_t>())
      .bind(6, std::optional<std::string>("set"));
  insert.run();

  auto select = db.prepare("SELECT a, b, c, d, e, f FROM t");
  ASSERT_TRUE(select.step());
  EXPECT_EQ(select.text(0), with_nul);
  EXPECT_EQ(select.int64(1), int64_t{1} << 40);
  EXPECT_DOUBLE_EQ(select.real(2), 2.5);
  EXPECT_TRUE(select.is_null(3));
  EXPECT_EQ(select.text(3), "");
  EXPECT_EQ(select.optional_text(3), std::nullopt);
  EXPECT_EQ(select.optional_int64(4), std::nullopt);
  EXPECT_EQ(select.optional_text(5), "set");
  EXPECT_FALSE(select.step());
}

// A full disk (here: a database held at its current size) is reported in words: which
// table could not be written and SQLite's reason, never the statement.
TEST(Sqlite, AFullDatabaseSaysWhatCouldNotBeWrittenInWords) {
  TempDir dir;
  Database db(dir.db());
  db.exec("PRAGMA journal_mode=WAL; CREATE TABLE events(a TEXT)");
  auto pages = db.prepare("PRAGMA page_count");
  pages.step();
  db.exec("PRAGMA max_page_count = " + std::to_string(pages.int64(0)));
  try {
    for (int i = 0; i < 1000; ++i)
      db.prepare("INSERT INTO events VALUES (?1)").bind(1, std::string(4000, 'x')).run();
    FAIL() << "the database never filled";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot write to events: database or disk is full"));
    EXPECT_THAT(e.what(), Not(HasSubstr("INSERT")));
  }
}

TEST(Sqlite, StatementsAreDescribedByWhatTheyDo) {
  EXPECT_EQ(describe_statement("INSERT INTO events (a) VALUES (?1)"), "write to events");
  EXPECT_EQ(describe_statement("\n  UPDATE runs SET state = ?1"), "update runs");
  EXPECT_EQ(describe_statement("DELETE FROM task_results WHERE task_row = ?1"), "delete from task_results");
  EXPECT_EQ(describe_statement("SELECT id, (SELECT 1) FROM runs WHERE x"), "read runs");
  EXPECT_EQ(describe_statement("COMMIT"), "commit");
  EXPECT_EQ(describe_statement("CREATE TABLE t(a)"), "change the schema");
}

TEST(Sqlite, AnEmptyViewIsTheEmptyTextNotNull) {
  TempDir dir;
  Database db(dir.db());
  db.exec("CREATE TABLE t(a TEXT NOT NULL)");
  // A default-constructed view has no pointer; SQLite would bind that as NULL.
  db.prepare("INSERT INTO t VALUES (?1)").bind(1, std::string_view()).run();
  auto select = db.prepare("SELECT a IS NULL, a FROM t");
  ASSERT_TRUE(select.step());
  EXPECT_EQ(select.int64(0), 0);
  EXPECT_EQ(select.text(1), "");
}

TEST(Sqlite, TransactionNotCommittedRollsBack) {
  TempDir dir;
  Database db(dir.db());
  db.exec("CREATE TABLE t(x)");
  {
    Transaction txn(db);
    db.exec("INSERT INTO t VALUES (1)");
  }
  EXPECT_FALSE(db.in_transaction());
  EXPECT_EQ(count_rows(db, "t"), 0);
  {
    Transaction txn(db);
    db.exec("INSERT INTO t VALUES (1)");
    txn.commit();
  }
  EXPECT_EQ(count_rows(db, "t"), 1);
}

TEST(Sqlite, TransactionRollsBackWhenAnExceptionLeavesIt) {
  TempDir dir;
  Database db(dir.db());
  db.exec("CREATE TABLE t(x UNIQUE)");
  EXPECT_THROW(
      {
        Transaction txn(db);
        db.exec("INSERT INTO t VALUES (1)");
        db.exec("INSERT INTO t VALUES (1)");
        txn.commit();
      },
      std::runtime_error);
  EXPECT_FALSE(db.in_transaction());
  EXPECT_EQ(count_rows(db, "t"), 0);
}

TEST(Sqlite, NestedTransactionIsASavepointOfTheOuterOne) {
  TempDir dir;
  Database db(dir.db());
  db.exec("CREATE TABLE t(x)");
  {
    Transaction outer(db);
    db.exec("INSERT INTO t VALUES (1)");
    {
      Transaction inner(db);
      db.exec("INSERT INTO t VALUES (2)");
    }  // inner rolled back: only its row goes
    EXPECT_TRUE(db.in_transaction());
    {
      Transaction inner(db);
      db.exec("INSERT INTO t VALUES (3)");
      inner.commit();
    }
    outer.commit();
  }
  auto stmt = db.prepare("SELECT group_concat(x) FROM (SELECT x FROM t ORDER BY x)");
  stmt.step();
  EXPECT_EQ(stmt.text(0), "1,3");

  {
    Transaction outer(db);
    Transaction inner(db);
    db.exec("INSERT INTO t VALUES (4)");
    inner.commit();
  }  // the outer rollback undoes what the committed savepoint did
  EXPECT_EQ(count_rows(db, "t"), 2);
}

}  // namespace
}  // namespace mace::store
