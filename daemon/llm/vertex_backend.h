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
#include <optional>
#include <string>
#include <string_view>

#include "llm/llm.h"
#include "llm/pricing.h"
#include "llm/setup_error.h"
#include "llm/vertex_auth.h"
#include "llm/vertex_errors.h"
#include "llm/vertex_schema.h"

namespace mace::llm {

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

}  // namespace mace::llm
