#pragma once
// The tool a unit_test task's agent reconciles the scaffolded testbench with (REQ-EXEC-8,
// REQ-EXEC-9): read the task's testbench, rewrite it whole, and read the module under test.
//
// No method takes a path: the two files are fixed when the tool is made, so there is no
// path to refuse and no way to name another file. A call that passes one anyway (any
// argument a method does not take) is refused, so a model that tries learns it cannot.
// The testbench is rewritten by renaming a new file over it, so a symlink put in its place
// is replaced, never followed.
//
// The name is ut_edit_<first 8 hex digits of SHA-1 of the task id>: 16 characters whatever
// the id, so the function names {tool}__{tool}_{method} stay distinct within the 64
// characters Gemini allows (see llm::function_name).

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "llm/llm.h"

namespace mace::tools {

// Caps on what one call moves: a testbench is a few kB, a module source rarely over 100 kB.
inline constexpr std::size_t kTestbenchMaxBytes = 1024 * 1024;
inline constexpr std::size_t kDutSourceMaxBytes = 256 * 1024;

// "ut_edit_" + the first 8 lowercase hex digits of SHA-1(task_id).
std::string unit_test_tool_name(std::string_view task_id);

// Methods: read_testbench {}, write_testbench {content: string}, read_dut_source {}.
// call() never throws; a refused or failed call is ok=false with the reason.
llm::Tool make_testbench_tool(std::string_view task_id, std::filesystem::path testbench,
                              std::filesystem::path dut_source);

}  // namespace mace::tools
