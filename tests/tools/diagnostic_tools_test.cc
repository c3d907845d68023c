#include "tools/diagnostic_tools.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "os/environment.h"
#include "os/process_group.h"
#include "tool_error_message.h"
#include "support/count_of.h"

namespace mace::tools {
namespace {

using mace::testing::count_of;

namespace fs = std::filesystem;
using llm::ToolCallResult;
using ::testing::HasSubstr;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// Every entry under `root` with what could change: type, size, content, link target,
// permissions, modification time. Equal snapshots: the tools changed nothing (REQ-FAIL-6).
std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path& p = it->path();
    struct stat st {};
    ::lstat(p.c_str(), &st);
    std::string d = std::to_string(st.st_mode) + " " + std::to_string(st.st_size) + " " +
                    std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
    if (it->is_symlink()) {
      d += " -> " + fs::read_symlink(p).string();
    } else if (it->is_regular_file()) {
      d += " " + std::to_string(std::hash<std::string>{}(slurp(p)));
    }
    out[p.lexically_relative(root).string()] = d;
  }
  return out;
}

// Testbench transcripts shaped like real OpenPiton pico ones (verdict.h has the markers).
std::string transcript(const std::string& trap_info, const std::string& verdict_line, int pcs) {
  std::string s =
      "Started\nVcmp_top created\nInfo: intp(40000000) thread(2) number(1)\n"
      "rtl_timeout =     1000000\n                 250: finish_mask 00000011\n"
      "                 250: good_trap 004000003c\n                 250: bad_trap 0040000040\n"
      "Reset complete\n";
  for (int i = 0; i < pcs; ++i) s += "Current PC: 0x400010" + std::to_string(10 + i) + ", Next PC\n";
  s += trap_info + "\n" + verdict_line + "\n- pc_cmp.tmp.v:2966: Verilog $finish\n";
  return s;
}

std::string elf_magic_with_nuls() {
  static constexpr char kBytes[] = "\x7f" "ELF\x01\x01\x01\0\0\0\0garbage!!";
  return std::string(kBytes, sizeof kBytes - 1);  // every byte but the literal's final NUL
}

class DiagnosticToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/mace-diag.XXXXXX";
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    root_ = fs::canonical(templ);
    checkout_ = root_ / "checkout";
    model_ = checkout_ / "build/manycore/mace_a";
    hello_ = model_ / "runs/hello-1";
    failed_ = model_ / "runs/memstress-1";
    reference_ = checkout_ / "build/manycore/mace_ref/runs/memstress-1";

    write(model_ / "mace_build.log",
          "- V e r i l a t i n g -\n%Warning-WIDTH: tile.v:12:3: Operator ASSIGN expects 32 bits\n"
          "make: Leaving directory\n");
    write(hello_ / "sim.log",
          transcript("Info: spc(0) thread(0) Hit Good trap", "7007250: Simulation -> PASS (HIT GOOD TRAP)", 3));
    write(hello_ / "status.log", "Diag: hello-1                                    PASS\n");
    write(hello_ / "symbol.tbl", "good_trap 4000003c X 4000003c\nbad_trap 40000040 X 40000040\n");
    write(hello_ / "diag.o", elf_magic_with_nuls());

    write(failed_ / "sim.log",
          transcript("Info: spc(0) thread(0) Hit Bad trap", "4498250 : Simulation -> FAIL(HIT BAD TRAP)", 120));
    write(failed_ / "status.log", "Diag: memstress-1                                FAIL\n");
    write(failed_ / "sims.log", "sims -sys=manycore -vlt_run -pico memstress.S\n");
    write(failed_ / "diag.S", "#define MACE_TILES 2\n#include \"memstress.c.s\"\n");
    write(failed_ / "diag.o", elf_magic_with_nuls());
    write(failed_ / "crlf.log", "first\r\nsecond\r\n");
    write(failed_ / "subdir/notes.txt", "alpha\nbeta\n");
    fs::create_symlink("/etc/passwd", failed_ / "passwd");
    fs::create_symlink("../../../../../../outside/secret.txt", failed_ / "escape");
    fs::create_symlink("../../../../../../outside", failed_ / "outdir");
    fs::create_symlink("sim.log", failed_ / "alias");
    ASSERT_EQ(::mkfifo((failed_ / "pipe").c_str(), 0600), 0);

    write(reference_ / "sim.log",
          transcript("Info: spc(0) thread(0) Hit Good trap", "7007250: Simulation -> PASS (HIT GOOD TRAP)", 120));
    write(root_ / "outside/secret.txt", "TOP SECRET\n");
    write(root_ / "workloads/pico/memstress.c", "int main(void) { return 0; }\n");
  }

  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  DiagnosticScope scope() const {
    DiagnosticScope s;
    s.checkout_root = checkout_;
    s.run_dirs = {"build/manycore/mace_a/runs/hello-1", "build/manycore/mace_a/runs/memstress-1"};
    s.build_log = "build/manycore/mace_a/mace_build.log";
    s.reference_run_dirs = {reference_};
    s.workloads_dir = root_ / "workloads";
    return s;
  }

  llm::Tool tool(const DiagnosticScope& s) const { return make_diagnostic_tool(s); }
  llm::Tool tool() const { return tool(scope()); }

  static ToolCallResult call(const llm::Tool& t, const std::string& method, const std::string& args) {
    return t.call(method, args);
  }

  fs::path root_, checkout_, model_, hello_, failed_, reference_;
};

// ---------------------------------------------------------------------------------------

TEST_F(DiagnosticToolsTest, OffersTheFourKindsOfToolWithValidSchemas) {  // REQ-FAIL-5
  llm::Tool t = tool();
  EXPECT_EQ(t.name, "diagnostics");
  std::set<std::string> names;
  simdjson::dom::parser parser;
  for (const auto& m : t.methods) {
    names.insert(m.name);
    simdjson::dom::element e;
    EXPECT_EQ(parser.parse(simdjson::padded_string(m.parameters_schema_json)).get(e), simdjson::SUCCESS)
        << m.name << ": " << m.parameters_schema_json;
    EXPECT_FALSE(m.description.empty());
  }
  EXPECT_EQ(names, (std::set<std::string>{"search_logs", "list_files", "read_file",
                                          "compare_transcript", "symbols"}));
  EXPECT_NE(t.description.find("failed/memstress-1"), std::string::npos) << t.description;
  EXPECT_NE(t.description.find("build/mace_build.log"), std::string::npos);
  EXPECT_NE(t.description.find("reference/memstress-1"), std::string::npos);
  EXPECT_EQ(llm::function_name(t.name, "search_logs"), "diagnostics__diagnostics_search_logs");
}

// The waveform of the failed workload (docs/failures.md): its methods are offered only
// with one, list scopes and signals, give named signals' values, and keep to their bounds.
TEST_F(DiagnosticToolsTest, ReadsTheWaveformsSignalsWithinBounds) {
  std::string vcd =
      "$timescale 1ps $end\n $scope module TOP $end\n  $var wire 1 ! clk $end\n"
      "  $scope module cmp_top $end\n   $var wire 4 \" state [3:0] $end\n";
  for (int i = 0; i < 40; ++i) vcd += "   $var wire 1 s" + std::to_string(i) + " sig" + std::to_string(i) + " $end\n";
  vcd += "  $upscope $end\n $upscope $end\n$enddefinitions $end\n";
  for (int c = 0; c < 100; ++c)
    vcd += "#" + std::to_string(c * 500) + "\n1!\nb" + std::string(c % 2 ? "0101" : "1010") + " \"\n#" +
           std::to_string(c * 500 + 250) + "\n0!\n";
  write(failed_ / "mace_wave.vcd", vcd);
  DiagnosticScope s = scope();
  s.waveform = failed_ / "mace_wave.vcd";
  s.waveform_workload = "memstress";
  llm::Tool t = tool(s);
  std::set<std::string> names;
  for (const auto& m : t.methods) names.insert(m.name);
  EXPECT_TRUE(names.count("wave_signals") && names.count("wave_values"));
  EXPECT_THAT(t.description, HasSubstr("the waveform of memstress"));

  ToolCallResult r = call(t, "wave_signals", R"({"scope": "TOP"})");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_THAT(r.content, HasSubstr("42 of 42 signals match under \"TOP\""));
  EXPECT_THAT(r.content, HasSubstr("TOP.cmp_top/"));
  EXPECT_THAT(r.content, HasSubstr("TOP.cmp_top.state [3:0] (4 bits)"));
  r = call(t, "wave_signals", R"({"filter": "sig", "max_signals": 5})");
  ASSERT_TRUE(r.ok);
  EXPECT_THAT(r.content, HasSubstr("35 more not shown"));
  r = call(t, "wave_values", R"({"signals": "TOP.cmp_top.state, TOP.nope", "from": 40000, "max_changes": 3})");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_THAT(r.content, HasSubstr("no signal \"TOP.nope\""));
  EXPECT_THAT(r.content, HasSubstr("TOP.cmp_top.state:\n  before: 4'ha\n  (17 earlier changes left out)\n"
                                   "  48500: 4'h5\n  49000: 4'ha\n  49500: 4'h5\n"));
  // Bounds: too many signals, a bad count, a window backwards; each an ok=false that says so.
  std::string many;
  for (int i = 0; i < 17; ++i) many += "TOP.cmp_top.sig" + std::to_string(i) + ",";
  r = call(t, "wave_values", R"({"signals": ")" + many + R"("})");
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.content, HasSubstr("at most 16 per call"));
  EXPECT_FALSE(call(t, "wave_values", R"({"signals": "TOP.clk", "max_changes": 100000})").ok);
  EXPECT_FALSE(call(t, "wave_values", R"({"signals": "TOP.clk", "from": 10, "to": 5})").ok);
  EXPECT_FALSE(call(t, "wave_signals", R"({"max_signals": 0})").ok);

  // Without a waveform the methods are not offered, and a call anyway is refused.
  llm::Tool plain = tool();
  for (const auto& m : plain.methods) EXPECT_NE(m.name, "wave_values");
  r = call(plain, "wave_values", R"({"signals": "TOP.clk"})");
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.content, HasSubstr("no waveform"));
}

TEST_F(DiagnosticToolsTest, CannotStartWithoutAnyDirectoryOfTheFailedTask) {  // REQ-FAIL-7
  DiagnosticScope s;
  s.checkout_root = checkout_;
  s.run_dirs = {"build/manycore/mace_a/runs/gone-1"};
  s.build_log = "build/manycore/mace_a/no_such.log";
  s.reference_run_dirs = {reference_};  // a reference alone is nothing to diagnose
  std::string error = tool_error_of([&] { make_diagnostic_tool(s); });
  EXPECT_NE(error.find("gone-1"), std::string::npos) << error;
  EXPECT_NE(error.find("No such file or directory"), std::string::npos) << error;
  EXPECT_NE(error.find("no_such.log"), std::string::npos) << error;

  error = tool_error_of([] { make_diagnostic_tool(DiagnosticScope{}); });
  EXPECT_NE(error.find("names none"), std::string::npos) << error;

  // A run directory that is a file is not a run directory.
  s.run_dirs = {failed_ / "sim.log"};
  s.build_log.clear();
  error = tool_error_of([&] { make_diagnostic_tool(s); });
  EXPECT_NE(error.find("not a directory"), std::string::npos) << error;

  // A build that failed before any simulation still gets the tools, over its log.
  s.run_dirs.clear();
  s.build_log = model_ / "mace_build.log";
  llm::Tool t = make_diagnostic_tool(s);
  auto r = call(t, "search_logs", R"({"pattern":"%Warning"})");
  EXPECT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("build/mace_build.log:2: %Warning-WIDTH"), std::string::npos) << r.content;
  r = call(t, "compare_transcript", "{}");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.content.find("no run directory"), std::string::npos) << r.content;
}

TEST_F(DiagnosticToolsTest, ListsFilesWithSizesAndMarksWhatCannotBeRead) {  // REQ-FAIL-5
  llm::Tool t = tool();
  auto r = call(t, "list_files", "{}");
  ASSERT_TRUE(r.ok) << r.content;
  const std::string size = std::to_string(fs::file_size(failed_ / "sim.log"));
  EXPECT_NE(r.content.find("failed/memstress-1/sim.log  " + size + " bytes\n"), std::string::npos) << r.content;
  EXPECT_NE(r.content.find("failed/memstress-1/diag.o  20 bytes  (ELF program"), std::string::npos);
  EXPECT_NE(r.content.find("failed/memstress-1/passwd  (symlink leading outside; refused)"), std::string::npos);
  EXPECT_NE(r.content.find("failed/memstress-1/outdir  (symlink leading outside; refused)"), std::string::npos);
  EXPECT_NE(r.content.find("failed/memstress-1/alias  -> failed/memstress-1/sim.log"), std::string::npos);
  EXPECT_NE(r.content.find("failed/memstress-1/pipe  (not a regular file)"), std::string::npos);
  EXPECT_NE(r.content.find("failed/memstress-1/subdir/  (directory)"), std::string::npos);
  EXPECT_NE(r.content.find("build/mace_build.log  "), std::string::npos);
  EXPECT_NE(r.content.find("reference/memstress-1/sim.log"), std::string::npos);
  EXPECT_NE(r.content.find("workloads/pico/memstress.c"), std::string::npos);
  EXPECT_EQ(r.content.find(root_.string()), std::string::npos) << "absolute paths leak: " << r.content;

  r = call(t, "list_files", R"({"path":"failed/memstress-1/subdir"})");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("failed/memstress-1/subdir/notes.txt  11 bytes"), std::string::npos) << r.content;
  EXPECT_EQ(r.content.find("sim.log"), std::string::npos);
}

TEST_F(DiagnosticToolsTest, ReadsLinesByOffsetAndLimitAndFromTheEnd) {  // REQ-FAIL-5
  llm::Tool t = tool();
  auto r = call(t, "read_file", R"({"path":"failed/memstress-1/sim.log","start_line":3,"max_lines":2})");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("lines 3-4\n"), std::string::npos) << r.content;
  EXPECT_NE(r.content.find("more: start_line=5"), std::string::npos);
  EXPECT_NE(r.content.find("3: Info: intp(40000000) thread(2) number(1)\n4: rtl_timeout"), std::string::npos);
  EXPECT_EQ(r.content.find("5: "), std::string::npos);

  r = call(t, "read_file", R"({"path":"failed/memstress-1/sim.log","tail":true,"max_lines":2})");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("130: 4498250 : Simulation -> FAIL(HIT BAD TRAP)\n131: - pc_cmp"), std::string::npos)
      << r.content;
  EXPECT_NE(r.content.find("131 lines"), std::string::npos);

  // Through a symlink that stays inside; CR of CRLF lines dropped.
  r = call(t, "read_file", R"({"path":"failed/memstress-1/alias","max_lines":1})");
  EXPECT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("1: Started"), std::string::npos);
  r = call(t, "read_file", R"({"path":"failed/memstress-1/crlf.log"})");
  EXPECT_NE(r.content.find("1: first\n2: second\n"), std::string::npos) << r.content;

  r = call(t, "read_file", R"({"path":"failed/memstress-1/sim.log","start_line":500})");
  EXPECT_TRUE(r.ok);
  EXPECT_NE(r.content.find("no line 500; it has 131 lines"), std::string::npos) << r.content;
  r = call(t, "read_file", R"({"path":"workloads/pico/memstress.c"})");
  EXPECT_NE(r.content.find("1: int main(void)"), std::string::npos) << r.content;
}

TEST_F(DiagnosticToolsTest, ReadIsCappedPerCallAndCutsLongLines) {  // REQ-FAIL-5
  std::string big;
  for (int i = 0; i < 3000; ++i) big += std::string(100, 'a' + i % 26) + "\n";
  big += std::string(100000, 'z') + "\n";
  write(failed_ / "big.log", big);
  llm::Tool t = tool();
  auto r = call(t, "read_file", R"({"path":"failed/memstress-1/big.log","max_lines":5000})");
  ASSERT_TRUE(r.ok) << r.content.substr(0, 300);
  EXPECT_LE(r.content.size(), kMaxReadBytes + 400);
  EXPECT_NE(r.content.find("cut at 64 KiB; continue with start_line="), std::string::npos);
  r = call(t, "read_file", R"({"path":"failed/memstress-1/big.log","tail":true,"max_lines":1})");
  ASSERT_TRUE(r.ok);
  EXPECT_NE(r.content.find("3001: zzzz"), std::string::npos);
  EXPECT_NE(r.content.find("[...line cut]"), std::string::npos);
  EXPECT_LT(r.content.size(), 5000u);
}

TEST_F(DiagnosticToolsTest, SearchesFixedStringsAndRegexesWithFileAndLine) {  // REQ-FAIL-5
  llm::Tool t = tool();
  auto r = call(t, "search_logs", R"({"pattern":"Simulation ->"})");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("failed/memstress-1/sim.log:130: 4498250 : Simulation -> FAIL(HIT BAD TRAP)\n"),
            std::string::npos) << r.content;
  EXPECT_NE(r.content.find("failed/hello-1/sim.log:13: 7007250: Simulation -> PASS (HIT GOOD TRAP)\n"),
            std::string::npos);
  EXPECT_EQ(r.content.find("reference/"), std::string::npos) << "references are searched only on request";
  EXPECT_NE(r.content.find("2 match(es)"), std::string::npos);
  EXPECT_NE(r.content.find("binary"), std::string::npos) << "diag.o is skipped and said so";

  r = call(t, "search_logs", R"j({"pattern":"FAIL\\((HIT )?BAD TRAP\\)","mode":"regex"})j");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_EQ(count_of(r.content, "\nfailed/"), 1u) << r.content;

  r = call(t, "search_logs", R"({"pattern":"hit bad TRAP","ignore_case":true})");
  EXPECT_NE(r.content.find("failed/memstress-1/sim.log:129: Info: spc(0) thread(0) Hit Bad trap"),
            std::string::npos) << r.content;

  r = call(t, "search_logs", R"({"pattern":"Hit Good trap","path":"reference"})");
  EXPECT_NE(r.content.find("reference/memstress-1/sim.log:129:"), std::string::npos) << r.content;

  r = call(t, "search_logs", R"({"pattern":"nothing like this"})");
  EXPECT_TRUE(r.ok);
  EXPECT_NE(r.content.find("no match for \"nothing like this\""), std::string::npos) << r.content;

  // A pattern that makes a backtracking matcher take exponential time.
  write(failed_ / "aaa.log", std::string(3000, 'a') + "b\n");
  const auto start = std::chrono::steady_clock::now();
  r = call(t, "search_logs", R"({"pattern":"^(a+)+$","mode":"regex","path":"failed/memstress-1/aaa.log"})");
  EXPECT_TRUE(r.ok) << r.content;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST_F(DiagnosticToolsTest, SearchIsCappedAndCutsLongLines) {  // REQ-FAIL-5
  llm::Tool t = tool();
  auto r = call(t, "search_logs", R"({"pattern":"Current PC"})");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(count_of(r.content, ": Current PC"), 50u);
  EXPECT_NE(r.content.find("stopped at the first 50 matches"), std::string::npos) << r.content.substr(0, 400);

  r = call(t, "search_logs", R"({"pattern":"Current PC","max_matches":10000})");
  EXPECT_EQ(count_of(r.content, ": Current PC"), 123u);  // 3 in hello-1, 120 in memstress-1
  EXPECT_NE(r.content.find("max_matches lowered to 500"), std::string::npos);

  std::string many;
  for (int i = 0; i < 700; ++i) many += "Info: cpx request " + std::to_string(i) + "\n";
  write(failed_ / "many.log", many);
  r = call(t, "search_logs", R"({"pattern":"cpx request","max_matches":10000})");
  EXPECT_EQ(count_of(r.content, "cpx request"), 501u);  // 500 matches + the pattern in the summary
  EXPECT_NE(r.content.find("stopped at the first 500 matches"), std::string::npos);

  write(failed_ / "long.log", "ERROR " + std::string(50000, 'x') + "\n");
  r = call(t, "search_logs", R"({"pattern":"ERROR","path":"failed/memstress-1/long.log"})");
  ASSERT_TRUE(r.ok);
  EXPECT_NE(r.content.find("[...line cut]"), std::string::npos);
  EXPECT_LT(r.content.size(), 1000u);
}

TEST_F(DiagnosticToolsTest, ComparesWithTheReferenceRunOfTheSameWorkload) {  // REQ-FAIL-5
  llm::Tool t = tool();
  auto r = call(t, "compare_transcript", "{}");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("--- reference/memstress-1/sim.log\n+++ failed/memstress-1/sim.log\n"),
            std::string::npos) << r.content;
  EXPECT_NE(r.content.find("reference/memstress-1/sim.log: 131 lines, verdict pass (7007250: Simulation -> PASS (HIT GOOD TRAP))"),
            std::string::npos) << r.content;
  EXPECT_NE(r.content.find("failed/memstress-1/sim.log: 131 lines, verdict fail"), std::string::npos);
  EXPECT_NE(r.content.find("@@ -126,6 +126,6 @@\n"), std::string::npos) << r.content;
  EXPECT_NE(r.content.find("\n-Info: spc(0) thread(0) Hit Good trap\n-7007250: Simulation -> PASS (HIT GOOD TRAP)\n"
                           "+Info: spc(0) thread(0) Hit Bad trap\n+4498250 : Simulation -> FAIL(HIT BAD TRAP)\n"
                           " - pc_cmp.tmp.v:2966: Verilog $finish\n"),
            std::string::npos) << r.content;

  // Any transcript the scope holds may be named; a directory means its sim.log.
  r = call(t, "compare_transcript", R"({"reference":"failed/hello-1"})");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("--- failed/hello-1/sim.log\n"), std::string::npos);
  r = call(t, "compare_transcript", R"({"reference":"reference/memstress-1/sim.log","transcript":"reference/memstress-1"})");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("the transcripts are identical"), std::string::npos);

  r = call(t, "compare_transcript", R"({"max_lines":2})");
  EXPECT_TRUE(r.ok);
  EXPECT_NE(r.content.find("(diff cut after 2 lines"), std::string::npos) << r.content;
}

TEST_F(DiagnosticToolsTest, DiffIsAMinimalUnifiedDiff) {  // REQ-FAIL-5
  write(failed_ / "subdir/a.log", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n");
  write(failed_ / "subdir/b.log", "a\nB\nc\nd\ne\nf\ng\nh\nj\nk\n");
  llm::Tool t = tool();
  auto r = call(t, "compare_transcript",
                R"({"transcript":"failed/memstress-1/subdir/b.log","reference":"failed/memstress-1/subdir/a.log","context":1})");
  ASSERT_TRUE(r.ok) << r.content;
  const std::string diff = r.content.substr(r.content.find("@@"));
  EXPECT_EQ(diff, "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -8,3 +8,3 @@\n h\n-i\n j\n+k\n") << r.content;

  // Cycle stamps only.
  write(failed_ / "subdir/s1.log", "   250: tick\n7007250: Simulation -> PASS\n");
  write(failed_ / "subdir/s2.log", "   260: tick\n7007990: Simulation -> PASS\n");
  r = call(t, "compare_transcript",
           R"({"transcript":"failed/memstress-1/subdir/s2.log","reference":"failed/memstress-1/subdir/s1.log","ignore_cycle_stamps":true})");
  EXPECT_NE(r.content.find("identical"), std::string::npos) << r.content;

  // Too different for a line diff: the first difference is still shown.
  std::string x, y;
  for (int i = 0; i < 3000; ++i) x += "x" + std::to_string(i) + "\n", y += "y" + std::to_string(i) + "\n";
  write(failed_ / "subdir/x.log", "same\n" + x);
  write(failed_ / "subdir/y.log", "same\n" + y);
  r = call(t, "compare_transcript",
           R"({"transcript":"failed/memstress-1/subdir/y.log","reference":"failed/memstress-1/subdir/x.log","max_lines":4})");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("differ in more than 2000 lines after line 1"), std::string::npos) << r.content;
  EXPECT_NE(r.content.find("-x0\n-x1\n+y0\n+y1\n"), std::string::npos) << r.content;
}

TEST_F(DiagnosticToolsTest, CompareWithoutAReferenceSaysSo) {  // REQ-FAIL-5
  DiagnosticScope s = scope();
  s.reference_run_dirs.clear();
  llm::Tool t = tool(s);
  auto r = call(t, "compare_transcript", "{}");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.content.find("no reference transcript"), std::string::npos) << r.content;

  // References of other workloads only: the model has to pick one.
  s.reference_run_dirs = {hello_, failed_ / "subdir"};
  t = tool(s);
  r = call(t, "compare_transcript", "{}");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.content.find("no reference run of workload \"memstress\""), std::string::npos) << r.content;
  EXPECT_NE(r.content.find("reference/hello-1"), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// symbols

// Compiles a tiny RISC-V program whose `pass` and `fail` sit where symbol.tbl's good_trap
// and bad_trap say (as OpenPiton's pico start code puts them); the host's cc otherwise.
// Returns "" on success, else why it could not.
std::string compile_program(const fs::path& dir, bool& riscv) {
  const fs::path source = dir / "prog.S";
  write(source,
        ".section .text\n.globl _start\n_start: j pass\n.org 0x3c\n.globl pass\npass: j pass\n"
        ".globl fail\nfail: j fail\n");
  os::ProcessSpec spec;
  spec.env = os::inherited_environment();
  spec.working_dir = dir.string();
  spec.timeout = std::chrono::seconds(60);
  spec.argv = {"riscv64-unknown-elf-gcc", "-march=rv32i", "-mabi=ilp32", "-nostdlib", "-nostartfiles",
               "-Wl,-Ttext=0x40000000", "-o", "diag.exe", "prog.S"};
  auto r = os::run_process_group(spec);
  fs::remove(source);
  if (r.succeeded()) {
    riscv = true;
    return {};
  }
  riscv = false;
  write(dir / "prog.c", "void pass(void) {}\nvoid fail(void) {}\nint main(void) { pass(); return 0; }\n");
  spec.argv = {"cc", "-o", "diag.exe", "prog.c"};
  r = os::run_process_group(spec);
  fs::remove(dir / "prog.c");
  if (r.succeeded()) return {};
  return "neither riscv64-unknown-elf-gcc nor cc could build a program: " + r.error + r.tail;
}

// REQ-FAIL-5; REQ-TOOL-7: the symbols tool runs the objdump found on PATH.
TEST_F(DiagnosticToolsTest, ShowsTheProgramsSymbolsBesideTheSymbolTable) {
  bool riscv = false;
  const std::string why = compile_program(failed_, riscv);
  if (!why.empty()) GTEST_SKIP() << why;
  write(failed_ / "symbol.tbl",
        "good_trap 4000003c X 4000003c\nbad_trap 40000040 X 40000040\nstale_trap 40000100 X 40000100\n");
  llm::Tool t = tool();
  auto r = call(t, "symbols", "{}");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("program failed/memstress-1/diag.exe"), std::string::npos) << r.content;
  EXPECT_NE(r.content.find("== failed/memstress-1/symbol.tbl\ngood_trap 4000003c X 4000003c\n"), std::string::npos) << r.content;
  EXPECT_NE(r.content.find("SYMBOL TABLE:"), std::string::npos);
  EXPECT_EQ(r.content.find(root_.string()), std::string::npos) << "objdump names the program as the model does";
  if (riscv) {
    EXPECT_NE(r.content.find("good_trap: 4000003c -> pass (.text);"), std::string::npos) << r.content;
    EXPECT_NE(r.content.find("bad_trap: 40000040 -> fail (.text);"), std::string::npos);
    EXPECT_NE(r.content.find("stale_trap: 40000100 -> no symbol of the program here;"), std::string::npos);
  }

  r = call(t, "symbols", R"({"path":"failed/memstress-1/diag.exe","disassemble":"pass"})");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("<pass>:"), std::string::npos) << r.content;

  r = call(t, "symbols", R"({"disassemble":"no_such_symbol"})");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.content.find("no symbol named \"no_such_symbol\""), std::string::npos) << r.content;

  // hello-1 has no program; its diag.o is not one either.
  r = call(t, "symbols", R"({"path":"failed/hello-1"})");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.content.find("no compiled program (diag.exe or *.elf) in \"failed/hello-1\""), std::string::npos)
      << r.content;
  r = call(t, "symbols", R"({"path":"failed/memstress-1/sim.log"})");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.content.find("is not an ELF program"), std::string::npos) << r.content;
}

// REQ-FAIL-7, REQ-TOOL-7: without objdump on PATH only the symbols method fails, saying so.
TEST_F(DiagnosticToolsTest, SymbolsWithoutObjdumpSaySoAndTheRestWorks) {
  bool riscv = false;
  const std::string why = compile_program(failed_, riscv);
  if (!why.empty()) GTEST_SKIP() << why;
  DiagnosticScope s = scope();
  s.objdump = "no-such-objdump-for-mace";
  s.fallback_objdump = "no-such-fallback-objdump";
  llm::Tool t = tool(s);
  auto r = call(t, "symbols", "{}");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.content.find("neither \"no-such-objdump-for-mace\" nor \"no-such-fallback-objdump\""),
            std::string::npos) << r.content;
  EXPECT_NE(t.description.find("symbols is unavailable"), std::string::npos);
  EXPECT_TRUE(call(t, "read_file", R"({"path":"failed/memstress-1/status.log"})").ok);

  // The fallback is used when the first choice is missing.
  s.fallback_objdump = "objdump";
  t = tool(s);
  r = call(t, "symbols", "{}");
  if (!riscv) {
    EXPECT_TRUE(r.ok) << r.content;
  } else {
    // The host's objdump may not know RISC-V; either way the answer is a clear result.
    EXPECT_NE(r.content.find("failed/memstress-1/diag.exe"), std::string::npos) << r.content;
  }
}

// ---------------------------------------------------------------------------------------
// Hostile requests: each refused with a message naming the path or argument and the
// reason, nothing outside the allowed places shown, nothing on disk changed.

TEST_F(DiagnosticToolsTest, RefusesHostileRequestsAndChangesNothing) {  // REQ-FAIL-6
  llm::Tool t = tool();
  const auto before = snapshot(root_);
  struct Case {
    std::string method, args, expect;
  };
  const std::vector<Case> cases = {
      {"read_file", R"({"path":"../../../outside/secret.txt"})", "path \"../../../outside/secret.txt\" refused: \"..\" components are not allowed"},
      {"read_file", R"({"path":"failed/memstress-1/../../x"})", "\"..\" components are not allowed"},
      {"read_file", R"({"path":"/etc/passwd"})", "path \"/etc/passwd\" refused: absolute paths are not allowed"},
      {"read_file", R"({"path":"failed/memstress-1/passwd"})", "path \"failed/memstress-1/passwd\" refused: it resolves outside failed/memstress-1"},
      {"read_file", R"({"path":"failed/memstress-1/escape"})", "refused: it resolves outside failed/memstress-1"},
      {"read_file", R"({"path":"failed/memstress-1/outdir/secret.txt"})", "refused: it resolves outside"},
      {"list_files", R"({"path":"failed/memstress-1/outdir"})", "refused: it resolves outside"},
      {"search_logs", R"({"pattern":"root","path":"failed/memstress-1/passwd"})", "refused: it resolves outside"},
      {"compare_transcript", R"({"reference":"failed/memstress-1/escape"})", "refused: it resolves outside"},
      {"symbols", R"({"path":"failed/memstress-1/passwd"})", "refused: it resolves outside"},
      {"read_file", R"({"path":"failed/memstress-1"})", "path \"failed/memstress-1\" is a directory"},
      {"read_file", R"({"path":"failed/memstress-1/diag.o"})", "path \"failed/memstress-1/diag.o\" is a binary file"},
      {"read_file", R"({"path":"failed/memstress-1/pipe"})", "path \"failed/memstress-1/pipe\" is not a regular file"},
      {"read_file", R"({"path":"failed/memstress-1/sim.log\u0000x"})", "refused: it contains a NUL byte"},
      {"read_file", R"({"path":""})", "path \"\" refused: it is empty"},
      {"read_file", R"({"path":"etc/passwd"})", "path \"etc/passwd\" refused: it names no place of this scope"},
      {"read_file", R"({"path":"failed"})", "name one run directory in it"},
      {"read_file", R"({"path":"build/other.log"})", "build/ holds only build/mace_build.log"},
      {"read_file", R"({"path":"failed/memstress-1/nosuch"})", "path \"failed/memstress-1/nosuch\": No such file or directory"},
      {"read_file", "{}", "missing argument \"path\" (a string)"},
      {"read_file", R"({"path":7})", "argument \"path\" must be a string"},
      {"read_file", R"({"path":"failed/memstress-1/sim.log","start_line":"x"})", "argument \"start_line\" must be an integer"},
      {"read_file", R"({"path":"failed/memstress-1/sim.log","max_lines":0})", "argument \"max_lines\" must be between 1 and 5000"},
      {"read_file", R"({"path":"failed/memstress-1/sim.log","tail":true,"start_line":2})", "either \"start_line\" or \"tail\""},
      {"read_file", "not json", "the arguments are not valid JSON"},
      {"read_file", "[1]", "the arguments must be a JSON object"},
      {"search_logs", R"({"pattern":"FAIL(","mode":"regex"})", "invalid regular expression \"FAIL(\""},
      {"search_logs", R"({"pattern":"(a)\\1","mode":"regex"})", "invalid regular expression"},
      {"search_logs", R"({"pattern":"x","mode":"glob"})", "argument \"mode\" must be \"fixed\" or \"regex\""},
      {"search_logs", R"({"pattern":""})", "argument \"pattern\" must not be empty"},
      {"search_logs", R"({"pattern":"x","max_matches":0})", "argument \"max_matches\" must be at least 1"},
      {"search_logs", R"({"pattern":"x","path":"failed/memstress-1/diag.o"})", "is a binary file"},
      {"compare_transcript", R"({"context":99})", "argument \"context\" must be between 0 and 20"},
      {"symbols", R"({"disassemble":"-x;rm -rf /"})", "argument \"disassemble\" must be a symbol name"},
      {"symbols", R"({"path":"build/mace_build.log"})", "is the build log, not a program"},
      {"write_file", R"({"path":"failed/memstress-1/sim.log"})", "unknown method \"write_file\"; the methods are: search_logs, list_files, read_file, compare_transcript, symbols"},
  };
  for (const auto& c : cases) {
    ToolCallResult r;
    ASSERT_NO_THROW(r = call(t, c.method, c.args)) << c.method << " " << c.args;
    EXPECT_FALSE(r.ok) << c.method << " " << c.args << " -> " << r.content;
    EXPECT_NE(r.content.find(c.expect), std::string::npos)
        << c.method << " " << c.args << "\n  got: " << r.content << "\n  want: " << c.expect;
  }

  // What the symlinks lead to is never shown, also not by the broad calls.
  for (const auto& [method, args] : std::vector<std::pair<std::string, std::string>>{
           {"search_logs", R"({"pattern":"root"})"},
           {"search_logs", R"({"pattern":"SECRET","path":"failed"})"},
           {"search_logs", R"({"pattern":"SECRET","path":"failed/memstress-1"})"},
           {"list_files", "{}"}}) {
    const auto r = call(t, method, args);
    EXPECT_TRUE(r.ok) << r.content;
    EXPECT_EQ(r.content.find("TOP SECRET"), std::string::npos) << r.content;
    EXPECT_EQ(r.content.find("root:"), std::string::npos) << r.content;
  }
  EXPECT_EQ(snapshot(root_), before);
}

TEST_F(DiagnosticToolsTest, ShowsOnlyValidUtf8WithoutControlCharacters) {  // REQ-FAIL-5
  write(failed_ / "colour.log", "\x1b[31mERROR\x1b[0m caf\xc3\xa9 \xff\xfe bad\n");
  llm::Tool t = tool();
  auto r = call(t, "read_file", R"({"path":"failed/memstress-1/colour.log"})");
  ASSERT_TRUE(r.ok) << r.content;
  EXPECT_NE(r.content.find("1: ?[31mERROR?[0m caf\xc3\xa9 ?? bad"), std::string::npos) << r.content;
}

}  // namespace
}  // namespace mace::tools
