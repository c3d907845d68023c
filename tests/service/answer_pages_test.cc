// Answers that grow with what users stored come a page at a time (service/answer_pages.h):
// every page fits well inside the largest message Cap'n Proto sends, and the pages,
// followed from one to the next, give every item once.

#include "service/answer_pages.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "core/run_spec_limits.h"
#include "service/run_service.h"
#include "support/child_process.h"

namespace mace::service {
namespace {

using ::testing::HasSubstr;

constexpr Caller kAlice{1000, false};
constexpr Caller kBob{1001, false};

class AnswerPagesTest : public ::testing::Test {
 protected:
  AnswerPagesTest()
      : store_(store::Store::open(dir_.file("mace.db"))), service_(*store_, settings()) {}

  static ServiceSettings settings() {
    ServiceSettings s;
    s.queue.max_runs_per_user = 10'000;
    return s;
  }

  // A spec as large as a listing can make it: the longest objective, the most workloads
  // with long names (about 48 KiB of summary).
  static std::string large_spec() {
    std::string workloads;
    for (std::size_t i = 0; i < kMaxWorkloads; ++i)
      workloads += (i ? ",\"" : "\"") + std::string(100, 'w') + std::to_string(i) + "\"";
    return R"({"core": "pico", "objective": ")" + std::string(kMaxObjectiveBytes, 'o') +
           R"(", "workloads": [)" + workloads + "]}";
  }

  static std::size_t bytes_of(const std::vector<store::RunRecord>& runs) {
    std::size_t total = 0;
    for (const auto& r : runs) total += answer_bytes(r);
    return total;
  }

  testing::TempDir dir_;
  std::unique_ptr<store::Store> store_;
  RunService service_;
};

TEST_F(AnswerPagesTest, AListingOfLargeRunsComesInBoundedPagesThatGiveEveryRunOnce) {
  const std::string spec = large_spec();
  std::vector<std::string> submitted;
  for (int i = 0; i < 200; ++i) {
    auto outcome = service_.submit_json(spec, Caller{1000});
    ASSERT_TRUE(outcome.errors.empty()) << outcome.errors.front().to_string();
    submitted.push_back(outcome.run_id);
  }
  // All at once, these 200 summaries would be about 9 MiB: more than maced's connection
  // sends in one message (8 MiB).
  store::RunFilter all;
  all.limit = 0;
  ASSERT_GT(bytes_of(service_.list(all)), std::size_t{8} << 20);

  std::vector<std::string> seen;
  store::RunFilter filter = all;
  int pages = 0;
  for (;; ++pages) {
    ASSERT_LT(pages, 10) << "the pages do not end";
    RunPage page = service_.list_page(filter, kAlice);
    ASSERT_FALSE(page.runs.empty());
    EXPECT_LE(bytes_of(page.runs), kMaxAnswerBytes);
    for (const auto& r : page.runs) seen.push_back(r.id);
    if (page.next.empty()) break;
    EXPECT_EQ(page.next, page.runs.back().id);
    filter.before = page.next;
  }
  EXPECT_GE(pages, 2);
  // Newest first, each once.
  EXPECT_EQ(seen, std::vector<std::string>(submitted.rbegin(), submitted.rend()));

  // A limit within one page is met exactly, and says nothing of the runs beyond it.
  store::RunFilter ten;
  ten.limit = 10;
  RunPage first_ten = service_.list_page(ten, kAlice);
  EXPECT_EQ(first_ten.runs.size(), 10u);
  EXPECT_EQ(first_ten.next, "");
  // A limit larger than a page: the page says where the rest of it starts.
  store::RunFilter many;
  many.limit = 150;
  RunPage first_many = service_.list_page(many, kAlice);
  EXPECT_LT(first_many.runs.size(), 150u);
  EXPECT_EQ(first_many.next, first_many.runs.back().id);

  // Another user sees no contents, so the whole queue fits one page for them.
  RunPage others = service_.list_page(all, kBob);
  EXPECT_EQ(others.runs.size(), 200u);
  EXPECT_EQ(others.next, "");
}

TEST_F(AnswerPagesTest, AListingHasAtMostItsCountOfRunsPerPage) {
  for (int i = 0; i < kMaxRunsPerAnswer + 3; ++i)
    ASSERT_FALSE(service_.submit_json(R"({"core": "pico", "workloads": ["hello"], "objective": "o"})",
                                      Caller{1000}).run_id.empty());
  store::RunFilter all;
  all.limit = 0;
  RunPage first = service_.list_page(all, kAlice);
  EXPECT_EQ(first.runs.size(), static_cast<std::size_t>(kMaxRunsPerAnswer));
  ASSERT_FALSE(first.next.empty());
  all.before = first.next;
  RunPage rest = service_.list_page(all, kAlice);
  EXPECT_EQ(rest.runs.size(), 3u);
  EXPECT_EQ(rest.next, "");
}

TEST_F(AnswerPagesTest, ARunsLogComesInPagesFollowedBySeq) {
  const std::string id = service_.submit_json(R"({"core": "pico", "workloads": ["hello"], "objective": "o"})", Caller{1000}).run_id;
  // 6,000 events of 1 KiB: over the count and the bytes of one page.
  for (int i = 0; i < 6000; ++i) {
    store::EventRecord e;
    e.run_id = id;
    e.kind = EventKind::message;
    e.message = std::to_string(i) + ":" + std::string(1024, 'm');
    service_.record_event(e);
  }
  std::set<int64_t> seqs;
  int64_t after = 0;
  int pages = 0;
  for (;; ++pages) {
    ASSERT_LT(pages, 20) << "the pages do not end";
    LogPage page = service_.log_page(id, after, 0, kAlice);
    std::size_t bytes = 0;
    for (const auto& line : page.lines) {
      EXPECT_TRUE(seqs.insert(line.seq).second) << "seq " << line.seq << " came twice";
      bytes += kItemOverheadBytes + line.text.size();
    }
    EXPECT_LE(bytes, kMaxAnswerBytes);
    EXPECT_LE(page.lines.size(), static_cast<std::size_t>(kMaxEventsPerAnswer));
    if (page.next_after_seq == 0) break;
    EXPECT_EQ(page.next_after_seq, page.lines.back().seq);
    after = page.next_after_seq;
  }
  EXPECT_GE(pages, 1);
  EXPECT_EQ(seqs.size(), 6001u);  // the submitted event too
  EXPECT_EQ(*seqs.rbegin(), 6001);
  // A limit is met, and no next page is offered past it.
  LogPage ten = service_.log_page(id, 0, 10, kAlice);
  EXPECT_EQ(ten.lines.size(), 10u);
  EXPECT_EQ(ten.next_after_seq, 0);
  EXPECT_THROW(service_.log_page(id, 0, 0, kBob), std::exception);
}

TEST_F(AnswerPagesTest, LlmCallsComeInPagesAndAHugeTextIsCutInTheMiddle) {
  const std::string id = service_.submit_json(R"({"core": "pico", "workloads": ["hello"], "objective": "o"})", Caller{1000}).run_id;
  for (int i = 0; i < 6; ++i) {
    store::LlmCallRecord call;
    call.run_id = id;
    call.phase = LlmPhase::planning;
    call.prompt_text = "prompt " + std::to_string(i) + " " + std::string(3 << 20, 'p') + " end";
    call.reply_text = std::string(900 << 10, 'r');
    store_->record_llm_call(call);
  }
  std::vector<std::string> prompts;
  int64_t from = 0;
  for (int pages = 0;; ++pages) {
    ASSERT_LT(pages, 10) << "the pages do not end";
    CallPage page = service_.llm_call_page(id, from, kAlice);
    ASSERT_FALSE(page.calls.empty());
    std::size_t bytes = 0;
    for (const auto& call : page.calls) {
      bytes += answer_bytes(call);
      prompts.push_back(call.prompt_text);
    }
    // One call larger alone than a page comes alone.
    EXPECT_TRUE(bytes <= kMaxAnswerBytes || page.calls.size() == 1) << bytes;
    if (page.next == 0) break;
    EXPECT_EQ(page.next, from + static_cast<int64_t>(page.calls.size()));
    from = page.next;
  }
  ASSERT_EQ(prompts.size(), 6u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(prompts[i].rfind("prompt " + std::to_string(i) + " ", 0), 0u);
    EXPECT_THAT(prompts[i], HasSubstr("bytes left out here; one answer carries at most 1048576 bytes of one text]"));
    EXPECT_EQ(prompts[i].substr(prompts[i].size() - 4), " end");
    EXPECT_LE(prompts[i].size(), kMaxCallTextBytes + 200);
  }
}

// A run's detail: its lists a page at a time, each from where the last page stopped; the
// run's own long texts cut, and every page carries at least one item however long they are.
TEST_F(AnswerPagesTest, ARunsDetailComesInPagesEvenWhenItsOwnTextsAreLong) {
  const std::string id = service_.submit_json(R"({"core": "pico", "workloads": ["hello"], "objective": "o"})", kAlice).run_id;
  for (int i = 0; i < 10; ++i) {
    store::TaskRecord task;
    task.run_id = id;
    task.iteration = 1;
    task.task_id = "t" + std::to_string(i);
    task.rtl_edits = std::string(3 << 19, 'd');  // 1.5 MiB
    store_->upsert_task(task);
  }
  for (int i = 0; i < 3; ++i) {
    store::NarrowingBuildRecord build;
    build.run_id = id;
    build.iteration = 1;
    build.task_id = "t" + std::to_string(i);
    build.undone = "undo " + std::to_string(i);
    store_->record_narrowing_build(build);
  }
  for (int i = 0; i < 5; ++i)
    store_->record_diagnosis(id, 1, "t" + std::to_string(i), "unknown", std::string(2 << 20, 'f'),
                             DiagnosisSource::llm, "", 0);
  store_->record_post_mortem(id, {"inconclusive", std::string(3 << 20, 'e'), std::string(3 << 20, 'n'), 0});
  service_.set_state(id, RunState::running, "");
  service_.set_state(id, RunState::error, std::string(3 << 20, 'r'));

  DetailFrom from;
  std::vector<std::string> tasks, builds;
  int diagnoses = 0;
  for (int pages = 0;; ++pages) {
    ASSERT_LT(pages, 30) << "the pages do not end";
    RunDetail page = service_.detail_page(id, from, kAlice);
    const std::size_t items = page.tasks.size() + page.narrowing_builds.size() + page.diagnoses.size();
    EXPECT_GE(items, 1u);
    std::size_t bytes = answer_bytes(page.run) + page.run.spec_json.size() +
                        page.post_mortem->explanation.size() + page.post_mortem->next_steps.size();
    for (const auto& t : page.tasks) {
      bytes += answer_bytes(t);
      tasks.push_back(t.task_id);
      EXPECT_THAT(t.rtl_edits, HasSubstr("bytes left out here"));
    }
    for (const auto& b : page.narrowing_builds) {
      bytes += answer_bytes(b);
      builds.push_back(b.undone);
    }
    for (const auto& d : page.diagnoses) bytes += answer_bytes(d);
    diagnoses += static_cast<int>(page.diagnoses.size());
    // The run's own texts are cut too, so a page stays far under the 8 MiB Cap'n Proto sends.
    EXPECT_LT(bytes, std::size_t{6} << 20);
    EXPECT_LT(page.run.reason.size(), kMaxCallTextBytes + 200);
    from.tasks += static_cast<int64_t>(page.tasks.size());
    from.narrowing_builds += static_cast<int64_t>(page.narrowing_builds.size());
    from.diagnoses += static_cast<int64_t>(page.diagnoses.size());
    if (!page.more) break;
  }
  EXPECT_EQ(tasks, (std::vector<std::string>{"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"}));
  EXPECT_EQ(builds, (std::vector<std::string>{"undo 0", "undo 1", "undo 2"}));
  EXPECT_EQ(diagnoses, 5);
  // A small run is one page.
  const std::string small = service_.submit_json(R"({"core": "pico", "workloads": ["hello"], "objective": "o"})", kAlice).run_id;
  EXPECT_FALSE(service_.detail_page(small, {}, kAlice).more);
}

TEST(CutForAnswer, KeepsHeadAndTailOnCharacterBoundaries) {
  EXPECT_EQ(cut_for_answer("short", 10), "short");
  // "é" is two bytes: a cut never falls between them.
  const std::string text =
      std::string(9, 'a') + "\xC3\xA9" + std::string(20, 'b') + "\xC3\xA9" + std::string(9, 'z');
  const std::string cut = cut_for_answer(text, 20);
  EXPECT_EQ(cut.rfind(std::string(9, 'a') + "\n[maced: ", 0), 0u);
  EXPECT_THAT(cut, HasSubstr(" bytes left out here;"));
  EXPECT_EQ(cut.substr(cut.size() - 13), "]\n\xC3\xA9" + std::string(9, 'z'));
}

}  // namespace
}  // namespace mace::service
