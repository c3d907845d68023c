// Every LLM call attempt of a run (REQ-BUD-12): what was asked, what came back, and what
// its vendor reported of tokens and cost.

#include <algorithm>

#include "store/sqlite.h"
#include "store/store.h"
#include "store/stored_word.h"

namespace mace::store {

int64_t Store::record_llm_call(const LlmCallRecord& call) {
  auto insert = db_->prepare(R"sql(
INSERT INTO llm_calls (run_id, iteration, phase, task_id, backend, model, input_tokens,
                       output_tokens, thinking_tokens, cost_usd, wall_s, success, error_class,
                       reply_text, created_at_ms, prompt_text, cache_read_tokens,
                       cache_write_tokens, cost_source)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)
)sql");
  insert.bind(1, call.run_id)
      .bind(2, call.iteration)
      .bind(3, to_string(call.phase))
      .bind(4, call.task_id)
      .bind(5, call.backend)
      .bind(6, call.model)
      .bind(7, call.input_tokens)
      .bind(8, call.output_tokens)
      .bind(9, call.thinking_tokens)
      .bind(10, call.cost_usd)
      .bind(11, call.wall_s)
      .bind(12, int64_t{call.success ? 1 : 0})
      .bind(13, call.error_class == LlmErrorClass::none ? "" : to_string(call.error_class))
      .bind(14, call.reply_text)
      .bind(15, call.created_at_ms)
      .bind(16, call.prompt_text)
      .bind(17, call.cache_read_tokens)
      .bind(18, call.cache_write_tokens)
      .bind(19, call.cost_source ? to_string(*call.cost_source) : "");
  insert.run();
  return db_->last_insert_rowid();
}

std::vector<LlmCallRecord> Store::llm_calls(const std::string& run_id, int64_t offset,
                                            int64_t limit) const {
  auto stmt = db_->prepare(R"sql(
SELECT id, run_id, coalesce(iteration, 0), phase, coalesce(task_id, ''), backend, model,
       input_tokens, output_tokens, thinking_tokens, cost_usd, wall_s, success, error_class,
       reply_text, created_at_ms, prompt_text, cache_read_tokens, cache_write_tokens,
       cost_source
FROM llm_calls WHERE run_id = ?1 ORDER BY id LIMIT ?2 OFFSET ?3
)sql");
  // A negative LIMIT is SQLite's "no limit".
  stmt.bind(1, run_id).bind(2, limit > 0 ? limit : int64_t{-1}).bind(3, std::max<int64_t>(offset, 0));
  std::vector<LlmCallRecord> out;
  while (stmt.step()) {
    LlmCallRecord c;
    c.id = stmt.int64(0);
    c.run_id = stmt.text(1);
    c.iteration = stmt.int64(2);
    c.phase = parse_word<LlmPhase>(*db_, "llm_calls.phase", stmt.text(3));
    c.task_id = stmt.text(4);
    c.backend = stmt.text(5);
    c.model = stmt.text(6);
    c.input_tokens = stmt.int64(7);
    c.output_tokens = stmt.int64(8);
    c.thinking_tokens = stmt.int64(9);
    c.cost_usd = stmt.real(10);
    c.wall_s = stmt.real(11);
    c.success = stmt.int64(12) != 0;
    if (const std::string word = stmt.text(13); !word.empty())
      c.error_class = parse_word<LlmErrorClass>(*db_, "llm_calls.error_class", word);
    c.reply_text = stmt.text(14);
    c.created_at_ms = stmt.int64(15);
    c.prompt_text = stmt.text(16);
    c.cache_read_tokens = stmt.int64(17);
    c.cache_write_tokens = stmt.int64(18);
    if (const std::string word = stmt.text(19); !word.empty())
      c.cost_source = parse_word<CostSource>(*db_, "llm_calls.cost_source", word);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace mace::store
