// Credentials for vertex: access tokens from the environment, service-account keys
// (RS256 JWT exchanged at token_uri) and gcloud's authorized_user refresh tokens.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>

#include "core/json_writer.h"
#include "fake_vertex_server.h"
#include "llm/jwt_signer.h"
#include "llm/vertex_backend.h"
#include "setup_error_message.h"

namespace mace::llm {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::FakeVertexServer;
using testing::map_env;
using testing::TempDir;
using testing::TestRsaKey;

const TestRsaKey& test_key() {
  static const TestRsaKey key = TestRsaKey::generate();
  return key;
}

std::string service_account_json(const std::string& token_uri, const std::string& private_pem) {
  JsonWriter w;
  w.begin_object()
      .field("type", "service_account")
      .field("project_id", "key-project")
      .field("private_key_id", "kid-123")
      .field("private_key", private_pem)
      .field("client_email", "mace@key-project.iam.gserviceaccount.com")
      .field("client_id", "1234")
      .field("token_uri", token_uri)
      .end_object();
  return w.take();
}

// A clock the test moves.
struct FakeClock {
  std::chrono::system_clock::time_point now = std::chrono::system_clock::from_time_t(1'750'000'000);
  WallClock fn() {
    return [this] { return now; };
  }
};

TEST(Jwt, Base64UrlRoundTrips) {
  for (std::string s : {std::string(""), std::string("f"), std::string("fo"), std::string("foo"),
                        std::string("\xff\xfe\x00\x01", 4)}) {
    EXPECT_EQ(base64url_decode(base64url_encode(s)), s);
  }
  EXPECT_EQ(base64url_encode("\xfb\xff"), "-_8");
}

TEST(Jwt, SigningNeedsAnRsaPrivateKey) {
  EXPECT_THAT(setup_error_of([] { sign_rs256("not a key", "data"); }),
              HasSubstr("PEM private key"));
  EXPECT_FALSE(sign_rs256(test_key().private_pem, "data").empty());
}

TEST(ServiceAccount, SignedJwtIsExchangedOnceAndTheTokenCached) {
  FakeVertexServer server;
  server.set_token_public_key(test_key().public_pem);
  server.push(FakeVertexServer::text("one"));
  server.push(FakeVertexServer::text("two"));
  TempDir dir;
  std::string key_file =
      dir.write("sa.json", service_account_json(server.token_uri(), test_key().private_pem));
  FakeClock clock;
  // No GOOGLE_CLOUD_PROJECT: the key's project_id is used.
  auto b = make_vertex_backend("gemini-2.5-flash",
                               map_env({{"GOOGLE_APPLICATION_CREDENTIALS", key_file},
                                        {"MACE_VERTEX_ENDPOINT", server.base_url()},
                                        {"HOME", dir.path()}}),
                               PriceTable::defaults(), clock.fn());
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->call(Request{}).ok);
  clock.now += 30min;
  ASSERT_TRUE(b->call(Request{}).ok);

  ASSERT_EQ(server.token_requests().size(), 1u);
  EXPECT_EQ(server.token_requests()[0].header("content-type"), "application/x-www-form-urlencoded");
  auto exchange = server.token_exchanges().at(0);
  EXPECT_EQ(exchange.grant_type, "urn:ietf:params:oauth:grant-type:jwt-bearer");
  EXPECT_TRUE(exchange.signature_valid);
  simdjson::dom::parser p1, p2;
  auto header = p1.parse(exchange.header_json).value();
  EXPECT_EQ(std::string_view(header["alg"]), "RS256");
  EXPECT_EQ(std::string_view(header["typ"]), "JWT");
  EXPECT_EQ(std::string_view(header["kid"]), "kid-123");
  auto claims = p2.parse(exchange.claims_json).value();
  EXPECT_EQ(std::string_view(claims["iss"]), "mace@key-project.iam.gserviceaccount.com");
  EXPECT_EQ(std::string_view(claims["aud"]), server.token_uri());
  EXPECT_EQ(std::string_view(claims["scope"]), "https://www.googleapis.com/auth/cloud-platform");
  EXPECT_EQ(int64_t(claims["iat"]), 1'750'000'000);
  EXPECT_EQ(int64_t(claims["exp"]), 1'750'000'000 + 3600);

  auto calls = server.requests();
  ASSERT_EQ(calls.size(), 2u);
  for (const auto& c : calls) {
    EXPECT_EQ(c.header("authorization"), "Bearer sa-token-1");
    EXPECT_THAT(c.path, HasSubstr("/projects/key-project/locations/us-central1/"));
  }
}

TEST(ServiceAccount, AnExpiredTokenIsExchangedAgain) {
  FakeVertexServer server;
  server.set_token_public_key(test_key().public_pem);
  server.set_token_expires_in(600);
  for (int i = 0; i < 3; ++i) server.push(FakeVertexServer::text("ok"));
  TempDir dir;
  std::string key_file =
      dir.write("sa.json", service_account_json(server.token_uri(), test_key().private_pem));
  FakeClock clock;
  auto b = make_vertex_backend("gemini-2.5-flash",
                               map_env({{"GOOGLE_APPLICATION_CREDENTIALS", key_file},
                                        {"GOOGLE_CLOUD_PROJECT", "env-project"},
                                        {"MACE_VERTEX_ENDPOINT", server.base_url()}}),
                               PriceTable::defaults(), clock.fn());
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->call(Request{}).ok);
  clock.now += 530s;  // still more than a minute left
  ASSERT_TRUE(b->call(Request{}).ok);
  clock.now += 20s;   // inside the last minute: refresh
  ASSERT_TRUE(b->call(Request{}).ok);
  EXPECT_EQ(server.token_requests().size(), 2u);
  auto calls = server.requests();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[1].header("authorization"), "Bearer sa-token-1");
  EXPECT_EQ(calls[2].header("authorization"), "Bearer sa-token-2");
  EXPECT_THAT(calls[0].path, HasSubstr("/projects/env-project/"));
}

TEST(ServiceAccount, ARejectedKeyIsAnAuthenticationError) {
  FakeVertexServer server;
  server.set_token_public_key(TestRsaKey::generate().public_pem);  // not the signing key
  TempDir dir;
  std::string key_file =
      dir.write("sa.json", service_account_json(server.token_uri(), test_key().private_pem));
  auto b = make_vertex_backend("gemini-2.5-flash",
                               map_env({{"GOOGLE_APPLICATION_CREDENTIALS", key_file},
                                        {"MACE_VERTEX_ENDPOINT", server.base_url()}}),
                               PriceTable::defaults());
  ASSERT_NE(b, nullptr);
  Reply reply = b->call(Request{});
  EXPECT_EQ(reply.error_class, ErrorClass::authentication);
  EXPECT_THAT(reply.error, HasSubstr("invalid_grant"));
  EXPECT_TRUE(server.requests().empty());
}

TEST(AuthorizedUser, RefreshTokenIsExchangedAndQuotaProjectSent) {
  FakeVertexServer server;
  server.push(FakeVertexServer::text("ok"));
  TempDir dir;
  JsonWriter w;
  w.begin_object()
      .field("type", "authorized_user")
      .field("client_id", "cid.apps.googleusercontent.com")
      .field("client_secret", "sec ret")
      .field("refresh_token", "1//refresh")
      .field("quota_project_id", "quota-proj")
      .field("token_uri", server.token_uri())
      .end_object();
  // gcloud's application-default file, found through HOME.
  std::filesystem::create_directories(dir.path() + "/.config/gcloud");
  dir.write(".config/gcloud/application_default_credentials.json", w.str());
  auto b = make_vertex_backend("gemini-2.5-flash",
                               map_env({{"HOME", dir.path()}, {"MACE_VERTEX_ENDPOINT", server.base_url()}}),
                               PriceTable::defaults());
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->call(Request{}).ok);
  auto token_request = server.token_requests().at(0);
  EXPECT_THAT(token_request.body, HasSubstr("grant_type=refresh_token"));
  EXPECT_THAT(token_request.body, HasSubstr("client_secret=sec%20ret"));
  EXPECT_THAT(token_request.body, HasSubstr("refresh_token=1%2F%2Frefresh"));
  auto call = server.requests().at(0);
  EXPECT_EQ(call.header("authorization"), "Bearer sa-token-1");
  EXPECT_EQ(call.header("x-goog-user-project"), "quota-proj");
  EXPECT_THAT(call.path, HasSubstr("/projects/quota-proj/"));
}

TEST(Credentials, AccessTokensFromTheEnvironmentComeFirst) {
  auto both = vertex_credentials_from_environment(
      map_env({{"MACE_VERTEX_ACCESS_TOKEN", "mace"}, {"GOOGLE_OAUTH_ACCESS_TOKEN", "google"},
               {"GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent.json"}}));
  ASSERT_TRUE(both.tokens);
  TokenError token_error;
  EXPECT_EQ(both.tokens->token(token_error), "mace");
  EXPECT_EQ(both.source, "MACE_VERTEX_ACCESS_TOKEN");
  auto google = vertex_credentials_from_environment(map_env({{"GOOGLE_OAUTH_ACCESS_TOKEN", "g"}}));
  ASSERT_TRUE(google.tokens);
  EXPECT_EQ(google.tokens->token(token_error), "g");
}

TEST(Credentials, UnusableKeyFilesAreNamed) {
  TempDir dir;
  auto error_with_key_file = [](const std::string& path) {
    return setup_error_of([&] {
      vertex_credentials_from_environment(map_env({{"GOOGLE_APPLICATION_CREDENTIALS", path}}));
    });
  };
  EXPECT_THAT(error_with_key_file(dir.path() + "/missing.json"),
              HasSubstr("missing.json, which cannot be read"));
  std::string external = dir.write("ext.json", R"({"type":"external_account"})");
  EXPECT_THAT(error_with_key_file(external), HasSubstr("'external_account' are not supported"));
  std::string no_key = dir.write("nokey.json", R"({"type":"service_account","client_email":"x"})");
  EXPECT_THAT(error_with_key_file(no_key), HasSubstr("without client_email or private_key"));
}

}  // namespace
}  // namespace mace::llm
