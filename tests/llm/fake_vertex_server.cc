#include "fake_vertex_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "core/json_writer.h"
#include "llm/jwt_signer.h"

namespace mace::llm::testing {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string url_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else if (s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

std::map<std::string, std::string> parse_form(std::string_view body) {
  std::map<std::string, std::string> out;
  while (!body.empty()) {
    auto amp = body.find('&');
    std::string_view pair = body.substr(0, amp);
    auto eq = pair.find('=');
    if (eq != std::string_view::npos) out[url_decode(pair.substr(0, eq))] = url_decode(pair.substr(eq + 1));
    if (amp == std::string_view::npos) break;
    body.remove_prefix(amp + 1);
  }
  return out;
}

const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 529: return "Overloaded";
    default: return "Status";
  }
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

void write_usage(JsonWriter& w, Usage3 u) {
  w.key("usageMetadata").begin_object();
  w.field("promptTokenCount", u.input).field("candidatesTokenCount", u.output);
  if (u.thinking) w.field("thoughtsTokenCount", u.thinking);
  if (u.cached) {
    // As Vertex reports implicit and explicit cache hits: a count, and its modality split.
    w.field("cachedContentTokenCount", u.cached);
    w.key("cacheTokensDetails").begin_array().begin_object();
    w.field("modality", "TEXT").field("tokenCount", u.cached).end_object().end_array();
  }
  w.field("totalTokenCount", u.input + u.output + u.thinking);
  w.end_object();
}

bool verify_rs256(const std::string& public_pem, std::string_view data, std::string_view signature) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(public_pem.data(), static_cast<int>(public_pem.size())), BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr), EVP_PKEY_free);
  if (!key) return false;
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  return EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) == 1 &&
         EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                          signature.size(), reinterpret_cast<const unsigned char*>(data.data()),
                          data.size()) == 1;
}

}  // namespace

std::string RecordedRequest::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

FakeVertexServer::FakeVertexServer() {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 16) != 0) {
    throw std::runtime_error(std::string("bind/listen failed: ") + std::strerror(errno));
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  if (::pipe2(stop_pipe_, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  thread_ = std::thread([this] { serve(); });
}

FakeVertexServer::~FakeVertexServer() {
  stopping_ = true;
  (void)!::write(stop_pipe_[1], "x", 1);
  if (thread_.joinable()) thread_.join();
  ::close(listen_fd_);
  ::close(stop_pipe_[0]);
  ::close(stop_pipe_[1]);
}

std::string FakeVertexServer::base_url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

void FakeVertexServer::set_handler(std::function<ScriptedResponse(const RecordedRequest&)> handler) {
  std::lock_guard lock(mutex_);
  handler_ = std::move(handler);
}

void FakeVertexServer::push(ScriptedResponse response) {
  std::lock_guard lock(mutex_);
  script_.push_back(std::move(response));
}

std::vector<RecordedRequest> FakeVertexServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::vector<RecordedRequest> FakeVertexServer::token_requests() const {
  std::lock_guard lock(mutex_);
  return token_requests_;
}

std::vector<TokenExchange> FakeVertexServer::token_exchanges() const {
  std::lock_guard lock(mutex_);
  return exchanges_;
}

void FakeVertexServer::set_token_public_key(const std::string& pem) {
  std::lock_guard lock(mutex_);
  public_key_pem_ = pem;
}

void FakeVertexServer::serve() {
  while (!stopping_) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    handle(fd);
    ::close(fd);
  }
}

void FakeVertexServer::handle(int fd) {
  std::string data;
  char buf[8192];
  size_t header_end = std::string::npos;
  while ((header_end = data.find("\r\n\r\n")) == std::string::npos) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    data.append(buf, static_cast<size_t>(n));
  }
  RecordedRequest request;
  std::string_view head(data.data(), header_end);
  auto line_end = head.find("\r\n");
  std::string_view request_line = head.substr(0, line_end);
  auto sp1 = request_line.find(' ');
  auto sp2 = request_line.find(' ', sp1 + 1);
  request.method = std::string(request_line.substr(0, sp1));
  request.path = std::string(request_line.substr(sp1 + 1, sp2 - sp1 - 1));
  size_t pos = line_end == std::string_view::npos ? head.size() : line_end + 2;
  while (pos < head.size()) {
    auto end = head.find("\r\n", pos);
    if (end == std::string_view::npos) end = head.size();
    std::string_view line = head.substr(pos, end - pos);
    if (auto colon = line.find(':'); colon != std::string_view::npos) {
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      request.headers[lower(std::string(line.substr(0, colon)))] = std::string(value);
    }
    pos = end + 2;
  }
  size_t length = 0;
  if (auto cl = request.header("content-length"); !cl.empty()) length = std::stoul(cl);
  request.body = data.substr(header_end + 4);
  while (request.body.size() < length) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    request.body.append(buf, static_cast<size_t>(n));
  }

  ScriptedResponse response = answer(request);
  // Sleep in slices so the destructor never waits out a long scripted delay.
  for (auto waited = std::chrono::milliseconds(0); waited < response.delay && !stopping_;
       waited += std::chrono::milliseconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " " +
                    reason_phrase(response.status) + "\r\n";
  out += "Content-Type: " + response.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  out += "Connection: close\r\n";
  for (const auto& [name, value] : response.headers) out += name + ": " + value + "\r\n";
  out += "\r\n";
  out += response.body;
  write_all(fd, out);
}

ScriptedResponse FakeVertexServer::answer(const RecordedRequest& request) {
  if (request.path == "/token") return answer_token(request);
  std::unique_lock lock(mutex_);
  requests_.push_back(request);
  if (handler_) {
    auto handler = handler_;
    lock.unlock();  // the handler keeps its own state
    return handler(request);
  }
  if (script_.empty()) return error(500, "INTERNAL", "fake server: no scripted response left");
  ScriptedResponse next = std::move(script_.front());
  script_.pop_front();
  if (next.compute) return next.compute(request);
  return next;
}

ScriptedResponse FakeVertexServer::answer_token(const RecordedRequest& request) {
  std::lock_guard lock(mutex_);
  token_requests_.push_back(request);
  auto form = parse_form(request.body);
  TokenExchange exchange;
  exchange.grant_type = form["grant_type"];
  const std::string& jwt = form["assertion"];
  auto dot1 = jwt.find('.');
  auto dot2 = jwt.find('.', dot1 == std::string::npos ? 0 : dot1 + 1);
  if (dot1 != std::string::npos && dot2 != std::string::npos) {
    exchange.header_json = base64url_decode(jwt.substr(0, dot1)).value_or("");
    exchange.claims_json = base64url_decode(jwt.substr(dot1 + 1, dot2 - dot1 - 1)).value_or("");
    auto signature = base64url_decode(jwt.substr(dot2 + 1));
    exchange.signature_valid =
        signature && verify_rs256(public_key_pem_, std::string_view(jwt).substr(0, dot2), *signature);
  }
  exchanges_.push_back(exchange);
  if (exchange.grant_type == "urn:ietf:params:oauth:grant-type:jwt-bearer" &&
      !exchange.signature_valid) {
    return {400, R"({"error":"invalid_grant","error_description":"Invalid JWT Signature."})", {}, {}};
  }
  JsonWriter w;
  w.begin_object()
      .field("access_token", "sa-token-" + std::to_string(++tokens_issued_))
      .field("expires_in", static_cast<int64_t>(token_expires_in_.load()))
      .field("token_type", "Bearer")
      .end_object();
  return {200, w.take(), {}, {}};
}

ScriptedResponse FakeVertexServer::text(const std::string& text, Usage3 usage,
                                        const std::string& finish_reason) {
  JsonWriter w;
  w.begin_object().key("candidates").begin_array().begin_object();
  w.key("content").begin_object().field("role", "model").key("parts").begin_array();
  // A thought part first, as 2.5 models send with includeThoughts; it is not the answer.
  if (usage.thinking) w.begin_object().field("text", "(thinking)").field("thought", true).end_object();
  w.begin_object().field("text", text).end_object();
  w.end_array().end_object();
  w.field("finishReason", finish_reason);
  w.end_object().end_array();
  write_usage(w, usage);
  w.field("modelVersion", "gemini-2.5-flash");
  w.end_object();
  return {200, w.take(), {}, {}};
}

ScriptedResponse FakeVertexServer::function_calls(
    const std::vector<std::pair<std::string, std::string>>& calls, Usage3 usage) {
  JsonWriter w;
  w.begin_object().key("candidates").begin_array().begin_object();
  w.key("content").begin_object().field("role", "model").key("parts").begin_array();
  for (const auto& [name, args] : calls) {
    w.begin_object().key("functionCall").begin_object().field("name", name).key("args").raw(args);
    w.end_object().field("thoughtSignature", "c2lnbmF0dXJl").end_object();
  }
  w.end_array().end_object();
  w.field("finishReason", "STOP");
  w.end_object().end_array();
  write_usage(w, usage);
  w.end_object();
  return {200, w.take(), {}, {}};
}

ScriptedResponse FakeVertexServer::max_tokens(const std::string& partial_text, Usage3 usage) {
  return text(partial_text, usage, "MAX_TOKENS");
}

ScriptedResponse FakeVertexServer::blocked_prompt(const std::string& reason) {
  JsonWriter w;
  w.begin_object().key("promptFeedback").begin_object().field("blockReason", reason);
  w.field("blockReasonMessage", "The prompt was blocked.").end_object();
  write_usage(w, Usage3{7, 0, 0});
  w.end_object();
  return {200, w.take(), {}, {}};
}

ScriptedResponse FakeVertexServer::error(int code, const std::string& status,
                                         const std::string& message,
                                         std::vector<std::pair<std::string, std::string>> headers) {
  JsonWriter w;
  w.begin_object().key("error").begin_object();
  w.field("code", code).field("message", message).field("status", status);
  w.end_object().end_object();
  return {code, w.take(), std::move(headers), {}};
}

ScriptedResponse FakeVertexServer::malformed() {
  return {200, R"({"candidates": [{"content": {"parts": [{"text": "cut off)", {}, {}};
}

TempDir::TempDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/mace-llm-test.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::write(const std::string& name, const std::string& content) const {
  std::string file = path_ + "/" + name;
  std::ofstream(file) << content;
  return file;
}

TestRsaKey TestRsaKey::generate() {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_RSA_gen(2048), EVP_PKEY_free);
  if (!key) throw std::runtime_error("RSA key generation failed");
  auto to_string = [](BIO* bio) {
    char* data = nullptr;
    long n = BIO_get_mem_data(bio, &data);
    return std::string(data, static_cast<size_t>(n));
  };
  TestRsaKey out;
  std::unique_ptr<BIO, decltype(&BIO_free)> priv(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_PrivateKey(priv.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  out.private_pem = to_string(priv.get());
  std::unique_ptr<BIO, decltype(&BIO_free)> pub(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_PUBKEY(pub.get(), key.get());
  out.public_pem = to_string(pub.get());
  return out;
}

}  // namespace mace::llm::testing
