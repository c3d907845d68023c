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
