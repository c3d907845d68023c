#include "core/json_writer.h"

#include <gtest/gtest.h>

namespace mace {
namespace {

TEST(JsonWriter, NestsObjectsAndArraysWithCommas) {
  JsonWriter w;
  w.begin_object().field("a", 1).key("b").begin_array().value("x").value(true).null().end_array();
  w.key("c").begin_object().end_object().end_object();
  EXPECT_EQ(w.str(), R"({"a":1,"b":["x",true,null],"c":{}})");
}

TEST(JsonWriter, EscapesControlCharactersAndQuotes) {
  JsonWriter w;
  w.value(std::string_view("a\"b\\c\n\x01", 7));
  EXPECT_EQ(w.str(), R"("a\"b\\c\n\u0001")");
}

TEST(JsonWriter, DoublesReadBackExactlyAndLookLikeNumbers) {
  JsonWriter w;
  w.begin_array().value(20.0).value(0.1).value(1e300).end_array();
  EXPECT_EQ(w.str(), "[20.0,0.1,1e+300]");
}

}  // namespace
}  // namespace mace

namespace mace {
namespace {

// What MACE writes as JSON parses, whatever bytes a model or a log put in a string:
// `mace plan parse` used to copy invalid UTF-8 into its output.
TEST(JsonWriterUtf8, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  JsonWriter w;
  w.value(std::string("ok \xc3\xa9, bad \xff\xfe, cut \xe2\x82"));
  EXPECT_EQ(w.str(), "\"ok \xc3\xa9, bad \\ufffd\\ufffd, cut \\ufffd\\ufffd\"");
  JsonWriter overlong;
  overlong.value(std::string("\xc0\xaf \xed\xa0\x80"));  // an overlong '/' and a surrogate
  EXPECT_EQ(overlong.str(), "\"\\ufffd\\ufffd \\ufffd\\ufffd\\ufffd\"");
}

}  // namespace
}  // namespace mace

namespace mace {
namespace {

// JSON that `mace --json` prints may reach a terminal, and the report puts it in a page's
// script: DEL, the C1 controls (U+009B is CSI to some terminals) and the line and paragraph
// separators travel as \u escapes, as every other control character does.
TEST(JsonWriterControls, DelC1AndLineSeparatorsAreEscaped) {
  JsonWriter w;
  w.value(std::string("del \x7f csi \xc2\x9b nel \xc2\x85 ls \xe2\x80\xa8 ps \xe2\x80\xa9 nbsp \xc2\xa0"));
  EXPECT_EQ(w.str(),
            "\"del \\u007f csi \\u009b nel \\u0085 ls \\u2028 ps \\u2029 nbsp \xc2\xa0\"");
  JsonWriter key;
  key.begin_object().field("bad\x7f" "key", 1).end_object();
  EXPECT_EQ(key.str(), R"({"bad\u007fkey":1})");
}

}  // namespace
}  // namespace mace
