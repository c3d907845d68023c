// Every LLM call attempt of a run (REQ-BUD-12): what was asked, what came back, and what
// its vendor reported of tokens and cost.

#include <algorithm>

#include "store/columns.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "store/stored_word.h"

namespace mace::store {
namespace {

// A success has no error class: stored as "", as calls were before it was an enum.
struct EmptyWhenNone {
  static void bind(Statement& stmt, int index, LlmErrorClass value, const char*) {
    stmt.bind(index, value == LlmErrorClass::none ? std::string_view() : to_string(value));
  }
  template <typename Field>
  static Field read(const Database& db, const Statement& stmt, int index, const char* column) {
    const std::string word = stmt.text(index);
    return word.empty() ? LlmErrorClass::none : parse_word<LlmErrorClass>(db, column, word);
  }
};

// iteration and task_id are 0 and "" for a call outside any.
const auto kCallColumns = columns(
    column("error_class", &LlmCallRecord::error_class, EmptyWhenNone{}),
    column("run_id", &LlmCallRecord::run_id), column("iteration", &LlmCallRecord::iteration),
    column("phase", &LlmCallRecord::phase), column("task_id", &LlmCallRecord::task_id),
    column("backend", &LlmCallRecord::backend), column("model", &LlmCallRecord::model),
    column("input_tokens", &LlmCallRecord::input_tokens),
    column("output_tokens", &LlmCallRecord::output_tokens),
    column("thinking_tokens", &LlmCallRecord::thinking_tokens),
    column("cost_usd", &LlmCallRecord::cost_usd), column("wall_s", &LlmCallRecord::wall_s),
    column("success", &LlmCallRecord::success), column("reply_text", &LlmCallRecord::reply_text),
    column("created_at_ms", &LlmCallRecord::created_at_ms),
    column("prompt_text", &LlmCallRecord::prompt_text),
    column("cache_read_tokens", &LlmCallRecord::cache_read_tokens),
    column("cache_write_tokens", &LlmCallRecord::cache_write_tokens),
    column("cost_source", &LlmCallRecord::cost_source));

}  // namespace

int64_t Store::record_llm_call(const LlmCallRecord& call) {
  auto insert = db_->prepare(kCallColumns.insert_sql("llm_calls"));
  kCallColumns.bind(insert, 1, call).run();
  return db_->last_insert_rowid();
}

std::vector<LlmCallRecord> Store::llm_calls(const std::string& run_id, int64_t offset,
                                            int64_t limit) const {
  auto stmt = db_->prepare("SELECT id, " + kCallColumns.names() +
                           " FROM llm_calls WHERE run_id = ?1 ORDER BY id LIMIT ?2 OFFSET ?3");
  // A negative LIMIT is SQLite's "no limit".
  stmt.bind(1, run_id).bind(2, limit > 0 ? limit : int64_t{-1}).bind(3, std::max<int64_t>(offset, 0));
  std::vector<LlmCallRecord> out;
  while (stmt.step()) {
    LlmCallRecord& call = out.emplace_back(kCallColumns.read(*db_, stmt, 1));
    call.id = stmt.int64(0);
  }
  return out;
}

}  // namespace mace::store
