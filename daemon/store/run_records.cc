// Runs (migrations 1, 14 and later): each run's row, its spec, its state and stamps, and
// what a listing reads.
#include <charconv>
#include <chrono>
#include <stdexcept>

#include "store/columns.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "store/stored_values.h"

namespace mace::store {
namespace {

// runs.default_caches: "l1i:16384:4 l1d:8192:4 l15:8192:4 l2:65536:4", name, size in
// bytes, ways; "" for none.
struct CacheText {
  static void bind(Statement& stmt, int index, const CacheGeometry& caches, const char* column) {
    std::string text;
    for (const auto& [name, cache] : caches) {
      if (name.empty() || name.find_first_of(": ") != std::string::npos)
        throw std::invalid_argument(std::string(column) + ": cannot store a cache named \"" + name + "\"");
      text += (text.empty() ? "" : " ") + name + ":" + std::to_string(cache.size) + ":" +
              std::to_string(cache.associativity);
    }
    stmt.bind(index, text);
  }
  template <typename Field>
  static Field read(const Database& db, const Statement& stmt, int index, const char* column) {
    const std::string text = stmt.text(index);
    CacheGeometry out;
    for (const std::string& word : split_words(text)) {
      const std::size_t a = word.find(':'), b = word.rfind(':');
      int64_t size = 0, ways = 0;
      const bool ok = a != std::string::npos && b > a && a > 0 &&
                      std::from_chars(word.data() + a + 1, word.data() + b, size).ptr == word.data() + b &&
                      std::from_chars(word.data() + b + 1, word.data() + word.size(), ways).ptr ==
                          word.data() + word.size();
      if (!ok)
        throw std::runtime_error(db.path().string() + ": " + column + " \"" + text +
                                 "\" is not name:size:ways words");
      out[word.substr(0, a)] = {size, ways};
    }
    return out;
  }
};

// What a submission writes.
const auto kRunColumns = columns(
    column("id", &RunRecord::id), column("state", &RunRecord::state), column("reason", &RunRecord::reason),
    column("core", &RunRecord::core), column("mesh_x", &RunRecord::mesh_x),
    column("mesh_y", &RunRecord::mesh_y), column("objective", &RunRecord::objective),
    column("workloads_json", &RunRecord::workloads, json_list), column("backend", &RunRecord::backend),
    column("model", &RunRecord::model), column("max_iterations", &RunRecord::max_iterations),
    column("max_usd", &RunRecord::max_usd), column("max_wall_s", &RunRecord::max_wall_s),
    column("submitted_by_uid", &RunRecord::submitted_by_uid),
    column("submitted_at_ms", &RunRecord::submitted_at_ms),
    column("started_at_ms", &RunRecord::started_at_ms, null_when_none),
    column("finished_at_ms", &RunRecord::finished_at_ms, null_when_none),
    column("replay_of", &RunRecord::replay_of, null_when_none),
    column("replay_until", &RunRecord::replay_until, null_when_none),
    column("checkouts_wanted", &RunRecord::checkouts_wanted));
// What the run's own work sets later, each by a statement of its own.
const auto kRunLaterColumns =
    columns(column("planner", &RunRecord::planner), column("outcome", &RunRecord::outcome),
            column("default_caches", &RunRecord::default_caches, CacheText{}));

// The derived columns are computed in the query so one statement reads a consistent
// snapshot, and so list_runs costs one query, not one per run. A listing reads no spec
// (migration 14): kSelectRunSummary; kSelectRun adds it where the whole record is wanted.
const std::string kRunColumnList = "SELECT " + kRunColumns.names() + ", " + kRunLaterColumns.names() + R"sql(,
       (SELECT count(*) FROM iterations i WHERE i.run_id = runs.id),
       (SELECT total(c.cost_usd) FROM llm_calls c WHERE c.run_id = runs.id)
)sql";
constexpr const char* kSpecColumn = R"sql(,
       coalesce((SELECT s.spec_json FROM run_specs s WHERE s.run_id = runs.id), '{}')
)sql";
const std::string kSelectRun = kRunColumnList + kSpecColumn + "FROM runs\n";
const std::string kSelectRunSummary = kRunColumnList + "FROM runs\n";

// A row of kSelectRun (with_spec) or kSelectRunSummary. A value the store cannot read is
// an error naming the run.
RunRecord read_run(const Database& db, const Statement& s, bool with_spec = true) {
  RunRecord r;
  try {
    kRunColumns.read(db, s, 0, r);
    kRunLaterColumns.read(db, s, kRunColumns.count, r);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(e.what()) + " (run " + s.text(0) + ")");
  }
  constexpr int derived = kRunColumns.count + kRunLaterColumns.count;
  r.iterations = s.int64(derived);
  r.cost_usd = s.real(derived + 1);
  if (with_spec) r.spec_json = s.text(derived + 2);
  return r;
}

int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

void Store::insert_run(const RunRecord& run) {
  Transaction txn(*db_);
  auto stmt = db_->prepare(kRunColumns.insert_sql("runs"));
  kRunColumns.bind(stmt, 1, run);
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
  CacheText::bind(stmt.bind(1, id), 2, caches, "default_caches");
  stmt.run();
}

void Store::set_run_outcome(const std::string& id, RunOutcome outcome) {
  auto stmt = db_->prepare("UPDATE runs SET outcome = ?2 WHERE id = ?1");
  stmt.bind(1, id).bind(2, to_string(outcome));
  stmt.run();
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

}  // namespace mace::store
