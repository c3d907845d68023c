#pragma once
// Tools that cannot be made (tools::ToolError), whose text says why.

#include "support/thrown_message.h"
#include "tools/tool_error.h"

namespace mace::tools {

template <class Make>
std::string tool_error_of(Make&& make) {
  return mace::testing::thrown_message<ToolError>(std::forward<Make>(make));
}

}  // namespace mace::tools
