#include "run/run_environment.h"

#include <unistd.h>

#include "core/json_writer.h"
#include "openpiton/sims_command.h"
#include "openpiton/source_fingerprint.h"
#include "os/environment.h"
#include "run/mace_commit.h"

namespace mace::run {

std::string environment_json(const store::RunRecord& run,
                             const std::vector<openpiton::Checkout>& checkouts) {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  JsonWriter w;
  w.begin_object();
  w.field("mace_commit", MACE_COMMIT);
  w.field("mace_version", MACE_VERSION);
  w.field("backend", run.backend);
  w.field("model", run.model);
  w.field("host", std::string(host));
  w.key("checkouts").begin_array();
  for (const auto& checkout : checkouts) {
    w.begin_object();
    w.field("path", checkout.root().string());
    std::string verilator;
    try {
      verilator = openpiton::detect_verilator_version(
                      checkout.environment(os::inherited_environment()), nullptr, checkout.runner())
                      .text;
    } catch (const std::exception& e) {
      verilator = std::string("unknown: ") + e.what();
    }
    w.field("verilator", verilator);
    try {
      const openpiton::SourceFingerprint fingerprint = openpiton::source_fingerprint(checkout, verilator);
      w.field("commit", fingerprint.head);
      w.field("source_fingerprint", fingerprint.digest);
    } catch (const std::exception& e) {
      w.field("commit", std::string("unknown: ") + e.what());
      w.field("source_fingerprint", std::string("unknown: ") + e.what());
    }
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take();
}

}  // namespace mace::run
