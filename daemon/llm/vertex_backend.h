#pragma once
// The vertex backend (REQ-PLAT-7): Gemini's generateContent REST API on Vertex AI, over
// libcurl. Tools become function declarations and the function-call loop runs here: the
// model asks for calls, we run them and answer, until it answers in text.
//
// Configuration, all read through an EnvLookup:
//   GOOGLE_CLOUD_PROJECT      the project (else the service-account key's project_id, else
//                             the quota project of gcloud's application-default login)
//   GOOGLE_CLOUD_LOCATION     the region, default us-central1 (as google-genai and CHIA);
//                             "global" uses https://aiplatform.googleapis.com
//   MACE_VERTEX_ENDPOINT      replaces https://{location}-aiplatform.googleapis.com, for
//                             proxies and tests
// Credentials, first found wins:
//   MACE_VERTEX_ACCESS_TOKEN  an OAuth access token, used as is (ours)
//   GOOGLE_OAUTH_ACCESS_TOKEN the same; the name Terraform's Google provider and
//                             google-github-actions/auth use for a ready access token
//   GOOGLE_APPLICATION_CREDENTIALS  a key file: a service account (a signed RS256 JWT
//                             exchanged at its token_uri) or gcloud's authorized_user
//                             (refresh token); the token is cached until shortly before it
//                             expires
//   gcloud's application-default file ($CLOUDSDK_CONFIG or ~/.config/gcloud)/
//                             application_default_credentials.json

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "llm/llm.h"
#include "llm/pricing.h"
#include "llm/setup_error.h"

namespace mace::llm {

using WallClock = std::function<std::chrono::system_clock::time_point()>;

// A failure to obtain a token, classified like a reply's error.
struct TokenError {
  ErrorClass error_class = ErrorClass::authentication;
  std::string message;
};

class AccessTokenSource {
 public:
  virtual ~AccessTokenSource() = default;
  // A bearer token valid now; nullopt and `error` set when none can be had.
  virtual std::optional<std::string> token(TokenError& error) = 0;
};

// A token someone else refreshes (MACE_VERTEX_ACCESS_TOKEN, GOOGLE_OAUTH_ACCESS_TOKEN).
class StaticTokenSource : public AccessTokenSource {
 public:
  explicit StaticTokenSource(std::string token) : token_(std::move(token)) {}
  std::optional<std::string> token(TokenError&) override { return token_; }

 private:
  std::string token_;
};

// What a Google key file says. `type` is "service_account" or "authorized_user".
struct GoogleKeyFile {
  std::string type;
  std::string project_id;        // service_account
  std::string client_email;      // service_account
  std::string private_key;       // service_account, PEM
  std::string private_key_id;    // service_account
  std::string token_uri = "https://oauth2.googleapis.com/token";
  std::string client_id;         // authorized_user
  std::string client_secret;     // authorized_user
  std::string refresh_token;     // authorized_user
  std::string quota_project_id;  // authorized_user
};
// Throws SetupError saying what is wrong with a file that is not JSON, of another type or
// without the fields its type needs.
GoogleKeyFile parse_google_key_file(std::string_view json);

// Exchanges a key file for access tokens at its token_uri and caches each token until
// a minute before it expires. Thread-safe: runs share one backend.
class OAuthTokenSource : public AccessTokenSource {
 public:
  explicit OAuthTokenSource(GoogleKeyFile key, WallClock clock = std::chrono::system_clock::now);
  std::optional<std::string> token(TokenError& error) override;

  // The signed JWT assertion a service account sends (exposed for tests). Throws
  // SetupError when the key cannot sign.
  std::string make_assertion(std::chrono::system_clock::time_point now) const;

 private:
  GoogleKeyFile key_;
  WallClock clock_;
  std::mutex mutex_;
  std::string cached_;
  std::chrono::system_clock::time_point refresh_at_{};
};

struct VertexCredentials {
  std::shared_ptr<AccessTokenSource> tokens;
  std::string project_hint;   // from the key file, used when GOOGLE_CLOUD_PROJECT is unset
  std::string quota_project;  // sent as x-goog-user-project (user credentials need one)
  std::string source;         // which setting supplied them, for messages
};
// Throws SetupError ("vertex: no credentials: set …") when nothing is configured or the
// key file cannot be used.
VertexCredentials vertex_credentials_from_environment(
    const EnvLookup& env, WallClock clock = std::chrono::system_clock::now);

struct VertexConfig {
  std::string project;
  std::string location = "us-central1";
  std::string model = "gemini-2.5-flash";
  std::string endpoint_base;  // empty: Google's regional endpoint for `location`
  std::string quota_project;
  int max_output_tokens = 0;  // 0: the model's own limit
  int max_tool_rounds = 20;   // model turns that ask for tools before the call fails
  PriceTable prices = PriceTable::defaults();
};

std::string vertex_endpoint_base(const std::string& location);

class VertexBackend : public Backend {
 public:
  VertexBackend(VertexConfig config, std::shared_ptr<AccessTokenSource> tokens);
  std::string name() const override { return "vertex"; }
  std::string model() const override { return config_.model; }
  Reply call(const Request& request) override;

  // …/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent
  std::string url() const;

 private:
  VertexConfig config_;
  std::shared_ptr<AccessTokenSource> tokens_;
};

// Everything from the environment: credentials, project, location, endpoint. Throws
// SetupError when there are no usable credentials or no project.
std::unique_ptr<VertexBackend> make_vertex_backend(
    const std::string& model, const EnvLookup& env, const PriceTable& prices,
    WallClock clock = std::chrono::system_clock::now);

// The class and message of a non-200 answer, from its status and Google's error body
// {"error": {"code", "message", "status", "details"}}. Sets `retry_after` from the
// Retry-After header or a google.rpc.RetryInfo detail when either is given.
ErrorClass classify_vertex_error(long http_status, std::string_view body,
                                 const std::optional<std::string>& retry_after_header,
                                 std::string& message,
                                 std::optional<std::chrono::seconds>& retry_after);

// A tool's JSON schema as Gemini's OpenAPI subset accepts it: drops $schema, $id, $defs,
// definitions, additionalProperties and title (which Vertex answers with 400), but never a
// property that happens to carry one of those names. Throws SetupError for a schema that
// is not a JSON object.
std::string gemini_schema(std::string_view schema_json);

}  // namespace mace::llm
