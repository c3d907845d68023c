#pragma once
// The methods of the "diagnostics" tool (diagnostic_tools.h), one file each. A method
// reads its arguments, may throw Refusal or ToolArgumentError (the tool's call() turns
// either into an ok=false result), and touches nothing but `state`'s places, read-only.

#include "llm/llm.h"
#include "tools/diagnostics/scope.h"
#include "tools/tool_arguments.h"

namespace mace::tools::diagnostics {

// search_logs.cc: matching lines of the failed runs' and build log's text files.
llm::ToolCallResult search_logs(const State& state, const ToolArguments& args);
// list_files.cc: the files of the places, with sizes and kinds.
llm::ToolCallResult list_files(const State& state, const ToolArguments& args);
// read_file.cc: numbered lines of one text file.
llm::ToolCallResult read_file(const State& state, const ToolArguments& args);
// compare_transcript.cc: a unified diff of the failed transcript against a reference.
llm::ToolCallResult compare_transcript(const State& state, const ToolArguments& args);
// symbols.cc: the program's symbols (objdump) beside the run's symbol.tbl.
llm::ToolCallResult symbols(const State& state, const ToolArguments& args);
// waveform.cc: the scopes and signals of the failed workload's waveform, and the values
// of named signals over a window of it.
llm::ToolCallResult wave_signals(const State& state, const ToolArguments& args);
llm::ToolCallResult wave_values(const State& state, const ToolArguments& args);

}  // namespace mace::tools::diagnostics
