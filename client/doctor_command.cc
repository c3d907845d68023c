// `mace doctor`: whether this machine can do what MACE needs, as the maced that answers sees
// it, in one screen; each finding that is not ok with its fix (docs/client.md#mace-doctor).

#include <iostream>
#include <sstream>
#include <string>

#include "capnp_text.h"
#include "commands.h"
#include "core/json_writer.h"
#include "exit_codes.h"
#include "maced_connection.h"
#include "maced_refusal.h"
#include "render.h"

namespace mace::client {
namespace {

constexpr int kExitSomethingFails = 1;

const char* level_mark(api::CheckLevel level) {
  switch (level) {
    case api::CheckLevel::OK: return "ok  ";
    case api::CheckLevel::WARNING: return "WARN";
    case api::CheckLevel::FAILURE: return "FAIL";
  }
  return "?   ";
}

// "checkout", "tool", ... as a person reads them in a column.
std::string topic_words(api::CheckTopic topic) {
  std::string words = check_topic_name(topic);
  for (char& c : words)
    if (c == '_') c = ' ';
  return words;
}

struct Counts {
  unsigned failures = 0;
  unsigned warnings = 0;
};

Counts count(capnp::List<api::CheckFinding>::Reader findings) {
  Counts counts;
  for (auto f : findings) {
    if (f.getLevel() == api::CheckLevel::FAILURE) ++counts.failures;
    if (f.getLevel() == api::CheckLevel::WARNING) ++counts.warnings;
  }
  return counts;
}

std::string human_findings(capnp::List<api::CheckFinding>::Reader findings, const Counts& counts) {
  std::ostringstream out;
  out << "maced at " << connected_socket_path() << "\n";
  for (auto f : findings) {
    const std::string topic = topic_words(f.getTopic());
    out << "  " << level_mark(f.getLevel()) << "  " << topic;
    if (f.getSubject().size() && text(f.getSubject()) != topic) out << " " << text(f.getSubject());
    out << ": " << text(f.getWhat()) << "\n";
    if (f.getFix().size()) out << "        fix: " << text(f.getFix()) << "\n";
  }
  if (counts.failures == 0 && counts.warnings == 0)
    out << "Everything MACE needs is here.\n";
  else if (counts.failures == 0)
    out << "Nothing fails; " << counts.warnings << " warning(s): the runs that need those cannot work.\n";
  else
    out << counts.failures << " failure(s): runs cannot work until they are fixed; " << counts.warnings
        << " warning(s): the runs that need those cannot work.\n";
  return out.str();
}

std::string json_findings(capnp::List<api::CheckFinding>::Reader findings, const Counts& counts) {
  JsonWriter w;
  w.begin_object();
  w.field("socket", connected_socket_path());
  w.key("findings");
  w.begin_array();
  for (auto f : findings) {
    w.begin_object();
    w.field("topic", check_topic_name(f.getTopic()));
    w.field("subject", text(f.getSubject()));
    w.field("level", check_level_name(f.getLevel()));
    w.field("what", text(f.getWhat()));
    w.field("fix", text(f.getFix()));
    w.end_object();
  }
  w.end_array();
  w.field("failures", counts.failures);
  w.field("warnings", counts.warnings);
  w.end_object();
  return w.take();
}

}  // namespace

int cmd_doctor(const GlobalOptions& global, const Arguments& args) {
  if (!args.positional.empty()) {
    std::cerr << "usage: mace doctor\n";
    return kExitBadInput;
  }
  const int rc = with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    try {
      auto response = answered(maced.checkUpRequest().send().wait(io.waitScope));  // outlives its readers
      auto findings = response.getFindings();
      const Counts counts = count(findings);
      std::cout << (global.json ? json_findings(findings, counts) + "\n" : human_findings(findings, counts));
      return counts.failures ? kExitSomethingFails : kExitOk;
    } catch (const kj::Exception& e) {
      if (e.getType() != kj::Exception::Type::UNIMPLEMENTED) throw;
      std::cerr << "mace: the maced at " << connected_socket_path()
                << " is older than this mace and has no check-up; upgrade it\n";
      return kExitDaemonError;
    }
  });
  if (rc == kExitUnreachable) {
    // with_maced has said where it looked; the rest of the check needs maced.
    const std::string fix =
        "start your own with scripts/quickstart.sh, or the team's with `sudo systemctl start maced.socket`";
    std::cerr << "  Nothing else can be checked without maced: " << fix << ".\n";
    if (global.json) {
      JsonWriter w;
      w.begin_object();
      w.field("socket", "");
      w.key("findings");
      w.begin_array();
      w.begin_object();
      w.field("topic", "maced");
      w.field("subject", "maced");
      w.field("level", "failure");
      w.field("what", "not reachable (standard error says where mace looked)");
      w.field("fix", fix);
      w.end_object();
      w.end_array();
      w.field("failures", 1);
      w.field("warnings", 0);
      w.end_object();
      std::cout << w.str() << "\n";
    }
  }
  return rc;
}

}  // namespace mace::client
