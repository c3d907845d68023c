#pragma once
// Credentials for Vertex AI (see vertex_backend.h for the variables): a ready access token,
// a service-account key (a signed RS256 JWT exchanged for a token) or gcloud's
// authorized_user credentials (a refresh token), each token cached until shortly before it
// expires.

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "llm/llm.h"
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

}  // namespace mace::llm
