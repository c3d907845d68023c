#include "llm/backend_factory.h"

#include <array>
#include <map>
#include <mutex>

#include "llm/cli_auth_check.h"
#include "llm/vertex_backend.h"
#include "os/environment.h"

namespace mace::llm {

namespace {
constexpr std::string_view kDefaultBackend = "vertex";
constexpr std::string_view kDefaultVertexModel = "gemini-2.5-flash";
constexpr std::array<std::string_view, 4> kBackends = {"vertex", "claude", "opencode",
                                                       "antigravity"};

std::optional<std::string> non_empty(const std::optional<std::string>& v) {
  if (v && !v->empty()) return v;
  return std::nullopt;
}
// make_cli_backend reads the environment as getenv does, through C strings that must stay
// valid; each value looked up is kept for as long as the returned function lives.
std::function<const char*(const char*)> c_string_env(const EnvLookup& env) {
  struct Cache {
    std::mutex mutex;
    std::map<std::string, std::optional<std::string>> values;
  };
  auto cache = std::make_shared<Cache>();
  return [env, cache](const char* name) -> const char* {
    if (name == nullptr || !env) return nullptr;
    std::lock_guard lock(cache->mutex);
    auto it = cache->values.find(name);
    if (it == cache->values.end()) it = cache->values.emplace(name, env(name)).first;
    return it->second ? it->second->c_str() : nullptr;
  };
}

}  // namespace

bool is_known_backend(std::string_view name) {
  for (auto b : kBackends) {
    if (b == name) return true;
  }
  return false;
}

BackendChoice resolve_choice(const std::optional<std::string>& spec_backend,
                             const std::optional<std::string>& spec_model, const EnvLookup& env) {
  BackendChoice choice;
  if (auto b = non_empty(spec_backend)) {
    choice.backend = *b;
  } else if (auto e = env ? non_empty(env("MACE_LLM")) : std::nullopt) {
    choice.backend = *e;
  } else {
    choice.backend = kDefaultBackend;
  }
  if (auto m = non_empty(spec_model)) {
    choice.model = *m;
  } else if (auto e = env ? non_empty(env("MACE_LLM_MODEL")) : std::nullopt) {
    choice.model = *e;
  } else if (choice.backend == kDefaultBackend) {
    choice.model = kDefaultVertexModel;
  }
  return choice;
}

std::unique_ptr<Backend> make_backend(const BackendChoice& choice, const EnvLookup& env,
                                      const BackendOptions& options) {
  if (!is_known_backend(choice.backend)) {
    throw SetupError("unknown backend '" + choice.backend +
                     "'; expected vertex, claude, opencode or antigravity");
  }
  if (choice.backend == "vertex") return make_vertex_backend(choice.model, env, options.prices);
  return make_cli_backend(choice.backend, choice.model, c_string_env(env), options.cli);
}

std::optional<std::string> check_backend(const BackendChoice& choice, const EnvLookup& env,
                                         const BackendOptions& options) {
  try {
    auto backend = make_backend(choice, env, options);
    (void)backend;
  } catch (const SetupError& e) {
    return e.what();
  }
  if (auto problem = options.accounting().unreported_cost_problem(choice.backend, choice.model))
    return problem;
  if (is_cli_backend(choice.backend)) {
    std::map<std::string, std::string> environment = options.cli.environment.empty()
                                                         ? os::inherited_environment()
                                                         : options.cli.environment;
    // The environment lookup decides (tests give their own), as for the CLI itself.
    for (const char* name : {"HOME", "PATH", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",
                             "ANTHROPIC_BASE_URL", "XDG_DATA_HOME", "XDG_CONFIG_HOME"})
      if (env) {
        if (auto v = env(name)) environment[name] = *v;
      }
    std::string executable = find_cli(choice.backend, c_string_env(env));
    if (auto problem = cli_auth_problem(choice.backend, choice.model, executable, environment))
      return problem;
  }
  return std::nullopt;
}

}  // namespace mace::llm
