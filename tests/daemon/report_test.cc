// `mace report RUN -o FILE.html` of a fixture run, opened in a real headless browser
// (Debian's chromium): the page loads without a script error, draws the task DAG and the
// timeline, and a screenshot of it is taken.

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/fake_vertex_server.h"  // tests/llm/
#include "support/fixture_checkout.h"
#include "support/headless_browser.h"
#include "support/junit_schema.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MacedOptions options = options_for_checkout(dir_, checkout_.root());
    options.process.set_env["MACE_VERTEX_ENDPOINT"] = vertex_.base_url();
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  ProcessResult browse(const std::string& page, const std::vector<std::string>& what) {
    return mace::testing::browse(page, what, dir_.path());
  }

  TempDir dir_;
  FixtureCheckout checkout_;
  mace::llm::testing::FakeVertexServer vertex_;
  std::unique_ptr<MacedInstance> maced_;
};

TEST_F(ReportTest, TheReportLoadsInABrowserAndDrawsTheDagAndTheTimeline) {
  if (chromium_binary().empty()) GTEST_SKIP() << "chromium is not installed (Debian: chromium)";
  checkout_.set_control("compile_sleep", "0.05");
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "backend": "direct",
      "objective": "a report </script><b>with markup</b>", "workloads": ["add.S"]})");
  auto submitted = maced_->mace({"submit", dir_.file("spec.json"), "--watch"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
  const std::string id = submitted.out.substr(0, submitted.out.find('\n'));
  const std::string page = dir_.file("report.html");
  auto made = maced_->mace({"report", id, "-o", page});
  ASSERT_EQ(made.exit_code, 0) << made.err;

  const std::string html = read_all(page);
  // Self-contained: nothing is fetched from anywhere.
  EXPECT_THAT(html, Not(HasSubstr(" src=")));
  EXPECT_THAT(html, Not(HasSubstr(" href=")));
  EXPECT_THAT(html, Not(HasSubstr("https://")));
  EXPECT_THAT(html, Not(HasSubstr("</script><b>"))) << "the objective's markup must stay data";

  const ProcessResult dom = browse(page, {"--dump-dom"});
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_THAT(dom.out, HasSubstr("data-rendered=\"yes\"")) << "the script did not run to its end";
  EXPECT_THAT(dom.out, HasSubstr("<pre id=\"script-errors\" hidden=\"\"></pre>")) << dom.out;
  EXPECT_THAT(dom.out, HasSubstr("class=\"dag-node\" data-task=\"build\""));
  EXPECT_THAT(dom.out, HasSubstr("class=\"bar building\""));
  EXPECT_THAT(dom.out, HasSubstr("class=\"bar running\""));
  EXPECT_THAT(dom.out, HasSubstr("class=\"verdict-mark\""));
  EXPECT_THAT(dom.out, HasSubstr("<td class=\"pass\">pass</td>"));
  EXPECT_THAT(dom.out, HasSubstr("a report &lt;/script&gt;&lt;b&gt;with markup&lt;/b&gt;"));

  const std::string shot = dir_.file("report.png");
  const ProcessResult screenshot = browse(page, {"--screenshot=" + shot});
  ASSERT_EQ(screenshot.exit_code, 0) << screenshot.err;
  const std::string png = read_all(shot);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  // A blank page compresses to a few KiB; tables, the DAG and the timeline do not.
  EXPECT_GT(png.size(), 20000u);

}

// Two iterations planned by an LLM (the fake Vertex server): a chain of dependencies in
// the DAG, a failed build narrowed and diagnosed, the calls with their tokens.
TEST_F(ReportTest, AReplannedRunShowsEachIterationsDagTheNarrowingAndTheCalls) {
  if (chromium_binary().empty()) GTEST_SKIP() << "chromium is not installed (Debian: chromium)";
  using mace::llm::testing::FakeVertexServer;
  vertex_.push(FakeVertexServer::text(
      "TASK: broken | deps= | kind=config | try the define\n"
      "CONFIG_RTL: broken | FAKE_BREAK_BUILD\n",
      {1000, 200, 50}));
  vertex_.push(FakeVertexServer::text(
      "TASK: plain | deps= | kind=config | defaults\n"
      "TASK: after | deps=plain | kind=config | builds on it\n"
      "CONFIG_RTL: after | PITON_FAKE_KNOWN_DEFINE\n",
      {1200, 100, 0}));
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
      "objective": "Try a broken build first", "budget": {"max_iterations": 3}})");
  auto submitted = maced_->mace({"submit", dir_.file("spec.json"), "--watch"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
  const std::string id = submitted.out.substr(0, submitted.out.find('\n'));
  const std::string page = dir_.file("report.html");
  ASSERT_EQ(maced_->mace({"report", id, "-o", page}).exit_code, 0);

  const ProcessResult dom = browse(page, {"--dump-dom"});
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  const auto shows = [&dom](const std::string& what) {
    return dom.out.find(what) != std::string::npos;
  };
  EXPECT_TRUE(shows("data-rendered=\"yes\""));
  EXPECT_TRUE(shows("<pre id=\"script-errors\" hidden=\"\"></pre>"));
  EXPECT_TRUE(shows("class=\"dag\" data-iteration=\"1\""));
  EXPECT_TRUE(shows("class=\"dag\" data-iteration=\"2\""));
  for (const char* task : {"broken", "after", "plain"})
    EXPECT_TRUE(shows(std::string("class=\"dag-node\" data-task=\"") + task + "\"")) << task;
  EXPECT_TRUE(shows("class=\"dag-edge\"")) << "after depends on plain";
  EXPECT_TRUE(shows("undo define FAKE_BREAK_BUILD"));
  EXPECT_TRUE(shows("define_breaks_design"));
  EXPECT_TRUE(shows("<td>planning</td>"));
  EXPECT_TRUE(shows("2 calls"));
}

// Text that would change how a browser reads the page's data (an HTML comment and a script
// opened inside the data, "</script>", a CDATA end) in the objective and in what the model
// wrote: the page still runs its script and shows every one of them as text.
TEST_F(ReportTest, MarkupInTheObjectiveAndTheModelsRepliesIsShownAsText) {
  if (chromium_binary().empty()) GTEST_SKIP() << "chromium is not installed (Debian: chromium)";
  using mace::llm::testing::FakeVertexServer;
  const std::string hostile = "<!--<script> a </script> ]]> & <b>b</b>";
  vertex_.push(FakeVertexServer::text("TASK: plain | deps= | kind=config | defaults " + hostile + "\n"));
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
      "objective": "Boot <!--<script> and </script> ]]> & <!-- done"})");
  auto submitted = maced_->mace({"submit", dir_.file("spec.json"), "--watch"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
  const std::string id = submitted.out.substr(0, submitted.out.find('\n'));
  const std::string page = dir_.file("report.html");
  ASSERT_EQ(maced_->mace({"report", id, "-o", page}).exit_code, 0);
  const std::string html = read_all(page);
  EXPECT_THAT(html, Not(HasSubstr("<!--<script>")));

  const ProcessResult dom = browse(page, {"--dump-dom"});
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_THAT(dom.out, HasSubstr("data-rendered=\"yes\"")) << "the script did not run to its end";
  EXPECT_THAT(dom.out, HasSubstr("<pre id=\"script-errors\" hidden=\"\"></pre>")) << dom.out;
  EXPECT_THAT(dom.out, HasSubstr("<td>Boot &lt;!--&lt;script&gt; and &lt;/script&gt; ]]&gt; &amp; &lt;!-- done</td>"));
  const std::string shown_reply = "defaults &lt;!--&lt;script&gt; a &lt;/script&gt; ]]&gt; &amp; &lt;b&gt;b&lt;/b&gt;";
  EXPECT_THAT(dom.out, HasSubstr("<title>" + shown_reply)) << "the task's instruction in the DAG";
  EXPECT_THAT(dom.out, HasSubstr("<pre>TASK: plain | deps= | kind=config | " + shown_reply))
      << "the planning call's reply";
  EXPECT_THAT(dom.out, HasSubstr("class=\"dag-node\" data-task=\"plain\""));
}

// For an architect: what the run ran in, each failed workload's transcript around its
// error and verdict, the failures by signature, the coverage, and links to the run's logs
// copied beside the page (--with-logs), all on the page a browser draws.
TEST_F(ReportTest, AnArchitectSeesTheEnvironmentFailuresCoverageAndTheLogsBesideThePage) {
  if (chromium_binary().empty()) GTEST_SKIP() << "chromium is not installed (Debian: chromium)";
  if (run_process({"sh", "-c", "command -v verilator_coverage"}).exit_code != 0)
    GTEST_SKIP() << "verilator_coverage is not installed (Debian: verilator)";
  ASSERT_EQ(run_process({source_root() + "/scripts/patch_openpiton.sh", checkout_.root()}).exit_code, 0);
  for (const char* name : {"lw.S", "sw.S"})
    checkout_.write(std::string("piton/verif/diag/assembly/riscv/pico/") + name,
                    checkout_.read("piton/verif/diag/assembly/riscv/pico/add.S"));
  checkout_.set_control("run.lw", "fail");
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "backend": "direct", "coverage": true,
      "run_every_workload": true, "objective": "regression", "workloads": ["add.S", "lw.S", "sw.S"]})");
  auto submitted = maced_->mace({"submit", dir_.file("spec.json"), "--watch"});
  const std::string id = submitted.out.substr(0, submitted.out.find('\n'));
  const std::string page = dir_.file("arch.html");
  auto made = maced_->mace({"report", id, "-o", page, "--with-logs"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  // The logs are beside the page, as the run kept them.
  const std::string logs = dir_.file("arch-logs");
  EXPECT_THAT(read_all(logs + "/iter1/build/sims/lw.S/sim.log"), HasSubstr("Simulation -> FAIL(HIT BAD TRAP)"));
  EXPECT_THAT(read_all(logs + "/iter1/build/build.log"), HasSubstr("Building rtl model"));
  EXPECT_THAT(read_all(logs + "/iter1/build/coverage/annotated/l15.v"), HasSubstr("verilator_coverage annotation"));

  const ProcessResult dom = browse(page, {"--dump-dom"});
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_THAT(dom.out, HasSubstr("data-rendered=\"yes\""));
  EXPECT_THAT(dom.out, HasSubstr("<pre id=\"script-errors\" hidden=\"\"></pre>")) << dom.out;
  // The environment: the fixture checkout's commit, fingerprint and Verilator.
  EXPECT_THAT(dom.out, HasSubstr("<table class=\"environment-checkouts\">"));
  EXPECT_THAT(dom.out, ::testing::ContainsRegex("<td>[0-9a-f]{40}</td><td>[0-9a-f]{64}</td><td>Verilator "));
  // The failure, by signature, and its transcript lines.
  EXPECT_THAT(dom.out, HasSubstr("<td class=\"fail\">fail: N : Simulation -&gt; FAIL(HIT BAD TRAP)</td><td>iter1 build: lw.S</td>"));
  EXPECT_THAT(dom.out, HasSubstr("<pre class=\"excerpt\">"));
  EXPECT_THAT(dom.out, ::testing::ContainsRegex(": 4498250 : Simulation -&gt; FAIL\\(HIT BAD TRAP\\)\n[0-9]+: - "));
  // Links to the logs beside the page; the verdict table's log column.
  EXPECT_THAT(dom.out, HasSubstr("<a href=\"arch-logs/iter1/build/sims/lw.S/sim.log\" class=\"log-link\">sim.log</a>"));
  EXPECT_THAT(dom.out, HasSubstr("<a href=\"arch-logs/iter1/build/build.log\" class=\"log-link\">build.log</a>"));
  EXPECT_THAT(dom.out, HasSubstr("arch-logs/iter1/build/coverage/annotated/l15.v"));
  // Coverage per top-level module.
  EXPECT_THAT(dom.out, HasSubstr("<table class=\"coverage\">"));
  EXPECT_THAT(dom.out, HasSubstr("<td>system.chip.tile0</td>"));

  // Without --with-logs the page names the command that reads each log through maced.
  auto plain = maced_->mace({"report", id, "-o", dir_.file("plain.html")});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const ProcessResult plain_dom = browse(dir_.file("plain.html"), {"--dump-dom"});
  EXPECT_THAT(plain_dom.out, ::testing::ContainsRegex("class=\"log-command\">mace logs " + id + " --file [0-9]+</td>"));
  EXPECT_THAT(plain_dom.out, Not(HasSubstr("class=\"log-link\"")));
}

// REQ-VER-13: a regression's recorded verdicts in a CI's test view. One workload fails, one task's
// build fails in the next run: JUnit XML valid against the format's structure, a testcase
// per workload, the failure with its verdict line, excerpt and the sim.log kept on maced's
// host, the failed build an error, the run's provenance in properties.
TEST_F(ReportTest, VerdictsExportAsJunitXmlWithEachFailureAndItsLog) {
  for (const char* name : {"lw.S", "sw.S"})
    checkout_.write(std::string("piton/verif/diag/assembly/riscv/pico/") + name,
                    checkout_.read("piton/verif/diag/assembly/riscv/pico/add.S"));
  checkout_.set_control("run.lw", "fail");
  dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "backend": "direct",
      "run_every_workload": true, "objective": "regression", "workloads": ["add.S", "lw.S", "sw.S"]})");
  auto submitted = maced_->mace({"submit", dir_.file("spec.json"), "--watch"});
  const std::string id = submitted.out.substr(0, submitted.out.find('\n'));
  const std::string xml_path = dir_.file("out/run.xml");
  std::filesystem::create_directories(dir_.file("out"));
  auto made = maced_->mace({"report", id, "--junit", xml_path});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_EQ(made.out, xml_path + "\n");
  EXPECT_EQ(junit_schema_errors(xml_path), "");
  const std::string xml = read_all(xml_path);
  EXPECT_THAT(xml, HasSubstr("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"0\""));
  EXPECT_THAT(xml, HasSubstr("<testcase name=\"add.S\" classname=\"mace." + id + ".iter1.build\""));
  EXPECT_THAT(xml, HasSubstr("<failure message=\"4498250 : Simulation -&gt; FAIL(HIT BAD TRAP)\" type=\"fail\">"));
  EXPECT_THAT(xml, ::testing::ContainsRegex("sim.log: /[^\n]*/lw.S/sim.log\n"));
  EXPECT_THAT(xml, HasSubstr("read it: mace logs " + id + " --iteration 1 --task build --sim lw.S"));
  EXPECT_THAT(xml, ::testing::ContainsRegex("<property name=\"checkout [^\"]+ commit\" value=\"[0-9a-f]{40}\"/>"));
  EXPECT_THAT(xml, HasSubstr("<property name=\"mace_version\""));
  // The sim.log named is the one the run kept.
  const auto at = xml.find("sim.log: ") + 9;
  EXPECT_THAT(read_all(xml.substr(at, xml.find('\n', at) - at)), HasSubstr("FAIL(HIT BAD TRAP)"));

  // A design of its own, so a build runs (the first run's model would be reused), and fails.
  checkout_.set_control("build", "fail");
  dir_.write("broken.json", R"({"core": "pico", "mesh": [1, 1], "backend": "direct", "baseline": false,
      "objective": "a design that does not build", "workloads": ["add.S"],
      "designs": [{"name": "l15_4k", "caches": {"l15": {"size": "4KiB", "associativity": 4}}}]})");
  auto broken = maced_->mace({"submit", dir_.file("broken.json"), "--watch"});
  const std::string broken_id = broken.out.substr(0, broken.out.find('\n'));
  ASSERT_EQ(maced_->mace({"report", broken_id, "--junit", xml_path}).exit_code, 0);
  EXPECT_EQ(junit_schema_errors(xml_path), "");
  EXPECT_THAT(read_all(xml_path), ::testing::ContainsRegex("<testcase name=\"build\"[^>]*>\n *<error message=\"the build failed: "));

  // Asked for nothing to write, or a file it cannot write: a clear error.
  EXPECT_EQ(maced_->mace({"report", id}).exit_code, 2);
  auto unwritable = maced_->mace({"report", id, "--junit", dir_.file("no/such/dir/run.xml")});
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_THAT(unwritable.err, HasSubstr("cannot write"));
}

}  // namespace
}  // namespace mace::testing
