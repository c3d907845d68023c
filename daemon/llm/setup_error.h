#pragma once
// The llm layer's one error rule: a call that fails is a Reply with an error class, for the
// planner to weigh and retry; setting a backend up (credentials, key files, signing, the
// CLI, prices, tool schemas) throws SetupError, since nothing can be called without it and
// the message, meant for whoever configures maced, is all there is to report.

#include <stdexcept>

namespace mace::llm {

class SetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace mace::llm
