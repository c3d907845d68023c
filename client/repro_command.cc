// mace repro RUN [--iteration N] [--task T] [--workload W] [-o FILE]: a shell script that
// rebuilds a recorded simulation's model and reruns it by hand, outside maced
// (core/repro.h); --json the facts it is made from.

#include <sys/stat.h>

#include <fstream>
#include <iostream>
#include <string>

#include "capnp_text.h"
#include "commands.h"
#include "core/json_writer.h"
#include "core/repro.h"
#include "exit_codes.h"
#include "maced_connection.h"
#include "maced_refusal.h"
#include "os/base64.h"
#include "render.h"

namespace mace::client {
namespace {

std::vector<std::string> texts(capnp::List<capnp::Text>::Reader list) {
  std::vector<std::string> out;
  for (auto t : list) out.push_back(text(t));
  return out;
}

ReproFacts facts_of(api::ReproFacts::Reader r) {
  ReproFacts f;
  f.run_id = text(r.getRunId());
  f.iteration = r.getIteration();
  f.task_id = text(r.getTaskId());
  f.workload = text(r.getWorkload());
  f.checkout = text(r.getCheckout());
  f.checkout_commit = text(r.getCheckoutCommit());
  f.source_fingerprint = text(r.getSourceFingerprint());
  f.verilator = text(r.getVerilator());
  f.mace_version = text(r.getMaceVersion());
  f.mace_commit = text(r.getMaceCommit());
  f.host = text(r.getHost());
  f.build_id = text(r.getBuildId());
  f.build_argv = texts(r.getBuildArgv());
  f.build_environment = texts(r.getBuildEnvironment());
  f.rtl_edits = text(r.getRtlEdits());
  f.sim_argv = texts(r.getSimArgv());
  f.sim_environment = texts(r.getSimEnvironment());
  f.run_dir = text(r.getRunDir());
  for (auto input : r.getInputs()) {
    const auto data = input.getContent();
    f.inputs.push_back({text(input.getPath()), std::string(reinterpret_cast<const char*>(data.begin()), data.size())});
  }
  f.inputs_note = text(r.getInputsNote());
  f.verdict = static_cast<Verdict>(static_cast<uint16_t>(r.getVerdict()));
  f.error_line = text(r.getErrorLine());
  if (r.getVerdictTime() >= 0) f.verdict_time = r.getVerdictTime();
  if (r.getCycles() >= 0) f.cycles = r.getCycles();
  return f;
}

std::string facts_json(const ReproFacts& f) {
  JsonWriter w;
  auto list = [&w](std::string_view key, const std::vector<std::string>& items) {
    w.key(key).begin_array();
    for (const auto& item : items) w.value(item);
    w.end_array();
  };
  w.begin_object().field("run_id", f.run_id).field("iteration", f.iteration).field("task_id", f.task_id);
  w.field("workload", f.workload).field("checkout", f.checkout).field("checkout_commit", f.checkout_commit);
  w.field("source_fingerprint", f.source_fingerprint).field("verilator", f.verilator);
  w.field("mace_version", f.mace_version).field("mace_commit", f.mace_commit).field("host", f.host);
  w.field("build_id", f.build_id).field("repro_build_id", repro_build_id(f.build_id));
  list("build_argv", f.build_argv);
  list("build_environment", f.build_environment);
  w.field("rtl_edits", f.rtl_edits);
  list("sim_argv", f.sim_argv);
  list("sim_environment", f.sim_environment);
  w.field("run_dir", f.run_dir);
  w.key("inputs").begin_array();
  for (const auto& input : f.inputs)
    w.begin_object().field("path", input.path).field("base64", os::base64_encode(input.content)).end_object();
  w.end_array();
  w.field("inputs_note", f.inputs_note).field("verdict", std::string(to_string(f.verdict)));
  w.field("error_line", f.error_line);
  w.key("verdict_time");
  f.verdict_time ? w.value(*f.verdict_time) : w.null();
  w.key("cycles");
  f.cycles ? w.value(*f.cycles) : w.null();
  w.end_object();
  return w.str();
}

}  // namespace

int cmd_repro(const GlobalOptions& global, const Arguments& args) {
  if (args.positional.size() != 1) {
    std::cerr << "usage: mace repro RUN [--iteration N] [--task TASK] [--workload WORKLOAD] [-o FILE]\n";
    return kExitBadInput;
  }
  const std::optional<uint32_t> chosen_iteration = iteration_option(args);
  if (!chosen_iteration) return kExitBadInput;
  const uint32_t iteration = *chosen_iteration;
  const auto output = args.value("-o");
  if (output && output->empty()) {
    std::cerr << "mace: -o: needs a file name\n";
    return kExitBadInput;
  }
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto request = maced.reproRequest();
    request.setRunId(args.positional[0]);
    request.setIteration(iteration);
    request.setTaskId(args.value("--task").value_or(""));
    request.setWorkload(args.value("--workload").value_or(""));
    auto response = answered(request.send().wait(io.waitScope));
    const ReproFacts facts = facts_of(response.getFacts());
    const std::string text = global.json ? facts_json(facts) + "\n" : repro_script(facts);
    if (!output) {
      std::cout << text;
      return kExitOk;
    }
    {
      std::ofstream out(*output, std::ios::binary | std::ios::trunc);
      out << text;
      out.close();
      if (!out) {
        std::cerr << "mace repro: cannot write " << *output << "\n";
        return kExitBadInput;
      }
    }
    if (!global.json) ::chmod(output->c_str(), 0755);
    std::cout << *output << "\n";
    return kExitOk;
  });
}

}  // namespace mace::client
