// `model_store` and `compiler_cache` in maced's configuration: on by default
// under the state directory; a path, a size limit or off; every problem named by its path.
#include "maced/config.h"
#include "config_errors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace {
namespace {

using ::testing::ElementsAre;

TEST(ModelStoreConfig, OnByDefaultUnderTheStateDirectory) {
  auto parsed = parse_maced_config("{}");
  ASSERT_TRUE(parsed.config);
  EXPECT_TRUE(parsed.config->model_store.enabled);
  EXPECT_EQ(parsed.config->model_store.path, "");
  EXPECT_EQ(parsed.config->model_store.max_mb, 20480);
  EXPECT_TRUE(parsed.config->compiler_cache.enabled);
  EXPECT_EQ(parsed.config->compiler_cache.max_mb, 5120);
}

TEST(CompilerCacheConfig, ReadsAPathALimitAndOffWithItsOwnFieldPaths) {
  auto parsed = parse_maced_config(R"({"compiler_cache": {"path": "/cc", "max_mb": 100}})");
  ASSERT_TRUE(parsed.config) << parsed.errors.front().to_string();
  EXPECT_EQ(parsed.config->compiler_cache.path, "/cc");
  EXPECT_EQ(parsed.config->compiler_cache.max_mb, 100);
  EXPECT_EQ(parsed.config->model_store.path, "");
  EXPECT_THAT(errors_of(R"({"compiler_cache": {"path": "cc"}})"),
              ElementsAre("compiler_cache.path: must be an absolute path, got \"cc\""));
}

TEST(ModelStoreConfig, ReadsAPathALimitAndOff) {
  auto parsed = parse_maced_config(
      R"({"model_store": {"path": "/shared/mace-models", "max_mb": 51200}})");
  ASSERT_TRUE(parsed.config) << parsed.errors.front().to_string();
  EXPECT_EQ(parsed.config->model_store.path, "/shared/mace-models");
  EXPECT_EQ(parsed.config->model_store.max_mb, 51200);
  auto off = parse_maced_config(R"({"model_store": {"enabled": false}})");
  ASSERT_TRUE(off.config);
  EXPECT_FALSE(off.config->model_store.enabled);
}

TEST(ModelStoreConfig, EveryProblemIsNamedByItsPath) {
  EXPECT_THAT(errors_of(R"({"model_store": "/x"})"),
              ElementsAre("model_store: must be an object with \"path\", \"max_mb\" and "
                          "\"enabled\""));
  EXPECT_THAT(errors_of(R"({"model_store": {"path": "models"}})"),
              ElementsAre("model_store.path: must be an absolute path, got \"models\""));
  EXPECT_THAT(errors_of(R"({"model_store": {"max_mb": 0}})"),
              ElementsAre("model_store.max_mb: must be an integer from 1 to 1073741824 (MiB), "
                          "got 0"));
  EXPECT_THAT(errors_of(R"({"model_store": {"enabled": "no"}})"),
              ElementsAre("model_store.enabled: must be true or false, got \"no\""));
  EXPECT_THAT(errors_of(R"({"model_store": {"size": 1}})"),
              ElementsAre("model_store.size: unknown field; expected one of: path, max_mb, "
                          "enabled"));
}

}  // namespace
}  // namespace mace
