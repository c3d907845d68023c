// mace spec check FILE, mace submit FILE: run specs, checked locally or by maced.

#include <iostream>

#include "commands.h"
#include "core/run_spec.h"
#include "exit_codes.h"
#include "maced_connection.h"

namespace mace::client {

namespace {

void print_errors(const std::string& file, const FieldErrors& errors) {
  for (const auto& e : errors) std::cerr << file << ": " << e.to_string() << "\n";
}

// The one FILE argument of spec check and submit; false after saying why. At most one
// byte over the spec limit is read: parse_run_spec_json, here or in maced, refuses it.
bool read_spec_argument(const Arguments& args, const char* usage, std::string& file,
                        std::string& text) {
  if (args.positional.size() != 1) {
    std::cerr << "usage: " << usage << "\n";
    return false;
  }
  file = args.positional[0];
  std::string error;
  if (!read_input(file, kMaxSpecJsonBytes + 1, text, error)) {
    std::cerr << "mace: " << error << "\n";
    return false;
  }
  return true;
}

}  // namespace

int cmd_spec_check(const GlobalOptions&, const Arguments& args) {
  std::string file, text;
  if (!read_spec_argument(args, "mace spec check FILE", file, text)) return kExitBadInput;
  SpecParseResult parsed = parse_run_spec_json(text);
  if (!parsed.spec) {
    print_errors(file, parsed.errors);
    return kExitBadInput;
  }
  std::cout << run_spec_to_json(*parsed.spec, /*pretty=*/true) << "\n";
  return kExitOk;
}

int cmd_submit(const GlobalOptions& global, const Arguments& args) {
  std::string file, text;
  if (!read_spec_argument(args, "mace submit FILE [--watch] [--backend B] [--model M]", file, text)) return kExitBadInput;
  std::string run_id;
  int rc = with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto request = maced.submitRequest();
    // Exactly the bytes read, NULs included (a std::string would convert through its
    // C string and stop at the first): maced must judge what spec check judged.
    request.initSpec().setJson(kj::StringPtr(text.data(), text.size()));
    // REQ-PLAT-7/8: the command line picks vertex and gemini-2.5-flash unless --backend,
    // --model or the spec itself say otherwise; maced's own default (MACE_LLM) is for API
    // clients that leave the choice to it.
    SpecParseResult local = parse_run_spec_json(text);
    std::string backend = args.value("--backend").value_or(
        local.spec && local.spec->backend ? *local.spec->backend : "vertex");
    std::string model = args.value("--model").value_or(
        local.spec && local.spec->model && !args.value("--backend") ? *local.spec->model
        : backend == "vertex"                                      ? "gemini-2.5-flash"
                                                                   : "");
    request.setBackend(backend);
    request.setModel(model);
    auto response = request.send().wait(io.waitScope);
    if (response.getErrors().size() > 0) {
      for (auto e : response.getErrors())
        std::cerr << file << ": " << e.getPath().cStr() << ": " << e.getMessage().cStr() << "\n";
      return kExitBadInput;
    }
    run_id = response.getRunId().cStr();
    if (global.json)
      std::cout << "{\"run_id\":\"" << run_id << "\"}\n";
    else
      std::cout << run_id << "\n";
    std::cout.flush();
    return kExitOk;
  });
  if (rc != kExitOk || !args.has("--watch")) return rc;
  return watch_run(global, run_id);
}

}  // namespace mace::client
