#include "openpiton/define_search.h"

#include <chrono>

#include "openpiton/git_command.h"
#include "os/text.h"

namespace mace::openpiton {
namespace {

bool is_define_name(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// git grep: 0 found, 1 not found, anything else an error.
DefineSearch grep_once(const Checkout& checkout, const std::string& define) {
  os::ProcessSpec spec =
      git_command(checkout.root(), {"grep", "-q", "-w", "-F", "-e", define, "--", "piton"});
  spec.timeout = std::chrono::seconds(60);
  spec.tail_bytes = 1000;
  const os::ProcessResult result = os::run_process_group(spec);
  if (result.exit_code == 0) return {.mentioned = true, .error = ""};
  if (result.exit_code == 1) return {.mentioned = false, .error = ""};
  std::string said(os::trim(result.tail));
  return {.mentioned = true,
          .error = "git grep failed (" + git_failure(result) + ")" + (said.empty() ? "" : ": " + said)};
}

}  // namespace

DefineSearch search_checkout_for_define(const Checkout& checkout, const std::string& define) {
  if (!is_define_name(define)) return {.mentioned = false, .error = ""};
  DefineSearch first = grep_once(checkout, define);
  return first.error.empty() ? first : grep_once(checkout, define);
}

}  // namespace mace::openpiton
