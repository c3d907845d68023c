#include "core/post_mortem.h"

#include <algorithm>
#include <cctype>

#include "core/directive_line.h"
#include "core/prompt_text.h"
#include "os/text.h"

namespace mace {
namespace {

constexpr std::string_view kTags[] = {"ASSESSMENT", "EXPLANATION", "NEXT_STEPS"};

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t start = s.find_first_not_of(" \t\r\n");
  return start == std::string::npos ? std::string() : s.substr(start);
}

}  // namespace

bool post_mortem_due(RunState final_state, int iterations) {
  return iterations >= 1 &&
         (final_state == RunState::failed || final_state == RunState::budget_exceeded);
}

std::string post_mortem_prompt(const PostMortemInputs& in) {
  std::string out =
      "An OpenPiton hardware run ended without reaching its objective. Assess why, for the "
      "engineer who will decide what to try next.\n\n";
  out += "Run: core " + std::string(to_string(in.spec.core)) + ", mesh " +
         std::to_string(in.spec.mesh_x) + "x" + std::to_string(in.spec.mesh_y) + "\nObjective:\n";
  append_indented(out, in.spec.objective, "  ");
  out += "Gate workloads:\n";
  append_list(out, in.spec.workloads);
  out += "\nThe run ended " + std::string(to_string(in.final_state)) + " after " +
         std::to_string(in.iterations) + (in.iterations == 1 ? " iteration" : " iterations") + ":\n";
  append_indented(out, in.reason, "  ");
  if (!in.diagnoses.empty()) {
    out += "\nDiagnoses of its failures, oldest first:\n";
    for (const PriorDiagnosis& d : in.diagnoses) {
      out += "  - iteration " + std::to_string(d.iteration) + ", task " + d.task_id + ": " +
             d.label + "\n    suggested fix:\n";
      append_indented(out, d.fix, "      ");
    }
  }
  if (!in.last_failure_digest.empty()) {
    out += "\nDigest of the last failure:\n";
    append_indented(out, in.last_failure_digest, "  ");
  }
  if (in.tools_offered)
    out += "\nYou have read-only diagnostic tools over the last failed task's logs and run "
           "directories.\n";
  out += "\nReply with these lines, each at the start of a line:\n"
         "ASSESSMENT: <exactly one of fixable_config, likely_hardware_limitation, inconclusive>\n"
         "EXPLANATION: <why>\n"
         "NEXT_STEPS: <what to try next>\n";
  return out;
}

std::optional<PostMortem> parse_post_mortem(std::string_view reply) {
  std::vector<std::string_view> lines = os::split_at_newlines(reply);
  std::string fields[3];
  bool seen[3] = {false, false, false};
  int current = -1;
  for (std::string_view line : lines) {
    int tag = -1;
    std::string_view body;
    for (int t = 0; t < 3; ++t) {
      if (auto b = directive_body(line, kTags[t])) {
        tag = t;
        body = *b;
        break;
      }
    }
    if (tag >= 0) {
      // The first of each tag counts; a model repeating the format later does not win.
      current = seen[tag] ? -2 : tag;
      if (!seen[tag]) fields[tag] = std::string(body);
      seen[tag] = true;
    } else if (current >= 1) {
      fields[current] += "\n" + std::string(line);
    }
  }
  if (!seen[0]) return std::nullopt;
  std::string assessment = trimmed(fields[0]);
  for (char& c : assessment) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (c == '`' || c == '*') c = ' ';
  }
  assessment = trimmed(assessment);
  if (size_t cut = assessment.find_first_of(" \t.,;:("); cut != std::string::npos)
    assessment = assessment.substr(0, cut);
  if (std::find(std::begin(kAssessments), std::end(kAssessments), assessment) ==
      std::end(kAssessments))
    return std::nullopt;
  return PostMortem{assessment, trimmed(fields[1]), trimmed(fields[2])};
}

}  // namespace mace
