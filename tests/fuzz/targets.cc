#include "targets.h"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <string>

#include <simdjson.h>

#include "core/diagnosis.h"
#include "core/json_writer.h"
#include "core/plan.h"
#include "core/post_mortem.h"
#include "core/run_spec.h"
#include "eval/suite.h"
#include "llm/cli_backend.h"
#include "llm/setup_error.h"
#include "llm/vertex_backend.h"
#include "mcp/mcp_server.h"
#include "openpiton/verdict.h"
#include "waveform/wave_query.h"
#include "os/text.h"
#include "rpc_frames_target.h"

namespace mace::fuzz {
namespace {

void require(bool holds, const std::string& what) {
  if (!holds) throw Violation(what);
}

void require_json(std::string_view text, const std::string& what) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (auto e = parser.parse(padded).get(root); e)
    throw Violation(what + " is not JSON (" + simdjson::error_message(e) + "): " +
                    std::string(text.substr(0, 200)));
}

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = os::utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// A run spec from a user (REQ-PLAN-4): refused with errors that are text people can read,
// or accepted as a spec that writes back out as JSON and reads back the same.
void check_spec(std::string_view input) {
  SpecParseResult parsed = parse_run_spec_json(input);
  for (const auto& e : parsed.errors)
    require(valid_utf8(e.to_string()), "a spec error is not valid UTF-8: " + e.to_string());
  if (!parsed.spec) {
    require(!parsed.errors.empty(), "a refused spec has no error");
    return;
  }
  require(validate_run_spec(*parsed.spec).empty(), "an accepted spec does not validate");
  const std::string again = run_spec_to_json(*parsed.spec);
  require_json(again, "the normalised spec");
  SpecParseResult reread = parse_run_spec_json(again);
  require(reread.spec.has_value(), "the normalised spec does not parse: " + again.substr(0, 200));
  require(*reread.spec == *parsed.spec, "the normalised spec reads back different: " + again.substr(0, 200));
}

// A planner's reply (REQ-PLAN-6..13): whatever it holds, `mace plan parse` writes JSON and a
// usable plan keeps every limit; a co-design search's reading differs only in the networks.
void check_plan(std::string_view input) {
  Plan plan = parse_plan(input);
  Plan codesign = parse_plan(input, {.network = true});
  require(codesign.tasks.size() == plan.tasks.size(), "the network grammar changed the tasks");
  for (const auto& t : plan.tasks) require(t.network.empty(), "a network outside a co-design search");
  for (const auto& t : codesign.tasks)
    require(t.network.empty() || std::find(std::begin(kNetworkNames), std::end(kNetworkNames), t.network) !=
                                     std::end(kNetworkNames),
            "a network sims does not build");
  require_json(plan_to_json(plan), "plan_to_json");
  require(plan.skipped.size() == plan.skip_reasons.size(), "a skipped line without its reason");
  require(plan.errors.size() <= kMaxPlanErrors + 1, "more errors listed than the limit");
  if (!plan.usable()) return;
  require(plan.tasks.size() <= kMaxPlanTasks, "a usable plan over the task limit");
  for (const auto& t : plan.tasks) {
    require(!t.id.empty() && t.id.size() <= kMaxTaskIdBytes, "a task id out of bounds");
    require(t.deps.size() <= kMaxTaskDeps, "a task over the dependency limit");
    require(t.instruction.size() <= kMaxInstructionBytes, "an instruction over its limit");
  }
}

// A simulation transcript (REQ-VER-2..4): the verdict does not depend on how the bytes
// arrive.
void check_verdict(std::string_view input) {
  openpiton::VerdictScanner whole;
  whole.feed(input);
  // Pieces cut at points drawn from the input itself, so the split is deterministic.
  openpiton::VerdictScanner pieces;
  std::size_t at = 0, step = 1;
  while (at < input.size()) {
    const std::size_t n = std::min(input.size() - at, step);
    pieces.feed(input.substr(at, n));
    at += n;
    step = 1 + (static_cast<unsigned char>(input[at - 1]) % 97);
  }
  require(whole.verdict() == pieces.verdict(),
          std::string("verdict ") + std::string(openpiton::to_string(whole.verdict())) +
              " whole but " + std::string(openpiton::to_string(pieces.verdict())) + " in pieces");
  require(whole.marker_line() == pieces.marker_line(), "the marker line depends on the pieces");
}

// A waveform a failing design wrote (daemon/waveform/vcd.h): read within its limits or
// refused as a WaveError, whatever the bytes; what changed last near the top keeps to its
// count, and a value reads as people read it without throwing.
void check_waveform(std::string_view input) {
  const waveform::VcdLimits limits{.max_header_bytes = 1 << 16, .max_signals = 256, .max_line_bytes = 1 << 12,
                                   .max_scope_depth = 16};
  std::istringstream in{std::string(input)};
  try {
    waveform::VcdReader reader(in, "fuzz.vcd", limits);
    require(reader.header().signals.size() <= limits.max_signals, "more signals than the limit");
    std::size_t changes = 0;
    std::uint64_t last = 0;
    bool any = false;
    reader.walk({.time = [&](std::uint64_t t) {
                   require(!any || t >= last, "time went back without an error");
                   last = t;
                   any = true;
                   return true;
                 },
                 .change = [&](std::string_view code, std::string_view value) {
                   ++changes;
                   for (std::size_t i : reader.header().by_code.count(std::string(code))
                                            ? reader.header().by_code.at(std::string(code))
                                            : std::vector<std::size_t>{})
                     (void)waveform::readable_value(value, reader.header().signals[i].width);
                 }},
                std::chrono::steady_clock::now() + std::chrono::seconds(5));
    const auto listing = waveform::list_signals(reader.header(), "TOP", "", 8);
    require(listing.shown.size() <= 8 && listing.child_scopes.size() <= 8, "a listing past its bound");
  } catch (const waveform::WaveError&) {
  }
}

const auto kNoon = std::chrono::system_clock::time_point(std::chrono::hours(24 * 20000 + 12));

// What a CLI agent printed (claude, opencode, agy): a reply or a classified failure,
// never an exception; the failure is text a person can read.
void check_cli_output(std::string_view input) {
  // The first byte picks where the rest goes, so stdout, stderr and the exit code all vary.
  const unsigned char pick = input.empty() ? 0 : static_cast<unsigned char>(input[0]);
  const std::string_view rest = input.empty() ? input : input.substr(1);
  const std::string_view out = (pick & 1) ? rest : std::string_view();
  const std::string_view err = (pick & 1) ? std::string_view() : rest;
  const int exit_code = (pick >> 1) % 3;
  for (auto parse : {llm::parse_claude_output, llm::parse_opencode_output,
                     llm::parse_antigravity_output}) {
    llm::Reply reply = parse(out, err, exit_code, kNoon);
    require(reply.ok || !reply.error.empty(), "a failed reply without an error");
    require(reply.usage.input_tokens >= 0 && reply.usage.output_tokens >= 0,
            "negative token counts");
    if (reply.retry_after) require(reply.retry_after->count() >= 0, "a negative retry wait");
  }
}

// Google's error bodies and key files: classified, or refused with SetupError.
void check_vertex(std::string_view input) {
  std::string message;
  std::optional<std::chrono::seconds> retry_after;
  const long status = input.empty() ? 400 : 400 + static_cast<unsigned char>(input[0]) % 200;
  llm::classify_vertex_error(status, input, std::string(input.substr(0, 20)), message, retry_after);
  require(!message.empty(), "an error classified without a message");
  try {
    llm::parse_google_key_file(input);
  } catch (const llm::SetupError&) {
  }
}

// A model's diagnosis and post-mortem replies (REQ-FAIL-1, 4, 10).
void check_triage_replies(std::string_view input) {
  if (auto d = parse_diagnosis(input)) {
    require(!d->label.empty() && d->label.size() <= 80 * 4, "a diagnosis label out of bounds");
    require(d->source == DiagnosisSource::llm, "a parsed diagnosis not from the llm");
  }
  if (auto pm = parse_post_mortem(input)) {
    bool known = false;
    for (auto a : kAssessments) known = known || pm->assessment == a;
    require(known, "a post-mortem with an unknown assessment: " + pm->assessment);
  }
}

class OneTool final : public mcp::ToolProvider {
 public:
  std::vector<mcp::Tool> list() override {
    mcp::Tool tool;
    tool.name = "diagnostics";
    tool.description = "d";
    tool.methods = {{"read_file", "r", R"({"type":"object","properties":{}})"}};
    return {tool};
  }
  mcp::ToolCallResult call(const std::string&, const std::string&, const std::string& args) override {
    return {true, args};
  }
};

// What an agent sends `mace mcp` (one JSON-RPC message per line): every answer is one line
// of JSON.
void check_mcp(std::string_view input) {
  OneTool tools;
  mcp::McpServer server(tools);
  std::size_t start = 0;
  while (start <= input.size()) {
    std::size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    if (auto answer = server.handle_line(input.substr(start, end - start))) {
      require(answer->find('\n') == std::string::npos, "an MCP answer spans lines");
      require_json(*answer, "an MCP answer");
    }
    start = end + 1;
  }
}

}  // namespace

// An evaluation suite from a user (REQ-EVAL-1): refused with readable errors, or accepted
// with every task's spec valid and every expert configuration a usable one-task plan.
void check_suite(std::string_view input) {
  eval::SuiteParseResult parsed = eval::parse_suite_json(input);
  for (const auto& e : parsed.errors)
    require(valid_utf8(e.to_string()), "a suite error is not valid UTF-8: " + e.to_string());
  if (!parsed.suite) {
    require(!parsed.errors.empty(), "a refused suite has no error");
    return;
  }
  for (const auto& task : parsed.suite->tasks) {
    require(validate_run_spec(task.spec).empty(), "an accepted task's spec does not validate");
    Plan plan = parse_plan(eval::config_plan_reply(task.spec, task.expert));
    require(plan.usable() && plan.tasks.size() == 1 && plan.skipped.empty(),
            "an accepted expert configuration is not a one-task plan");
  }
}

const std::vector<Target>& all_targets() {
  static const std::vector<Target> targets = {
      {"spec",
       {"\"core\"", "\"pico\"", "\"mesh\"", "\"workloads\"", "\"objective\"", "\"budget\"",
        "\"max_iterations\"", "\"max_usd\"", "\"max_wall_s\"", "\"workload_args\"", "\"options\"",
        "\"finish_mask\"", "\"replay\"", "\"tools\"", "\"core_descriptor\"", "true", "null", "[",
        "{", "\\u0000", "\\ud800"},
       1 << 20,
       check_spec},
      {"suite",
       {"\"suite\"", "\"tasks\"", "\"faults\"", "\"expert\"", "\"caches\"", "\"l1d\"",
        "\"size\"", "\"associativity\"", "\"defines\"", "\"area_budget\"", "\"kind\"",
        "\"source\"", "\"edits\"", "\"meshes\"", "[[1, 1]]", "true", "null", "[", "{", "\\u0000"},
       1 << 20,
       check_suite},
      {"plan",
       {"TASK:", "CACHES:", "CONFIG_RTL:", " | deps=", " | kind=config | ", "kind=rtl",
        "kind=unit_test", "l1d=16384,4", "**TASK:**", "- ", "none", "\n"},
       1 << 20,
       check_plan},
      {"verdict",
       {"Simulation -> PASS (HIT GOOD TRAP)", "Simulation -> FAIL(HIT BAD TRAP)",
        "Simulation -> FAIL(TIMEOUT)", "(terminated by reaching max cycles", "-> timeout happen",
        " : ", "->", "\n", "\r\n"},
       1 << 20,
       check_verdict},
      {"cli_output",
       {"{\"type\":\"result\"", "\"is_error\":true", "\"usage\"", "\"total_cost_usd\"",
        "\"step_finish\"", "\"tokens\"", "rate limit", "resets 4pm", "429", "\"error\""},
       1 << 18,
       check_cli_output},
      {"vertex",
       {"{\"error\":", "\"status\":\"RESOURCE_EXHAUSTED\"", "\"details\":[",
        "\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\"", "\"retryDelay\":\"30s\"",
        "\"type\":\"service_account\"", "\"private_key\""},
       1 << 18,
       check_vertex},
      {"triage_replies",
       {"DIAGNOSIS:", "FIX:", "ASSESSMENT:", "EXPLANATION:", "NEXT_STEPS:", "**", "- ",
        "fixable_config", "\n"},
       1 << 18,
       check_triage_replies},
      {"mcp",
       {"{\"jsonrpc\":\"2.0\"", "\"id\":1", "\"method\":\"tools/call\"", "\"method\":\"initialize\"",
        "\"params\":{\"name\":\"diagnostics_read_file\",\"arguments\":{}}", "\"method\":\"tools/list\"",
        "\n"},
       1 << 18,
       check_mcp},
      {"rpc_frames", rpc_frames_dictionary(), 1 << 16, check_rpc_frames},
      {"waveform",
       {"$scope module TOP $end\n", "$upscope $end\n", "$var wire 32 ! sig [31:0] $end\n",
        "$var wire 1 \" clk $end\n", "$enddefinitions $end\n", "$timescale 1ps $end\n", "#250\n", "1\"\n",
        "b0101 !\n", "bxz10 !\n", "$dumpvars\n"},
       1 << 18,
       check_waveform},
  };
  return targets;
}

}  // namespace mace::fuzz
