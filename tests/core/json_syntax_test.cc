// Where JSON stops being JSON: each break of the grammar is found at its line and column,
// and well-formed text of any nesting has none.

#include "core/json_syntax.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <simdjson.h>

namespace mace {
namespace {

using ::testing::HasSubstr;

std::string error_of(std::string_view text) {
  auto error = json_syntax_error(text);
  return error ? error->to_string() : "";
}

TEST(JsonSyntax, WellFormedTextHasNoError) {
  for (std::string_view json : {"{}", "[]", "0", "-0.5e+3", "\"a\\u00e9\\n\"", "true", " null ",
                                R"({"a": [1, 2.5, {"b": false}], "c": "d\"e"})", "\"h\xc3\xa9\""})
    EXPECT_EQ(error_of(json), "") << json;
}

TEST(JsonSyntax, EachBreakIsNamedWithWhatWasExpected) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"", "line 1, column 1: expected a JSON value, found the end of the text"},
      {"{\"a\" 1}", "line 1, column 6: expected ':' after a member's name, found '1'"},
      {"{\"a\": 1 \"b\": 2}", "line 1, column 9: expected ',' or '}' after a member's value, found '\"' (a comma missing before it?)"},
      {"[1 2]", "line 1, column 4: expected ',' or ']' after an array element, found '2' (a comma missing before it?)"},
      {"[1,]", "line 1, column 4: expected a value, found ']' (the comma before it is one too many)"},
      {"{\"a\": True}", "line 1, column 7: expected a value, found 'True' (JSON's words are true, false and null; strings need double quotes)"},
      {"{\"a\": 01}", "line 1, column 7: a number must not start with 0 and another digit"},
      {"{\"a\": 1.}", "line 1, column 7: a number needs a digit after its '.'"},
      {"{\"a\": \"b\\q\"}", "line 1, column 9: a string holds the escape \\q, which JSON does not have (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)"},
      {"{\"a\": \"b\n\"}", "line 1, column 9: a string holds the control character U+000A, which must be written as an escape (\\n, \\t, \\u0001)"},
      {"{\"a\": \"never closed}", "line 1, column 7: a string that is never closed starts here"},
      {"{} {}", "line 1, column 4: more text after the JSON value, from '{'"},
      {"// note\n{}", "line 1, column 1: expected a JSON value, found '/'"},
      {"{\"\xc3\xa9\": \xe2\x80\xa6}", "line 1, column 7: expected a value, found U+2026"},
  };
  for (const auto& [json, expected] : cases) EXPECT_EQ(error_of(json), expected) << json;
}

TEST(JsonSyntax, LinesAndColumnsCountAsAnEditorDoes) {
  auto error = json_syntax_error("{\n\t\"\xc3\xa9\xc3\xa9\": 1,\n  \"b\": [1,\n  ,]\n}");
  ASSERT_TRUE(error);
  EXPECT_EQ(error->line, 4u);
  EXPECT_EQ(error->column, 3u);
  error = json_syntax_error("{\"\xc3\xa9\xc3\xa9\" 1}");
  ASSERT_TRUE(error);
  EXPECT_EQ(error->column, 7u) << "a character is a column, whatever its bytes";
}

TEST(JsonSyntax, AnyDepthIsWalkedWithoutRecursionAndTooDeepIsSaid) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  EXPECT_THAT(error_of(deep), HasSubstr("nested deeper than 1024"));
  const std::string ok = std::string(1000, '[') + std::string(1000, ']');
  EXPECT_EQ(error_of(ok), "");
}

// What the parser refuses, this finds: the two agree on every case above.
TEST(JsonSyntax, EveryTextSimdjsonRefusesForItsGrammarHasAPlace) {
  simdjson::dom::parser parser;
  for (std::string_view json : {"{\"a\": [1, 2", "{\"a\" : }", "[\"x\",]", "{,}", "nul", "[1e]", "\"\\u12\"", "{\"a\":1}}"}) {
    simdjson::padded_string padded(json);
    ASSERT_NE(parser.parse(padded).error(), simdjson::SUCCESS) << json;
    EXPECT_NE(error_of(json), "") << json;
    EXPECT_THAT(invalid_json_message(json, "parser words"), ::testing::StartsWith("invalid JSON at line 1, column "));
  }
  // The grammar holds, but no 64-bit parser holds the number: its place all the same.
  EXPECT_EQ(invalid_json_message("{\n  \"a\": 1e400}", "Problem while parsing a number"),
            "invalid JSON at line 2, column 8: the number 1e400 is too large for a double (at most about 1.8e308)");
  EXPECT_EQ(invalid_json_message("[18446744073709551616]", "Problem while parsing a number"),
            "invalid JSON at line 1, column 2: the integer 18446744073709551616 is too large: integers go from "
            "-9223372036854775808 to 18446744073709551615");
  EXPECT_EQ(invalid_json_message("[18446744073709551615, -9223372036854775808, 1.5e308]", "other words"),
            "invalid JSON: other words") << "every number fits: the parser's words";
}

}  // namespace
}  // namespace mace
