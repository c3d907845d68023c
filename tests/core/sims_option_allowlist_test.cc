// The sims options a run spec may give a workload (sims_option_allowlist.h), on their own
// and as the spec's rules report them, in the JSON and in the typed (structured) form.

#include "core/sims_option_allowlist.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/run_spec.h"
#include "run_spec_test_support.h"

namespace mace {
namespace {

using spec_test::valid_spec;
using testing::HasSubstr;
using testing::StartsWith;

// The one error of a spec whose workload add.S has `option`, read from JSON; and the same
// from the typed form, which must say the same.
FieldError option_error(const std::string& option) {
  std::string json = R"({"workloads": ["add.S"], "objective": "o",
    "workload_args": {"add.S": {"options": [)" + std::string("\"") + option + "\"]}}}";
  SpecParseResult parsed = parse_run_spec_json(json);
  EXPECT_FALSE(parsed.spec) << option;
  RunSpec typed = valid_spec();
  typed.workloads = {"add.S"};
  typed.workload_args["add.S"].options = {option};
  FieldErrors typed_errors = validate_run_spec(typed);
  EXPECT_EQ(parsed.errors, typed_errors) << option;
  if (parsed.errors.size() != 1) {
    ADD_FAILURE() << option << ": " << parsed.errors.size() << " errors";
    return {};
  }
  return parsed.errors[0];
}

// spec-hardening finding 1: each option the probe got past the old blocklist is refused at
// submit, with the field path and a message that names the option.
TEST(SimsOptionAllowlist, EveryOptionTheProbeUsedIsRefusedNamingIt) {
  const std::vector<std::pair<std::string, std::string>> probes = {
      {"-model=/home/mallory/fake", "-model"},        // a simulator from the submitter's dir
      {"-sims_config=/home/mallory/sims.config", "-sims_config"},  // options read from a file
      {"-simslog_name=/var/lib/maced/mace.db", "-simslog_name"},   // truncates that file
      {"-vcdfile=/var/lib/maced/mace.db", "-vcdfile"},
      {"-injobq", "-injobq"},  // re-runs sims through -sim_q_command
      {"-regress", "-regress"},
      {"-sim_q_command=/home/mallory/x", "-sim_q_command"},
  };
  for (const auto& [option, name] : probes) {
    SCOPED_TRACE(option);
    FieldError e = option_error(option);
    EXPECT_EQ(e.path, "workload_args.add.S.options[0]");
    EXPECT_THAT(e.message, StartsWith(name + " "));
    EXPECT_TRUE(sims_option_problem(option).has_value());
  }
}

// spec-hardening finding 1: the old blocklist's own entries stay refused under the allowlist.
TEST(SimsOptionAllowlist, OptionsThatRunCommandsOrRelocateStayRefused) {
  for (const char* option :
       {"-pre_process_cmd=rm", "-post_process_cmd=x", "-other_sim_run_cmd=x", "-model_dir=/tmp",
        "-result_dir=/tmp", "-dv_root=/tmp", "-build_id=other", "-sys=x", "-x_tiles=4",
        "-vlt_build", "-gcc_args=-fplugin=x", "-rv32_target_triple=x", "-diaglist=x",
        "-group=x", "-jobcommand_name=x", "-tmp_dir=x", "-debug", "-pico", "-ariane"}) {
    SCOPED_TRACE(option);
    std::string name = std::string(option).substr(0, std::string(option).find('='));
    EXPECT_THAT(option_error(option).message, StartsWith(name + " is not a sims option"));
  }
}

// spec-hardening finding 1: what OpenPiton's diag lists give diags, in the forms the
// allowlist keeps.
TEST(SimsOptionAllowlist, DiagListTuningFormsAreAllowed) {
  for (const char* option :
       {"-fast_boot", "-nofast_boot", "-midas_args=-DTHREAD_COUNT=4", "-midas_args=-DSYNC_THREADS",
        "-midas_args=-DTHREAD_MASK=0xff", "-midas_args=-allow_tsb_conflicts",
        "-midas_args=-allow_empty_sections", "-midas_args=-allow_duplicate_tags",
        "-midas_args=-allow_illegal_page_sizes", "-midas_args=-allow_misaligned_tsb_base",
        "-midas_args=-ttefmt=sun4u", "-midas_args=-tsbtagfmt=tagtarget",
        "-midas_args=-default_radix=hex", "-midas_args=-pal_diag_args=-lenbytes=512",
        "-midas_args=-pal_diag_args=-nodisablel1_warmup", "-midas_args=-pal_diag_args=32",
        "-sim_run_args=+turn_off_exu_monitor", "-sim_run_args=+inst_check_off=1",
        "-sim_run_args=+tlb_slam=0x1f", "-sim_run_args=+FORCE_SNIPER_OFF"}) {
    EXPECT_EQ(sims_option_problem(option), std::nullopt) << option;
    RunSpec spec = valid_spec();
    spec.workload_args["hello"].options = {option};
    EXPECT_THAT(validate_run_spec(spec), testing::IsEmpty()) << option;
  }
}

// spec-hardening finding 1: midas runs cpp, m4, pal, as and ld; options that replace those
// programs, add their arguments (-o), read a configuration or write elsewhere are refused,
// and a define is a symbol with a word for its value.
TEST(SimsOptionAllowlist, MidasOptionsThatRunProgramsOrWriteFilesAreRefused) {
  for (const char* arg : {"-as_cmd=/tmp/x", "-cpp_args=-o", "-ld_args=-T", "-std_as_args",
                          "-config=/tmp/m", "-build_dir=/tmp", "-dest_dir=/tmp", "-I/tmp",
                          "-L/tmp", "-C/tmp", "-find_root=/tmp", "-file=x", "-project=x",
                          "-ttefmt=sun5", "-DX=a/b", "-D1X", "-D", "-DX=", "-pal_args=-o",
                          "-pal_diag_args=-o=/tmp/x", "-pal_diag_args=x.y", "DX"}) {
    SCOPED_TRACE(arg);
    std::string option = std::string("-midas_args=") + arg;
    FieldError e = option_error(option);
    EXPECT_THAT(e.message, StartsWith("-midas_args: "));
  }
}

// spec-hardening finding 1: a plusarg is +NAME[=VALUE] of word characters, never one of
// Verilator's own (some write files at the path they are given) nor one MACE sets to decide
// the verdict.
TEST(SimsOptionAllowlist, PlusargsThatWriteFilesOrDecideTheVerdictAreRefused) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"+verilator+prof+threads+file+/var/lib/maced/mace.db", "Verilator's own"},
      {"+verilator+coverage+file+/tmp/x", "Verilator's own"},
      {"+finish_mask=0", "set by MACE"},
      {"+good_trap0=400005a0", "set by MACE"},
      {"+bad_trap3=0", "set by MACE"},
      {"+TIMEOUT=1", "set by MACE"},
      {"+max_cycle=1", "set by MACE"},
      {"+dv_root=x", "set by MACE"},
      {"+stim_file=../x", "+NAME or +NAME=VALUE"},
      {"turn_off_exu_monitor", "+NAME or +NAME=VALUE"},
      {"+", "+NAME or +NAME=VALUE"},
      {"+a=", "+NAME or +NAME=VALUE"},
      {"-gui", "+NAME or +NAME=VALUE"},
  };
  for (const auto& [plusarg, why] : cases) {
    SCOPED_TRACE(plusarg);
    FieldError e = option_error("-sim_run_args=" + plusarg);
    EXPECT_THAT(e.message, StartsWith("-sim_run_args: "));
    EXPECT_THAT(e.message, HasSubstr(why));
  }
}

// spec-hardening finding 1: the diag lists' options that this OpenPiton's sims does not
// have (it stops with "Unprocessed argument") and the limits MACE sets from their own
// fields are refused with a message saying so.
TEST(SimsOptionAllowlist, DiagListOptionsSimsLacksOrMaceSetsSayWhy) {
  for (const char* option : {"-sas", "-nosas", "-sas_run_args=-DNO_MMU_REG_CMP", "-stub_mask=1",
                             "-sjm", "-vera_cov_obj=x"})
    EXPECT_THAT(option_error(option).message, HasSubstr("Unprocessed argument")) << option;
  EXPECT_THAT(option_error("-max_cycle=400000").message,
              HasSubstr("workload's own max_cycle field"));
  EXPECT_THAT(option_error("-rtl_timeout=50000").message,
              HasSubstr("workload's own rtl_timeout field"));
  EXPECT_THAT(option_error("-finish_mask=1").message,
              HasSubstr("workload's own finish_mask field"));
}

// spec-hardening finding 1: a switch takes no value, and a valued option without '=' would take the
// next argument (the diag's name) as its value.
TEST(SimsOptionAllowlist, SwitchesTakeNoValueAndValuedOptionsNeedOne) {
  EXPECT_THAT(option_error("-fast_boot=1").message, HasSubstr("is a switch"));
  EXPECT_THAT(option_error("-midas_args").message, HasSubstr("needs its value after '='"));
  EXPECT_THAT(option_error("-sim_run_args").message, HasSubstr("needs its value after '='"));
}

TEST(SimsOptionAllowlist, MessageListsTheAllowedOptions) {
  // spec-hardening finding 1
  EXPECT_EQ(allowed_sims_options(), "-fast_boot, -nofast_boot, -midas_args=..., -sim_run_args=...");
  EXPECT_THAT(option_error("-foo").message, HasSubstr(allowed_sims_options()));
}

}  // namespace
}  // namespace mace
