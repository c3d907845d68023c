#include "llm/cli_auth_check.h"

#include <array>
#include <chrono>
#include <filesystem>

#include <simdjson.h>

#include "os/file_io.h"
#include "os/process_group.h"
#include "os/temp_dir.h"

namespace mace::llm {
namespace {

struct Output {
  bool ran = false;
  int exit_code = -1;
  std::string out;
};

// Runs `argv` with stdout to a file (stderr apart), within a few seconds: submit waits.
Output run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  Output o;
  try {
    os::TempDir dir(os::default_temp_parent(), "mace-auth-");
    const std::string out_path = dir.path() / "out";
    os::ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", "out=$1; shift; exec \"$@\" </dev/null >\"$out\" 2>/dev/null",
                 "mace-auth-check", out_path};
    spec.argv.insert(spec.argv.end(), argv.begin(), argv.end());
    spec.env = env;
    spec.env.erase("CLAUDECODE");
    spec.working_dir = dir.path();
    spec.timeout = std::chrono::seconds(10);
    spec.kill_grace = std::chrono::milliseconds(500);
    os::ProcessResult r = os::run_process_group(spec);
    if (r.launch_failed || r.timed_out || r.exit_code < 0) return o;
    o.ran = true;
    o.exit_code = r.exit_code;
    o.out = os::try_read_file(out_path).value_or("");
  } catch (const std::exception&) {
  }
  return o;
}

std::string get(const std::map<std::string, std::string>& env, const std::string& name) {
  auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

std::optional<std::string> claude_problem(const std::string& executable,
                                          const std::map<std::string, std::string>& env) {
  Output o = run({executable, "auth", "status"}, env);
  if (!o.ran) return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::element status;
  bool logged_in = false;
  if (parser.parse(o.out).get(status) != simdjson::SUCCESS ||
      status["loggedIn"].get(logged_in) != simdjson::SUCCESS)
    return std::nullopt;
  if (logged_in) return std::nullopt;
  std::string home = get(env, "HOME");
  return "claude: not logged in, and no ANTHROPIC_API_KEY in maced's environment (`claude auth "
         "status` says loggedIn false). Put ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN for a "
         "proxy) in maced's environment (/etc/mace/maced.env under systemd), or run `claude "
         "auth login` as maced's user" +
         (home.empty() ? std::string() : " (HOME=" + home + ")");
}

struct ProviderKey {
  const char* provider;
  std::array<const char*, 2> variables;
};
// The providers whose key variables are known (opencode reads these names).
constexpr ProviderKey kProviderKeys[] = {
    {"anthropic", {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"}},
    {"openai", {"OPENAI_API_KEY", nullptr}},
    {"google", {"GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"}},
    {"openrouter", {"OPENROUTER_API_KEY", nullptr}},
    {"groq", {"GROQ_API_KEY", nullptr}},
    {"mistral", {"MISTRAL_API_KEY", nullptr}},
    {"deepseek", {"DEEPSEEK_API_KEY", nullptr}},
    {"xai", {"XAI_API_KEY", nullptr}},
};

std::optional<std::string> opencode_problem(const std::string& model, const std::string& executable,
                                            const std::map<std::string, std::string>& env) {
  auto slash = model.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const std::string provider = model.substr(0, slash);
  const ProviderKey* known = nullptr;
  for (const auto& k : kProviderKeys)
    if (provider == k.provider) known = &k;
  if (!known) return std::nullopt;
  for (const char* v : known->variables)
    if (v && !get(env, v).empty()) return std::nullopt;
  // opencode's own credential store: $XDG_DATA_HOME/opencode/auth.json, keyed by provider.
  std::string data = get(env, "XDG_DATA_HOME");
  if (data.empty() && !get(env, "HOME").empty()) data = get(env, "HOME") + "/.local/share";
  if (!data.empty()) {
    if (auto text = os::try_read_file(data + "/opencode/auth.json")) {
      simdjson::dom::parser parser;
      simdjson::dom::element auth, entry;
      if (parser.parse(*text).get(auth) == simdjson::SUCCESS &&
          auth[provider].get(entry) == simdjson::SUCCESS)
        return std::nullopt;
    }
  }
  // A key in its configuration (provider.<id>.options.apiKey), shown masked.
  Output o = run({executable, "debug", "config"}, env);
  if (!o.ran || o.exit_code != 0) return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::element config, key;
  if (parser.parse(o.out).get(config) != simdjson::SUCCESS) return std::nullopt;
  if (config["provider"][provider]["options"]["apiKey"].get(key) == simdjson::SUCCESS)
    return std::nullopt;
  return "opencode: no credentials for provider '" + provider + "' (model " + model +
         "): no " + known->variables[0] +
         " in maced's environment, none in opencode's auth.json, no apiKey in its "
         "configuration. Put " + known->variables[0] +
         " in maced's environment (/etc/mace/maced.env under systemd), or run `opencode auth "
         "login` as maced's user";
}

}  // namespace

std::optional<std::string> cli_auth_problem(const std::string& backend, const std::string& model,
                                            const std::string& executable,
                                            const std::map<std::string, std::string>& environment) {
  if (backend == "claude") return claude_problem(executable, environment);
  if (backend == "opencode") return opencode_problem(model, executable, environment);
  return std::nullopt;
}

}  // namespace mace::llm
