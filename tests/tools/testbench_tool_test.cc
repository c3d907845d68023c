// The unit_test task's edit tool (REQ-EXEC-9): its name, its three methods, and that it
// reads and writes nothing but the task's testbench and module source.

#include "tools/testbench_tool.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/llm.h"
#include "support/child_process.h"

namespace mace::tools {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Every file under `dir` with its content, to see that a call changed exactly one.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_symlink()) {
      files[e.path().string()] = "-> " + fs::read_symlink(e.path()).string();
    } else if (e.is_regular_file()) {
      files[e.path().string()] = slurp(e.path());
    }
  }
  return files;
}

class TestbenchToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path();
    fs::create_directories(root_ / "piton/verif/env/mace_ut_1");
    fs::create_directories(root_ / "piton/design/common/rtl");
    testbench_ = root_ / "piton/verif/env/mace_ut_1/mace_ut_1_top.v";
    dut_ = root_ / "piton/design/common/rtl/synchronizer.v";
    std::ofstream(testbench_) << "module mace_ut_1_top;\n  mace_ut_1 dut ();\nendmodule\n";
    std::ofstream(dut_) << "module synchronizer (clk, presyncdata, syncdata);\nendmodule\n";
    std::ofstream(root_ / "piton/verif/env/mace_ut_1/mace_ut_1.flist") << "mace_ut_1_top.v";
    std::ofstream(root_ / "secret.txt") << "not for the model\n";
  }
  llm::Tool tool() const { return make_testbench_tool("iter1-unit_test-0", testbench_, dut_); }

  mace::testing::TempDir dir_;
  fs::path root_, testbench_, dut_;
};

// REQ-EXEC-9: ut_edit_ + the first 8 hex digits of SHA-1 of the task id.
TEST(UnitTestToolName, IsTheFirstEightHexDigitsOfSha1) {
  // printf %s iter1-unit_test-0 | sha1sum -> e278de41bef8...
  EXPECT_EQ(unit_test_tool_name("iter1-unit_test-0"), "ut_edit_e278de41");
  // printf %s t1 | sha1sum -> e5353879bd69...
  EXPECT_EQ(unit_test_tool_name("t1"), "ut_edit_e5353879");
  // The empty string's SHA-1 is da39a3ee...
  EXPECT_EQ(unit_test_tool_name(""), "ut_edit_da39a3ee");
  EXPECT_EQ(unit_test_tool_name(std::string(500, 'x')).size(), 16u);
}

// REQ-EXEC-9
TEST_F(TestbenchToolTest, HasTheNameAndExactlyTheThreeMethods) {
  auto t = tool();
  EXPECT_EQ(t.name, "ut_edit_e278de41");
  std::vector<std::string> names;
  for (const auto& m : t.methods) names.push_back(m.name);
  EXPECT_THAT(names, ElementsAre("read_testbench", "write_testbench", "read_dut_source"));
  // The declared function names fit Gemini's 64 characters and stay distinct.
  std::set<std::string> functions;
  for (const auto& m : t.methods) {
    auto fn = llm::function_name(t.name, m.name);
    EXPECT_LE(fn.size(), 64u);
    functions.insert(fn);
  }
  EXPECT_EQ(functions.size(), 3u);
  for (const auto& m : t.methods) {
    EXPECT_THAT(m.parameters_schema_json, ::testing::Not(HasSubstr("path"))) << m.name;
  }
}

// REQ-EXEC-9
TEST_F(TestbenchToolTest, ReadsTheTestbenchAndTheModuleSource) {
  auto t = tool();
  auto tb = t.call("read_testbench", "{}");
  EXPECT_TRUE(tb.ok) << tb.content;
  EXPECT_EQ(tb.content, "module mace_ut_1_top;\n  mace_ut_1 dut ();\nendmodule\n");
  auto dut = t.call("read_dut_source", "");
  EXPECT_TRUE(dut.ok) << dut.content;
  EXPECT_EQ(dut.content, "module synchronizer (clk, presyncdata, syncdata);\nendmodule\n");
}

// REQ-EXEC-9: the rewrite replaces the testbench whole and changes no other file.
TEST_F(TestbenchToolTest, WriteReplacesOnlyTheTestbench) {
  auto before = snapshot(root_);
  auto t = tool();
  const std::string fixed = "module mace_ut_1_top;\n  synchronizer dut (.clk(clk));\nendmodule\n";
  auto w = t.call("write_testbench", R"({"content":"module mace_ut_1_top;\n  synchronizer dut (.clk(clk));\nendmodule\n"})");
  EXPECT_TRUE(w.ok) << w.content;
  EXPECT_EQ(slurp(testbench_), fixed);
  auto after = snapshot(root_);
  before[testbench_.string()] = fixed;
  EXPECT_EQ(after, before) << "exactly the testbench changed, and no file was added";
  EXPECT_EQ(t.call("read_testbench", "{}").content, fixed);
}

// REQ-EXEC-9: no method takes a path, and passing one is refused, not ignored.
TEST_F(TestbenchToolTest, RefusesAnyPathAndAnyOtherMethod) {
  auto before = snapshot(root_);
  auto t = tool();
  for (auto [method, args] : std::vector<std::pair<std::string, std::string>>{
           {"write_testbench", R"({"content":"x","path":"../../../secret.txt"})"},
           {"write_testbench", R"({"path":"piton/design/common/rtl/synchronizer.v","content":"x"})"},
           {"read_testbench", R"({"path":"secret.txt"})"},
           {"read_dut_source", R"({"file":"/etc/passwd"})"},
           {"write_testbench", R"({})"},
           {"write_testbench", R"({"content":7})"},
           {"write_testbench", R"(not json)"},
           {"write_file", R"({"path":"secret.txt","content":"x"})"},
           {"read_file", R"({"path":"secret.txt"})"},
       }) {
    llm::ToolCallResult r;
    EXPECT_NO_THROW(r = t.call(method, args)) << method << " " << args;
    EXPECT_FALSE(r.ok) << method << " " << args << " -> " << r.content;
    EXPECT_THAT(r.content, ::testing::Not(HasSubstr("not for the model")));
  }
  EXPECT_THAT(t.call("read_testbench", R"({"path":"secret.txt"})").content,
              HasSubstr("takes no path"));
  EXPECT_THAT(t.call("write_file", "{}").content, HasSubstr("unknown method"));
  EXPECT_EQ(snapshot(root_), before) << "a refused call changed the tree";
}

// A symlink put where the testbench was is replaced, not written through.
TEST_F(TestbenchToolTest, DoesNotWriteThroughASymlink) {
  fs::remove(testbench_);
  fs::create_symlink(root_ / "secret.txt", testbench_);
  auto w = tool().call("write_testbench", R"({"content":"module t; endmodule\n"})");
  EXPECT_TRUE(w.ok) << w.content;
  EXPECT_EQ(slurp(root_ / "secret.txt"), "not for the model\n");
  EXPECT_FALSE(fs::is_symlink(testbench_));
  EXPECT_EQ(slurp(testbench_), "module t; endmodule\n");
}

TEST_F(TestbenchToolTest, AMissingFileIsAFailedCallNotAnException) {
  fs::remove(dut_);
  llm::ToolCallResult r;
  EXPECT_NO_THROW(r = tool().call("read_dut_source", "{}"));
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.content, HasSubstr("cannot read the module source"));
}

TEST_F(TestbenchToolTest, RefusesAnOversizedTestbench) {
  std::string big(kTestbenchMaxBytes + 1, 'a');
  auto r = tool().call("write_testbench", "{\"content\":\"" + big + "\"}");
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.content, HasSubstr("at most"));
  EXPECT_EQ(slurp(testbench_), "module mace_ut_1_top;\n  mace_ut_1 dut ();\nendmodule\n");
}

}  // namespace
}  // namespace mace::tools
