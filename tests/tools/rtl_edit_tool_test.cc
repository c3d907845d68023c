#include "tools/rtl_edit_tool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/child_process.h"
#include "support/fixture_checkout.h"

namespace mace::tools {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using mace::testing::FixtureCheckout;
using mace::testing::run_process;
using mace::testing::TempDir;

constexpr const char* kL15 = "piton/design/chip/tile/l15/rtl/l15.v";
constexpr const char* kPipeline = "piton/design/chip/tile/l15/rtl/l15_pipeline.v.pyv";
constexpr const char* kVerif = "piton/verif/env/manycore/ciop_iob.v.pyv";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A JSON string literal.
std::string js(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string path_arg(std::string_view path) { return "{\"path\":" + js(path) + "}"; }

std::string replace_args(std::string_view path, std::string_view old_text,
                         std::string_view new_text) {
  return "{\"path\":" + js(path) + ",\"old_text\":" + js(old_text) + ",\"new_text\":" +
         js(new_text) + "}";
}

// Every entry on disk under `root` but .git and `skip`: type, mode, content or link target.
using Snapshot = std::map<std::string, std::string>;
Snapshot snapshot(const fs::path& root, const std::string& skip) {
  Snapshot out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    const std::string rel = it->path().lexically_relative(root).generic_string();
    if (rel == ".git" || rel == skip || rel.starts_with(skip + "/")) {
      if (it->is_directory() && !it->is_symlink()) it.disable_recursion_pending();
      continue;
    }
    struct stat st {};
    EXPECT_EQ(::lstat(it->path().c_str(), &st), 0);
    std::string entry = std::to_string(st.st_mode) + ":";
    if (S_ISLNK(st.st_mode)) entry += fs::read_symlink(it->path()).string();
    else if (S_ISREG(st.st_mode)) entry += read_text(it->path());
    out[rel] = entry;
  }
  return out;
}

std::string git_status(const std::string& root) {
  auto r = run_process({"git", "-C", root, "status", "--porcelain", "--untracked-files=all"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

class RtlEditToolTest : public ::testing::Test {
 protected:
  llm::ToolCallResult call(const std::string& method, const std::string& args) {
    return tool_.call(method, args);
  }
  std::string ok(const std::string& method, const std::string& args) {
    llm::ToolCallResult r = call(method, args);
    EXPECT_TRUE(r.ok) << method << " " << args << " -> " << r.content;
    return r.content;
  }
  std::string refused(const std::string& method, const std::string& args) {
    llm::ToolCallResult r = call(method, args);
    EXPECT_FALSE(r.ok) << method << " " << args << " -> " << r.content;
    return r.content;
  }
  fs::path root() const { return checkout_.root(); }
  fs::path staging() const { return openpiton::default_staging_dir(root()); }

  FixtureCheckout checkout_;
  llm::Tool tool_ = make_rtl_edit_tool(checkout_.root());
};

TEST_F(RtlEditToolTest, OffersFourMethodsWithValidSchemas) {
  EXPECT_EQ(tool_.name, "rtl_edit");
  std::vector<std::string> names;
  simdjson::dom::parser parser;
  for (const llm::ToolMethod& m : tool_.methods) {
    names.push_back(m.name);
    simdjson::dom::element schema;
    ASSERT_EQ(parser.parse(m.parameters_schema_json).get(schema), simdjson::SUCCESS) << m.name;
    EXPECT_EQ(std::string_view(schema["type"].get_string().value()), "object");
  }
  EXPECT_EQ(names, (std::vector<std::string>{"list", "read", "search", "replace"}));
}

// REQ-EXEC-14: the agent sees the design's files, and nothing outside piton/design/.
TEST_F(RtlEditToolTest, ListShowsDesignFilesFilteredAndCapped) {
  const std::string all = ok("list", "{}");
  EXPECT_THAT(all, HasSubstr(std::string(kL15) + "\n"));
  EXPECT_THAT(all, HasSubstr(std::string(kPipeline) + "\n"));
  EXPECT_THAT(all, HasSubstr("piton/design/include/define.h.pyv\n"));
  EXPECT_THAT(all, Not(HasSubstr("piton/verif")));
  EXPECT_THAT(all, HasSubstr("7 files under piton/design"));

  const std::string verilog = ok("list", R"({"glob":"*.v"})");
  EXPECT_THAT(verilog, HasSubstr(kL15));
  EXPECT_THAT(verilog, Not(HasSubstr(kPipeline)));
  EXPECT_THAT(ok("list", R"({"glob":".pyv"})"), Not(HasSubstr(std::string(kL15) + "\n")));
  EXPECT_THAT(ok("list", R"({"glob":"chip/*/l15/rtl/*.pyv"})"), HasSubstr(kPipeline));

  const std::string sub = ok("list", R"({"path":"piton/design/include/"})");
  EXPECT_THAT(sub, HasSubstr("piton/design/include/define.h.pyv"));
  EXPECT_THAT(sub, Not(HasSubstr(kL15)));
  EXPECT_THAT(ok("list", R"({"glob":"*.sv"})"), HasSubstr("no files under piton/design"));

  for (int i = 0; i < 520; ++i)
    checkout_.write("piton/design/many/f" + std::to_string(1000 + i) + ".v", "\n");
  const std::string many = ok("list", R"({"path":"piton/design/many"})");
  EXPECT_THAT(many, HasSubstr("piton/design/many/f1499.v\n"));
  EXPECT_THAT(many, Not(HasSubstr("f1500.v")));
  EXPECT_THAT(many, HasSubstr("... and 20 more (520 files under piton/design/many)"));
}

// REQ-EXEC-14: a symlinked directory is not followed out of the design; a link to a design
// file is listed under the file's own name, once.
TEST_F(RtlEditToolTest, ListDoesNotFollowLinksOutOfTheDesign) {
  fs::create_directory_symlink("../verif", root() / "piton/design/tb");
  fs::create_directory_symlink("/etc", root() / "piton/design/etc");
  fs::create_symlink("../../../../../piton/verif/env/manycore/ciop_iob.v.pyv",
                     root() / "piton/design/chip/tile/l15/rtl/tb.v");
  fs::create_symlink("l15.v", root() / "piton/design/chip/tile/l15/rtl/alias.v");
  const std::string all = ok("list", "{}");
  EXPECT_THAT(all, Not(HasSubstr("verif")));
  EXPECT_THAT(all, Not(HasSubstr("tb")));
  EXPECT_THAT(all, Not(HasSubstr("etc")));
  EXPECT_THAT(all, Not(HasSubstr("alias.v")));
  EXPECT_EQ(all.find(kL15), all.rfind(kL15)) << all;
  EXPECT_THAT(all, HasSubstr("7 files under piton/design"));
}

TEST_F(RtlEditToolTest, ReadShowsNumberedLinesWithOffsetLimitAndCap) {
  const std::string whole = ok("read", path_arg(kL15));
  EXPECT_THAT(whole, HasSubstr(std::string(kL15) + ": lines 1-72 of 72\n"));
  EXPECT_THAT(whole, HasSubstr("     1\t// MACE test fixture"));
  EXPECT_THAT(whole, HasSubstr("    14\tmodule l15 (\n"));

  const std::string part =
      ok("read", "{\"path\":" + js(kL15) + R"(,"offset":14,"limit":2})");
  EXPECT_EQ(part, std::string(kL15) + ": lines 14-15 of 72\n    14\tmodule l15 (\n"
                                      "    15\t    input                                   clk,\n");
  EXPECT_THAT(refused("read", "{\"path\":" + js(kL15) + R"(,"offset":73})"),
              HasSubstr("has 72 lines"));
  EXPECT_THAT(refused("read", "{\"path\":" + js(kL15) + R"(,"limit":0})"), HasSubstr("limit"));

  std::string big;
  for (int i = 1; i <= 4000; ++i) big += "wire [63:0] signal_" + std::to_string(i) + ";\n";
  checkout_.write("piton/design/big.v", big);
  const std::string first = ok("read", path_arg("piton/design/big.v"));
  EXPECT_LE(first.size(), kRtlReadMaxBytes + 200);
  const size_t at = first.find("read on with offset=");
  ASSERT_NE(at, std::string::npos) << first.substr(first.size() - 200);
  const int next = std::stoi(first.substr(at + 20));
  EXPECT_THAT(first, HasSubstr("signal_" + std::to_string(next - 1) + ";\n"));
  EXPECT_THAT(first, Not(HasSubstr("signal_" + std::to_string(next) + ";\n")));
  const std::string rest =
      ok("read", R"({"path":"piton/design/big.v","offset":)" + std::to_string(next) + "}");
  EXPECT_THAT(rest, HasSubstr("signal_" + std::to_string(next) + ";\n"));
  EXPECT_THAT(rest, HasSubstr("signal_4000;\n"));

  checkout_.write("piton/design/tail.v", "a\nb");
  EXPECT_THAT(ok("read", path_arg("piton/design/tail.v")),
              HasSubstr("     2\tb\n\\ No newline at end of file\n"));
}

TEST_F(RtlEditToolTest, SearchFindsFixedTextAndRegexes) {
  const std::string fixed = ok("search", R"({"query":"localparam L15_WAYS"})");
  EXPECT_THAT(fixed, HasSubstr(std::string(kL15) + ":34: localparam L15_WAYS = 4;\n"));
  EXPECT_THAT(fixed, HasSubstr("1 matches in 1 files"));

  const std::string regex =
      ok("search", R"({"query":"^localparam L15_[A-Z]+ = [0-9]+;$","regex":true})");
  EXPECT_THAT(regex, HasSubstr(std::string(kL15) + ":34: "));
  EXPECT_THAT(regex, HasSubstr(std::string(kL15) + ":35: localparam L15_SETS = 128;"));

  EXPECT_THAT(ok("search", R"({"query":"LOCALPARAM l15_ways","ignore_case":true})"),
              HasSubstr(":34: "));
  EXPECT_THAT(ok("search", R"({"query":"LOCALPARAM l15_ways"})"), HasSubstr("no matches"));
  EXPECT_THAT(ok("search", R"({"query":"localparam","path":"piton/design/include"})"),
              Not(HasSubstr(kL15)));
  EXPECT_THAT(ok("search", "{\"query\":\"localparam\",\"path\":" + js(kL15) + "}"),
              HasSubstr(":35: "));
  EXPECT_THAT(ok("search", R"({"query":"localparam","glob":"*.pyv"})"), Not(HasSubstr(kL15)));

  // The testbench is never searched.
  checkout_.write(kVerif, read_text(root() / kVerif) + "// unique_marker_in_verif\n");
  EXPECT_THAT(ok("search", R"({"query":"unique_marker_in_verif"})"), HasSubstr("no matches"));

  EXPECT_THAT(refused("search", R"({"query":"(unclosed","regex":true})"),
              HasSubstr("not a valid regular expression"));
  EXPECT_THAT(refused("search", R"({"query":"(a)\\1","regex":true})"),
              HasSubstr("not a valid regular expression"));
  EXPECT_THAT(refused("search", R"({"query":""})"), HasSubstr("\"query\" is empty"));

  std::string many;
  for (int i = 0; i < 250; ++i) many += "assign x" + std::to_string(i) + " = 1'b0;\n";
  checkout_.write("piton/design/many.v", many);
  const std::string capped = ok("search", R"({"query":"assign x"})");
  EXPECT_THAT(capped, HasSubstr("piton/design/many.v:200: assign x199"));
  EXPECT_THAT(capped, Not(HasSubstr("piton/design/many.v:201:")));
  EXPECT_THAT(capped, HasSubstr("... 50 more matches not shown (250 in 1 files)"));
}

// A pattern that backtracks exponentially in a backtracking matcher must not hang the tool.
TEST_F(RtlEditToolTest, SearchWithAPathologicalRegexFinishes) {
  checkout_.write("piton/design/long.v",
                  std::string(5000, 'a') + "\n" + std::string(30, 'a') + "\n");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(ok("search", R"({"query":"^(a+)+$b","regex":true})"), HasSubstr("no matches"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(25));
}

// REQ-EXEC-14: a replacement is recorded for the build, visible to read and search, and the
// checkout's own file stays byte-identical.
TEST_F(RtlEditToolTest, ReplaceIsStagedNeverWritten) {
  const std::string original = read_text(root() / kL15);
  const std::string status = git_status(root());

  const std::string diff =
      ok("replace", replace_args(kL15, "localparam L15_WAYS = 4;", "localparam L15_WAYS = 8;"));
  EXPECT_THAT(diff, HasSubstr("--- a/" + std::string(kL15) + "\n+++ b/" + kL15 + "\n@@ "));
  EXPECT_THAT(diff, HasSubstr("-localparam L15_WAYS = 4;\n+localparam L15_WAYS = 8;\n"));
  // A second edit of the same file builds on the first.
  ok("replace", replace_args(kL15, "localparam L15_SETS = 128;\n", ""));

  EXPECT_EQ(read_text(root() / kL15), original);
  EXPECT_EQ(git_status(root()), status);

  const std::string shown = ok("read", path_arg(kL15));
  EXPECT_THAT(shown, HasSubstr("(as changed by you): lines 1-71 of 71"));
  EXPECT_THAT(shown, HasSubstr("    34\tlocalparam L15_WAYS = 8;\n"));
  EXPECT_THAT(shown, Not(HasSubstr("L15_SETS")));
  EXPECT_THAT(ok("search", R"({"query":"L15_WAYS = 8"})"), HasSubstr(std::string(kL15) + ":34:"));
  EXPECT_THAT(ok("list", R"({"glob":"l15.v"})"),
              HasSubstr(std::string(kL15) + "  (changed by you)"));

  std::string expected = original;
  expected.replace(expected.find("L15_WAYS = 4"), 12, "L15_WAYS = 8");
  expected.erase(expected.find("localparam L15_SETS = 128;\n"), 27);
  const openpiton::EditSet staged = openpiton::load_staged_edits(root(), staging());
  ASSERT_EQ(staged.edits.size(), 1u);
  EXPECT_EQ(std::get<openpiton::FullContent>(staged.edits[0]),
            (openpiton::FullContent{kL15, expected}));

  const StagedRtlEdits collected = collect_staged_rtl_edits(root());
  EXPECT_TRUE(collected.recorded());
  EXPECT_EQ(collected.edits, staged);
  EXPECT_EQ(collected.files, std::vector<std::string>{kL15});
  EXPECT_THAT(collected.diff, HasSubstr("+localparam L15_WAYS = 8;\n"));
  EXPECT_THAT(collected.diff, HasSubstr("-localparam L15_SETS = 128;\n"));
  EXPECT_EQ(read_text(root() / kL15), original);
}

// REQ-EXEC-16: an agent that changed nothing, or changed a file back, recorded no edit.
TEST_F(RtlEditToolTest, NoEditOrAnEditUndoneIsNotRecorded) {
  StagedRtlEdits none = collect_staged_rtl_edits(root());
  EXPECT_FALSE(none.recorded());
  EXPECT_TRUE(none.files.empty());
  EXPECT_EQ(none.diff, "");

  ok("replace", replace_args(kL15, "L15_SETS = 128", "L15_SETS = 256"));
  EXPECT_TRUE(collect_staged_rtl_edits(root()).recorded());
  ok("replace", replace_args(kL15, "L15_SETS = 256", "L15_SETS = 128"));
  StagedRtlEdits undone = collect_staged_rtl_edits(root());
  EXPECT_FALSE(undone.recorded());
  EXPECT_EQ(undone.diff, "");
}

TEST_F(RtlEditToolTest, AnExplicitStagingDirIsUsed) {
  TempDir elsewhere;
  llm::Tool tool = make_rtl_edit_tool(root(), elsewhere.path());
  ASSERT_TRUE(tool.call("replace", replace_args(kL15, "L15_SETS = 128", "L15_SETS = 64")).ok);
  EXPECT_TRUE(fs::is_regular_file(fs::path(elsewhere.path()) / kL15));
  EXPECT_FALSE(fs::exists(staging()));
  EXPECT_TRUE(collect_staged_rtl_edits(root(), elsewhere.path()).recorded());
  EXPECT_THAT(tool.call("read", path_arg(kL15)).content, HasSubstr("L15_SETS = 64"));
  EXPECT_THAT(ok("read", path_arg(kL15)), HasSubstr("L15_SETS = 128"));
}

// REQ-EXEC-14: every hostile or malformed request is refused with a message naming what was
// wrong, and none of them changes a byte of the checkout or stages anything.
TEST_F(RtlEditToolTest, HostileRequestsAreRefusedAndChangeNothing) {
  fs::create_directory_symlink("../verif", root() / "piton/design/tb");
  fs::create_directory_symlink("/etc", root() / "piton/design/etc");
  fs::create_symlink("/etc/passwd", root() / "piton/design/passwd.v");
  fs::create_symlink("../../../../../" + std::string(kVerif),
                     root() / "piton/design/chip/tile/l15/rtl/tb.v");
  fs::create_symlink("../verif/env/manycore/new.v", root() / "piton/design/dangling.v");
  checkout_.write("piton/design/twice.v", "assign a = b;\nassign a = b;\n");
  const Snapshot before = snapshot(root(), std::string(openpiton::kStagingDir));
  const std::string status = git_status(root());

  const std::string absolute_design = (root() / kL15).string();
  const std::vector<std::string> bad_files = {
      "../x.v",
      "../../../../etc/passwd",
      "piton/design/../verif/env/manycore/ciop_iob.v.pyv",
      "piton/design/chip/../../verif/env/manycore/ciop_iob.v.pyv",
      "/etc/passwd",
      absolute_design,
      kVerif,
      "piton/piton_settings.bash",
      "piton/design/tb/env/manycore/ciop_iob.v.pyv",
      "piton/design/etc/passwd",
      "piton/design/passwd.v",
      "piton/design/chip/tile/l15/rtl/tb.v",
      "piton/design/dangling.v",
      "piton/design/chip",
  };
  for (const std::string& path : bad_files) {
    SCOPED_TRACE(path);
    EXPECT_THAT(refused("read", path_arg(path)), HasSubstr("'" + path + "'"));
    EXPECT_THAT(refused("replace", replace_args(path, "module", "evil")),
                HasSubstr("'" + path + "'"));
    EXPECT_THAT(refused("replace", replace_args(path, "", "module evil; endmodule\n")),
                HasSubstr("old_text"));
  }
  const std::vector<std::string> bad_dirs = {
      "..", "../..", "/etc", "/", root().string(), "piton", "piton/verif", "piton/design/..",
      "piton/design/../verif", "piton/design/tb", "piton/design/etc", "piton/design/missing",
  };
  for (const std::string& path : bad_dirs) {
    SCOPED_TRACE(path);
    EXPECT_THAT(refused("list", path_arg(path)), HasSubstr("'" + path + "'"));
    EXPECT_THAT(refused("search", "{\"query\":\"root\",\"path\":" + js(path) + "}"),
                HasSubstr("'" + path + "'"));
  }

  EXPECT_THAT(refused("replace", replace_args(kL15, "no such text", "x")),
              HasSubstr("matches 0 places"));
  EXPECT_THAT(refused("replace", replace_args("piton/design/twice.v", "assign a = b;", "x")),
              HasSubstr("matches 2 places"));
  EXPECT_THAT(refused("replace", replace_args(kL15, "clk", "clk")), HasSubstr("the same"));
  EXPECT_THAT(refused("replace", replace_args("piton/design/new.v", "", "module x; endmodule\n")),
              HasSubstr("does not create files"));
  EXPECT_THAT(refused("replace", replace_args("piton/design/new.v", "x", "y")),
              HasSubstr("does not exist"));

  EXPECT_THAT(refused("replace", "{\"path\":" + js(kL15) + R"(,"new_text":"x"})"),
              HasSubstr("missing argument \"old_text\""));
  EXPECT_THAT(refused("replace", "{\"path\":" + js(kL15) + R"(,"old_text":"clk"})"),
              HasSubstr("missing argument \"new_text\""));
  EXPECT_THAT(refused("replace", R"({"path":7,"old_text":"clk","new_text":"x"})"),
              HasSubstr("argument \"path\" must be a string"));
  EXPECT_THAT(refused("read", "{}"), HasSubstr("missing argument \"path\""));
  EXPECT_THAT(refused("read", "{\"path\":" + js(kL15) + R"(,"offset":"3"})"),
              HasSubstr("\"offset\" must be an integer"));
  EXPECT_THAT(refused("search", R"({"query":"x","regex":"yes"})"),
              HasSubstr("\"regex\" must be true or false"));
  EXPECT_THAT(refused("search", "{}"), HasSubstr("missing argument \"query\""));
  EXPECT_THAT(refused("list", R"({"path":["piton/design"]})"), HasSubstr("\"path\""));
  EXPECT_THAT(refused("list", "[1]"), HasSubstr("must be a JSON object"));
  EXPECT_THAT(refused("read", "{\"path\":"), HasSubstr("not valid JSON"));
  EXPECT_THAT(refused("write", replace_args(kL15, "clk", "x")),
              HasSubstr("unknown method 'write'"));
  EXPECT_THAT(refused("rtl_edit_replace", replace_args(kL15, "clk", "x")),
              HasSubstr("unknown method"));

  EXPECT_EQ(snapshot(root(), std::string(openpiton::kStagingDir)), before);
  EXPECT_EQ(git_status(root()), status);
  EXPECT_TRUE(openpiton::load_staged_edits(root(), staging()).empty());
  EXPECT_FALSE(collect_staged_rtl_edits(root()).recorded());
  if (fs::exists(staging())) {
    for (const auto& entry : fs::recursive_directory_iterator(staging()))
      EXPECT_TRUE(entry.is_directory()) << "staged: " << entry.path();
  }
}

// REQ-EXEC-14 on a real OpenPiton checkout: the tool reads and edits a real design file and
// `git status` of the checkout stays exactly as it was.
TEST(RtlEditToolRealCheckoutTest, ReplaceInARealDesignFileLeavesGitStatusUnchanged) {
  const char* env = std::getenv("MACE_TEST_PITON_ROOT");
  if (env == nullptr || *env == '\0')
    GTEST_SKIP() << "MACE_TEST_PITON_ROOT is not set (a real OpenPiton checkout)";
  const std::string root = env;
  ASSERT_TRUE(fs::is_directory(fs::path(root) / "piton/design")) << root;
  // The real checkout's own build/ is left alone: staging goes to a temporary directory.
  TempDir staging;
  llm::Tool tool = make_rtl_edit_tool(root, staging.path());
  const std::string status = git_status(root);

  llm::ToolCallResult listed = tool.call("list", R"({"glob":"*.v"})");
  ASSERT_TRUE(listed.ok) << listed.content;
  std::string file = "piton/design/chip/tile/rtl/tile.v";
  if (!fs::is_regular_file(fs::path(root) / file))
    file = listed.content.substr(0, listed.content.find('\n'));
  EXPECT_THAT(listed.content, HasSubstr(file + "\n"));

  const std::string original = read_text(fs::path(root) / file);
  // The first line that occurs once, so that the replacement is unambiguous.
  std::string line;
  std::istringstream lines(original);
  for (std::string candidate; std::getline(lines, candidate);) {
    if (candidate.size() < 12) continue;
    const size_t first = original.find(candidate);
    if (original.find(candidate, first + 1) == std::string::npos) {
      line = candidate;
      break;
    }
  }
  ASSERT_FALSE(line.empty()) << file;

  llm::ToolCallResult replaced =
      tool.call("replace", replace_args(file, line, line + " // edited by mace test"));
  ASSERT_TRUE(replaced.ok) << replaced.content;
  EXPECT_THAT(replaced.content, HasSubstr("+" + line + " // edited by mace test\n"));
  EXPECT_THAT(tool.call("read", path_arg(file)).content,
              HasSubstr(line + " // edited by mace test"));
  llm::ToolCallResult found = tool.call("search", R"({"query":"// edited by mace test"})");
  ASSERT_TRUE(found.ok) << found.content;
  EXPECT_THAT(found.content, HasSubstr(file + ":"));

  EXPECT_EQ(read_text(fs::path(root) / file), original);
  EXPECT_EQ(git_status(root), status);
  EXPECT_EQ(collect_staged_rtl_edits(root, staging.path()).files, std::vector<std::string>{file});

  EXPECT_FALSE(tool.call("read", path_arg("piton/verif/env/manycore/manycore_top.v.pyv")).ok);
  EXPECT_EQ(git_status(root), status);
}

}  // namespace
}  // namespace mace::tools
