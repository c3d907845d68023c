#include "llm/vertex_auth.h"

#include <cctype>

#include <simdjson.h>

#include "core/json_writer.h"
#include "llm/http_client.h"
#include "llm/jwt_signer.h"
#include "llm/vertex_json.h"
#include "os/file_io.h"

namespace mace::llm {
namespace {

using namespace std::chrono_literals;
using simdjson::dom::element;
using vertex::excerpt;
using vertex::int_field;
using vertex::string_field;

constexpr std::string_view kScope = "https://www.googleapis.com/auth/cloud-platform";
// Refresh this long before the token's stated expiry, so a token never dies mid-request.
constexpr auto kRefreshMargin = 60s;

std::string form_escape(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

GoogleKeyFile parse_google_key_file(std::string_view json) {
  simdjson::dom::parser parser;
  element root;
  if (parser.parse(json.data(), json.size()).get(root) || !root.is_object())
    throw SetupError("not a JSON object");
  GoogleKeyFile key;
  key.type = string_field(root, "type");
  key.project_id = string_field(root, "project_id");
  key.client_email = string_field(root, "client_email");
  key.private_key = string_field(root, "private_key");
  key.private_key_id = string_field(root, "private_key_id");
  if (auto uri = string_field(root, "token_uri"); !uri.empty()) key.token_uri = uri;
  key.client_id = string_field(root, "client_id");
  key.client_secret = string_field(root, "client_secret");
  key.refresh_token = string_field(root, "refresh_token");
  key.quota_project_id = string_field(root, "quota_project_id");
  if (key.type == "service_account") {
    if (key.client_email.empty() || key.private_key.empty())
      throw SetupError("service_account key without client_email or private_key");
  } else if (key.type == "authorized_user") {
    if (key.refresh_token.empty() || key.client_id.empty())
      throw SetupError("authorized_user credentials without refresh_token or client_id");
  } else {
    throw SetupError("credentials of type '" + key.type +
                     "' are not supported; expected service_account or authorized_user");
  }
  return key;
}

OAuthTokenSource::OAuthTokenSource(GoogleKeyFile key, WallClock clock)
    : key_(std::move(key)), clock_(std::move(clock)) {}

std::string OAuthTokenSource::make_assertion(std::chrono::system_clock::time_point now) const {
  auto iat = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  JsonWriter header;
  header.begin_object().field("alg", "RS256").field("typ", "JWT");
  if (!key_.private_key_id.empty()) header.field("kid", key_.private_key_id);
  header.end_object();
  JsonWriter claims;
  claims.begin_object()
      .field("iss", key_.client_email)
      .field("scope", kScope)
      .field("aud", key_.token_uri)
      .field("iat", static_cast<int64_t>(iat))
      .field("exp", static_cast<int64_t>(iat + 3600))
      .end_object();
  std::string signing_input = base64url_encode(header.str()) + "." + base64url_encode(claims.str());
  return signing_input + "." + base64url_encode(sign_rs256(key_.private_key, signing_input));
}

std::optional<std::string> OAuthTokenSource::token(TokenError& error) {
  std::lock_guard lock(mutex_);
  auto now = clock_();
  if (!cached_.empty() && now < refresh_at_) return cached_;

  HttpRequest request;
  request.url = key_.token_uri;
  request.content_type = "application/x-www-form-urlencoded";
  request.timeout = 60s;
  if (key_.type == "service_account") {
    // A token source answers with a TokenError, never a throw: the call it serves fails
    // with that class like any other.
    std::string assertion;
    try {
      assertion = make_assertion(now);
    } catch (const SetupError& e) {
      error = {ErrorClass::authentication, "vertex: service account " + key_.client_email +
                                               ": cannot sign the token request: " + e.what()};
      return std::nullopt;
    }
    request.body = "grant_type=" + form_escape("urn:ietf:params:oauth:grant-type:jwt-bearer") +
                   "&assertion=" + form_escape(assertion);
  } else {
    request.body = "grant_type=refresh_token&client_id=" + form_escape(key_.client_id) +
                   "&client_secret=" + form_escape(key_.client_secret) +
                   "&refresh_token=" + form_escape(key_.refresh_token);
  }

  HttpResponse response = http_post(request);
  if (!response.transport_ok()) {
    error = {response.timed_out ? ErrorClass::timeout : ErrorClass::server,
             "vertex: token exchange at " + key_.token_uri + " failed: " + response.error};
    return std::nullopt;
  }
  if (response.status != 200) {
    // 400 invalid_grant / 401 invalid_client: the key is wrong, revoked or the clock is off.
    ErrorClass c = response.status >= 500   ? ErrorClass::server
                   : response.status == 429 ? ErrorClass::rate_limit
                                            : ErrorClass::authentication;
    error = {c, "vertex: token exchange at " + key_.token_uri + " answered HTTP " +
                    std::to_string(response.status) + ": " + excerpt(response.body)};
    return std::nullopt;
  }
  simdjson::dom::parser parser;
  element root;
  std::string token;
  if (parser.parse(response.body).get(root) || (token = string_field(root, "access_token")).empty()) {
    error = {ErrorClass::unknown, "vertex: token exchange answered without an access_token: " +
                                      excerpt(response.body)};
    return std::nullopt;
  }
  int64_t expires_in = int_field(root, "expires_in");
  if (expires_in <= 0) expires_in = 3600;
  cached_ = token;
  refresh_at_ = now + std::chrono::seconds(expires_in) - kRefreshMargin;
  return cached_;
}

VertexCredentials vertex_credentials_from_environment(const EnvLookup& env, WallClock clock) {
  auto get = [&](const std::string& name) -> std::string {
    auto v = env(name);
    return v ? *v : std::string();
  };
  for (const char* name : {"MACE_VERTEX_ACCESS_TOKEN", "GOOGLE_OAUTH_ACCESS_TOKEN"}) {
    if (auto token = get(name); !token.empty()) {
      return VertexCredentials{std::make_shared<StaticTokenSource>(token), "", "", name};
    }
  }

  std::string path = get("GOOGLE_APPLICATION_CREDENTIALS");
  std::string source = "GOOGLE_APPLICATION_CREDENTIALS";
  bool explicit_path = !path.empty();
  if (!explicit_path) {
    std::string dir = get("CLOUDSDK_CONFIG");
    if (dir.empty() && !get("HOME").empty()) dir = get("HOME") + "/.config/gcloud";
    if (!dir.empty()) path = dir + "/application_default_credentials.json";
    source = path;
  }
  // A key file is a few kilobytes; anything larger is not one.
  std::optional<std::string> text = path.empty() ? std::nullopt : os::try_read_file(path, 1 << 20);
  if (!text) {
    throw SetupError(
        explicit_path
            ? "vertex: GOOGLE_APPLICATION_CREDENTIALS names " + path + ", which cannot be read"
            : "vertex: no credentials: set GOOGLE_APPLICATION_CREDENTIALS to a service-account "
              "key file, or MACE_VERTEX_ACCESS_TOKEN (or GOOGLE_OAUTH_ACCESS_TOKEN) to an "
              "access token, or run `gcloud auth application-default login`");
  }
  GoogleKeyFile key;
  try {
    key = parse_google_key_file(*text);
  } catch (const SetupError& e) {
    // The key file's own complaint does not say which file, or that it is vertex's.
    throw SetupError("vertex: credentials in " + path + ": " + e.what());
  }
  VertexCredentials creds;
  creds.project_hint = key.type == "service_account" ? key.project_id : key.quota_project_id;
  creds.quota_project = key.type == "authorized_user" ? key.quota_project_id : "";
  creds.source = source;
  creds.tokens = std::make_shared<OAuthTokenSource>(std::move(key), std::move(clock));
  return creds;
}

}  // namespace mace::llm
