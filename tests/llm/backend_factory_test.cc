#include "llm/backend_factory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "fake_vertex_server.h"
#include "setup_error_message.h"

namespace mace::llm {
namespace {

using testing::map_env;
using testing::TempDir;

// REQ-PLAT-7, REQ-PLAT-8
TEST(ResolveChoice, DefaultsToVertexWithGemini25Flash) {
  auto c = resolve_choice(std::nullopt, std::nullopt, map_env({}));
  EXPECT_EQ(c.backend, "vertex");
  EXPECT_EQ(c.model, "gemini-2.5-flash");
}

// REQ-PLAT-7
TEST(ResolveChoice, MaceLlmSelectsWhenTheSpecDoesNot) {
  auto env = map_env({{"MACE_LLM", "claude"}});
  EXPECT_EQ(resolve_choice(std::nullopt, std::nullopt, env).backend, "claude");
  EXPECT_EQ(resolve_choice(std::string("opencode"), std::nullopt, env).backend, "opencode");
}

// REQ-PLAT-8
TEST(ResolveChoice, ModelFromSpecElseMaceLlmModel) {
  auto env = map_env({{"MACE_LLM_MODEL", "gemini-2.5-pro"}});
  EXPECT_EQ(resolve_choice(std::nullopt, std::nullopt, env).model, "gemini-2.5-pro");
  EXPECT_EQ(resolve_choice(std::nullopt, std::string("gemini-2.0-flash"), env).model,
            "gemini-2.0-flash");
}

// REQ-PLAT-8
TEST(ResolveChoice, CliAgentsWithoutAModelUseTheirOwnDefault) {
  auto c = resolve_choice(std::string("antigravity"), std::nullopt, map_env({}));
  EXPECT_EQ(c.backend, "antigravity");
  EXPECT_EQ(c.model, "");
  auto with_env = resolve_choice(std::nullopt, std::nullopt,
                                 map_env({{"MACE_LLM", "claude"}, {"MACE_LLM_MODEL", "opus"}}));
  EXPECT_EQ(with_env.model, "opus");
}

TEST(ResolveChoice, EmptyValuesCountAsUnset) {
  auto c = resolve_choice(std::string(""), std::string(""),
                          map_env({{"MACE_LLM", ""}, {"MACE_LLM_MODEL", ""}}));
  EXPECT_EQ(c.backend, "vertex");
  EXPECT_EQ(c.model, "gemini-2.5-flash");
}

// REQ-PLAT-7
TEST(MakeBackend, OnlyTheFourBackendsExist) {
  for (const char* name : {"vertex", "claude", "opencode", "antigravity"}) {
    EXPECT_TRUE(is_known_backend(name)) << name;
  }
  EXPECT_EQ(setup_error_of([] { make_backend({"openai", "gpt"}, map_env({})); }),
            "unknown backend 'openai'; expected vertex, claude, opencode or antigravity");
}

// REQ-PLAT-5, as maced has it: the selected backend's credentials must be present, and
// their absence is an error at submit time that says what to set.
TEST(MakeBackend, VertexWithoutCredentialsSaysWhatToSet) {
  TempDir home;  // no gcloud application-default file in it
  std::string error = setup_error_of([&] {
    make_backend({"vertex", "gemini-2.5-flash"},
                 map_env({{"HOME", home.path()}, {"GOOGLE_CLOUD_PROJECT", "p"}}));
  });
  EXPECT_EQ(error.rfind("vertex: no credentials: set GOOGLE_APPLICATION_CREDENTIALS", 0), 0u)
      << error;
}

TEST(MakeBackend, VertexWithoutProjectSaysSo) {
  TempDir home;
  EXPECT_EQ(setup_error_of([&] {
              make_backend({"vertex", "gemini-2.5-flash"},
                           map_env({{"HOME", home.path()}, {"MACE_VERTEX_ACCESS_TOKEN", "t"}}));
            }),
            "vertex: no project: set GOOGLE_CLOUD_PROJECT");
}

TEST(MakeBackend, VertexFromTheEnvironment) {
  auto b = make_backend(resolve_choice(std::nullopt, std::nullopt, map_env({})),
                        map_env({{"MACE_VERTEX_ACCESS_TOKEN", "t"},
                                 {"GOOGLE_CLOUD_PROJECT", "p"}}));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->name(), "vertex");
  EXPECT_EQ(b->model(), "gemini-2.5-flash");
}

}  // namespace
}  // namespace mace::llm

namespace mace::llm {
namespace {

// REQ-PLAT-7: the CLI names reach the CLI backends, with the injected environment.
TEST(MakeBackend, CliAgentsAreMadeThroughTheirFactory) {
  TempDir dir;
  EXPECT_THAT(setup_error_of([&] {
                make_backend({"claude", ""}, map_env({{"PATH", dir.path()}, {"HOME", dir.path()}}));
              }),
              ::testing::HasSubstr("claude"));

  // A stand-in executable named by the override variable is enough to make the backend.
  std::string fake = dir.write("fake-opencode", "#!/bin/sh\nexit 0\n");
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  auto made = make_backend({"opencode", "some-model"},
                           map_env({{"MACE_OPENCODE_CLI", fake}, {"PATH", dir.path()}}));
  ASSERT_NE(made, nullptr);
  EXPECT_EQ(made->name(), "opencode");
  EXPECT_EQ(made->model(), "some-model");
}

}  // namespace
}  // namespace mace::llm
