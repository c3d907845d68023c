#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <set>

#include "llm/llm.h"

namespace mace::llm {
namespace {

// The spec's _unit_test_tool_name(): "ut_edit_" + the first 8 hex digits of SHA-1(task id).
std::string ut_edit_name(const std::string& task_id) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned length = 0;
  EVP_Digest(task_id.data(), task_id.size(), digest, &length, EVP_sha1(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned i = 0; i < 4; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return "ut_edit_" + hex;
}

// REQ-EXEC-7
TEST(FunctionName, JoinsToolTwiceAndMethod) {
  EXPECT_EQ(function_name("rtl_edit", "read"), "rtl_edit__rtl_edit_read");
}

TEST(FunctionName, IsCutTo64Characters) {
  std::string tool(40, 't');
  std::string name = function_name(tool, "replace");
  EXPECT_EQ(name.size(), 64u);
  EXPECT_EQ(name, (tool + "__" + tool + "_replace").substr(0, 64));
  EXPECT_EQ(function_name(std::string(10, 'x'), "m").size(), 24u);
}

TEST(FunctionName, LongToolNamesCollideOnceCut) {
  // Why the unit-test edit tool gets a fixed short name: a task-id-sized name loses the
  // method to the cut.
  std::string tool = "testbench_edit_for_task_" + std::string(20, 'a');
  EXPECT_EQ(function_name(tool, "read_testbench"), function_name(tool, "write_testbench"));
}

TEST(FunctionName, UtEditToolMethodsStayDistinctForAnyTaskId) {
  for (const std::string& task_id :
       {std::string("t1"), std::string("unit_test_l15_cache"), std::string(500, 'z'),
        std::string("task with spaces/and/slashes")}) {
    std::string tool = ut_edit_name(task_id);
    ASSERT_EQ(tool.size(), 16u);
    std::set<std::string> names;
    for (const char* method : {"read_testbench", "write_testbench", "read_dut_source"}) {
      std::string fn = function_name(tool, method);
      EXPECT_LE(fn.size(), 64u);
      names.insert(fn);
    }
    EXPECT_EQ(names.size(), 3u) << task_id;
  }
}

TEST(ErrorClassNames, EveryClassHasItsName) {
  EXPECT_EQ(to_string(ErrorClass::none), "none");
  EXPECT_EQ(to_string(ErrorClass::rate_limit), "rate_limit");
  EXPECT_EQ(to_string(ErrorClass::authentication), "authentication");
  EXPECT_EQ(to_string(ErrorClass::billing), "billing");
  EXPECT_EQ(to_string(ErrorClass::invalid_request), "invalid_request");
  EXPECT_EQ(to_string(ErrorClass::server), "server");
  EXPECT_EQ(to_string(ErrorClass::output_limit), "output_limit");
  EXPECT_EQ(to_string(ErrorClass::blocked), "blocked");
  EXPECT_EQ(to_string(ErrorClass::timeout), "timeout");
  EXPECT_EQ(to_string(ErrorClass::unknown), "unknown");
}

}  // namespace
}  // namespace mace::llm
