#include "core/diagnosis.h"

#include <cctype>

#include "core/directive_line.h"
#include "core/planner_prompt.h"
#include "core/prompt_text.h"
#include "os/text.h"

namespace mace {
namespace {

constexpr size_t kTailBytes = 6000;
constexpr size_t kErrorLineBytes = 6000;
constexpr size_t kLabelChars = 80;

bool is_directive(std::string_view line) {
  for (std::string_view tag : {"DIAGNOSIS", "FIX"})
    if (directive_body(line, tag)) return true;
  return false;
}

void section(std::string& out, std::string_view title, std::string_view text) {
  if (text.empty()) return;
  out += "\n";
  out += title;
  out += ":\n";
  append_indented(out, text, "  ");
}

}  // namespace

std::string diagnosis_prompt(const RunSpec& spec, const FailedTaskReport& r, bool tools_offered) {
  std::string out =
      "A task of an OpenPiton hardware run failed. Diagnose why, and suggest the fix the "
      "next plan should make.\n\n";
  out += "Run: core " + std::string(to_string(spec.core)) + ", mesh " + std::to_string(spec.mesh_x) +
         "x" + std::to_string(spec.mesh_y) + "\nObjective:\n";
  append_indented(out, spec.objective, "  ");
  out += "Gate workloads:\n";
  append_list(out, spec.workloads);

  out += "\nFailed task\n";
  out += "  id: " + r.task_id + "\n";
  out += "  kind: " + std::string(to_string(r.kind)) + "\n";
  out += "  instruction:\n";
  append_indented(out, r.instruction, "    ");
  out += "  build flags:\n";
  if (r.build_flags.empty()) out += "    (OpenPiton's defaults)\n";
  for (const auto& flag : r.build_flags) append_indented(out, flag, "    ");
  out += "  build outcome: " + std::string(describe(r.build_outcome)) + "\n";
  out += "  verdict: " + (r.verdict ? std::string(to_string(*r.verdict)) : std::string("none (no simulation ran)")) + "\n";
  out += "  failure reason: " + std::string(to_string(r.failure_reason)) + "\n";

  if (!r.error_lines.empty())
    section(out, "Error lines of the build", digest_lines(r.error_lines, kErrorLineBytes));
  section(out, "End of the build output", tail_text(r.build_output_tail, kTailBytes));
  section(out, "End of the simulation log (sim.log)", tail_text(r.sim_log_tail, kTailBytes));
  section(out, "Status log (status.log)", tail_text(r.status_log, kTailBytes));
  section(out, "RTL edits the build carried (unified diff)", tail_text(r.rtl_diff, kTailBytes));
  if (!r.agent_without_edit.empty())
    section(out, "The rtl task's agent recorded no edit; its closing words were",
            tail_text(r.agent_without_edit, kTailBytes));
  if (!r.narrowing.empty()) {
    out += "\nNarrowing rebuilt the task with its changes from the default configuration "
           "undone; none of these passed:\n";
    append_list(out, r.narrowing);
  }
  if (r.waveform) {
    const auto& w = *r.waveform;
    out += "\nA waveform of " + w.workload + " exists: its simulation was run again with tracing, times " +
           std::to_string(w.from_time) + " to " + std::to_string(w.last_time) +
           " (500 per clock cycle) before the failure.";
    if (w.changed_last.empty()) {
      out += " No signal near the top of the design changed in it but clocks and counters.\n";
    } else {
      out += " The signals near the top of the design that changed last, latest first:\n";
      append_list(out, w.changed_last);
    }
  }
  if (tools_offered)
    out += std::string("\nYou have read-only diagnostic tools over this task's logs and run directories: "
                       "search the logs, read files, compare the transcript with a passing one, and list "
                       "the program's symbols") +
           (r.waveform ? "; and over the waveform: list its scopes and signals (wave_signals) and read "
                         "named signals' values over a window (wave_values)"
                       : "") +
           ". Use them when the text above is not enough.\n";
  out += "\nReply with exactly these two lines, each at the start of a line:\n"
         "DIAGNOSIS: <a short lower_snake_case label for the cause>\n"
         "FIX: <the change the next plan should make>\n";
  return out;
}

std::optional<Diagnosis> parse_diagnosis(std::string_view reply) {
  std::vector<std::string_view> lines = os::split_at_newlines(reply);
  std::optional<Diagnosis> found;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (auto body = directive_body(lines[i], "DIAGNOSIS"); body && !found && !body->empty()) {
      Diagnosis d;
      d.source = DiagnosisSource::llm;
      std::string label(*body);
      // Models often add a sentence after the label; the label is its first word group.
      for (char& c : label)
        if (c == '`' || c == '*') c = ' ';
      size_t start = label.find_first_not_of(' ');
      if (start == std::string::npos) continue;
      label = label.substr(start);
      if (size_t cut = label.find_first_of(" \t.,;:("); cut != std::string::npos && cut > 0)
        label = label.substr(0, cut);
      for (char& c : label) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      d.label = std::string(os::clip_utf8(label, kLabelChars));
      // Cut at a character boundary, bytes that only continue characters leave nothing.
      if (d.label.empty()) continue;
      found = d;
    }
  }
  if (!found) return std::nullopt;
  for (size_t i = 0; i < lines.size(); ++i) {
    auto body = directive_body(lines[i], "FIX");
    if (!body) continue;
    std::string fix(*body);
    // A fix may go on over the following lines, up to the next directive or blank line.
    for (size_t j = i + 1; j < lines.size() && !is_directive(lines[j]); ++j) {
      if (lines[j].find_first_not_of(" \t\r") == std::string_view::npos) break;
      fix += "\n" + std::string(lines[j]);
    }
    while (!fix.empty() && (fix.back() == '\r' || fix.back() == ' ')) fix.pop_back();
    found->fix = fix;
    break;
  }
  return found;
}

Diagnosis fallback_diagnosis() { return {"unknown", "retry with more context", DiagnosisSource::fallback, ""}; }

std::optional<Diagnosis> rule_diagnosis(const FailedTaskReport& r) {
  if (r.kind != TaskKind::unit_test || r.build_outcome != BuildOutcome::failed) return std::nullopt;
  bool pin_not_found = r.build_output_tail.find("%Error-PINNOTFOUND") != std::string::npos;
  for (const auto& line : r.error_lines)
    pin_not_found = pin_not_found || line.find("%Error-PINNOTFOUND") != std::string::npos;
  if (!pin_not_found) return std::nullopt;
  return Diagnosis{"testbench_mismatch",
                   "reconcile the testbench's port connections with the module's port list",
                   DiagnosisSource::rule, evidence_digest(r, 2000)};
}

std::string evidence_digest(const FailedTaskReport& r, size_t max_bytes) {
  if (!r.error_lines.empty()) return digest_lines(r.error_lines, max_bytes);
  if (!r.sim_log_tail.empty()) return tail_text(r.sim_log_tail, max_bytes);
  return tail_text(r.build_output_tail, max_bytes);
}

}  // namespace mace
