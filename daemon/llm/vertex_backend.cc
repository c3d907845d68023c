#include "llm/vertex_backend.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/json_writer.h"
#include "llm/http_client.h"
#include "llm/jwt_signer.h"

namespace mace::llm {

namespace {

using namespace std::chrono_literals;
using simdjson::dom::element;

constexpr std::string_view kScope = "https://www.googleapis.com/auth/cloud-platform";
// Refresh this long before the token's stated expiry, so a token never dies mid-request.
constexpr auto kRefreshMargin = 60s;

// Gemini finish reasons that mean the candidate was withheld rather than finished.
const std::set<std::string, std::less<>> kBlockedFinishReasons = {
    "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"};

std::string excerpt(std::string_view s, size_t n = 200) {
  if (s.size() <= n) return std::string(s);
  return std::string(s.substr(0, n)) + "…";
}

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

std::string string_field(element obj, std::string_view key) {
  std::string_view v;
  if (obj[key].get_string().get(v)) return {};
  return std::string(v);
}

int64_t int_field(element obj, std::string_view key) {
  int64_t v = 0;
  if (!obj[key].get_int64().get(v)) return v;
  double d = 0;
  if (!obj[key].get_double().get(d)) return static_cast<int64_t>(d);
  // Proto3 JSON may give int64 values as strings.
  std::string_view s;
  if (!obj[key].get_string().get(s)) {
    try {
      return std::stoll(std::string(s));
    } catch (...) {
    }
  }
  return 0;
}

// Writes a parsed schema back out without the keys Gemini rejects.
void write_schema(JsonWriter& w, element e, bool property_map) {
  static const std::set<std::string, std::less<>> kDrop = {
      "$schema", "$id", "$defs", "definitions", "additionalProperties", "title"};
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      simdjson::dom::object obj;
      if (e.get_object().get(obj)) break;
      w.begin_object();
      for (auto [k, v] : obj) {
        if (!property_map && kDrop.count(k)) continue;
        w.key(k);
        // The children of "properties" are property names, not schema keywords.
        write_schema(w, v, !property_map && k == "properties");
      }
      w.end_object();
      break;
    }
    case simdjson::dom::element_type::ARRAY: {
      simdjson::dom::array arr;
      if (e.get_array().get(arr)) break;
      w.begin_array();
      for (element v : arr) write_schema(w, v, false);
      w.end_array();
      break;
    }
    default:
      w.raw(simdjson::minify(e));
  }
}

void write_text_content(JsonWriter& w, std::string_view role, std::string_view text) {
  w.begin_object();
  w.field("role", role);
  w.key("parts").begin_array().begin_object().field("text", text).end_object().end_array();
  w.end_object();
}

struct FunctionTarget {
  const Tool* tool = nullptr;
  std::string method;
};

}  // namespace

// ---------------------------------------------------------------------------------------
// Credentials

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
  std::ifstream in(path);
  if (path.empty() || !in) {
    throw SetupError(
        explicit_path
            ? "vertex: GOOGLE_APPLICATION_CREDENTIALS names " + path + ", which cannot be read"
            : "vertex: no credentials: set GOOGLE_APPLICATION_CREDENTIALS to a service-account "
              "key file, or MACE_VERTEX_ACCESS_TOKEN (or GOOGLE_OAUTH_ACCESS_TOKEN) to an "
              "access token, or run `gcloud auth application-default login`");
  }
  std::stringstream text;
  text << in.rdbuf();
  GoogleKeyFile key;
  try {
    key = parse_google_key_file(text.str());
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

// ---------------------------------------------------------------------------------------
// Errors

ErrorClass classify_vertex_error(long http_status, std::string_view body,
                                 const std::optional<std::string>& retry_after_header,
                                 std::string& message,
                                 std::optional<std::chrono::seconds>& retry_after) {
  std::string status, text;
  bool billing = false;
  simdjson::dom::parser parser;
  element root, err;
  if (!parser.parse(body.data(), body.size()).get(root)) {
    // Some front ends answer with a one-element array around the error.
    if (simdjson::dom::array arr; !root.get_array().get(arr) && arr.size() > 0) {
      element first;
      if (!arr.at(0).get(first)) root = first;
    }
    if (!root["error"].get(err) && err.is_object()) {
      status = string_field(err, "status");
      text = string_field(err, "message");
      simdjson::dom::array details;
      if (!err["details"].get_array().get(details)) {
        for (element d : details) {
          std::string type = string_field(d, "@type");
          if (type.find("google.rpc.RetryInfo") != std::string::npos && !retry_after) {
            // retryDelay is a proto Duration: "30s" or "1.5s".
            std::string delay = string_field(d, "retryDelay");
            if (!delay.empty() && delay.back() == 's') {
              try {
                retry_after = std::chrono::seconds(
                    static_cast<int64_t>(std::ceil(std::stod(delay.substr(0, delay.size() - 1)))));
              } catch (...) {
              }
            }
          }
          if (string_field(d, "reason") == "BILLING_DISABLED") billing = true;
        }
      }
    }
  }
  if (retry_after_header) {
    if (auto parsed = parse_retry_after(*retry_after_header)) retry_after = parsed;
  }

  message = "vertex: HTTP " + std::to_string(http_status);
  if (!status.empty()) message += " " + status;
  message += ": " + (text.empty() ? excerpt(body) : text);

  if (http_status == 429 || status == "RESOURCE_EXHAUSTED") return ErrorClass::rate_limit;
  if (billing) return ErrorClass::billing;
  if (http_status == 401 || http_status == 403 || status == "UNAUTHENTICATED" ||
      status == "PERMISSION_DENIED") {
    return ErrorClass::authentication;
  }
  if (status == "DEADLINE_EXCEEDED" || http_status == 504) return ErrorClass::timeout;
  if (http_status >= 500) return ErrorClass::server;
  if (http_status == 400 || http_status == 404 || status == "INVALID_ARGUMENT" ||
      status == "NOT_FOUND" || status == "FAILED_PRECONDITION" || status == "OUT_OF_RANGE") {
    return ErrorClass::invalid_request;
  }
  return ErrorClass::unknown;
}

std::string gemini_schema(std::string_view schema_json) {
  simdjson::dom::parser parser;
  element root;
  if (auto e = parser.parse(schema_json.data(), schema_json.size()).get(root); e)
    throw SetupError(std::string("not valid JSON: ") + simdjson::error_message(e));
  if (!root.is_object()) throw SetupError("a parameters schema must be a JSON object");
  JsonWriter w;
  write_schema(w, root, false);
  return w.take();
}

// ---------------------------------------------------------------------------------------
// The backend

std::string vertex_endpoint_base(const std::string& location) {
  if (location == "global") return "https://aiplatform.googleapis.com";
  return "https://" + location + "-aiplatform.googleapis.com";
}

VertexBackend::VertexBackend(VertexConfig config, std::shared_ptr<AccessTokenSource> tokens)
    : config_(std::move(config)), tokens_(std::move(tokens)) {}

std::string VertexBackend::url() const {
  std::string base =
      config_.endpoint_base.empty() ? vertex_endpoint_base(config_.location) : config_.endpoint_base;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + "/v1/projects/" + config_.project + "/locations/" + config_.location +
         "/publishers/google/models/" + config_.model + ":generateContent";
}

Reply VertexBackend::call(const Request& request) {
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + request.timeout;
  Reply reply;
  auto finish = [&](Reply& r) -> Reply {
    r.usage.cost_usd = config_.prices.cost(config_.model, r.usage);
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(r);
  };
  auto fail = [&](ErrorClass c, std::string message) -> Reply {
    reply.ok = false;
    reply.error_class = c;
    reply.error = std::move(message);
    return finish(reply);
  };

  // Function declarations, and the way back from a declared name to the tool's method.
  std::map<std::string, FunctionTarget> targets;
  std::string declarations;
  {
    JsonWriter w;
    w.begin_array();
    for (const Tool& tool : request.tools) {
      for (const ToolMethod& method : tool.methods) {
        std::string fn = function_name(tool.name, method.name);
        if (auto [it, fresh] = targets.emplace(fn, FunctionTarget{&tool, method.name}); !fresh) {
          return fail(ErrorClass::invalid_request,
                      "vertex: tool methods " + it->second.tool->name + "." + it->second.method +
                          " and " + tool.name + "." + method.name +
                          " share the function name '" + fn + "' once cut to 64 characters");
        }
        // A tool is set up per call here, so its bad schema fails this call as a Reply.
        std::string schema;
        try {
          schema = gemini_schema(method.parameters_schema_json);
        } catch (const SetupError& e) {
          return fail(ErrorClass::invalid_request, "vertex: tool " + tool.name + "." +
                                                       method.name + " parameters: " + e.what());
        }
        w.begin_object().field("name", fn);
        // Vertex rejects an empty description.
        w.field("description", method.description.empty() ? std::string(" ") : method.description);
        w.key("parameters").raw(schema);
        w.end_object();
      }
    }
    w.end_array();
    declarations = w.take();
  }

  std::vector<std::string> contents;
  {
    JsonWriter w;
    write_text_content(w, "user", request.prompt);
    contents.push_back(w.take());
  }

  const std::string endpoint = url();
  for (int round = 0; round < config_.max_tool_rounds; ++round) {
    auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (remaining <= 0ms) {
      return fail(ErrorClass::timeout, "vertex: no answer within " +
                                           std::to_string(request.timeout.count()) + " s");
    }
    TokenError token_error;
    auto token = tokens_->token(token_error);
    if (!token) return fail(token_error.error_class, token_error.message);

    JsonWriter w;
    w.begin_object();
    w.key("contents").begin_array();
    for (const auto& c : contents) w.raw(c);
    w.end_array();
    if (!request.system.empty()) {
      // The role of a system instruction is ignored; only its parts count.
      w.key("systemInstruction").begin_object();
      w.key("parts").begin_array().begin_object().field("text", request.system).end_object().end_array();
      w.end_object();
    }
    if (!targets.empty()) {
      w.key("tools").begin_array().begin_object();
      w.key("functionDeclarations").raw(declarations);
      w.end_object().end_array();
    }
    if (config_.max_output_tokens > 0) {
      w.key("generationConfig").begin_object().field("maxOutputTokens", config_.max_output_tokens).end_object();
    }
    w.end_object();

    HttpRequest http;
    http.url = endpoint;
    http.body = w.take();
    http.timeout = remaining;
    http.headers.emplace_back("Authorization", "Bearer " + *token);
    if (!config_.quota_project.empty()) http.headers.emplace_back("x-goog-user-project", config_.quota_project);
    HttpResponse response = http_post(http);

    if (!response.transport_ok()) {
      if (response.timed_out) {
        return fail(ErrorClass::timeout, "vertex: no answer within " +
                                             std::to_string(request.timeout.count()) +
                                             " s: " + response.error);
      }
      return fail(ErrorClass::server, "vertex: cannot reach " + endpoint + ": " + response.error);
    }
    if (response.status != 200) {
      std::string message;
      ErrorClass c = classify_vertex_error(response.status, response.body,
                                           response.header("retry-after"), message, reply.retry_after);
      return fail(c, message);
    }

    simdjson::dom::parser parser;
    element root;
    if (auto e = parser.parse(response.body).get(root); e || !root.is_object()) {
      return fail(ErrorClass::unknown, "vertex: the reply is not a JSON object (" +
                                           std::string(e ? simdjson::error_message(e) : "wrong type") +
                                           "): " + excerpt(response.body));
    }

    element usage;
    if (!root["usageMetadata"].get(usage)) {
      reply.usage.input_tokens += int_field(usage, "promptTokenCount");
      reply.usage.output_tokens += int_field(usage, "candidatesTokenCount");
      reply.usage.thinking_tokens += int_field(usage, "thoughtsTokenCount");
    }

    simdjson::dom::array candidates;
    element candidate;
    if (root["candidates"].get_array().get(candidates) || candidates.size() == 0 ||
        candidates.at(0).get(candidate)) {
      element feedback;
      std::string block;
      if (!root["promptFeedback"].get(feedback)) block = string_field(feedback, "blockReason");
      if (!block.empty()) {
        std::string why = string_field(feedback, "blockReasonMessage");
        return fail(ErrorClass::blocked,
                    "vertex: prompt blocked: " + block + (why.empty() ? "" : ": " + why));
      }
      return fail(ErrorClass::unknown, "vertex: the reply has no candidates: " + excerpt(response.body));
    }

    std::string finish_reason = string_field(candidate, "finishReason");
    element content;
    simdjson::dom::array parts;
    bool has_parts = !candidate["content"].get(content) && !content["parts"].get_array().get(parts);

    std::string text;
    struct Call {
      std::string name, args;
    };
    std::vector<Call> calls;
    if (has_parts) {
      for (element part : parts) {
        element fc;
        if (!part["functionCall"].get(fc)) {
          element args;
          calls.push_back({string_field(fc, "name"),
                           fc["args"].get(args) ? std::string("{}") : simdjson::minify(args)});
          continue;
        }
        bool thought = false;
        if (!part["thought"].get_bool().get(thought) && thought) continue;
        std::string_view t;
        if (!part["text"].get_string().get(t)) text += t;
      }
    }

    if (finish_reason == "MAX_TOKENS") {
      reply.text = text;
      return fail(ErrorClass::output_limit,
                  "vertex: the reply reached the output token limit (finishReason MAX_TOKENS)");
    }
    if (kBlockedFinishReasons.count(finish_reason) && calls.empty()) {
      return fail(ErrorClass::blocked, "vertex: reply blocked (finishReason " + finish_reason + ")");
    }
    if (finish_reason == "MALFORMED_FUNCTION_CALL" && calls.empty()) {
      std::string why = string_field(candidate, "finishMessage");
      return fail(ErrorClass::unknown, "vertex: the model produced a malformed function call" +
                                           (why.empty() ? std::string() : ": " + why));
    }
    if (calls.empty()) {
      reply.ok = true;
      reply.text = std::move(text);
      reply.error_class = ErrorClass::none;
      return finish(reply);
    }

    // The model's turn goes back verbatim: Gemini 2.5 checks the thought signatures in it.
    contents.push_back(simdjson::minify(content));

    JsonWriter answer;
    answer.begin_object().field("role", "user");
    answer.key("parts").begin_array();
    for (const Call& call : calls) {
      ToolCallResult result;
      auto it = targets.find(call.name);
      if (it == targets.end()) {
        result = {false, "unknown function '" + call.name + "'"};
      } else if (!it->second.tool->call) {
        result = {false, "tool " + it->second.tool->name + " cannot be called"};
      } else {
        // A failing tool is the model's problem to work around, never the end of the call.
        try {
          result = it->second.tool->call(it->second.method, call.args);
        } catch (const std::exception& e) {
          result = {false, std::string("tool error: ") + e.what()};
        } catch (...) {
          result = {false, "tool error: unknown exception"};
        }
      }
      ++reply.tool_calls;
      answer.begin_object().key("functionResponse").begin_object();
      answer.field("name", call.name);
      answer.key("response").begin_object().field(result.ok ? "result" : "error", result.content).end_object();
      answer.end_object().end_object();
    }
    answer.end_array().end_object();
    contents.push_back(answer.take());
  }
  return fail(ErrorClass::unknown, "vertex: no text answer after " +
                                       std::to_string(config_.max_tool_rounds) +
                                       " rounds of tool calls");
}

std::unique_ptr<VertexBackend> make_vertex_backend(const std::string& model, const EnvLookup& env,
                                                   const PriceTable& prices, WallClock clock) {
  auto get = [&](const std::string& name) -> std::string {
    auto v = env(name);
    return v ? *v : std::string();
  };
  VertexCredentials creds = vertex_credentials_from_environment(env, std::move(clock));
  VertexConfig config;
  config.model = model.empty() ? "gemini-2.5-flash" : model;
  config.project = get("GOOGLE_CLOUD_PROJECT");
  if (config.project.empty()) config.project = creds.project_hint;
  if (config.project.empty()) throw SetupError("vertex: no project: set GOOGLE_CLOUD_PROJECT");
  if (auto location = get("GOOGLE_CLOUD_LOCATION"); !location.empty()) config.location = location;
  config.endpoint_base = get("MACE_VERTEX_ENDPOINT");
  config.quota_project = creds.quota_project;
  config.prices = prices;
  return std::make_unique<VertexBackend>(std::move(config), std::move(creds.tokens));
}

}  // namespace mace::llm
