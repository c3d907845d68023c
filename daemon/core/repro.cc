#include "core/repro.h"

#include <string_view>

#include "os/base64.h"

namespace mace {
namespace {

// A command line as shell words: each element quoted; in `run_dir`'s place "$run" (the
// reproduction's own run directory); the build ID element replaced by the reproduction's.
std::string command_words(const std::vector<std::string>& argv, const std::string& build_id,
                          const std::string& run_dir) {
  std::string out;
  for (const std::string& arg : argv) {
    std::string word = arg;
    if (!build_id.empty() && arg == "-build_id=" + build_id) word = "-build_id=" + repro_build_id(build_id);
    out += out.empty() ? "" : " \\\n  ";
    if (run_dir.empty() || word.find(run_dir) == std::string::npos) {
      out += shell_quoted(word);
      continue;
    }
    for (std::size_t from = 0;;) {
      const std::size_t at = word.find(run_dir, from);
      const std::string piece = word.substr(from, at == std::string::npos ? std::string::npos : at - from);
      if (!piece.empty()) out += shell_quoted(piece);
      if (at == std::string::npos) break;
      out += "\"$run\"";
      from = at + run_dir.size();
    }
  }
  return out;
}

// `env -i NAME=value ...`: the recorded environment and nothing else of the caller's.
std::string environment_words(const std::vector<std::string>& environment) {
  std::string out = "env -i";
  for (const auto& entry : environment) out += " \\\n  " + shell_quoted(entry);
  return out;
}

// A here-document delimiter that no line of `text` is.
std::string delimiter_for(const std::string& text) {
  std::string delimiter = "MACE_REPRO_END";
  while (text.find(delimiter) != std::string::npos) delimiter += "_";
  return delimiter;
}

std::string here_document(const std::string& command, const std::string& text) {
  const std::string delimiter = delimiter_for(text);
  std::string out = command + " <<'" + delimiter + "'\n" + text;
  if (!text.empty() && text.back() != '\n') out += "\n";
  return out + delimiter + "\n";
}

std::string base64_lines(const std::string& content) {
  const std::string encoded = os::base64_encode(content);
  std::string out;
  for (std::size_t i = 0; i < encoded.size(); i += 76) out += encoded.substr(i, 76) + "\n";
  return out;
}

// A comment line: what a recorded text says, on one line.
std::string comment_text(const std::string& text) {
  std::string out;
  for (char c : text.substr(0, 400)) out += (c == '\n' || c == '\r') ? ' ' : c;
  return out;
}

// The verdict of a transcript as the spec's table reads it, in order (openpiton/verdict.h):
// `mace verdict` when it is installed (the very parser maced uses), else the same table in
// grep.
constexpr std::string_view kVerdictFunction = R"sh(verdict_of() {
  if command -v mace >/dev/null 2>&1 && mace verdict "$1" 2>/dev/null; then return; fi
  b='[[:blank:]]*'
  if grep -Eaiq "Simulation$b->${b}FAIL$b\\([^)]*TIMEOUT" "$1"; then echo timeout
  elif grep -Eaq "Simulation$b->${b}FAIL" "$1"; then echo fail
  elif grep -Eaq "Simulation$b->$b\\(terminated by reaching max cycles" "$1"; then echo maxcycles
  elif grep -Eaq "Simulation$b->${b}PASS([^E]|$)" "$1"; then echo pass
  elif grep -Eaq -- "->${b}timeout happen" "$1"; then echo timeout
  else echo none; fi
}
)sh";

}  // namespace

std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string repro_build_id(const std::string& build_id) { return "repro_" + build_id; }

std::string repro_script(const ReproFacts& f) {
  const std::string verdict(to_string(f.verdict));
  std::string s = "#!/bin/sh\n";
  s += "# mace repro: run " + comment_text(f.run_id) + ", iteration " + std::to_string(f.iteration) + ", task " +
       comment_text(f.task_id) + ", workload " + comment_text(f.workload) + ", by hand, outside maced.\n";
  s += "# Recorded: verdict " + verdict;
  if (f.verdict_time) s += " at time " + std::to_string(*f.verdict_time);
  if (f.cycles) s += " (" + std::to_string(*f.cycles) + " cycles)";
  s += "\n";
  if (!f.error_line.empty()) s += "#   " + comment_text(f.error_line) + "\n";
  s += "# Ran with MACE " + comment_text(f.mace_version) + " (" + comment_text(f.mace_commit) + ") on " +
       comment_text(f.host) + "; checkout " + comment_text(f.checkout) + " at OpenPiton " +
       comment_text(f.checkout_commit) + ", source fingerprint " + comment_text(f.source_fingerprint) + "; " +
       comment_text(f.verilator) + ".\n";
  s += "# It checks the checkout's commit, applies the task's RTL edits and takes them back when it\n"
       "# ends, builds the model as build ID " + comment_text(repro_build_id(f.build_id)) +
       " (maced's models are left\n"
       "# alone; remove it with: rm -r " + comment_text(f.checkout) + "/build/manycore/" +
       comment_text(repro_build_id(f.build_id)) + "), recreates what the\n"
       "# run directory held, simulates there and compares the verdict with the recorded one.\n"
       "# Works in $MACE_REPRO_DIR, else a new directory under ${TMPDIR:-/tmp}. Exit: 0 reproduced,\n"
       "# 1 not reproduced, 2 could not be set up.\n";
  s += "set -eu\n\n";
  s += "checkout=" + shell_quoted(f.checkout) + "\n";
  s += "work=${MACE_REPRO_DIR:-$(mktemp -d \"${TMPDIR:-/tmp}/mace-repro.XXXXXX\")}\n";
  s += "mkdir -p \"$work\"\nrun=\"$work/run\"\nrm -rf \"$run\"\nmkdir -p \"$run\"\n";
  s += "echo \"mace repro: working in $work\"\n";
  s += "cd \"$checkout\" || { echo \"mace repro: no checkout at $checkout\" >&2; exit 2; }\n\n";

  s += "# The checkout's commit: the run's was " + comment_text(f.checkout_commit) + ".\n";
  s += "expected=" + shell_quoted(f.checkout_commit) + "\n";
  s += "found=$(git rev-parse HEAD 2>/dev/null || echo unknown)\n";
  s += "if [ \"$found\" != \"$expected\" ]; then\n"
       "  echo \"mace repro: warning: the checkout is at $found, the run's was at $expected\" >&2\n"
       "fi\n\n";

  if (!f.rtl_edits.empty()) {
    s += "# The task's RTL edits, applied now and taken back when the script ends.\n";
    s += here_document("cat >\"$work/rtl_edits.patch\"", f.rtl_edits);
    s += "git apply --check \"$work/rtl_edits.patch\" ||\n"
         "  { echo \"mace repro: the task's RTL edits do not apply to $checkout\" >&2; exit 2; }\n";
    s += "git apply \"$work/rtl_edits.patch\"\n";
    s += "trap 'git -C \"$checkout\" apply -R \"$work/rtl_edits.patch\" && echo \"mace repro: RTL edits taken back\"' EXIT\n";
    s += "trap 'exit 2' INT TERM HUP\n\n";
  }

  s += "# The build, as maced ran it (" + std::to_string(f.build_argv.size()) + " arguments), under its own build ID.\n";
  s += "echo \"mace repro: building " + comment_text(repro_build_id(f.build_id)) + " (log: $work/build.log)\"\n";
  s += "if ! " + environment_words(f.build_environment) + " \\\n  " +
       command_words(f.build_argv, f.build_id, "") + " >\"$work/build.log\" 2>&1; then\n";
  s += "  tail -n 20 \"$work/build.log\" >&2\n"
       "  echo \"mace repro: the build failed; its log is $work/build.log\" >&2\n  exit 2\nfi\n\n";

  s += "# What the run directory held before sims started (" + std::to_string(f.inputs.size()) + " files).\n";
  if (!f.inputs_note.empty()) s += "# Not all: " + comment_text(f.inputs_note) + "\n";
  for (const auto& input : f.inputs) {
    const std::string target = "\"$run\"/" + shell_quoted(input.path);
    s += "mkdir -p \"$(dirname " + target + ")\"\n";
    s += here_document("base64 -d >" + target, base64_lines(input.content));
  }
  s += "\n# The simulation, as maced ran it, in the new run directory.\n";
  s += "echo \"mace repro: simulating " + comment_text(f.workload) + " in $run\"\n";
  s += "cd \"$run\"\n";
  s += environment_words(f.sim_environment) + " \\\n  " +
       command_words(f.sim_argv, f.build_id, f.run_dir) + " >\"$work/sims.out\" 2>&1 || true\n\n";

  s += kVerdictFunction;
  s += "\nverdict=$(verdict_of \"$run/sim.log\" 2>/dev/null || echo none)\n";
  s += "line=$(grep -Ea -m1 'Simulation[[:blank:]]*->' \"$run/sim.log\" 2>/dev/null || true)\n";
  s += "time=$(printf '%s\\n' \"$line\" | sed -nE 's/^[[:blank:]]*([0-9]+)[[:blank:]]*:.*/\\1/p')\n";
  s += "echo \"mace repro: verdict $verdict: $line\"\n";
  s += "echo \"mace repro: recorded " + verdict + (f.verdict_time ? " at time " + std::to_string(*f.verdict_time) : "") +
       "\"\n";
  s += "if [ \"$verdict\" = " + shell_quoted(verdict) + " ]";
  if (f.verdict_time) s += " && [ \"$time\" = " + shell_quoted(std::to_string(*f.verdict_time)) + " ]";
  s += "; then\n  echo \"mace repro: reproduced; sim.log is $run/sim.log\"\n  exit 0\nfi\n";
  s += "echo \"mace repro: NOT reproduced; sim.log is $run/sim.log\" >&2\nexit 1\n";
  return s;
}

}  // namespace mace
