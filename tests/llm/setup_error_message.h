#pragma once
// Setup failures of the LLM layer (llm::SetupError), whose text is what maced shows
// whoever configures it.

#include "llm/setup_error.h"
#include "support/thrown_message.h"

namespace mace::llm {

template <class Make>
std::string setup_error_of(Make&& make) {
  return mace::testing::thrown_message<SetupError>(std::forward<Make>(make));
}

}  // namespace mace::llm
