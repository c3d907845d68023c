// The data `mace report` embeds in its page: no text in it can end or change the <script>
// element that holds it (a browser check of the whole page: tests/daemon/report_test.cc).

#include "client/report_page.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <simdjson.h>

namespace mace::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ReportPage, MarkupInTheDataIsWrittenAsJsonEscapes) {
  const std::string json =
      R"({"objective":"<!--<script> </script> ]]> a & b > c","reply":"x</SCRIPT >"})";
  const std::string data = script_data_json(json);
  EXPECT_EQ(data.find_first_of("<>&"), std::string::npos) << data;
  EXPECT_THAT(data, HasSubstr(R"(\u003c!--\u003cscript\u003e \u003c/script\u003e ]]\u003e a \u0026 b)"));
}

TEST(ReportPage, LineAndParagraphSeparatorsAreEscaped) {
  const std::string data = script_data_json("{\"a\":\"x\xe2\x80\xa8y\xe2\x80\xa9z \xe2\x80\xa6\"}");
  EXPECT_EQ(data, "{\"a\":\"x\\u2028y\\u2029z \xe2\x80\xa6\"}");
}

TEST(ReportPage, TheEscapedDataIsTheSameJson) {
  const std::string json = R"({"t":"<!--<script>&</script>","n":[1,2]})";
  simdjson::dom::parser parser;
  const std::string escaped = script_data_json(json);
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(escaped).get(root), simdjson::SUCCESS) << escaped;
  EXPECT_EQ(std::string_view(root["t"].get_string().value()), "<!--<script>&</script>");
  EXPECT_EQ(simdjson::minify(root), json);
}

TEST(ReportPage, ThePageHoldsNoMarkupFromTheData) {
  const std::string page = report_html(R"({"run":{"objective":"<!--<script>"}})");
  EXPECT_THAT(page, Not(HasSubstr("<!--<script>")));
}

}  // namespace
}  // namespace mace::client
