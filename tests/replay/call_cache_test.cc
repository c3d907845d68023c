// The replay cache over plain storage (REQ-REPLAY-2..4), the run-spec settings that turn
// it on, and the store's table behind it.

#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/run_spec.h"
#include "replay/call_cache.h"
#include "store/migrations.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "support/child_process.h"

namespace mace::replay {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct MapStorage {
  std::map<std::string, store::CacheEntryRecord> entries;
  CallCache::Storage storage() {
    return {[this](const std::string& tag) -> std::optional<store::CacheEntryRecord> {
              auto it = entries.find(tag);
              if (it == entries.end()) return std::nullopt;
              return it->second;
            },
            [this](const store::CacheEntryRecord& e) { entries[e.tag] = e; }};
  }
};

CallCache make_cache(MapStorage& storage, CallPolicy policy) {
  return CallCache(std::move(policy), storage.storage(), [] { return int64_t{1234}; }, "1.0");
}

TEST(CallCache, CachingStoresEveryTaggedCallOfACachedFunction) {  // REQ-REPLAY-2
  MapStorage storage;
  CallCache cache = make_cache(storage, call_policy("R1", std::nullopt, {}, std::nullopt, {"build", "run"}));
  EXPECT_TRUE(cache.caches("build"));
  EXPECT_FALSE(cache.caches("prompt"));
  cache.store("build", cache.tag(1, "t1", "build"), R"({"v":1})", {"1.0", "fp", "Verilator 5.006"});
  cache.store("prompt", cache.tag(1, "t1", "prompt"), R"({"v":2})", {"1.0", "", ""});
  ASSERT_EQ(storage.entries.size(), 1u);
  const auto& e = storage.entries.at("R1/iter1/t1/build");
  EXPECT_EQ(e.run_id, "R1");
  EXPECT_EQ(e.function, "build");
  EXPECT_EQ(e.value_json, R"({"v":1})");
  EXPECT_EQ(e.mace_version, "1.0");
  EXPECT_EQ(e.checkout_fingerprint, "fp");
  EXPECT_EQ(e.verilator_version, "Verilator 5.006");
  EXPECT_EQ(e.created_at_ms, 1234);
}

TEST(CallCache, BypassServesTheSourceRunsEntryAndAMissNamesTheTag) {  // REQ-REPLAY-3, 4
  MapStorage storage;
  storage.entries["R1/iter2/t1/run:hello"] = {"R1/iter2/t1/run:hello", "R1", "run", "{}", "1.0", "", "", 1};
  CallCache cache = make_cache(storage, call_policy("R2", std::vector<std::string>{}, {"run"}, "R1", {}));
  std::vector<std::string> missed;
  cache.on_miss = [&](const std::string& tag) { missed.push_back(tag); };
  EXPECT_EQ(cache.serve("run", cache.tag(2, "t1", "run:hello"), "").tag, "R1/iter2/t1/run:hello");
  try {
    cache.serve("run", cache.tag(2, "t1", "run"), "");
    FAIL() << "served a call with no entry";
  } catch (const CacheMiss& miss) {
    EXPECT_EQ(miss.tag(), "R1/iter2/t1/run");
    EXPECT_STREQ(miss.what(), "cache miss: no cache entry for tag R1/iter2/t1/run");
  }
  // An entry of another function under the tag is no entry of this one.
  storage.entries["R1/iter2/t1/build"] = {"R1/iter2/t1/build", "R1", "prompt", "{}", "1.0", "", "", 1};
  EXPECT_THROW(cache.serve("build", cache.tag(2, "t1", "build"), ""), CacheMiss);
  EXPECT_THAT(missed, ElementsAre("R1/iter2/t1/run", "R1/iter2/t1/build"));
  EXPECT_TRUE(storage.entries.count("R2/iter2/t1/run:hello") == 0) << "caching is off";
}

TEST(CallCache, SaysOnceWhenAnEntryWasMadeElsewhere) {
  MapStorage storage;
  storage.entries["R1/iter1/t/build"] = {"R1/iter1/t/build", "R1", "build", "{}", "0.9", "aaaa", "V5", 1};
  storage.entries["R1/iter1/t/run"] = {"R1/iter1/t/run", "R1", "run", "{}", "0.9", "aaaa", "V5", 1};
  CallCache cache = make_cache(storage, replay_policy("R2", "R1"));
  int fingerprints_taken = 0;
  cache.checkout_fingerprint = [&](const std::string& root) {
    ++fingerprints_taken;
    return root == "/same" ? std::string("aaaa") : std::string("bbbb");
  };
  std::vector<std::string> notices;
  cache.on_notice = [&](const std::string& m) { notices.push_back(m); };
  cache.serve("build", cache.tag(1, "t", "build"), "/same");
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_THAT(notices[0], HasSubstr("made by MACE 0.9; this is MACE 1.0"));
  cache.serve("build", cache.tag(1, "t", "build"), "/other");
  cache.serve("run", cache.tag(1, "t", "run"), "/other");
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_THAT(notices[1], HasSubstr("was made on a checkout with source fingerprint aaaa (V5); /other has bbbb"));
  EXPECT_EQ(fingerprints_taken, 2) << "once per checkout";
}

TEST(CallCache, AStoreThatFailsIsToldAndTheCallStands) {
  CallCache cache(call_policy("R", std::vector<std::string>{"run"}, {}, std::nullopt, {}),
                  {[](const std::string&) { return std::nullopt; },
                   [](const store::CacheEntryRecord&) { throw std::runtime_error("disk full"); }},
                  [] { return int64_t{0}; }, "1.0");
  std::string notice;
  cache.on_notice = [&](const std::string& m) { notice = m; };
  cache.store("run", "R/iter1/t/run", "{}", {});
  EXPECT_EQ(notice, "the cache entry R/iter1/t/run was not stored: disk full");
}

TEST(CallPolicy, TheSpecOverridesMacedsDefaultAndAReplayBypassesBuildsAndRuns) {
  CallPolicy d = call_policy("R", std::nullopt, {}, std::nullopt, {"build", "run"});
  EXPECT_THAT(d.cache, ElementsAre("build", "run"));
  EXPECT_EQ(d.source_run_id, "R");
  CallPolicy off = call_policy("R", std::vector<std::string>{}, {"build"}, "Q", {"build", "run"});
  EXPECT_TRUE(off.cache.empty());
  EXPECT_THAT(off.bypass, ElementsAre("build"));
  EXPECT_EQ(off.source_run_id, "Q");
  CallPolicy r = replay_policy("R2", "R1");
  EXPECT_TRUE(r.cache.empty());
  EXPECT_THAT(r.bypass, ElementsAre("build", "run"));
  EXPECT_EQ(r.run_id, "R2");
  EXPECT_EQ(r.source_run_id, "R1");
}

// ---------------------------------------------------------------- the run spec's `replay`

std::string spec_with(const std::string& replay) {
  return R"({"workloads": ["hello"], "objective": "x", "replay": )" + replay + "}";
}

TEST(ReplaySpec, MarksFunctionsCacheAndBypass) {  // REQ-REPLAY-2, 3
  auto parsed = parse_run_spec_json(spec_with(R"({"cache": ["build"], "bypass": ["run", "prompt"], "from": "R1"})"));
  ASSERT_TRUE(parsed.spec) << (parsed.errors.empty() ? "" : parsed.errors[0].message);
  EXPECT_EQ(parsed.spec->replay.cache, std::vector<std::string>{"build"});
  EXPECT_EQ(parsed.spec->replay.bypass, (std::vector<std::string>{"run", "prompt"}));
  EXPECT_EQ(parsed.spec->replay.from, "R1");
  EXPECT_THAT(run_spec_to_json(*parsed.spec),
              HasSubstr(R"("replay":{"cache":["build"],"bypass":["run","prompt"],"from":"R1"})"));
  EXPECT_EQ(parse_run_spec_json(run_spec_to_json(*parsed.spec)).spec, parsed.spec);
  auto defaults = parse_run_spec_json(R"({"workloads": ["hello"], "objective": "x"})");
  ASSERT_TRUE(defaults.spec);
  EXPECT_FALSE(defaults.spec->replay.cache) << "maced's default applies";
  EXPECT_THAT(run_spec_to_json(*defaults.spec), HasSubstr(R"("replay":{"cache":null,"bypass":[],"from":null})"));
}

TEST(ReplaySpec, EveryMistakeNamesItsField) {
  auto parsed = parse_run_spec_json(
      spec_with(R"({"cache": ["compile", "build", "build"], "bypass": ["run"], "when": 1})"));
  EXPECT_THAT(parsed.errors,
              ElementsAre(FieldError{"replay.cache[0]", R"(must be one of prompt, build, run, got "compile")"},
                          FieldError{"replay.cache[2]", "duplicate of replay.cache[1]"},
                          FieldError{"replay.bypass",
                                     "needs replay.from, the run whose cache entries serve the "
                                     "bypassed calls (a new run's own tags have none)"},
                          FieldError{"replay.when", "unknown field; expected one of: cache, bypass, from"}));
  EXPECT_THAT(parse_run_spec_json(spec_with(R"("all")")).errors,
              ElementsAre(FieldError{"replay", R"(must be an object with cache, bypass, from, got "all")"}));
  EXPECT_THAT(parse_run_spec_json(spec_with(R"({"from": "a/b"})")).errors,
              ElementsAre(FieldError{"replay.from", R"(must be a run ID, got "a/b")"}));
}

// ---------------------------------------------------------------- the store

TEST(CacheStore, KeepsEntriesByTagWithTheirRun) {  // REQ-REPLAY-2
  testing::TempDir dir;
  auto db = store::Store::open(dir.file("mace.db"));
  EXPECT_EQ(db->schema_version(), store::latest_schema_version());
  store::RunRecord run;
  run.id = "R1";
  db->insert_run(run);
  store::RunRecord replay;
  replay.id = "R2";
  replay.replay_of = "R1";
  replay.replay_until = 3;
  db->insert_run(replay);
  EXPECT_EQ(db->find_run("R2")->replay_until, 3);
  EXPECT_EQ(db->find_run("R1")->replay_until, 0);

  store::CacheEntryRecord e{"R1/iter1/t/build", "R1", "build", R"({"a":1})", "1.0", "fp", "V5", 7};
  db->put_cache_entry(e);
  EXPECT_EQ(db->find_cache_entry(e.tag), e);
  e.value_json = R"({"a":2})";
  db->put_cache_entry(e);  // the same tag again: replaced
  EXPECT_EQ(db->find_cache_entry(e.tag)->value_json, R"({"a":2})");
  db->put_cache_entry({"R1/iter1/t/run", "R1", "run", "{}", "1.0", "fp", "V5", 8});
  EXPECT_EQ(db->cache_entries("R1").size(), 2u);
  EXPECT_FALSE(db->find_cache_entry("R1/iter1/t/prompt"));
  EXPECT_THROW(db->put_cache_entry({"X/iter1/t/run", "X", "run", "{}", "", "", "", 0}), std::exception)
      << "an entry belongs to a run";
  db->database().exec("DELETE FROM runs WHERE id = 'R2'");
  db->database().exec("DELETE FROM runs WHERE id = 'R1'");
  EXPECT_TRUE(db->cache_entries("R1").empty()) << "entries go with their run";
}

}  // namespace
}  // namespace mace::replay
