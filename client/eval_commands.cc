// mace eval submit | status | results | report | cancel: evaluation batches (REQ-EVAL-*).
// maced renders every view (text, JSON, CSV, HTML) from its records; the client prints it.

#include <charconv>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "core/json_writer.h"
#include "exit_codes.h"
#include "maced_connection.h"
#include "maced_refusal.h"
#include "os/text.h"

namespace mace::client {
namespace {

// A suite is at most 1 MiB (eval/suite.h); one more byte shows it is too long.
constexpr std::size_t kMaxSuiteBytes = (1 << 20) + 1;

bool parse_unsigned(const std::optional<std::string>& text, const char* flag, uint64_t& out) {
  if (!text) return true;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), out);
  if (ec != std::errc() || end != text->data() + text->size()) {
    std::cerr << "mace eval submit: " << flag << " must be a non-negative integer, got \"" << *text
              << "\"\n";
    return false;
  }
  return true;
}

// One report of a batch, fetched and handed to `print`.
int fetch_report(const GlobalOptions& global, const std::string& batch, const std::string& format,
                 const std::function<int(const std::string&)>& print) {
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto request = maced.evalReportRequest();
    request.setBatchId(batch);
    request.setFormat(format);
    auto response = answered(request.send().wait(io.waitScope));
    return print(response.getText().cStr());
  });
}

}  // namespace

int cmd_eval_submit(const GlobalOptions& global, const Arguments& args) {
  constexpr const char* kUsageLine =
      "usage: mace eval submit SUITE --methods M[,M...] [--repeats N] [--seed S] [--keep-models]\n"
      "                        [--baseline-retries N] [--backend B] [--model M]";
  if (args.positional.size() != 1 || !args.value("--methods")) {
    std::cerr << kUsageLine << "\n";
    return kExitBadInput;
  }
  const Input input = read_input(args.positional[0], kMaxSuiteBytes);
  if (!input.error.empty()) {
    std::cerr << "mace eval submit: " << input.error << "\n";
    return kExitBadInput;
  }
  const std::string& suite = input.bytes;
  uint64_t repeats = 1, seed = 0, retries = 2;
  if (!parse_unsigned(args.value("--repeats"), "--repeats", repeats) ||
      !parse_unsigned(args.value("--seed"), "--seed", seed) ||
      !parse_unsigned(args.value("--baseline-retries"), "--baseline-retries", retries))
    return kExitBadInput;
  if (repeats > 100000 || retries > 100000) {
    std::cerr << "mace eval submit: --repeats and --baseline-retries must be at most 100\n";
    return kExitBadInput;
  }
  const std::string methods_text = *args.value("--methods");
  const std::vector<std::string_view> methods = os::split_at(methods_text, ',');
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto request = maced.evalSubmitRequest();
    request.setSuiteJson(suite);
    auto wire = request.initRequest();
    auto list = wire.initMethods(static_cast<unsigned>(methods.size()));
    for (size_t i = 0; i < methods.size(); ++i) list.set(static_cast<unsigned>(i), std::string(methods[i]));
    wire.setRepeats(static_cast<uint32_t>(repeats));
    wire.setSeed(seed);
    wire.setKeepModels(args.has("--keep-models"));
    wire.setBaselineRetries(static_cast<uint32_t>(retries));
    wire.setBackend(args.value("--backend").value_or(""));
    wire.setModel(args.value("--model").value_or(""));
    auto response = answered(request.send().wait(io.waitScope));
    if (response.getErrors().size() > 0) {
      for (auto e : response.getErrors())
        std::cerr << "mace eval submit: " << e.getPath().cStr() << ": " << e.getMessage().cStr()
                  << "\n";
      return kExitBadInput;
    }
    const std::string batch = response.getBatchId().cStr();
    if (global.json) {
      JsonWriter w;
      w.begin_object().field("batch_id", batch).end_object();
      std::cout << w.str() << "\n";
    } else {
      std::cout << batch << "\n";
    }
    return kExitOk;
  });
}

int cmd_eval_status(const GlobalOptions& global, const Arguments& args) {
  if (args.positional.size() != 1) {
    std::cerr << "usage: mace eval status BATCH\n";
    return kExitBadInput;
  }
  return fetch_report(global, args.positional[0], global.json ? "json" : "status",
                      [](const std::string& text) {
                        std::cout << text;
                        return kExitOk;
                      });
}

int cmd_eval_results(const GlobalOptions& global, const Arguments& args) {
  if (args.positional.size() != 1) {
    std::cerr << "usage: mace eval results BATCH [--csv]   (--json for JSON)\n";
    return kExitBadInput;
  }
  const std::string format = args.has("--csv") ? "csv" : global.json ? "json" : "text";
  return fetch_report(global, args.positional[0], format, [](const std::string& text) {
    std::cout << text;
    return kExitOk;
  });
}

int cmd_eval_report(const GlobalOptions& global, const Arguments& args) {
  auto output = args.value("-o");
  if (!output) output = args.value("--output");
  if (args.positional.size() != 1 || !output) {
    std::cerr << "usage: mace eval report BATCH -o FILE.html\n";
    return kExitBadInput;
  }
  return fetch_report(global, args.positional[0], "html", [&](const std::string& html) {
    std::ofstream out(*output, std::ios::binary | std::ios::trunc);
    out << html;
    out.close();
    if (!out) {
      std::cerr << "mace eval report: cannot write " << *output << "\n";
      return kExitBadInput;
    }
    if (!global.json) std::cout << "wrote " << *output << "\n";
    return kExitOk;
  });
}

int cmd_eval_cancel(const GlobalOptions& global, const Arguments& args) {
  if (args.positional.size() != 1) {
    std::cerr << "usage: mace eval cancel BATCH\n";
    return kExitBadInput;
  }
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto request = maced.evalCancelRequest();
    request.setBatchId(args.positional[0]);
    answered(request.send().wait(io.waitScope));
    return kExitOk;
  });
}

}  // namespace mace::client
