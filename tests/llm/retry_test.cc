#include "llm/retry.h"

#include <gtest/gtest.h>

#include <deque>

#include "fake_vertex_server.h"
#include "llm/vertex_backend.h"

namespace mace::llm {
namespace {

using namespace std::chrono_literals;
using testing::FakeVertexServer;
using testing::map_env;

class ScriptedBackend : public Backend {
 public:
  std::deque<Reply> replies;
  int calls = 0;
  std::string name() const override { return "scripted"; }
  std::string model() const override { return "m"; }
  Reply call(const Request&) override {
    ++calls;
    Reply r = replies.front();
    if (replies.size() > 1) replies.pop_front();
    return r;
  }
};

Reply rate_limited(std::optional<std::chrono::seconds> after = std::nullopt) {
  Reply r;
  r.error_class = ErrorClass::rate_limit;
  r.error = "429";
  r.retry_after = after;
  r.usage.cost_usd = 0.001;
  return r;
}

Reply answered(const std::string& text) {
  Reply r;
  r.ok = true;
  r.text = text;
  return r;
}

struct Recorder {
  std::vector<std::chrono::seconds> sleeps;
  std::vector<int> attempts;
  std::function<void(std::chrono::seconds)> sleep() {
    return [this](std::chrono::seconds s) { sleeps.push_back(s); };
  }
  std::function<void(const Reply&, int)> on_attempt() {
    return [this](const Reply&, int attempt) { attempts.push_back(attempt); };
  }
};

// REQ-BUD-14
TEST(Retry, RateLimitWaits30Then60Then120ThenGivesUp) {
  ScriptedBackend backend;
  backend.replies = {rate_limited()};
  Recorder rec;
  Reply reply = call_with_retries(backend, Request{}, RetryPolicy{}, rec.sleep(), rec.on_attempt());
  EXPECT_FALSE(reply.ok);
  EXPECT_EQ(reply.error_class, ErrorClass::rate_limit);
  EXPECT_EQ(backend.calls, 4);
  EXPECT_EQ(rec.sleeps, (std::vector<std::chrono::seconds>{30s, 60s, 120s}));
  // REQ-BUD-12: every attempt is reported so each is recorded with its cost.
  EXPECT_EQ(rec.attempts, (std::vector<int>{1, 2, 3, 4}));
}

// REQ-BUD-14
TEST(Retry, StopsAtTheFirstAnswer) {
  ScriptedBackend backend;
  backend.replies = {rate_limited(), rate_limited(), answered("hi")};
  Recorder rec;
  Reply reply = call_with_retries(backend, Request{}, RetryPolicy{}, rec.sleep(), rec.on_attempt());
  EXPECT_TRUE(reply.ok);
  EXPECT_EQ(reply.text, "hi");
  EXPECT_EQ(rec.sleeps, (std::vector<std::chrono::seconds>{30s, 60s}));
  EXPECT_EQ(rec.attempts.size(), 3u);
}

// REQ-BUD-14
TEST(Retry, VendorResetTimeIsHonouredAndCapped) {
  ScriptedBackend backend;
  backend.replies = {rate_limited(7s), rate_limited(100000s), rate_limited(), answered("ok")};
  Recorder rec;
  Reply reply = call_with_retries(backend, Request{}, RetryPolicy{}, rec.sleep(), rec.on_attempt());
  EXPECT_TRUE(reply.ok);
  EXPECT_EQ(rec.sleeps, (std::vector<std::chrono::seconds>{7s, 300s, 120s}));
}

TEST(Retry, OtherErrorsAreNotRetried) {
  for (ErrorClass c : {ErrorClass::authentication, ErrorClass::billing, ErrorClass::invalid_request,
                       ErrorClass::server, ErrorClass::output_limit, ErrorClass::blocked,
                       ErrorClass::timeout, ErrorClass::unknown}) {
    ScriptedBackend backend;
    Reply r;
    r.error_class = c;
    backend.replies = {r};
    Recorder rec;
    Reply reply = call_with_retries(backend, Request{}, RetryPolicy{}, rec.sleep(), rec.on_attempt());
    EXPECT_EQ(reply.error_class, c);
    EXPECT_EQ(backend.calls, 1) << to_string(c);
    EXPECT_TRUE(rec.sleeps.empty());
  }
}

TEST(Retry, ScaleFromTheEnvironmentShortensEveryWait) {
  EXPECT_EQ(RetryPolicy::from_environment(map_env({})).scale, 1.0);
  EXPECT_EQ(RetryPolicy::from_environment(map_env({{"MACE_LLM_RETRY_SCALE", "0.5"}})).scale, 0.5);
  EXPECT_EQ(RetryPolicy::from_environment(map_env({{"MACE_LLM_RETRY_SCALE", "fast"}})).scale, 1.0);
  EXPECT_EQ(RetryPolicy::from_environment(map_env({{"MACE_LLM_RETRY_SCALE", "-2"}})).scale, 1.0);

  auto policy = RetryPolicy::from_environment(map_env({{"MACE_LLM_RETRY_SCALE", "0.01"}}));
  ScriptedBackend backend;
  backend.replies = {rate_limited()};
  Recorder rec;
  call_with_retries(backend, Request{}, policy, rec.sleep(), rec.on_attempt());
  EXPECT_EQ(rec.sleeps, (std::vector<std::chrono::seconds>{0s, 0s, 1s}));
}

// REQ-BUD-14: through the real backend, a 429 with Retry-After from the fake Vertex.
TEST(Retry, VertexRateLimitIsWaitedOutWithTheVendorsRetryAfter) {
  FakeVertexServer server;
  server.push(FakeVertexServer::error(429, "RESOURCE_EXHAUSTED", "Resource exhausted.",
                                      {{"Retry-After", "17"}}));
  server.push(FakeVertexServer::error(429, "RESOURCE_EXHAUSTED", "Resource exhausted."));
  server.push(FakeVertexServer::text("done", {10, 2, 0}));
  VertexConfig config;
  config.project = "p";
  config.endpoint_base = server.base_url();
  VertexBackend backend(config, std::make_shared<StaticTokenSource>("t"));
  Recorder rec;
  Request request;
  request.prompt = "hi";
  Reply reply = call_with_retries(backend, request, RetryPolicy{}, rec.sleep(), rec.on_attempt());
  EXPECT_TRUE(reply.ok) << reply.error;
  EXPECT_EQ(reply.text, "done");
  EXPECT_EQ(rec.sleeps, (std::vector<std::chrono::seconds>{17s, 60s}));
  EXPECT_EQ(server.requests().size(), 3u);
}

}  // namespace
}  // namespace mace::llm
