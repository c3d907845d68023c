#pragma once
// The tools layer's one error rule: a tool call that fails is a ToolCallResult with ok=false,
// which the model reads and works around; making the tools throws ToolError, whose message
// says why they cannot be made, and the caller decides whether the run goes on without them.
// (ToolArgumentError, tool_arguments.h, is about one call's arguments and ends as such a
// result.)

#include <stdexcept>

namespace mace::tools {

class ToolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace mace::tools
