#include "openpiton/define_search.h"

#include <chrono>

#include "os/environment.h"
#include "os/process_group.h"

namespace mace::openpiton {
namespace {

bool is_define_name(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name)
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

bool checkout_mentions_define(const Checkout& checkout, const std::string& define) {
  if (!is_define_name(define)) return false;
  os::ProcessSpec spec;
  spec.argv = {"git", "-C", checkout.root().string(), "-c",
               "safe.directory=" + checkout.root().string(), "grep", "-q", "-w", "-F", "-e",
               define, "--", "piton"};
  auto env = os::inherited_environment();
  spec.env = {{"PATH", env.count("PATH") ? env["PATH"] : "/usr/bin:/bin"},
              {"HOME", env.count("HOME") ? env["HOME"] : "/"},
              {"GIT_OPTIONAL_LOCKS", "0"}};
  spec.timeout = std::chrono::seconds(60);
  os::ProcessResult result = os::run_process_group(spec);
  // git grep: 0 found, 1 not found, anything else an error.
  if (result.exit_code == 1) return false;
  return true;
}

}  // namespace mace::openpiton
