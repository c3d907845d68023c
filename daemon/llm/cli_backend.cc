#include "llm/cli_backend.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "core/json_writer.h"
#include "os/environment.h"
#include "os/file_io.h"
#include "os/process_group.h"
#include "os/temp_dir.h"

namespace mace::llm {
namespace {

struct CliName {
  const char* backend;
  const char* executable;
  const char* override_var;
};

constexpr CliName kClis[] = {
    {"claude", "claude", "MACE_CLAUDE_CLI"},
    {"opencode", "opencode", "MACE_OPENCODE_CLI"},
    {"antigravity", "agy", "MACE_ANTIGRAVITY_CLI"},
};

const CliName* cli_name(const std::string& backend) {
  for (const auto& c : kClis)
    if (backend == c.backend) return &c;
  return nullptr;
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// ---------------------------------------------------------------------------------------
// Reset times

// The UTC offset of an IANA zone at `t`, from the tz database's TZif file. Why not
// std::chrono::locate_zone: g++ 12's library has no time-zone database. Why not
// localtime_r with TZ set: TZ is process-wide and maced has many threads.
std::optional<std::chrono::seconds> zone_offset(const std::string& zone, int64_t t) {
  static const std::regex kZoneName(R"([A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+)*)");
  if (!std::regex_match(zone, kZoneName)) return std::nullopt;
  const char* dir = std::getenv("TZDIR");
  // The name comes from a vendor's message: it may name a directory ("America"), and a
  // zone file is a few KiB. Only a regular file, read whole up to a bound, never a throw.
  constexpr std::size_t kMaxTzifBytes = 256 * 1024;
  std::optional<std::string> file = os::try_read_file(
      std::string(dir && *dir ? dir : "/usr/share/zoneinfo") + "/" + zone, kMaxTzifBytes);
  if (!file) return std::nullopt;
  const std::string& data = *file;
  auto be32 = [&](size_t at) -> int64_t {
    if (at + 4 > data.size()) throw std::out_of_range("tzif");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(data[at + i]);
    return static_cast<int32_t>(v);
  };
  auto be64 = [&](size_t at) -> int64_t {
    return static_cast<int64_t>((static_cast<uint64_t>(be32(at)) << 32) |
                                static_cast<uint32_t>(be32(at + 4)));
  };
  try {
    if (data.compare(0, 4, "TZif") != 0) return std::nullopt;
    size_t header = 0;
    bool wide = false;
    auto counts = [&](size_t h) {
      return std::array<int64_t, 6>{be32(h + 20), be32(h + 24), be32(h + 28),
                                    be32(h + 32), be32(h + 36), be32(h + 40)};
    };
    auto c = counts(0);  // isutcnt isstdcnt leapcnt timecnt typecnt charcnt
    if (data[4] >= '2') {
      // Version 2+ repeats the data with 64-bit times after the version-1 block.
      header = 44 + static_cast<size_t>(c[3] * 5 + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0]);
      c = counts(header);
      wide = true;
    }
    const size_t time_size = wide ? 8 : 4;
    const size_t times = header + 44;
    const size_t indexes = times + static_cast<size_t>(c[3]) * time_size;
    const size_t types = indexes + static_cast<size_t>(c[3]);
    if (c[4] <= 0) return std::nullopt;
    size_t type = 0;
    // The last transition at or before t. Past the table (a "slim" file) the last type
    // holds, which can be an hour off across a DST change: good enough for a wait.
    for (int64_t i = 0; i < c[3]; ++i) {
      int64_t at = wide ? be64(times + i * 8) : be32(times + i * 4);
      if (at > t) break;
      type = static_cast<unsigned char>(data.at(indexes + i));
    }
    return std::chrono::seconds(be32(types + type * 6));
  } catch (const std::out_of_range&) {
    return std::nullopt;
  }
}

std::optional<std::chrono::seconds> named_offset(const std::string& name, int64_t t) {
  static const std::map<std::string, int> kAbbreviations = {
      {"UTC", 0}, {"GMT", 0}, {"PST", -8}, {"PDT", -7}, {"MST", -7}, {"MDT", -6},
      {"CST", -6}, {"CDT", -5}, {"EST", -5}, {"EDT", -4}};
  std::string upper = name;
  for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (auto it = kAbbreviations.find(upper); it != kAbbreviations.end())
    return std::chrono::hours(it->second);
  return zone_offset(name, t);
}

}  // namespace

std::optional<std::chrono::seconds> parse_reset_time(std::string_view text_in,
                                                     std::chrono::system_clock::time_point now) {
  using namespace std::chrono;
  // Only the start of a message matters, and std::regex is slow on long input.
  std::string text(text_in.substr(0, 4096));
  const int64_t now_s = duration_cast<seconds>(now.time_since_epoch()).count();
  std::smatch m;

  // Claude Code's older "Claude AI usage limit reached|<unix time>".
  static const std::regex kEpoch(R"(limit reached\|(\d{9,11}))", std::regex::icase);
  if (std::regex_search(text, m, kEpoch)) {
    int64_t at = std::stoll(m[1].str());
    return seconds(std::max<int64_t>(at - now_s, 0));
  }
  // "resets 4pm (America/Los_Angeles)", "resets at 11:30am (UTC)".
  static const std::regex kClock(
      R"(resets?\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\s*(?:\(([^)]+)\))?)",
      std::regex::icase);
  if (std::regex_search(text, m, kClock) && (m[3].matched || m[2].matched)) {
    int hour = std::stoi(m[1].str());
    int minute = m[2].matched ? std::stoi(m[2].str()) : 0;
    std::string ampm = m[3].str();
    for (auto& ch : ampm) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (ampm == "pm" && hour != 12) hour += 12;
    if (ampm == "am" && hour == 12) hour = 0;
    if (hour > 23 || minute > 59) return std::nullopt;
    auto offset = m[4].matched ? named_offset(m[4].str(), now_s) : std::optional(seconds(0));
    if (!offset) return std::nullopt;
    int64_t local_now = now_s + offset->count();
    int64_t day_start = local_now - ((local_now % 86400) + 86400) % 86400;
    int64_t reset = day_start + hour * 3600 + minute * 60;
    if (reset <= local_now) reset += 86400;
    return seconds(reset - local_now);
  }
  // "Please retry in 41.2s", "retry after 30 seconds", "try again in 2 minutes".
  static const std::regex kDelay(
      R"((?:retry|try again)\s+(?:in|after)\s+(\d{1,9}(?:\.\d{1,9})?)\s*(ms|s|sec|secs|seconds?|m|mins?|minutes?|h|hours?)?\b)",
      std::regex::icase);
  if (std::regex_search(text, m, kDelay)) {
    double amount = std::stod(m[1].str());
    std::string unit = m[2].str();
    for (auto& ch : unit) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    double factor = 1;
    if (unit == "ms") factor = 0.001;
    else if (!unit.empty() && unit[0] == 'm') factor = 60;
    else if (!unit.empty() && unit[0] == 'h') factor = 3600;
    return seconds(static_cast<int64_t>(amount * factor + 0.999));
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// Helpers for the vendor files

namespace cli {

void write_file(const std::string& path, std::string_view content) {
  // Prompts and MCP configurations (with a session token) are the call's alone.
  os::write_file(path, content, 0600);
  std::filesystem::permissions(path, std::filesystem::perms::owner_read |
                                         std::filesystem::perms::owner_write);
}

std::string mcp_servers_json(const McpLaunch& launch) {
  JsonWriter w;
  w.begin_object().key("mcpServers").begin_object().key("mace").begin_object();
  w.field("command", launch.command).key("args").begin_array();
  for (const auto& a : launch.args) w.value(a);
  w.end_array().key("env").begin_object().end_object();
  w.end_object().end_object().end_object();
  return w.take();
}

std::string lowered(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      i += 2;
      while (i < text.size() && !std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
      continue;
    }
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(text[i]))));
  }
  return out;
}

bool has_status_code(std::string_view text, std::string_view code) {
  for (size_t at = text.find(code); at != std::string_view::npos; at = text.find(code, at + 1)) {
    bool digit_before = at > 0 && std::isdigit(static_cast<unsigned char>(text[at - 1]));
    size_t end = at + code.size();
    bool digit_after = end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]));
    if (!digit_before && !digit_after) return true;
  }
  return false;
}

bool contains_any(std::string_view text, std::initializer_list<std::string_view> needles) {
  for (auto n : needles)
    if (text.find(n) != std::string_view::npos) return true;
  return false;
}

ErrorClass classify_message(std::string_view message) {
  std::string t = lowered(message);
  auto code = [&](std::string_view c) { return has_status_code(t, c); };
  if (contains_any(t, {"hit your limit", "usage limit", "rate limit", "rate_limit",
                       "too many requests", "resource_exhausted", "resource exhausted"}) ||
      code("429"))
    return ErrorClass::rate_limit;
  if (contains_any(t, {"credit balance", "billing", "payment", "insufficient_quota",
                       "insufficient credit", "out of credit", "quota exceeded",
                       "upgrade your plan", "subscription"}) ||
      code("402"))
    return ErrorClass::billing;
  if (contains_any(t, {"invalid api key", "authentication", "unauthorized", "unauthenticated",
                       "not logged in", "not logged into", "please sign in", "/login",
                       "oauth token", "auth token", "permission_error", "permission denied",
                       "invalid x-api-key", "credentials"}) ||
      code("401") || code("403"))
    return ErrorClass::authentication;
  if (contains_any(t, {"output token maximum", "max_output_tokens", "output token limit",
                       "maximum output", "max_tokens", "response too long",
                       "output length"}))
    return ErrorClass::output_limit;
  if (contains_any(t, {"invalid_request", "invalid request", "bad request", "malformed",
                       "invalid model", "unknown model", "model not found", "not_found_error",
                       "invalid argument", "invalid_argument", "prompt is too long",
                       "context length", "context window", "unknown option",
                       "unrecognized", "not valid json"}) ||
      code("400") || code("404") || code("422"))
    return ErrorClass::invalid_request;
  if (contains_any(t, {"overloaded", "internal server error", "internal error", "api_error",
                       "server error", "service unavailable", "unavailable", "bad gateway",
                       "connection error", "connection refused", "econnreset",
                       "deadline exceeded", "gateway timeout"}) ||
      code("500") || code("502") || code("503") || code("504") || code("529"))
    return ErrorClass::server;
  return ErrorClass::unknown;
}

std::string_view json_string(simdjson::dom::element object, std::string_view key) {
  std::string_view v;
  return object[key].get(v) == simdjson::SUCCESS ? v : std::string_view();
}

bool json_bool(simdjson::dom::element object, std::string_view key) {
  bool v = false;
  return object[key].get(v) == simdjson::SUCCESS && v;
}

int64_t json_int(simdjson::dom::element object, std::string_view key) {
  int64_t i = 0;
  if (object[key].get(i) == simdjson::SUCCESS) return i;
  uint64_t u = 0;
  if (object[key].get(u) == simdjson::SUCCESS) return static_cast<int64_t>(u);
  double d = 0;
  if (object[key].get(d) == simdjson::SUCCESS) return static_cast<int64_t>(d);
  return 0;
}

double json_double(simdjson::dom::element object, std::string_view key) {
  double d = 0;
  if (object[key].get(d) == simdjson::SUCCESS) return d;
  return static_cast<double>(json_int(object, key));
}

std::optional<double> json_number(simdjson::dom::element object, std::string_view key) {
  simdjson::dom::element value;
  if (object[key].get(value) != simdjson::SUCCESS) return std::nullopt;
  double d = 0;
  int64_t i = 0;
  uint64_t u = 0;
  if (value.get(d) == simdjson::SUCCESS) return d;
  if (value.get(i) == simdjson::SUCCESS) return static_cast<double>(i);
  if (value.get(u) == simdjson::SUCCESS) return static_cast<double>(u);
  return std::nullopt;
}

std::string tail(std::string_view text, std::size_t max) {
  // Trimmed before it is cut: output that ends in a page of blank lines still gives its
  // last words, not an empty message.
  const size_t e = text.find_last_not_of(" \t\r\n");
  if (e == std::string_view::npos) return {};
  text = text.substr(0, e + 1);
  if (text.size() > max) text = text.substr(text.size() - max);
  return std::string(text.substr(text.find_first_not_of(" \t\r\n")));
}

Reply failure(ErrorClass c, std::string_view message,
              std::optional<std::chrono::seconds> retry_after) {
  Reply r;
  r.ok = false;
  r.error_class = c;
  r.error = std::string(message.substr(0, 2000));
  // A failure always says something, whatever the CLI printed.
  if (r.error.empty()) r.error = "the CLI agent failed without a message (" + std::string(to_string(c)) + ")";
  if (c == ErrorClass::rate_limit) r.retry_after = retry_after;
  return r;
}

}  // namespace cli

// ---------------------------------------------------------------------------------------
// The backend

namespace {

class CliBackend final : public Backend {
 public:
  CliBackend(std::unique_ptr<cli::Vendor> vendor, std::string executable, std::string model,
             CliOptions options)
      : vendor_(std::move(vendor)),
        executable_(std::move(executable)),
        model_(std::move(model)),
        options_(std::move(options)) {}

  std::string name() const override { return vendor_->name(); }
  std::string model() const override { return model_; }

  Reply call(const Request& request) override {
    auto started = std::chrono::steady_clock::now();
    Reply reply;
    try {
      reply = run(request);
    } catch (const std::exception& e) {
      reply = cli::failure(ErrorClass::unknown, name() + ": " + e.what());
    }
    if (reply.wall_s == 0)
      reply.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return reply;
  }

 private:
  Reply run(const Request& request) {
    // A directory for this call, removed with everything in it when the call ends.
    os::TempDir dir(options_.temp_root.empty() ? os::default_temp_parent()
                                               : std::filesystem::path(options_.temp_root),
                    "mace-llm-");
    cli::CallContext ctx;
    ctx.dir = dir.path().string();
    ctx.model = model_;
    std::optional<ScopedToolSession> session;
    if (!request.tools.empty()) {
      if (!options_.sessions)
        return cli::failure(ErrorClass::unknown,
                            name() + ": the call offers tools but maced gave no tool sessions");
      session.emplace(*options_.sessions, request.tools);
      ctx.mcp = cli::McpLaunch{options_.mace_binary,
                               {"--socket", options_.maced_socket, "mcp", "--session",
                                session->token()}};
    }
    cli::Invocation inv = vendor_->prepare(request, ctx);

    const std::string in_path = dir.path() / "stdin";
    const std::string out_path = dir.path() / "stdout";
    const std::string err_path = dir.path() / "stderr";
    cli::write_file(in_path, inv.stdin_text);

    os::ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c",
                 "in=$1 out=$2 err=$3; shift 3; exec \"$@\" <\"$in\" >\"$out\" 2>\"$err\"",
                 "mace-llm-cli", in_path, out_path, err_path, executable_};
    spec.argv.insert(spec.argv.end(), inv.args.begin(), inv.args.end());
    spec.env = options_.environment.empty() ? os::inherited_environment()
                                            : options_.environment;
    spec.env.erase("CLAUDECODE");
    for (const auto& [k, v] : inv.env) spec.env[k] = v;
    for (const auto& [k, v] : inv.env_defaults) spec.env.emplace(k, v);
    spec.working_dir = dir.path();
    spec.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(request.timeout);
    spec.kill_grace = options_.kill_grace;
    spec.tail_bytes = 4096;

    os::ProcessResult result = os::run_process_group(spec);
    std::string out = os::try_read_file(out_path).value_or("");
    std::string err = os::try_read_file(err_path).value_or("");
    Reply reply;
    if (result.launch_failed) {
      reply = cli::failure(ErrorClass::unknown, name() + ": " + result.error);
    } else if (result.timed_out) {
      reply = cli::failure(ErrorClass::timeout,
                           name() + ": no reply within " +
                               std::to_string(request.timeout.count()) + " s");
    } else {
      int exit_code = result.exit_code >= 0 ? result.exit_code : 128 + result.term_signal;
      reply = vendor_->parse(out, err, exit_code, std::chrono::system_clock::now());
      if (!reply.ok && reply.error.rfind(name() + ":", 0) != 0)
        reply.error = name() + ": " + reply.error;
    }
    reply.wall_s = result.wall_seconds;
    return reply;
  }

  std::unique_ptr<cli::Vendor> vendor_;
  std::string executable_;
  std::string model_;
  CliOptions options_;
};

}  // namespace

bool is_cli_backend(const std::string& backend) { return cli_name(backend) != nullptr; }

std::string find_cli(const std::string& backend,
                     const std::function<const char*(const char*)>& env) {
  const CliName* c = cli_name(backend);
  if (!c) throw SetupError(backend + ": not a command-line backend");
  const char* override_value = env ? env(c->override_var) : nullptr;
  std::string wanted = override_value && *override_value ? override_value : c->executable;
  if (wanted.find('/') != std::string::npos) {
    // Absolute, because the CLI runs in the call's own directory.
    if (is_executable_file(wanted)) return std::filesystem::absolute(wanted).string();
    throw SetupError(backend + ": CLI '" + wanted + "' (" + c->override_var +
                     ") is not an executable file");
  }
  const char* path = env ? env("PATH") : nullptr;
  std::string_view dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    size_t colon = dirs.find(':');
    std::string d(dirs.substr(0, colon));
    if (d.empty()) d = ".";
    std::string candidate = d + "/" + wanted;
    if (is_executable_file(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  throw SetupError(backend + ": CLI '" + wanted + "' not found on PATH; install it or set " +
                   c->override_var);
}

std::unique_ptr<Backend> make_cli_backend(const std::string& backend, const std::string& model,
                                          const std::function<const char*(const char*)>& env,
                                          const CliOptions& options) {
  std::string executable = find_cli(backend, env);
  std::unique_ptr<cli::Vendor> vendor;
  if (backend == "claude") vendor = cli::make_claude_vendor();
  else if (backend == "opencode") vendor = cli::make_opencode_vendor();
  else vendor = cli::make_antigravity_vendor();
  return std::make_unique<CliBackend>(std::move(vendor), std::move(executable), model, options);
}

}  // namespace mace::llm
