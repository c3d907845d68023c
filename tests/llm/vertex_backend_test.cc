#include "llm/vertex_errors.h"
#include "llm/vertex_backend.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm_error_fixtures.h"
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fake_vertex_server.h"
#include "setup_error_message.h"

namespace mace::llm {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::FakeVertexServer;
using testing::map_env;

std::string str(simdjson::dom::element e) { return simdjson::minify(e); }

class VertexBackendTest : public ::testing::Test {
 protected:
  VertexBackend backend(int max_rounds = 20) {
    VertexConfig config;
    config.project = "proj-1";
    config.location = "europe-west4";
    config.model = "gemini-2.5-flash";
    config.endpoint_base = server.base_url();
    config.max_tool_rounds = max_rounds;
    return VertexBackend(config, std::make_shared<StaticTokenSource>("test-token"));
  }

  // The body of the n-th generateContent request, parsed.
  simdjson::dom::element sent(size_t n) {
    auto requests = server.requests();
    EXPECT_GT(requests.size(), n);
    bodies.push_back(requests.at(n).body);
    parsers.emplace_back();
    return parsers.back().parse(bodies.back()).value();
  }

  Tool echo_tool(std::vector<std::pair<std::string, std::string>>* seen) {
    Tool tool;
    tool.name = "rtl_edit";
    tool.description = "Edits RTL";
    tool.methods = {{"read", "Reads a file",
                     R"({"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
                         "title":"ReadArgs","additionalProperties":false,
                         "properties":{"path":{"type":"string","title":"Path"},
                                       "title":{"type":"string"}},"required":["path"]})"},
                    {"replace", "Replaces text", R"({"type":"object","properties":{}})"}};
    tool.call = [seen](const std::string& method, const std::string& args) {
      seen->emplace_back(method, args);
      if (method == "replace") throw std::runtime_error("no unique match");
      return ToolCallResult{true, "module top; endmodule"};
    };
    return tool;
  }

  FakeVertexServer server;
  std::deque<std::string> bodies;
  std::deque<simdjson::dom::parser> parsers;
};

// REQ-EXEC-7
TEST_F(VertexBackendTest, SendsTheRequestVertexExpects) {
  server.push(FakeVertexServer::text("plan", {100, 20, 0}));
  std::vector<std::pair<std::string, std::string>> seen;
  Request request;
  request.phase = LlmPhase::planning;
  request.system = "You plan OpenPiton work.";
  request.prompt = "Make the L2 bigger.";
  request.tools = {echo_tool(&seen)};
  auto b = backend();
  Reply reply = b.call(request);
  ASSERT_TRUE(reply.ok) << reply.error;

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path,
            "/v1/projects/proj-1/locations/europe-west4/publishers/google/models/"
            "gemini-2.5-flash:generateContent");
  EXPECT_EQ(requests[0].header("authorization"), "Bearer test-token");
  EXPECT_EQ(requests[0].header("content-type"), "application/json");

  auto body = sent(0);
  EXPECT_EQ(str(body["contents"]), R"([{"role":"user","parts":[{"text":"Make the L2 bigger."}]}])");
  EXPECT_EQ(str(body["systemInstruction"]["parts"]), R"([{"text":"You plan OpenPiton work."}])");
  auto decls = body["tools"].at(0)["functionDeclarations"];
  EXPECT_EQ(std::string_view(decls.at(0)["name"]), "rtl_edit__rtl_edit_read");
  EXPECT_EQ(std::string_view(decls.at(0)["description"]), "Reads a file");
  EXPECT_EQ(std::string_view(decls.at(1)["name"]), "rtl_edit__rtl_edit_replace");
  // Keywords Vertex rejects are gone; a property that is named "title" stays.
  EXPECT_EQ(str(decls.at(0)["parameters"]),
            R"({"type":"object","properties":{"path":{"type":"string"},"title":{"type":"string"}},)"
            R"("required":["path"]})");
  EXPECT_TRUE(seen.empty());
}

TEST_F(VertexBackendTest, NoToolsNoSystemMeansNeitherIsSent) {
  server.push(FakeVertexServer::text("hi"));
  Request request;
  request.prompt = "hello";
  auto b = backend();
  ASSERT_TRUE(b.call(request).ok);
  auto body = sent(0);
  EXPECT_TRUE(body["tools"].error());
  EXPECT_TRUE(body["systemInstruction"].error());
}

// REQ-BUD-12
TEST_F(VertexBackendTest, TextReplyCarriesUsageAndCost) {
  server.push(FakeVertexServer::text("the answer", {1'000'000, 100'000, 200'000}));
  Request request;
  request.prompt = "q";
  auto b = backend();
  Reply reply = b.call(request);
  ASSERT_TRUE(reply.ok);
  EXPECT_EQ(reply.text, "the answer");  // the thought part is not the answer
  EXPECT_EQ(reply.error_class, ErrorClass::none);
  EXPECT_EQ(reply.usage.input_tokens, 1'000'000);
  EXPECT_EQ(reply.usage.output_tokens, 100'000);
  EXPECT_EQ(reply.usage.thinking_tokens, 200'000);
  EXPECT_NEAR(reply.usage.cost_usd, 0.30 + 0.25 + 0.50, 1e-9);
  EXPECT_GT(reply.wall_s, 0);
  EXPECT_EQ(reply.tool_calls, 0);
}

// REQ-EXEC-7, REQ-BUD-5, REQ-BUD-12
// REQ-BUD-5, REQ-BUD-12: the cached part of promptTokenCount (cachedContentTokenCount)
// is recorded apart and billed at the cached-input price, a tenth of fresh input on 2.5.
TEST_F(VertexBackendTest, CachedTokensAreRecordedApartAndPricedAtTheCachedRate) {
  server.push(FakeVertexServer::text("cached", {1'000'000, 100'000, 0, 800'000}));
  Request request;
  request.prompt = "p";
  auto b = backend();
  Reply reply = b.call(request);
  ASSERT_TRUE(reply.ok) << reply.error;
  EXPECT_EQ(reply.usage.input_tokens, 200'000);
  EXPECT_EQ(reply.usage.cache_read_tokens, 800'000);
  EXPECT_EQ(reply.usage.output_tokens, 100'000);
  EXPECT_EQ(reply.usage.cost_source, CostSource::priced);
  EXPECT_NEAR(reply.usage.cost_usd, 0.2 * 0.30 + 0.8 * 0.03 + 0.1 * 2.50, 1e-9);
}

TEST_F(VertexBackendTest, RunsToolsUntilTheModelAnswersInText) {
  server.push(FakeVertexServer::function_calls({{"rtl_edit__rtl_edit_read", R"({"path":"a.v"})"}},
                                               {100, 10, 5}));
  server.push(FakeVertexServer::function_calls(
      {{"rtl_edit__rtl_edit_replace", R"({"old":"x"})"}, {"no_such__function", "{}"}}, {200, 20, 0}));
  server.push(FakeVertexServer::text("edited", {300, 30, 0}));
  std::vector<std::pair<std::string, std::string>> seen;
  Request request;
  request.prompt = "edit";
  request.tools = {echo_tool(&seen)};
  auto b = backend();
  Reply reply = b.call(request);
  ASSERT_TRUE(reply.ok) << reply.error;
  EXPECT_EQ(reply.text, "edited");
  EXPECT_EQ(reply.tool_calls, 3);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], (std::pair<std::string, std::string>{"read", R"({"path":"a.v"})"}));
  EXPECT_EQ(seen[1].first, "replace");

  // Usage and cost are summed over the three rounds.
  EXPECT_EQ(reply.usage.input_tokens, 600);
  EXPECT_EQ(reply.usage.output_tokens, 60);
  EXPECT_EQ(reply.usage.thinking_tokens, 5);
  EXPECT_NEAR(reply.usage.cost_usd, (600 * 0.30 + 60 * 2.50 + 5 * 2.50) / 1e6, 1e-12);

  ASSERT_EQ(server.requests().size(), 3u);
  auto second = sent(1)["contents"];
  ASSERT_EQ(simdjson::dom::array(second).size(), 3u);
  // The model's turn goes back as it came, thought signature included.
  EXPECT_EQ(std::string_view(second.at(1)["role"]), "model");
  EXPECT_EQ(std::string_view(second.at(1)["parts"].at(0)["thoughtSignature"]), "c2lnbmF0dXJl");
  auto answer = second.at(2);
  EXPECT_EQ(std::string_view(answer["role"]), "user");
  EXPECT_EQ(str(answer["parts"]),
            R"([{"functionResponse":{"name":"rtl_edit__rtl_edit_read",)"
            R"("response":{"result":"module top; endmodule"}}}])");

  auto third = sent(2)["contents"];
  ASSERT_EQ(simdjson::dom::array(third).size(), 5u);
  auto failures = third.at(4)["parts"];
  // A tool that throws, and a function nobody declared, answer the model with an error.
  EXPECT_EQ(str(failures.at(0)),
            R"({"functionResponse":{"name":"rtl_edit__rtl_edit_replace",)"
            R"("response":{"error":"tool error: no unique match"}}})");
  EXPECT_THAT(str(failures.at(1)), HasSubstr(R"("error":"unknown function 'no_such__function'")"));
  // Tools are declared on every round.
  EXPECT_FALSE(sent(2)["tools"].error());
}

TEST_F(VertexBackendTest, ToolResultNotOkGoesBackAsError) {
  server.push(FakeVertexServer::function_calls({{"t__t_m", "{}"}}));
  server.push(FakeVertexServer::text("gave up politely"));
  Tool tool;
  tool.name = "t";
  tool.methods = {{"m", "", R"({"type":"object","properties":{}})"}};
  tool.call = [](const std::string&, const std::string&) {
    return ToolCallResult{false, "path outside piton/design/"};
  };
  Request request;
  request.tools = {tool};
  auto b = backend();
  Reply reply = b.call(request);
  ASSERT_TRUE(reply.ok);
  EXPECT_THAT(str(sent(1)["contents"].at(2)["parts"].at(0)),
              HasSubstr(R"("response":{"error":"path outside piton/design/"})"));
  // An empty description is sent as one space, which Vertex accepts.
  EXPECT_EQ(std::string_view(sent(0)["tools"].at(0)["functionDeclarations"].at(0)["description"]), " ");
}

TEST_F(VertexBackendTest, TooManyToolRoundsEndTheCall) {
  for (int i = 0; i < 3; ++i) server.push(FakeVertexServer::function_calls({{"t__t_m", "{}"}}, {10, 1, 0}));
  Tool tool;
  tool.name = "t";
  tool.methods = {{"m", "d", R"({"type":"object","properties":{}})"}};
  tool.call = [](const std::string&, const std::string&) { return ToolCallResult{true, "again"}; };
  Request request;
  request.tools = {tool};
  auto b = backend(3);
  Reply reply = b.call(request);
  EXPECT_FALSE(reply.ok);
  EXPECT_EQ(reply.error_class, ErrorClass::unknown);
  EXPECT_EQ(reply.error, "vertex: no text answer after 3 rounds of tool calls");
  EXPECT_EQ(reply.usage.input_tokens, 30);
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST_F(VertexBackendTest, FunctionNamesCollidingAfterTheCutAreRefused) {
  Tool a;
  a.name = std::string(40, 'a');
  a.methods = {{"read_testbench", "", "{}"}, {"write_testbench", "", "{}"}};
  Request request;
  request.tools = {a};
  auto b = backend();
  Reply reply = b.call(request);
  EXPECT_EQ(reply.error_class, ErrorClass::invalid_request);
  EXPECT_THAT(reply.error, HasSubstr("share the function name"));
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(VertexBackendTest, MaxTokensIsAnOutputLimit) {
  server.push(FakeVertexServer::max_tokens("half an ans", {50, 8192, 0}));
  auto b = backend();
  Reply reply = b.call(Request{});
  EXPECT_FALSE(reply.ok);
  EXPECT_EQ(reply.error_class, ErrorClass::output_limit);
  EXPECT_EQ(reply.text, "half an ans");
  EXPECT_EQ(reply.usage.output_tokens, 8192);
  EXPECT_GT(reply.usage.cost_usd, 0);
}

TEST_F(VertexBackendTest, BlockedPromptAndSafetyStopAreBlocked) {
  server.push(FakeVertexServer::blocked_prompt("PROHIBITED_CONTENT"));
  server.push(FakeVertexServer::text("", {}, "SAFETY"));
  auto b = backend();
  Reply prompt = b.call(Request{});
  EXPECT_EQ(prompt.error_class, ErrorClass::blocked);
  EXPECT_THAT(prompt.error, HasSubstr("PROHIBITED_CONTENT"));
  EXPECT_EQ(prompt.usage.input_tokens, 7);
  Reply answer = b.call(Request{});
  EXPECT_EQ(answer.error_class, ErrorClass::blocked);
  EXPECT_THAT(answer.error, HasSubstr("SAFETY"));
}

TEST_F(VertexBackendTest, MalformedJsonIsUnknownAndSaysSo) {
  server.push(FakeVertexServer::malformed());
  server.push({200, R"({"candidates": []})", {}, {}});
  auto b = backend();
  Reply reply = b.call(Request{});
  EXPECT_EQ(reply.error_class, ErrorClass::unknown);
  EXPECT_THAT(reply.error, HasSubstr("not a JSON object"));
  Reply empty = b.call(Request{});
  EXPECT_EQ(empty.error_class, ErrorClass::unknown);
  EXPECT_THAT(empty.error, HasSubstr("no candidates"));
}

TEST_F(VertexBackendTest, RateLimitCarriesRetryAfter) {
  server.push(FakeVertexServer::error(429, "RESOURCE_EXHAUSTED", "Resource exhausted.",
                                      {{"Retry-After", "17"}}));
  server.push({429,
               R"({"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED",
                   "details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"41.2s"}]}})",
               {}, {}});
  auto b = backend();
  Reply header = b.call(Request{});
  EXPECT_EQ(header.error_class, ErrorClass::rate_limit);
  EXPECT_EQ(header.retry_after, 17s);
  Reply detail = b.call(Request{});
  EXPECT_EQ(detail.error_class, ErrorClass::rate_limit);
  EXPECT_EQ(detail.retry_after, 42s);
}

TEST_F(VertexBackendTest, BillingDisabledIsBilling) {
  server.push({403,
               R"({"error":{"code":403,"message":"This API method requires billing to be enabled.",
                   "status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo",
                   "reason":"BILLING_DISABLED"}]}})",
               {}, {}});
  auto b = backend();
  EXPECT_EQ(b.call(Request{}).error_class, ErrorClass::billing);
}

TEST_F(VertexBackendTest, SlowServerIsATimeout) {
  auto slow = FakeVertexServer::text("late");
  slow.delay = 3000ms;
  server.push(slow);
  Request request;
  request.timeout = 1s;
  auto b = backend();
  Reply reply = b.call(request);
  EXPECT_EQ(reply.error_class, ErrorClass::timeout);
  EXPECT_LT(reply.wall_s, 2.5);
}

TEST(VertexBackend, UnreachableEndpointIsAServerError) {
  VertexConfig config;
  config.project = "p";
  config.endpoint_base = "http://127.0.0.1:1";
  VertexBackend b(config, std::make_shared<StaticTokenSource>("t"));
  Reply reply = b.call(Request{});
  EXPECT_EQ(reply.error_class, ErrorClass::server);
  EXPECT_THAT(reply.error, HasSubstr("cannot reach"));
}

// The error bodies collected from CHIA (fixtures/llm-errors/vertex), each sent by the
// fake server as Vertex sends it: {"error": {"code", "message", "status"}}.
std::filesystem::path fixture_dir() {
  auto root = llm_error_fixtures();
  return root.empty() ? root : root / "vertex";
}

TEST(VertexErrorFixtures, EachBodyGetsItsClass) {
  auto dir = fixture_dir();
  if (dir.empty()) GTEST_SKIP() << "no llm-errors fixtures; set MACE_LLM_ERROR_FIXTURES";
  const std::map<std::string, ErrorClass> expected = {
      {"vertex_internal_500", ErrorClass::server},
      {"vertex_invalid_argument", ErrorClass::invalid_request},
      {"vertex_not_found_unknown_model", ErrorClass::invalid_request},
      {"vertex_permission_denied_403", ErrorClass::authentication},
      {"vertex_resource_exhausted_429", ErrorClass::rate_limit},
      {"vertex_unauthenticated_401", ErrorClass::authentication},
      {"vertex_unavailable_503", ErrorClass::server},
  };
  size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    simdjson::dom::parser parser;
    auto fixture = parser.parse(text.str()).value();
    std::string label{std::string_view(fixture["label"])};
    auto code = static_cast<int>(int64_t(fixture["code"]));
    std::string status{std::string_view(fixture["status"])};
    std::string message{std::string_view(fixture["message"])};
    ASSERT_TRUE(expected.count(label)) << "a fixture this test does not know: " << label;

    FakeVertexServer server;
    server.push(FakeVertexServer::error(code, status, message));
    VertexConfig config;
    config.project = "p";
    config.endpoint_base = server.base_url();
    VertexBackend b(config, std::make_shared<StaticTokenSource>("t"));
    Reply reply = b.call(Request{});
    EXPECT_FALSE(reply.ok) << label;
    EXPECT_EQ(reply.error_class, expected.at(label)) << label << ": " << reply.error;
    EXPECT_THAT(reply.error, HasSubstr(message)) << label;
    EXPECT_THAT(reply.error, HasSubstr(status)) << label;
    ++checked;
  }
  EXPECT_EQ(checked, expected.size());
}

TEST(VertexEndpoint, RegionalGlobalAndOverridden) {
  VertexConfig config;
  config.project = "p";
  VertexBackend regional(config, std::make_shared<StaticTokenSource>("t"));
  EXPECT_EQ(regional.url(),
            "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/"
            "publishers/google/models/gemini-2.5-flash:generateContent");
  config.location = "global";
  VertexBackend global(config, std::make_shared<StaticTokenSource>("t"));
  EXPECT_EQ(global.url(),
            "https://aiplatform.googleapis.com/v1/projects/p/locations/global/"
            "publishers/google/models/gemini-2.5-flash:generateContent");
}

TEST(VertexEndpoint, MaceVertexEndpointRedirectsTheCalls) {
  FakeVertexServer server;
  server.push(FakeVertexServer::text("via proxy"));
  auto b = make_vertex_backend("gemini-2.5-pro",
                               map_env({{"MACE_VERTEX_ENDPOINT", server.base_url() + "/"},
                                        {"MACE_VERTEX_ACCESS_TOKEN", "env-token"},
                                        {"GOOGLE_CLOUD_PROJECT", "proj-9"},
                                        {"GOOGLE_CLOUD_LOCATION", "us-east5"}}),
                               PriceTable::defaults());
  ASSERT_NE(b, nullptr);
  Reply reply = b->call(Request{});
  ASSERT_TRUE(reply.ok) << reply.error;
  EXPECT_EQ(reply.text, "via proxy");
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path,
            "/v1/projects/proj-9/locations/us-east5/publishers/google/models/"
            "gemini-2.5-pro:generateContent");
  EXPECT_EQ(requests[0].header("authorization"), "Bearer env-token");
}

TEST(GeminiSchema, RejectsWhatIsNotAnObject) {
  EXPECT_THROW(gemini_schema("[1]"), SetupError);
  EXPECT_THAT(setup_error_of([] { gemini_schema("{oops"); }), HasSubstr("not valid JSON"));
  EXPECT_EQ(gemini_schema(R"({"type":"object","properties":{"n":{"type":"integer","minimum":1}}})"),
            R"({"type":"object","properties":{"n":{"type":"integer","minimum":1}}})");
}

}  // namespace
}  // namespace mace::llm

namespace mace::llm {
namespace {

// Found by UBSan under the fuzzer: a retryDelay past what a count of seconds holds was
// converted as it came. It waits the longest wait instead; NaN or a negative one, none.
TEST(VertexErrors, ARetryDelayOutOfRangeWaitsTheLongestWaitNotUndefinedBehaviour) {
  auto delay_of = [](const std::string& delay) {
    std::string message;
    std::optional<std::chrono::seconds> retry_after;
    classify_vertex_error(429,
                          R"({"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":)"
                          R"("type.googleapis.com/google.rpc.RetryInfo","retryDelay":")" + delay + R"("}]}})",
                          std::nullopt, message, retry_after);
    return retry_after;
  };
  EXPECT_EQ(delay_of("922337203685477580700s"), std::chrono::seconds(999'999'999));
  EXPECT_EQ(delay_of("1e300s"), std::chrono::seconds(999'999'999));
  EXPECT_EQ(delay_of("-5s"), std::chrono::seconds(0));
  EXPECT_FALSE(delay_of("nans"));
  EXPECT_EQ(delay_of("41.2s"), std::chrono::seconds(42));
}

}  // namespace
}  // namespace mace::llm
