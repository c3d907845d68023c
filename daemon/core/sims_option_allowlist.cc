#include "core/sims_option_allowlist.h"

#include <algorithm>
#include <array>
#include <vector>

#include "core/joined.h"
#include "os/text.h"

// How sims treats what MACE puts after its own flags (sims,2.0, parse_args): Getopt::Long
// with prefix '-', exact names (no_auto_abbrev), case-sensitive, the last value of a scalar
// winning and list options (=s@) collecting every value in order; the config file's
// options (manycore.config) come before the command line. Anything Getopt does not take
// is a diag name if it contains ".s", ".S", ".c", ".pal", ".riscv" or ".image", and
// otherwise stops sims with "DIE. Unprocessed argument".

namespace mace {
namespace {

// [A-Za-z0-9_]+: a number (decimal, or hex with its 0x) or a symbol. No '/', '.', blank or
// shell character, so it can name neither a path nor a second word, and a file it names is
// one in the run directory, where sims and the simulator run.
bool is_word(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), os::is_word_char);
}

// "name=value" → {name, value, true}; "name" → {name, "", false}.
struct NameValue {
  std::string_view name;
  std::string_view value;
  bool has_value = false;
};

NameValue split_at_equals(std::string_view s) {
  size_t eq = s.find('=');
  if (eq == std::string_view::npos) return {s, {}, false};
  return {s.substr(0, eq), s.substr(eq + 1), true};
}

// ---------------------------------------------------------------- plusargs (-sim_run_args)

// -sim_run_args=VALUE: sims appends VALUE to the simulator's command line, which it runs
// through `sh -c` (generic_sim_run: `$model_path/obj_dir/Vcmp_top <sim_run_args>`). The
// diag lists use it for the testbench's plusargs (+turn_off_exu_monitor, +inst_check_off=1,
// ...). Allowed: +NAME or +NAME=VALUE, NAME an identifier, VALUE a word.
//   - Verilator's own runtime options are +verilator+...; a NAME cannot hold '+', so none
//     of them (+verilator+prof+threads+file+, +verilator+coverage+file+ and the others
//     that write files where they are told) can be given.
//   - The testbench reads plusargs with $test$plusargs / $value$plusargs as switches and
//     numbers (monitors on or off, checker limits, slam controls); the few it reads as
//     strings get a word, so at most a file name in the run directory.
//   - A word cannot break out of its shell word or name a program.
// Refused even so, because MACE sets them and decides the verdict by them: sims adds them
// after the spec's own, and the testbench takes the first of a repeated plusarg, so a
// spec's would silently win.
constexpr std::string_view kReservedPlusargs[] = {
    "finish_mask",      // workload_args.<program>.finish_mask (REQ-VER-7)
    "TIMEOUT",          // workload_args.<program>.rtl_timeout, or the spec's rtl_timeout
    "max_cycle",        // workload_args.<program>.max_cycle, or the spec's max_cycle
    "tg_seed",          // sims' random seed (0 unless sims is asked for one)
    "asm_diag_name",    // the workload MACE prepared
    "image_diag_name",  // the same, for an image diag
    "dv_root",          // the checkout the testbench reads its files from
};
// +good_trapN / +bad_trapN: the addresses that decide pass and fail, which sims reads
// from the assembled program's symbol table.
constexpr std::string_view kReservedPlusargPrefixes[] = {"good_trap", "bad_trap"};

std::optional<std::string> plusarg_problem(std::string_view plusarg) {
  const std::string rule = "-sim_run_args takes one testbench plusarg, +NAME or +NAME=VALUE "
                           "(NAME a letter or _ then letters, digits and _; VALUE letters, "
                           "digits and _)";
  if (plusarg.empty() || plusarg.front() != '+') return rule;
  NameValue nv = split_at_equals(plusarg.substr(1));
  if (!os::is_identifier(nv.name) || (nv.has_value && !is_word(nv.value))) {
    if (nv.name.starts_with("verilator"))
      return "Verilator's own +verilator+ options may not be given (some write files)";
    return rule;
  }
  bool reserved = std::find(std::begin(kReservedPlusargs), std::end(kReservedPlusargs),
                            nv.name) != std::end(kReservedPlusargs);
  for (std::string_view prefix : kReservedPlusargPrefixes)
    reserved = reserved || nv.name.starts_with(prefix);
  if (reserved)
    return "+" + std::string(nv.name) + " is set by MACE (its value decides the run's verdict)";
  return std::nullopt;
}

// ---------------------------------------------------------------- midas (-midas_args)

// -midas_args=VALUE: sims passes VALUE to midas, the SPARC diag assembler, on a command
// line it runs through the shell (assemble_diag: `midas <midas_args> diag.s`); only sparc
// runs assemble with midas (pico and ariane never read it). midas
// (piton/tools/perlmod/Midas) runs cpp, m4, pal, as and ld, and takes options that replace
// each of those programs (-<tool>_cmd), add arguments to them (-<tool>_args: -o writes any
// file), read its configuration from a file (-config), build and write elsewhere
// (-build_dir, -dest_dir), search paths (-I, -L, -C, -find_root, -diag_root): none of
// those is allowed. Allowed are the ones the diag lists use to tune a diag:

// Switches that only relax midas' own consistency checks of the diag's MMU sections.
constexpr std::string_view kMidasSwitches[] = {
    "allow_tsb_conflicts", "allow_empty_sections", "allow_duplicate_tags",
    "allow_illegal_page_sizes", "allow_misaligned_tsb_base"};

// Options with a fixed set of values, which midas itself checks (Midas::Interface): the
// TTE and TSB-tag formats of the MMU programming and how numbers without a prefix read.
struct Choice {
  std::string_view name;
  std::array<std::string_view, 2> values;
};
constexpr Choice kMidasChoices[] = {
    {"ttefmt", {"sun4u", "sun4v"}},
    {"tsbtagfmt", {"tagaccess", "tagtarget"}},
    {"default_radix", {"decimal", "hex"}},
};

// -pal_diag_args=ARG: midas runs a .pal diag (a Perl program of the checkout) as
// `pal <diag> <pal_diag_args>`, so ARG reaches the diag's own @ARGV, never pal's options
// (-o, -perl, -I come before the diag). The diags read them with Getopt (-lenbytes=512,
// -thrd_count=4) or as a number ($ARGV[0]). Allowed: -NAME, -NAME=VALUE or a number, NAME
// an identifier and VALUE a word, so the diag can only be given a symbol or a number.
std::optional<std::string> pal_diag_arg_problem(std::string_view arg) {
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!arg.empty() && std::all_of(arg.begin(), arg.end(), is_digit)) return std::nullopt;
  if (arg.size() >= 2 && arg.front() == '-') {
    NameValue nv = split_at_equals(arg.substr(1));
    if (os::is_identifier(nv.name) && (!nv.has_value || is_word(nv.value))) return std::nullopt;
  }
  return std::string("-pal_diag_args takes -NAME, -NAME=VALUE or a number (NAME a letter or _ "
                     "then letters, digits and _; VALUE letters, digits and _)");
}

// -DNAME or -DNAME=VALUE: a define for the preprocessor (cpp and m4) that reads the diag.
// A NAME and a word as VALUE stay one argument and one shell word; a define can change
// only what the diag assembles to. sims' own defines (-DPITON_NUM_TILES, ...) come after,
// so they win.
std::optional<std::string> midas_define_problem(std::string_view define) {
  NameValue nv = split_at_equals(define.substr(2));
  if (os::is_identifier(nv.name) && (!nv.has_value || is_word(nv.value))) return std::nullopt;
  return std::string("-D takes a preprocessor symbol and an optional value: -DNAME or "
                     "-DNAME=VALUE (NAME a letter or _ then letters, digits and _; VALUE "
                     "letters, digits and _)");
}

std::string midas_forms() {
  std::vector<std::string> forms = {"-DNAME[=VALUE]"};
  for (std::string_view s : kMidasSwitches) forms.push_back("-" + std::string(s));
  for (const Choice& c : kMidasChoices)
    forms.push_back("-" + std::string(c.name) + "=" + std::string(c.values[0]) + "|" +
                    std::string(c.values[1]));
  forms.push_back("-pal_diag_args=ARG");
  return joined(forms);
}

std::optional<std::string> midas_arg_problem(std::string_view arg) {
  if (arg.starts_with("-D")) return midas_define_problem(arg);
  if (arg.size() < 2 || arg.front() != '-')
    return "-midas_args takes one midas option: " + midas_forms();
  NameValue nv = split_at_equals(arg.substr(1));
  const bool is_switch = std::find(std::begin(kMidasSwitches), std::end(kMidasSwitches),
                                   nv.name) != std::end(kMidasSwitches);
  if (!nv.has_value && is_switch) return std::nullopt;
  for (const Choice& c : kMidasChoices) {
    if (nv.name != c.name) continue;
    if (nv.has_value && (nv.value == c.values[0] || nv.value == c.values[1])) return std::nullopt;
    return "midas -" + std::string(c.name) + " takes " + std::string(c.values[0]) + " or " +
           std::string(c.values[1]);
  }
  if (nv.name == "pal_diag_args" && nv.has_value) return pal_diag_arg_problem(nv.value);
  return "midas option -" + std::string(nv.name) + " may not be given (allowed: " +
         midas_forms() + ")";
}

// ---------------------------------------------------------------- sims itself

using ValueCheck = std::optional<std::string> (*)(std::string_view value);

struct AllowedOption {
  std::string_view name;   // without '-'
  ValueCheck value_check;  // null: a switch, given without a value
};

constexpr AllowedOption kAllowed[] = {
    // Runs the diag from a pre-initialised state: sims adds the plusarg +fast_boot and,
    // for sparc, -DFAST_BOOT to midas; both fixed strings. The diag lists give it to a
    // third of their diags.
    {"fast_boot", nullptr},
    // The default, which diag lists also spell out; it adds nothing.
    {"nofast_boot", nullptr},
    // Checked value by value above.
    {"midas_args", midas_arg_problem},
    {"sim_run_args", plusarg_problem},
};

// Options the diag lists give that MACE refuses for a reason worth saying: the general
// message would leave a user who copied a diag list's line wondering.
struct KnownRefusal {
  std::string_view name;
  std::string_view why;
};
constexpr std::string_view kNotInThisSims =
    " is OpenSPARC T1's and not an option of OpenPiton's sims, which stops with "
    "\"DIE. Unprocessed argument\"";
constexpr KnownRefusal kKnownRefusals[] = {
    {"max_cycle", " is set by MACE; give it as the workload's own max_cycle field"},
    {"rtl_timeout", " is set by MACE; give it as the workload's own rtl_timeout field"},
    {"finish_mask", " is set by MACE; give it as the workload's own finish_mask field"},
    {"sas", kNotInThisSims},          {"nosas", kNotInThisSims},
    {"sas_run_args", kNotInThisSims}, {"stub_mask", kNotInThisSims},
    {"sjm", kNotInThisSims},          {"nosjm", kNotInThisSims},
    {"sjm_diag_name", kNotInThisSims}, {"sjm_diag_root", kNotInThisSims},
    {"sjm_diag_path", kNotInThisSims}, {"tap_diag_root", kNotInThisSims},
    {"vera_cov_obj", kNotInThisSims}, {"novera_run", kNotInThisSims},
};

}  // namespace

std::string allowed_sims_options() {
  std::vector<std::string> forms;
  for (const AllowedOption& a : kAllowed)
    forms.push_back("-" + std::string(a.name) + (a.value_check ? "=..." : ""));
  return joined(forms);
}

std::optional<std::string> sims_option_problem(std::string_view option) {
  if (option.size() < 2 || option.front() != '-') return "must be a sims option starting with '-'";
  NameValue nv = split_at_equals(option.substr(1));
  const std::string shown = "-" + std::string(nv.name);
  for (const AllowedOption& a : kAllowed) {
    if (nv.name != a.name) continue;
    if (!a.value_check) {
      if (nv.has_value) return shown + " is a switch and takes no value";
      return std::nullopt;
    }
    // "-midas_args" alone would take the next argument (the diag's name) as its value.
    if (!nv.has_value) return shown + " needs its value after '=' (" + shown + "=...)";
    if (auto problem = a.value_check(nv.value)) return shown + ": " + *problem;
    return std::nullopt;
  }
  for (const KnownRefusal& r : kKnownRefusals)
    if (nv.name == r.name) return shown + std::string(r.why);
  return shown + " is not a sims option a run spec may give (allowed: " + allowed_sims_options() +
         ")";
}

}  // namespace mace
