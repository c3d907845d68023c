#include "core/planner_prompt.h"

#include <string_view>

#include "core/joined.h"
#include "core/prompt_text.h"
#include "core/task_kind.h"
#include "os/text.h"

namespace mace {
namespace {

constexpr size_t kEditsDiffBytes = 8000;

bool is_blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

constexpr std::string_view kEllipsis = "…";

std::string more_lines(size_t n) {
  return std::string(kEllipsis) + " " + std::to_string(n) + (n == 1 ? " more line" : " more lines");
}

}  // namespace

std::string planner_prompt(const PromptInputs& in) {
  const RunSpec& spec = in.spec;
  std::string out;
  out += "You are planning the next iteration of an OpenPiton hardware run. Write a plan of "
         "tasks that reaches the objective on the target below.\n\n";

  out += "Core: ";
  out += to_string(spec.core);
  out += "\nTarget mesh: " + std::to_string(spec.mesh_x) + "x" + std::to_string(spec.mesh_y) +
         " (" + std::to_string(spec.mesh_x) + " tiles in x, " + std::to_string(spec.mesh_y) +
         " in y)\n";
  out += "Objective:\n";
  append_indented(out, spec.objective, "  ");
  out += "Gate workloads (the design passes only when every one of them passes):\n";
  append_list(out, spec.workloads);

  out += "\nOpenPiton's default cache geometry (what a task gets for each cache it does not "
         "override):\n";
  append_indented(out, in.default_caches, "  ");

  // The spec's own designs are where the user wants the search to start.
  if (spec.names_designs()) {
    out += "\nThe run spec names these designs as the starting point; plan a config task for each "
           "(its name as the task id, its caches in a CACHES: line, its defines in a CONFIG_RTL: "
           "line) unless the objective or an earlier iteration says otherwise:\n";
    for (const DesignPoint& design : spec.all_designs())
      out += "  - " + design.name + ": " + design_text(design) + "\n";
  }

  if (!in.diagnoses.empty()) {
    out += "\nEarlier diagnoses in this run, oldest first; do not repeat a failed approach:\n";
    for (const PriorDiagnosis& d : in.diagnoses) {
      out += "  - iteration " + std::to_string(d.iteration) + ", task " + d.task_id + ": " +
             d.label + "\n";
      out += "    suggested fix:\n";
      append_indented(out, d.fix, "      ");
      if (!d.evidence_digest.empty()) {
        out += "    evidence:\n";
        append_indented(out, d.evidence_digest, "      ");
      }
    }
  }

  if (!in.failure_digest.empty()) {
    out += "\nDigest of the failed task's build errors or simulation output:\n";
    append_indented(out, in.failure_digest, "  ");
  }

  if (!in.edited_files.empty()) {
    out += "\nEvery task starts from the RTL edits of the last task whose build succeeded. "
           "Files edited so far:\n";
    append_list(out, in.edited_files);
    if (!in.edits_diff.empty()) {
      out += "The edits, as a unified diff:\n";
      append_indented(out, tail_text(in.edits_diff, kEditsDiffBytes), "  ");
    }
  }

  if (!in.rejection_reasons.empty()) {
    out += "\nYour previous plan was rejected. Write a new plan that avoids these reasons:\n";
    append_list(out, in.rejection_reasons);
  }

  std::vector<std::string_view> kinds;
  for (TaskKind kind : kAllTaskKinds)
    if (kind != TaskKind::rtl || in.rtl_edits) kinds.push_back(to_string(kind));
  out += "\nReply format. Only these lines are read; write each at the start of a line, exactly as shown:\n"
         "TASK: <id> | deps=<ids> | kind=<kind> | <instruction>\n"
         "    <ids> is a comma-separated list of the ids of tasks this one depends on, empty "
         "when none.\n"
         "CACHES: <task id> | <name>=<size>,<associativity> ...\n"
         "    <name> is one of l1i, l1d, l15, l2; <size> and <associativity> are positive "
         "integers; caches not named keep the defaults above.\n"
         "CONFIG_RTL: <task id> | <FLAG> ...\n"
         "    each <FLAG> is an upper-snake-case RTL define.\n"
         "Allowed kinds: " +
         joined(kinds) + ".\n";
  if (!in.rtl_edits)
    out += "RTL edits are off for this run: do not plan rtl tasks or edit source files.\n";
  return out;
}

std::string digest_lines(const std::vector<std::string>& lines, size_t max_bytes) {
  std::vector<std::string_view> kept;
  for (std::string_view line : lines) {
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
    if (!is_blank(line)) kept.push_back(line);
  }
  const size_t n = kept.size();

  // joined_size[k]: bytes of the first k lines joined by '\n'.
  std::vector<size_t> joined_size(n + 1, 0);
  for (size_t k = 1; k <= n; ++k)
    joined_size[k] = joined_size[k - 1] + kept[k - 1].size() + (k > 1 ? 1 : 0);
  if (joined_size[n] <= max_bytes) {
    std::string out;
    for (size_t i = 0; i < n; ++i) {
      if (i > 0) out += '\n';
      out += kept[i];
    }
    return out;
  }

  for (size_t k = n; k-- > 1;) {
    std::string tail = more_lines(n - k);
    if (joined_size[k] + 1 + tail.size() > max_bytes) continue;
    std::string out;
    for (size_t i = 0; i < k; ++i) {
      out += kept[i];
      out += '\n';
    }
    return out + tail;
  }

  // Not even the first line fits whole: a cut first line still says more than a bare
  // count, since build logs often put the one error that matters on a very long line.
  std::string tail = n > 1 ? "\n" + more_lines(n - 1) : "";
  if (tail.size() + kEllipsis.size() < max_bytes) {
    std::string_view part = os::clip_utf8(kept[0], max_bytes - tail.size() - kEllipsis.size());
    if (!part.empty()) return std::string(part) + std::string(kEllipsis) + tail;
  }
  if (std::string count = more_lines(n); count.size() <= max_bytes) return count;
  return max_bytes >= kEllipsis.size() ? std::string(kEllipsis) : std::string();
}

}  // namespace mace
