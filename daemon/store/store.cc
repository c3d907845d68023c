#include "store/store.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <utility>

#include "core/enum_text.h"
#include "core/json_writer.h"
#include "store/migrations.h"
#include "store/sqlite.h"
#include "store/stored_word.h"
#include "store/workload_result_columns.h"

namespace mace::store {
namespace {

constexpr int kBusyTimeoutMs = 5000;

// The derived columns are computed in the query so one statement reads a consistent
// snapshot, and so list_runs costs one query, not one per run. A listing reads no spec
// (migration 14): kSelectRunSummary; kSelectRun adds it where the whole record is wanted.
constexpr const char* kRunColumns = R"sql(
SELECT id, state, reason, core, mesh_x, mesh_y, objective, workloads_json,
       backend, model, max_iterations, max_usd, max_wall_s, submitted_by_uid,
       submitted_at_ms, started_at_ms, finished_at_ms, replay_of, replay_until,
       checkouts_wanted, planner, outcome, default_caches,
       (SELECT count(*) FROM iterations i WHERE i.run_id = runs.id),
       (SELECT total(c.cost_usd) FROM llm_calls c WHERE c.run_id = runs.id)
)sql";
constexpr const char* kSpecColumn = R"sql(,
       coalesce((SELECT s.spec_json FROM run_specs s WHERE s.run_id = runs.id), '{}')
)sql";
const std::string kSelectRun = std::string(kRunColumns) + kSpecColumn + "FROM runs\n";
const std::string kSelectRunSummary = std::string(kRunColumns) + "FROM runs\n";

std::string pragma_text(Database& db, const char* sql) {
  auto stmt = db.prepare(sql);
  return stmt.step() ? stmt.text(0) : std::string();
}

// Switching a file to WAL takes its exclusive lock without consulting the busy handler,
// so a connection opening a new file while another one switches it gets SQLITE_BUSY at
// once. Wait that out here as the handler would.
std::string enter_wal(Database& db) {
  using namespace std::chrono;
  auto deadline = steady_clock::now() + milliseconds(kBusyTimeoutMs);
  for (auto pause = milliseconds(1);; pause = std::min(pause * 2, milliseconds(100))) {
    try {
      return pragma_text(db, "PRAGMA journal_mode = WAL");
    } catch (const Error& e) {
      if (!e.busy() || steady_clock::now() + pause > deadline) throw;
    }
    std::this_thread::sleep_for(pause);
  }
}

RunState parse_state(const Database& db, const std::string& s) {
  return parse_word<RunState>(db, "run state", s);
}

// Optional words are stored as "" when absent.
template <typename Enum>
std::optional<Enum> parse_optional_word(const Database& db, std::string_view column,
                                        const std::string& s) {
  if (s.empty()) return std::nullopt;
  return parse_word<Enum>(db, column, s);
}

template <typename Enum>
std::string_view optional_word(const std::optional<Enum>& value) {
  return value ? to_string(*value) : std::string_view();
}

std::string strings_to_json(const std::vector<std::string>& strings) {
  JsonWriter w;
  w.begin_array();
  for (auto& s : strings) w.value(s);
  w.end_array();
  return w.take();
}

// `what` names the column for the error, e.g. "run X: workloads_json".
std::vector<std::string> strings_from_json(const Database& db, const std::string& what,
                                           const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::array array;
  auto fail = [&] {
    return std::runtime_error(db.path().string() + ": " + what +
                              " is not a JSON array of strings");
  };
  if (parser.parse(json).get_array().get(array) != simdjson::SUCCESS) throw fail();
  std::vector<std::string> out;
  for (auto element : array) {
    std::string_view s;
    if (element.get_string().get(s) != simdjson::SUCCESS) throw fail();
    out.emplace_back(s);
  }
  return out;
}

std::vector<std::string> workloads_from_json(const Database& db, const std::string& run_id,
                                             const std::string& json) {
  return strings_from_json(db, "run " + run_id + ": workloads_json", json);
}

// A list stored as one space-separated column: refuses what would not split back the same.
std::string join_words(const char* column, const std::vector<std::string>& words) {
  std::string out;
  for (auto& w : words) {
    if (w.empty() || w.find_first_of(" \t\n\r\f\v") != std::string::npos)
      throw std::invalid_argument(std::string(column) + ": \"" + w +
                                  "\" cannot be stored space-separated");
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = text.find_first_not_of(' ', pos)) != std::string::npos) {
    size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

// runs.default_caches: "l1i:16384:4 l1d:8192:4 l15:8192:4 l2:65536:4", name, size in
// bytes, ways; "" for none.
std::string caches_text(const CacheGeometry& caches) {
  std::string out;
  for (const auto& [name, cache] : caches) {
    if (name.empty() || name.find_first_of(": ") != std::string::npos)
      throw std::invalid_argument("default_caches: cannot store a cache named \"" + name + "\"");
    out += (out.empty() ? "" : " ") + name + ":" + std::to_string(cache.size) + ":" +
           std::to_string(cache.associativity);
  }
  return out;
}

CacheGeometry caches_from_text(const Database& db, const std::string& run_id, const std::string& text) {
  CacheGeometry out;
  for (const std::string& word : split_words(text)) {
    const std::size_t a = word.find(':'), b = word.rfind(':');
    int64_t size = 0, ways = 0;
    const bool ok = a != std::string::npos && b > a && a > 0 &&
                    std::from_chars(word.data() + a + 1, word.data() + b, size).ptr == word.data() + b &&
                    std::from_chars(word.data() + b + 1, word.data() + word.size(), ways).ptr ==
                        word.data() + word.size();
    if (!ok)
      throw std::runtime_error(db.path().string() + ": run " + run_id + ": default_caches \"" +
                               text + "\" is not name:size:ways words");
    out[word.substr(0, a)] = {size, ways};
  }
  return out;
}

// A row of kSelectRun (with_spec) or kSelectRunSummary.
RunRecord read_run(const Database& db, const Statement& s, bool with_spec = true) {
  RunRecord r;
  r.id = s.text(0);
  r.state = parse_state(db, s.text(1));
  r.reason = s.text(2);
  r.core = s.text(3);
  r.mesh_x = static_cast<int>(s.int64(4));
  r.mesh_y = static_cast<int>(s.int64(5));
  r.objective = s.text(6);
  r.workloads = workloads_from_json(db, r.id, s.text(7));
  r.backend = s.text(8);
  r.model = s.text(9);
  r.max_iterations = s.int64(10);
  r.max_usd = s.real(11);
  r.max_wall_s = s.int64(12);
  r.submitted_by_uid = static_cast<uint32_t>(s.int64(13));
  r.submitted_at_ms = s.int64(14);
  r.started_at_ms = s.int64(15);
  r.finished_at_ms = s.int64(16);
  r.replay_of = s.text(17);
  r.replay_until = s.int64(18);
  r.checkouts_wanted = s.int64(19);
  r.planner = parse_optional_word<PlannerKind>(db, "planner", s.text(20));
  r.outcome = parse_word<RunOutcome>(db, "run outcome", s.text(21));
  r.default_caches = caches_from_text(db, r.id, s.text(22));
  r.iterations = s.int64(23);
  r.cost_usd = s.real(24);
  if (with_spec) r.spec_json = s.text(25);
  return r;
}

// 0 and "" in a record mean "none"; the schema says so with NULL.
std::optional<int64_t> unless_zero(int64_t v) { return v ? std::optional(v) : std::nullopt; }
std::optional<std::string> unless_empty(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional(s);
}

// Placeholders ?first, ?first+1, ... for an IN list, bound by the caller in that order.
std::string in_list(int first, size_t count) {
  std::string out = "(";
  for (size_t i = 0; i < count; ++i) {
    if (i) out += ", ";
    out += "?" + std::to_string(first + static_cast<int>(i));
  }
  return out + ")";
}

int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// The columns of tasks that a TaskRecord sets, in bind order (?1, ?2, ...); the first
// three are its key.
constexpr const char* kTaskColumns[] = {
    "run_id",      "iteration",  "task_id",        "kind",         "instruction",
    "deps_json",   "checkout",   "core",           "mesh_x",       "mesh_y",
    "network",     "l1i_size",   "l1i_assoc",      "l1d_size",     "l1d_assoc",
    "l15_size",    "l15_assoc",  "l2_size",        "l2_assoc",     "rtl_defines",
    "rtl_edits",   "rtl_edits_hash", "extra_flags", "build_id",    "build_outcome",
    "build_reused", "failure_reason", "stage",      "passed",       "started_at_ms",
    "finished_at_ms", "build_source", "build_origin", "waiting_for", "build_wall_s",
    "build_cpu_s", "build_peak_rss_bytes",
};
constexpr int kTaskKeyColumns = 3;

std::string upsert_task_sql() {
  std::string columns, values, updates;
  int index = 1;
  for (const char* c : kTaskColumns) {
    if (index > 1) {
      columns += ", ";
      values += ", ";
    }
    columns += c;
    values += "?" + std::to_string(index);
    if (index > kTaskKeyColumns) {
      if (!updates.empty()) updates += ", ";
      updates += std::string(c) + " = excluded." + c;
    }
    ++index;
  }
  return "INSERT INTO tasks (" + columns + ") VALUES (" + values +
         ") ON CONFLICT (run_id, iteration, task_id) DO UPDATE SET " + updates;
}

// Every task of a run with its results, one row per result (or one with NULL result
// columns for a task without results): t.id, then kTaskColumns, then the result's.
std::string select_tasks_sql() {
  std::string sql = "SELECT t.id";
  for (const char* c : kTaskColumns) sql += std::string(", t.") + c;
  sql += ", " + workload_result_column_list("r.") + R"sql(
FROM tasks t LEFT JOIN task_results r ON r.task_row = t.id
WHERE t.run_id = ?1 ORDER BY t.iteration, t.id, r.ordinal)sql";
  return sql;
}

constexpr int kTaskColumnCount = static_cast<int>(sizeof(kTaskColumns) / sizeof(kTaskColumns[0]));

}  // namespace

std::unique_ptr<Store> Store::open(const std::filesystem::path& path) {
  auto db = std::make_unique<Database>(path);
  // First, so every later statement, including the pragmas below, waits out a writer in
  // another connection instead of failing at once.
  db->set_busy_timeout(kBusyTimeoutMs);
  // Before anything that writes, so a newer maced's file is left exactly as it was.
  refuse_newer_schema(*db);

  // journal_mode answers with the mode now in force, which is not WAL when the file
  // system cannot share memory between processes (some network file systems); readers
  // would then block writers, so refuse rather than run degraded.
  std::string mode = enter_wal(*db);
  if (mode != "wal")
    throw std::runtime_error(path.string() + ": cannot use WAL journal mode (got \"" + mode +
                             "\")");
  db->exec("PRAGMA foreign_keys = ON");
  if (pragma_text(*db, "PRAGMA foreign_keys") != "1")
    throw std::runtime_error(path.string() + ": this SQLite does not enforce foreign keys");
  // In WAL mode NORMAL loses at most the last commits on power loss, never consistency;
  // FULL would fsync on every event.
  db->exec("PRAGMA synchronous = NORMAL");
  // The -wal file is kept between opens (sqlite.cc); after a checkpoint it is cut back to
  // this, so a burst of writes does not hold its size for ever.
  db->exec("PRAGMA journal_size_limit = 33554432");

  migrate(*db);
  return std::unique_ptr<Store>(new Store(std::move(db)));
}

Store::Store(std::unique_ptr<Database> db) : db_(std::move(db)) {}

Store::~Store() = default;

Database& Store::database() { return *db_; }

int Store::schema_version() const { return read_schema_version(*db_); }

void Store::insert_run(const RunRecord& run) {
  Transaction txn(*db_);
  auto stmt = db_->prepare(R"sql(
INSERT INTO runs (id, state, reason, core, mesh_x, mesh_y, objective,
                  workloads_json, backend, model, max_iterations, max_usd, max_wall_s,
                  submitted_by_uid, submitted_at_ms, started_at_ms, finished_at_ms, replay_of, replay_until,
                  checkouts_wanted)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
        ?20)
)sql");
  stmt.bind(1, run.id)
      .bind(2, to_string(run.state))
      .bind(3, run.reason)
      .bind(4, run.core)
      .bind(5, run.mesh_x)
      .bind(6, run.mesh_y)
      .bind(7, run.objective)
      .bind(8, strings_to_json(run.workloads))
      .bind(9, run.backend)
      .bind(10, run.model)
      .bind(11, run.max_iterations)
      .bind(12, run.max_usd)
      .bind(13, run.max_wall_s)
      .bind(14, run.submitted_by_uid)
      .bind(15, run.submitted_at_ms)
      .bind(16, unless_zero(run.started_at_ms))
      .bind(17, unless_zero(run.finished_at_ms))
      .bind(18, unless_empty(run.replay_of))
      .bind(19, unless_zero(run.replay_until))
      .bind(20, run.checkouts_wanted);
  stmt.run();
  auto spec = db_->prepare("INSERT INTO run_specs (run_id, spec_json) VALUES (?1, ?2)");
  spec.bind(1, run.id).bind(2, run.spec_json.empty() ? std::string("{}") : run.spec_json);
  spec.run();
  txn.commit();
}

std::optional<RunRecord> Store::find_run(const std::string& id) const {
  auto stmt = db_->prepare(kSelectRun + "WHERE id = ?1");
  stmt.bind(1, id);
  if (!stmt.step()) return std::nullopt;
  return read_run(*db_, stmt);
}

std::vector<Store::QueuedRun> Store::queued_runs() const {
  auto stmt = db_->prepare(
      "SELECT id, submitted_by_uid, checkouts_wanted FROM runs WHERE state = 'queued' ORDER BY id");
  std::vector<QueuedRun> out;
  while (stmt.step())
    out.push_back({stmt.text(0), static_cast<uint32_t>(stmt.int64(1)), stmt.int64(2)});
  return out;
}

std::map<RunState, int64_t> Store::count_runs_by_state() const {
  auto stmt = db_->prepare("SELECT state, count(*) FROM runs GROUP BY state");
  std::map<RunState, int64_t> counts;
  while (stmt.step()) counts[parse_state(*db_, stmt.text(0))] = stmt.int64(1);
  return counts;
}

int64_t Store::count_queued_runs(uint32_t uid) const {
  auto stmt = db_->prepare(
      "SELECT count(*) FROM runs WHERE submitted_by_uid = ?1 AND state = 'queued'");
  stmt.bind(1, uid);
  stmt.step();
  return stmt.int64(0);
}

int64_t Store::count_queued_before(const std::string& run_id) const {
  auto stmt = db_->prepare("SELECT count(*) FROM runs WHERE state = 'queued' AND id < ?1");
  stmt.bind(1, run_id);
  stmt.step();
  return stmt.int64(0);
}

std::vector<std::string> Store::list_run_ids(const RunFilter& filter) const {
  // From the indexes alone (runs_state_id, runs_uid, the primary key): no row is read.
  std::string sql = "SELECT id FROM runs WHERE 1";
  int next = 1;
  if (!filter.states.empty()) {
    sql += " AND state IN " + in_list(next, filter.states.size());
    next += static_cast<int>(filter.states.size());
  }
  if (filter.submitted_by_uid) sql += " AND submitted_by_uid = ?" + std::to_string(next++);
  if (!filter.before.empty()) sql += " AND id < ?" + std::to_string(next++);
  // Run IDs sort by submission time, so the primary key is also the time order.
  sql += " ORDER BY id DESC";
  if (filter.limit > 0) sql += " LIMIT ?" + std::to_string(next++);

  auto stmt = db_->prepare(sql);
  int index = 1;
  for (RunState s : filter.states) stmt.bind(index++, to_string(s));
  if (filter.submitted_by_uid) stmt.bind(index++, *filter.submitted_by_uid);
  if (!filter.before.empty()) stmt.bind(index++, filter.before);
  if (filter.limit > 0) stmt.bind(index++, filter.limit);
  std::vector<std::string> ids;
  while (stmt.step()) ids.push_back(stmt.text(0));
  return ids;
}

void Store::each_run_summary(const std::vector<std::string>& ids,
                             const std::function<bool(RunRecord)>& each) const {
  auto stmt = db_->prepare(kSelectRunSummary + "WHERE id = ?1");
  for (const auto& id : ids) {
    stmt.reset();
    stmt.bind(1, id);
    if (!stmt.step()) continue;  // deleted since its ID was read
    if (!each(read_run(*db_, stmt, /*with_spec=*/false))) return;
  }
}

std::vector<RunRecord> Store::list_runs(const RunFilter& filter) const {
  std::vector<RunRecord> out;
  each_run_summary(list_run_ids(filter), [&](RunRecord run) {
    out.push_back(std::move(run));
    return true;
  });
  return out;
}

std::vector<RunRecord> Store::runs_in_states(const std::vector<RunState>& states) const {
  if (states.empty()) return {};
  auto stmt = db_->prepare(kSelectRun + "WHERE state IN " +
                           in_list(1, states.size()) + " ORDER BY id ASC");
  int index = 1;
  for (RunState s : states) stmt.bind(index++, to_string(s));
  std::vector<RunRecord> out;
  while (stmt.step()) out.push_back(read_run(*db_, stmt));
  return out;
}

bool Store::set_run_state(const std::string& id, RunState state, const std::string& reason,
                          int64_t now_ms) {
  // One statement, so the state and its stamps change together without a transaction.
  auto stmt = db_->prepare(R"sql(
UPDATE runs SET
  state = ?2,
  reason = ?3,
  started_at_ms = CASE WHEN ?2 = 'running' THEN coalesce(started_at_ms, ?4)
                       ELSE started_at_ms END,
  finished_at_ms = CASE WHEN ?5 THEN coalesce(finished_at_ms, ?4) ELSE finished_at_ms END
WHERE id = ?1
)sql");
  stmt.bind(1, id).bind(2, to_string(state)).bind(3, reason).bind(4, now_ms).bind(5,
                                                                                  is_final(state));
  stmt.run();
  return db_->changes() > 0;
}

void Store::set_run_environment(const std::string& id, const std::string& environment_json) {
  auto stmt = db_->prepare("UPDATE runs SET environment_json = ?2 WHERE id = ?1");
  stmt.bind(1, id).bind(2, environment_json);
  stmt.run();
}

std::string Store::run_environment(const std::string& id) const {
  auto stmt = db_->prepare("SELECT environment_json FROM runs WHERE id = ?1");
  stmt.bind(1, id);
  return stmt.step() ? stmt.text(0) : std::string();
}

void Store::set_run_planner(const std::string& id, PlannerKind planner) {
  auto stmt = db_->prepare("UPDATE runs SET planner = ?2 WHERE id = ?1");
  stmt.bind(1, id).bind(2, to_string(planner));
  stmt.run();
}

void Store::set_run_default_caches(const std::string& id, const CacheGeometry& caches) {
  auto stmt = db_->prepare("UPDATE runs SET default_caches = ?2 WHERE id = ?1");
  stmt.bind(1, id).bind(2, caches_text(caches));
  stmt.run();
}

void Store::set_run_outcome(const std::string& id, RunOutcome outcome) {
  auto stmt = db_->prepare("UPDATE runs SET outcome = ?2 WHERE id = ?1");
  stmt.bind(1, id).bind(2, to_string(outcome));
  stmt.run();
}

int64_t Store::append_event(EventRecord event) {
  // The max and the insert share the write lock, so two writers can neither take the
  // same seq nor leave a gap.
  Transaction txn(*db_);
  auto next = db_->prepare("SELECT coalesce(max(seq), 0) + 1 FROM events WHERE run_id = ?1");
  next.bind(1, event.run_id);
  next.step();
  event.seq = next.int64(0);

  auto insert = db_->prepare(R"sql(
INSERT INTO events (run_id, seq, at_ms, kind, state, iteration, task_id, stage, workload,
                    verdict, message, objects_done, objects_total, elapsed_ms, estimate_left_ms,
                    verdict_time, cycles)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
)sql");
  std::optional<std::string_view> state;
  if (event.state) state = to_string(*event.state);
  insert.bind(1, event.run_id)
      .bind(2, event.seq)
      .bind(3, event.at_ms)
      .bind(4, to_string(event.kind))
      .bind(5, state)
      .bind(6, event.iteration)
      .bind(7, event.task_id)
      .bind(8, optional_word(event.stage))
      .bind(9, event.workload)
      .bind(10, optional_word(event.verdict))
      .bind(11, event.message)
      .bind(12, event.objects_done)
      .bind(13, event.objects_total)
      .bind(14, event.elapsed_ms)
      .bind(15, event.estimate_left_ms)
      .bind(16, event.verdict_time)
      .bind(17, event.cycles);
  insert.run();
  txn.commit();
  return event.seq;
}

std::vector<EventRecord> Store::events_after(const std::string& run_id, int64_t after_seq,
                                             int64_t limit) const {
  auto stmt = db_->prepare(R"sql(
SELECT run_id, seq, at_ms, kind, state, iteration, task_id, stage, workload, verdict, message,
       objects_done, objects_total, elapsed_ms, estimate_left_ms, verdict_time, cycles
FROM events WHERE run_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3
)sql");
  // A negative LIMIT is SQLite's "no limit".
  stmt.bind(1, run_id).bind(2, after_seq).bind(3, limit > 0 ? limit : int64_t{-1});
  std::vector<EventRecord> out;
  while (stmt.step()) {
    EventRecord e;
    e.run_id = stmt.text(0);
    e.seq = stmt.int64(1);
    e.at_ms = stmt.int64(2);
    e.kind = parse_word<EventKind>(*db_, "event kind", stmt.text(3));
    if (!stmt.is_null(4)) e.state = parse_state(*db_, stmt.text(4));
    e.iteration = stmt.int64(5);
    e.task_id = stmt.text(6);
    e.stage = parse_optional_word<TaskStage>(*db_, "task stage", stmt.text(7));
    e.workload = stmt.text(8);
    e.verdict = parse_optional_word<Verdict>(*db_, "verdict", stmt.text(9));
    e.message = stmt.text(10);
    e.objects_done = stmt.int64(11);
    e.objects_total = stmt.int64(12);
    e.elapsed_ms = stmt.int64(13);
    e.estimate_left_ms = stmt.int64(14);
    e.verdict_time = stmt.optional_int64(15);
    e.cycles = stmt.optional_int64(16);
    out.push_back(std::move(e));
  }
  return out;
}

RunMetrics Store::metrics(const std::string& run_id) const { return metrics(run_id, now_ms()); }

RunMetrics Store::metrics(const std::string& run_id, int64_t now_ms) const {
  // One statement: the five numbers come from one snapshot even while the run writes.
  auto stmt = db_->prepare(R"sql(
SELECT
  (SELECT count(*) FROM tasks t WHERE t.run_id = r.id AND t.passed = 1),
  (SELECT count(*) FROM iterations i WHERE i.run_id = r.id),
  (SELECT count(*) FROM diagnoses d WHERE d.run_id = r.id AND d.recovered = 1),
  r.started_at_ms,
  r.finished_at_ms,
  (SELECT total(c.cost_usd) FROM llm_calls c WHERE c.run_id = r.id)
FROM runs r WHERE r.id = ?1
)sql");
  stmt.bind(1, run_id);
  RunMetrics m;
  if (!stmt.step()) return m;
  m.successful_tasks = stmt.int64(0);
  m.iterations = stmt.int64(1);
  m.failures_recovered = stmt.int64(2);
  if (!stmt.is_null(3)) {
    int64_t end = stmt.is_null(4) ? now_ms : stmt.int64(4);
    int64_t elapsed = end - stmt.int64(3);
    // A clock stepped back between start and now must not make time negative.
    m.execution_time_s = elapsed > 0 ? static_cast<double>(elapsed) / 1000.0 : 0.0;
  }
  m.compute_cost_usd = stmt.real(5);
  return m;
}

void Store::record_iteration_start(const std::string& run_id, int64_t iteration,
                                   int64_t started_at_ms, const std::string& plan_text) {
  auto stmt = db_->prepare(R"sql(
INSERT INTO iterations (run_id, iteration, started_at_ms, plan_text) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (run_id, iteration) DO UPDATE SET
  started_at_ms = excluded.started_at_ms, plan_text = excluded.plan_text
)sql");
  stmt.bind(1, run_id).bind(2, iteration).bind(3, unless_zero(started_at_ms)).bind(4, plan_text);
  stmt.run();
}

void Store::record_iteration_end(const std::string& run_id, int64_t iteration,
                                 int64_t finished_at_ms, double cost_usd, double wall_s,
                                 bool passed) {
  auto stmt = db_->prepare(R"sql(
INSERT INTO iterations (run_id, iteration, finished_at_ms, cost_usd, wall_s, passed)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
ON CONFLICT (run_id, iteration) DO UPDATE SET
  finished_at_ms = excluded.finished_at_ms, cost_usd = excluded.cost_usd,
  wall_s = excluded.wall_s, passed = excluded.passed
)sql");
  stmt.bind(1, run_id)
      .bind(2, iteration)
      .bind(3, unless_zero(finished_at_ms))
      .bind(4, cost_usd)
      .bind(5, wall_s)
      .bind(6, passed);
  stmt.run();
}

std::vector<IterationRecord> Store::iterations(const std::string& run_id) const {
  auto stmt = db_->prepare(R"sql(
SELECT run_id, iteration, started_at_ms, finished_at_ms, cost_usd, wall_s, passed, plan_text
FROM iterations WHERE run_id = ?1 ORDER BY iteration
)sql");
  stmt.bind(1, run_id);
  std::vector<IterationRecord> out;
  while (stmt.step()) {
    IterationRecord i;
    i.run_id = stmt.text(0);
    i.iteration = stmt.int64(1);
    i.started_at_ms = stmt.int64(2);
    i.finished_at_ms = stmt.int64(3);
    i.cost_usd = stmt.real(4);
    i.wall_s = stmt.real(5);
    i.passed = stmt.int64(6) != 0;
    i.plan_text = stmt.text(7);
    out.push_back(std::move(i));
  }
  return out;
}

int64_t Store::upsert_task(const TaskRecord& t) {
  // Before the transaction, so a bad list throws before anything is written.
  std::vector<std::string> defines = t.rtl_defines;
  std::sort(defines.begin(), defines.end());
  std::string rtl_defines = join_words("rtl_defines", defines);
  std::string extra_flags = join_words("extra_flags", t.extra_flags);

  Transaction txn(*db_);
  auto upsert = db_->prepare(upsert_task_sql());
  upsert.bind(1, t.run_id)
      .bind(2, t.iteration)
      .bind(3, t.task_id)
      .bind(4, to_string(t.kind))
      .bind(5, t.instruction)
      .bind(6, strings_to_json(t.deps))
      .bind(7, unless_empty(t.checkout))
      .bind(8, unless_empty(t.core))
      .bind(9, unless_zero(t.mesh_x))
      .bind(10, unless_zero(t.mesh_y))
      .bind(11, unless_empty(t.network))
      .bind(12, unless_zero(t.l1i_size))
      .bind(13, unless_zero(t.l1i_assoc))
      .bind(14, unless_zero(t.l1d_size))
      .bind(15, unless_zero(t.l1d_assoc))
      .bind(16, unless_zero(t.l15_size))
      .bind(17, unless_zero(t.l15_assoc))
      .bind(18, unless_zero(t.l2_size))
      .bind(19, unless_zero(t.l2_assoc))
      .bind(20, rtl_defines)
      .bind(21, t.rtl_edits)
      .bind(22, t.rtl_edits_hash)
      .bind(23, extra_flags)
      .bind(24, unless_empty(t.build_id))
      .bind(25, to_string(t.build_outcome))
      .bind(26, t.build_reused)
      .bind(27, to_string(t.failure_reason))
      .bind(28, to_string(t.stage))
      .bind(29, t.passed)
      .bind(30, unless_zero(t.started_at_ms))
      .bind(31, unless_zero(t.finished_at_ms))
      .bind(32, t.build_source)
      .bind(33, t.build_origin)
      .bind(34, t.waiting_for)
      .bind(35, t.build_wall_s)
      .bind(36, t.build_cpu_s)
      .bind(37, t.build_peak_rss_bytes);
  upsert.run();

  // last_insert_rowid is not set when the upsert updated, so look the row up.
  auto find = db_->prepare(
      "SELECT id FROM tasks WHERE run_id = ?1 AND iteration = ?2 AND task_id = ?3");
  find.bind(1, t.run_id).bind(2, t.iteration).bind(3, t.task_id);
  if (!find.step())
    throw std::runtime_error(db_->path().string() + ": task " + t.task_id +
                             " vanished after upsert");
  int64_t row = find.int64(0);

  db_->prepare("DELETE FROM task_results WHERE task_row = ?1").bind(1, row).run();
  auto insert = db_->prepare("INSERT INTO task_results (task_row, " + workload_result_column_list() +
                             ") VALUES (?1, " + workload_result_placeholders(2) + ")");
  for (auto& r : t.results) {
    bind_workload_result(insert.bind(1, row), 2, r);
    insert.run();
    insert.reset();
  }
  txn.commit();
  return row;
}

namespace {

std::pair<int64_t*, int64_t*> cache_columns(TaskRecord& t, std::string_view name) {
  if (name == "l1i") return {&t.l1i_size, &t.l1i_assoc};
  if (name == "l1d") return {&t.l1d_size, &t.l1d_assoc};
  if (name == "l15") return {&t.l15_size, &t.l15_assoc};
  if (name == "l2") return {&t.l2_size, &t.l2_assoc};
  throw std::invalid_argument("no cache named \"" + std::string(name) + "\"");
}

}  // namespace

std::pair<int64_t, int64_t> TaskRecord::cache(std::string_view name) const {
  auto [size, associativity] = cache_columns(const_cast<TaskRecord&>(*this), name);
  return {*size, *associativity};
}

void TaskRecord::set_cache(std::string_view name, int64_t size, int64_t associativity) {
  auto columns = cache_columns(*this, name);
  *columns.first = size;
  *columns.second = associativity;
}

std::vector<TaskRecord> Store::tasks(const std::string& run_id) const {
  auto stmt = db_->prepare(select_tasks_sql());
  stmt.bind(1, run_id);
  std::vector<TaskRecord> out;
  constexpr int r0 = 1 + kTaskColumnCount;  // the first result column
  while (stmt.step()) {
    int64_t row = stmt.int64(0);
    if (out.empty() || out.back().row_id != row) {
      TaskRecord t;
      t.row_id = row;
      t.run_id = stmt.text(1);
      t.iteration = stmt.int64(2);
      t.task_id = stmt.text(3);
      t.kind = parse_word<TaskKind>(*db_, "task kind", stmt.text(4));
      t.instruction = stmt.text(5);
      t.deps = strings_from_json(
          *db_, "task " + t.run_id + "/" + t.task_id + ": deps_json", stmt.text(6));
      t.checkout = stmt.text(7);
      t.core = stmt.text(8);
      t.mesh_x = stmt.int64(9);
      t.mesh_y = stmt.int64(10);
      t.network = stmt.text(11);
      t.l1i_size = stmt.int64(12);
      t.l1i_assoc = stmt.int64(13);
      t.l1d_size = stmt.int64(14);
      t.l1d_assoc = stmt.int64(15);
      t.l15_size = stmt.int64(16);
      t.l15_assoc = stmt.int64(17);
      t.l2_size = stmt.int64(18);
      t.l2_assoc = stmt.int64(19);
      t.rtl_defines = split_words(stmt.text(20));
      t.rtl_edits = stmt.text(21);
      t.rtl_edits_hash = stmt.text(22);
      t.extra_flags = split_words(stmt.text(23));
      t.build_id = stmt.text(24);
      t.build_outcome = parse_word<BuildOutcome>(*db_, "build outcome", stmt.text(25));
      t.build_reused = stmt.int64(26) != 0;
      t.failure_reason = parse_word<FailureReason>(*db_, "failure reason", stmt.text(27));
      t.stage = parse_word<TaskStage>(*db_, "task stage", stmt.text(28));
      if (!stmt.is_null(29)) t.passed = stmt.int64(29) != 0;
      t.started_at_ms = stmt.int64(30);
      t.finished_at_ms = stmt.int64(31);
      t.build_source = stmt.text(32);
      t.build_origin = stmt.text(33);
      t.waiting_for = stmt.text(34);
      t.build_wall_s = stmt.optional_real(35);
      t.build_cpu_s = stmt.optional_real(36);
      t.build_peak_rss_bytes = stmt.optional_int64(37);
      out.push_back(std::move(t));
    }
    if (stmt.is_null(r0)) continue;  // a task without results
    out.back().results.push_back(read_workload_result(*db_, stmt, r0));
  }
  return out;
}

}  // namespace mace::store
