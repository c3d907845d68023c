#include "llm/vertex_backend.h"

#include "llm/vertex_conversation.h"

namespace mace::llm {

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
  Reply reply = vertex::converse(
      request, {url(), config_.quota_project, config_.max_output_tokens, config_.max_tool_rounds},
      *tokens_);
  // Vertex reports tokens, never a price: the table prices each kind at its rate. A model
  // it does not know is left unpriced for the run's cost accounting to settle.
  if (auto cost = config_.prices.price(config_.model, reply.usage)) {
    reply.usage.cost_usd = *cost;
    reply.usage.cost_source = CostSource::priced;
  }
  reply.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return reply;
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
