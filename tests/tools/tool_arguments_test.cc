#include "tools/tool_arguments.h"

#include <gtest/gtest.h>

namespace mace::tools {
namespace {

TEST(ToolArguments, ReadsTypedValuesAndTreatsEmptyAsNoArguments) {
  auto args = ToolArguments::parse(R"({"path":"piton/design/a.v","max":3,"all":true,"n":null})");
  EXPECT_EQ(args.string("path"), "piton/design/a.v");
  EXPECT_EQ(args.optional_integer("max"), 3);
  EXPECT_EQ(args.optional_bool("all"), true);
  EXPECT_EQ(args.optional_string("n"), std::nullopt);  // null is absent
  EXPECT_FALSE(ToolArguments::parse("  ").has("path"));
}

TEST(ToolArguments, NamesTheArgumentThatIsMissingOrMistyped) {
  auto args = ToolArguments::parse(R"({"path":7,"max":"x","f":2.5})");
  try {
    (void)args.string("path");
    FAIL();
  } catch (const ToolArgumentError& e) {
    EXPECT_STREQ(e.what(), "argument \"path\" must be a string");
  }
  EXPECT_THROW((void)args.optional_integer("max"), ToolArgumentError);
  EXPECT_THROW((void)args.optional_integer("f"), ToolArgumentError);
  EXPECT_EQ(ToolArguments::parse(R"({"f":4.0})").optional_integer("f"), 4);
  try {
    (void)args.string("pattern");
    FAIL();
  } catch (const ToolArgumentError& e) {
    EXPECT_STREQ(e.what(), "missing argument \"pattern\" (a string)");
  }
}

TEST(ToolArguments, RefusesWhatIsNotAnObject) {
  EXPECT_THROW(ToolArguments::parse("[1,2]"), ToolArgumentError);
  EXPECT_THROW(ToolArguments::parse("{\"a\":"), ToolArgumentError);
  EXPECT_THROW(ToolArguments::parse(R"({"a":{"b":1}})").optional_string("a"), ToolArgumentError);
}

}  // namespace
}  // namespace mace::tools
