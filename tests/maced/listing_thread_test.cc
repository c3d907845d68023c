// Listings read on maced's listing thread, through a store connection of its own: the same
// pages the service reads on the loop, each caller seeing what it may, in the order asked;
// a store that cannot be read fails the listing as maced's own error.

#include "maced/listing_thread.h"

#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <kj/async.h>

#include "support/child_process.h"

namespace mace {
namespace {

using ::testing::HasSubstr;

store::RunRecord run(const std::string& id, uint32_t uid) {
  store::RunRecord r;
  r.id = id;
  r.core = "pico";
  r.objective = "the objective of " + id;
  r.workloads = {"hello"};
  r.submitted_by_uid = uid;
  return r;
}

std::vector<std::string> ids(const service::RunPage& page) {
  std::vector<std::string> out;
  for (const auto& r : page.runs) out.push_back(r.id);
  return out;
}

TEST(ListingThread, AnswersTheServicesPagesWithWhatEachCallerMaySee) {
  testing::TempDir dir;
  auto store = store::Store::open(dir.file("mace.db"));
  for (int i = 0; i < 30; ++i) store->insert_run(run("r" + std::to_string(100 + i), i % 2 ? 1001 : 1000));
  ListingThread listings(dir.file("mace.db"), service::OthersSee::queue);
  kj::EventLoop loop;
  kj::WaitScope wait(loop);

  store::RunFilter filter;
  filter.limit = 0;
  const service::Caller alice{1000, false};
  // Asked several at once, answered in turn.
  auto first = listings.list_page(filter, alice);
  store::RunFilter ten = filter;
  ten.limit = 10;
  auto second = listings.list_page(ten, alice);
  const service::RunPage all = first.wait(wait);
  const service::RunPage some = second.wait(wait);
  EXPECT_EQ(ids(all), ids(service::list_runs_page(*store, service::OthersSee::queue, filter, alice)));
  EXPECT_EQ(all.runs.size(), 30u);
  EXPECT_EQ(some.runs.size(), 10u);
  for (const auto& r : all.runs)
    EXPECT_EQ(r.objective.empty(), r.submitted_by_uid != 1000u) << r.id;
  // Runs recorded after the thread first read the store are listed too.
  store->insert_run(run("r200", 1000));
  EXPECT_EQ(listings.list_page(filter, alice).wait(wait).runs.front().id, "r200");
}

TEST(ListingThread, AStoreThatCannotBeReadFailsTheListingAsMacedsOwnError) {
  testing::TempDir dir;
  ListingThread listings(dir.file("no-such-directory/mace.db"), service::OthersSee::queue);
  kj::EventLoop loop;
  kj::WaitScope wait(loop);
  try {
    listings.list_page({}, service::Caller{1000, false}).wait(wait);
    FAIL() << "a listing of an unreadable store succeeded";
  } catch (const kj::Exception& e) {
    EXPECT_THAT(e.getDescription().cStr(), HasSubstr("maced internal error: "));
  }
}

}  // namespace
}  // namespace mace
