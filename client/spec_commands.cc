// mace spec check FILE, mace submit FILE: run specs, checked locally or by maced.

#include <iostream>
#include <utility>

#include "commands.h"
#include "core/run_spec.h"
#include "exit_codes.h"
#include "maced_connection.h"
#include "maced_refusal.h"

namespace mace::client {

namespace {

void print_errors(const std::string& file, const FieldErrors& errors) {
  for (const auto& e : errors) std::cerr << file << ": " << e.to_string() << "\n";
}

struct SpecArgument {
  std::string file;
  std::string text;
};

// The spec with the command line's designs (--set, --sweep) laid over it: the same spec,
// written back normalised, so maced judges what the user sees with `spec check`. Problems
// name the option or, for the spec's own, the file; nothing then goes to maced.
std::optional<std::string> with_design_options(const Arguments& args, const std::string& file, const std::string& text) {
  const auto sets = args.values_of("--set");
  const auto sweeps = args.values_of("--sweep");
  if (sets.empty() && sweeps.empty()) return text;
  SpecParseResult parsed = parse_run_spec_json(text);
  if (!parsed.spec) {
    print_errors(file, parsed.errors);
    return std::nullopt;
  }
  if (FieldErrors errors = apply_design_options(parsed.spec->designs, parsed.spec->sweep, sets, sweeps);
      !errors.empty()) {
    print_errors("the command line", errors);
    return std::nullopt;
  }
  return run_spec_to_json(*parsed.spec);
}

// The one FILE argument of spec check and submit, with the command line's designs; nullopt
// after saying why. At most one byte over the spec limit is read: parse_run_spec_json, here
// or in maced, refuses it.
std::optional<SpecArgument> read_spec_argument(const Arguments& args, const char* usage) {
  if (args.positional.size() != 1) {
    std::cerr << "usage: " << usage << "\n";
    return std::nullopt;
  }
  Input input = read_input(args.positional[0], kMaxSpecJsonBytes + 1);
  if (!input.error.empty()) {
    std::cerr << "mace: " << input.error << "\n";
    return std::nullopt;
  }
  auto text = with_design_options(args, args.positional[0], input.bytes);
  if (!text) return std::nullopt;
  return SpecArgument{args.positional[0], std::move(*text)};
}

// REQ-PLAT-7/8: the command line picks vertex and gemini-2.5-flash unless --backend,
// --model or the spec itself say otherwise; maced's own default (MACE_LLM) is for API
// clients that leave the choice to it.
std::pair<std::string, std::string> chosen_backend(const Arguments& args, const SpecParseResult& local) {
  std::string backend = args.value("--backend").value_or(
      local.spec && local.spec->backend ? *local.spec->backend : "vertex");
  std::string model = args.value("--model").value_or(
      local.spec && local.spec->model && !args.value("--backend") ? *local.spec->model
      : backend == "vertex"                                      ? "gemini-2.5-flash"
                                                                 : "");
  return {backend, model};
}

// As print_errors: an error of the whole spec (invalid JSON, a NUL) has no path.
void print_remote_errors(const std::string& file, capnp::List<api::FieldError>::Reader errors) {
  FieldErrors local;
  for (auto e : errors) local.push_back({e.getPath().cStr(), e.getMessage().cStr()});
  print_errors(file, local);
}

// What only maced can tell of a valid spec (its workloads, tools, backend); exit 0 when
// it accepts the spec or cannot be asked, saying which.
int check_with_maced(const GlobalOptions& global, const Arguments& args, const std::string& file,
                     const std::string& text, const SpecParseResult& parsed) {
  const char* unchecked =
      "mace spec check: the spec's own fields are valid; its gate workloads, tools and backend "
      "were not checked (maced could not be asked)\n";
  const int rc = with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto request = maced.checkSpecRequest();
    request.initSpec().setJson(kj::StringPtr(text.data(), text.size()));
    const auto [backend, model] = chosen_backend(args, parsed);
    request.setBackend(backend);
    request.setModel(model);
    try {
      auto response = answered(request.send().wait(io.waitScope));
      if (response.getErrors().size() == 0) return kExitOk;
      print_remote_errors(file, response.getErrors());
      return kExitBadInput;
    } catch (const kj::Exception& e) {
      if (e.getType() != kj::Exception::Type::UNIMPLEMENTED) throw;
      std::cerr << unchecked;  // an older maced
      return kExitOk;
    }
  });
  if (rc == kExitUnreachable) {
    std::cerr << unchecked;
    return kExitOk;
  }
  return rc;
}

}  // namespace

int cmd_spec_check(const GlobalOptions& global, const Arguments& args) {
  const auto argument = read_spec_argument(args, "mace spec check FILE [--set C=S[,W]]... [--sweep C=S,S...]...");
  if (!argument) return kExitBadInput;
  const std::string& file = argument->file;
  const std::string& text = argument->text;
  SpecParseResult parsed = parse_run_spec_json(text);
  if (!parsed.spec) {
    print_errors(file, parsed.errors);
    return kExitBadInput;
  }
  if (int rc = check_with_maced(global, args, file, text, parsed); rc != kExitOk) return rc;
  std::cout << run_spec_to_json(*parsed.spec, /*pretty=*/true) << "\n";
  return kExitOk;
}

int cmd_submit(const GlobalOptions& global, const Arguments& args) {
  const auto argument = read_spec_argument(args, "mace submit FILE [--watch] [--backend B] [--model M] [--set C=S[,W]]... [--sweep C=S,S...]...");
  if (!argument) return kExitBadInput;
  const std::string& file = argument->file;
  const std::string& text = argument->text;
  std::string run_id;
  int rc = with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto request = maced.submitRequest();
    // Exactly the bytes read, NULs included (a std::string would convert through its
    // C string and stop at the first): maced must judge what spec check judged.
    request.initSpec().setJson(kj::StringPtr(text.data(), text.size()));
    const auto [backend, model] = chosen_backend(args, parse_run_spec_json(text));
    request.setBackend(backend);
    request.setModel(model);
    auto response = answered(request.send().wait(io.waitScope));
    if (response.getErrors().size() > 0) {
      print_remote_errors(file, response.getErrors());
      return kExitBadInput;
    }
    run_id = response.getRunId().cStr();
    print_accepted_run(global, run_id);
    return kExitOk;
  });
  return watch_if_asked(global, args, rc, run_id);
}

}  // namespace mace::client
