// JUnit XML of a run's verdicts (client/junit_report.h): valid against the format's
// structure whatever the transcripts held, counted right, bounded.

#include "client/junit_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"
#include "support/junit_schema.h"

namespace mace::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Outcome = JunitCase::Outcome;

JunitRun two_tasks() {
  JunitRun run;
  run.run_id = "20261207-065000-ab12";
  run.timestamp = "2026-12-07T06:50:00";
  run.hostname = "build1";
  run.properties = {{"mace_version", "0.1.0"}, {"checkout /srv/a commit", "1a2b3c"}};
  JunitSuite baseline{"iteration 1 task baseline", "mace.r.iter1.baseline", {{"configuration", "pico 1x1"}}, {}};
  baseline.cases.push_back({"hello", 1.5, Outcome::passed, "", "", ""});
  baseline.cases.push_back({"add.S", 2.25, Outcome::failed, "timeout", "rtl_timeout reached",
                            "verdict: timeout\n41: last line\nsim.log: /x/sim.log\n"});
  JunitSuite l2{"iteration 1 task l2_128k", "mace.r.iter1.l2_128k", {}, {}};
  l2.cases.push_back({"build", 60, Outcome::error, "build_failed", "the build failed: build_failed", "log"});
  l2.cases.push_back({"hello", 0, Outcome::skipped, "", "nothing simulated", ""});
  run.suites = {baseline, l2};
  return run;
}

// REQ-VER-13: the recorded results, where a CI shows tests.
TEST(JunitReport, CountsEachOutcomeAndIsValidAgainstTheJunitStructure) {
  const std::string xml = junit_xml(two_tasks());
  EXPECT_THAT(xml, HasSubstr(R"(<testsuites name="mace run 20261207-065000-ab12" tests="4" failures="1" errors="1" skipped="1" time="63.750">)"));
  EXPECT_THAT(xml, HasSubstr(R"(<testsuite name="iteration 1 task baseline" tests="2" failures="1" errors="0" skipped="0")"));
  EXPECT_THAT(xml, HasSubstr(R"(<testcase name="hello" classname="mace.r.iter1.baseline" time="1.500"/>)"));
  EXPECT_THAT(xml, HasSubstr(R"(<failure message="rtl_timeout reached" type="timeout">verdict: timeout)"));
  EXPECT_THAT(xml, HasSubstr(R"(<error message="the build failed: build_failed" type="build_failed">log</error>)"));
  EXPECT_THAT(xml, HasSubstr(R"(<skipped message="nothing simulated"/>)"));
  EXPECT_THAT(xml, HasSubstr(R"(<property name="checkout /srv/a commit" value="1a2b3c"/>)"));

  mace::testing::TempDir dir;
  dir.write("run.xml", xml);
  EXPECT_EQ(mace::testing::junit_schema_errors(dir.file("run.xml")), "") << xml;
}

// A transcript is untrusted: markup, a CDATA end, control characters, bytes that are not
// UTF-8 and a bidirectional override stay text, and the file stays well-formed XML.
TEST(JunitReport, HostileTranscriptTextStaysTextAndTheFileStaysValid) {
  JunitRun run = two_tasks();
  const std::string hostile = std::string("]]></failure><testcase name=\"x\"/>&amp; \x1b[2J\x01\xff\xc3 \xE2\x80\xAE") +
                              "'quoted' \"twice\"\r\n";
  run.suites[0].cases[1].message = hostile;
  run.suites[0].cases[1].details = hostile;
  run.suites[0].name = hostile;
  run.properties.emplace_back(hostile, hostile);
  const std::string xml = junit_xml(run);
  EXPECT_THAT(xml, Not(HasSubstr("</failure><testcase")));
  EXPECT_THAT(xml, Not(HasSubstr("\x1b")));
  EXPECT_THAT(xml, Not(HasSubstr("\x01")));
  EXPECT_THAT(xml, Not(HasSubstr("\xE2\x80\xAE")));
  EXPECT_THAT(xml, HasSubstr("]]&gt;&lt;/failure&gt;&lt;testcase name=&quot;x&quot;/&gt;&amp;amp;"));
  EXPECT_THAT(xml, HasSubstr("&apos;quoted&apos;"));

  mace::testing::TempDir dir;
  dir.write("run.xml", xml);
  EXPECT_EQ(mace::testing::junit_schema_errors(dir.file("run.xml")), "") << xml;
}

TEST(JunitReport, AHugeExcerptIsCutInTheMiddleSayingHowMuch) {
  JunitRun run = two_tasks();
  run.suites[0].cases[1].details = "first line\n" + std::string(10 * 1024 * 1024, 'x') + "\nlast line";
  run.suites[0].cases[1].message = std::string(100000, 'm') + "\nsecond line";
  const std::string xml = junit_xml(run);
  EXPECT_LT(xml.size(), kMaxJunitDetailBytes + 2 * kMaxJunitMessageBytes + 8192);
  EXPECT_THAT(xml, HasSubstr("first line"));
  EXPECT_THAT(xml, HasSubstr("last line"));
  EXPECT_THAT(xml, HasSubstr("bytes left out of the middle"));
  EXPECT_THAT(xml, Not(HasSubstr("\nsecond line"))) << "a message is one line";
}

TEST(JunitReport, XmlTextKeepsNewlinesInTextAndMakesAttributesOneLine) {
  EXPECT_EQ(xml_text("a\nb\tc"), "a\nb\tc");
  EXPECT_EQ(xml_text("a\nb\tc", true), "a b c");
  EXPECT_EQ(xml_text("caf\xc3\xa9 <1>"), "caf\xc3\xa9 &lt;1&gt;");
  EXPECT_EQ(xml_text("\xc3"), "\xEF\xBF\xBD") << "a character cut short";
  EXPECT_EQ(xml_text(std::string("\0", 1)), "\xEF\xBF\xBD");
}

}  // namespace
}  // namespace mace::client
