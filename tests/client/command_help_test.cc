// The real `mace` binary's help: each command's own, the list of them, and the closest
// command or flag when one is mistyped. No daemon is needed for any of it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "core/enum_text.h"
#include "core/run_state.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

ProcessResult mace(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {mace_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

// The run states are said once (core/run_state.h): `mace list --help`, its refusal of an
// unknown state and the bash completion all name exactly those.
TEST(CommandHelpTest, EveryPlaceThatListsTheRunStatesNamesExactlyTheDaemons) {
  std::string help = mace({"list", "--help"}).out;
  help = std::regex_replace(help, std::regex("\\s+"), " ");
  EXPECT_THAT(help, HasSubstr("(" + enum_words<RunState>() + ")"));
  EXPECT_THAT(mace({"list", "--state", "finished"}).err,
              HasSubstr("unknown state \"finished\" (" + enum_words<RunState>() + ")"));
  std::ifstream in(source_root() + "/client/mace.bash-completion");
  std::stringstream completion;
  completion << in.rdbuf();
  std::smatch words;
  const std::string text = completion.str();
  ASSERT_TRUE(std::regex_search(text, words, std::regex("--state\\) COMPREPLY=\\(\\$\\(compgen -W \"([^\"]*)\"")));
  EXPECT_EQ(words[1].str(), enum_words<RunState>(" "));
}

TEST(CommandHelpTest, ACommandsHelpIsAboutThatCommandAlone) {
  auto r = mace({"submit", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, StartsWith("usage: mace submit FILE [--watch] [--backend B] [--model M] [--set CACHE=SIZE[,WAYS]]... "
                                    "[--sweep CACHE=SIZE,...]...\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("eval submit")));
  EXPECT_THAT(r.out, Not(HasSubstr("cancel")));
  EXPECT_EQ(mace({"help", "submit"}).out, r.out);
  EXPECT_EQ(mace({"submit", "-h"}).out, r.out);
  EXPECT_THAT(mace({"eval", "results", "--help"}).out,
              StartsWith("usage: mace eval results BATCH [--csv] [--raw]\n"));
}

// The commands that print what models, logs and people wrote say what --raw does; the
// others do not take it.
TEST(CommandHelpTest, CommandsPrintingModelAndLogTextTakeRaw) {
  for (std::vector<std::string> command : std::vector<std::vector<std::string>>{
           {"status"}, {"list"}, {"logs"}, {"calls"}, {"watch"}, {"eval", "status"}, {"eval", "results"}}) {
    command.push_back("--help");
    const auto r = mace(command);
    EXPECT_THAT(r.out, HasSubstr("[--raw]")) << command[0];
    EXPECT_THAT(r.out, HasSubstr("--raw prints that text exactly as it is")) << command[0];
  }
  const auto r = mace({"version", "--raw"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--raw"));
}

TEST(CommandHelpTest, TheOverallHelpListsEveryCommandOnALineOfItsOwn) {
  auto r = mace({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* line : {"\n  submit FILE [--watch] [--backend B] [--model M] [--set CACHE=SIZE[,WAYS]]... [--sweep CACHE=SIZE,...]...\n      ",
                           "\n  watch RUN ", "\n  eval submit SUITE --methods M[,M...] [--repeats N]",
                           "\n  eval cancel BATCH", "\n  spec check FILE", "\n  version "})
    EXPECT_THAT(r.out, HasSubstr(line));
  EXPECT_THAT(r.out, HasSubstr("`mace COMMAND --help`"));
  EXPECT_THAT(r.out, Not(HasSubstr("\n  mcp")));  // started by agents, not people
}

TEST(CommandHelpTest, AGroupWithoutItsSecondWordListsItsCommands) {
  auto r = mace({"eval"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("mace eval submit SUITE"));
  EXPECT_THAT(r.err, HasSubstr("mace eval cancel BATCH"));
  EXPECT_THAT(r.err, Not(HasSubstr("mace watch")));
  EXPECT_EQ(mace({"eval", "--help"}).exit_code, 0);
}

TEST(CommandHelpTest, AMistypedCommandGetsTheClosestOneNotTheWholeHelp) {
  auto r = mace({"sumbit", "spec.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown command \"sumbit\"; did you mean \"submit\"?"));
  EXPECT_THAT(r.err, Not(HasSubstr("Commands:")));
  EXPECT_THAT(mace({"eval", "sbumit"}).err, HasSubstr("did you mean \"eval submit\"?"));
  auto far = mace({"frobnicate"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_THAT(far.err, Not(HasSubstr("did you mean")));
  EXPECT_THAT(far.err, HasSubstr("`mace --help` lists the commands"));
}

TEST(CommandHelpTest, AMistypedFlagGetsTheClosestFlagOfThatCommand) {
  auto r = mace({"list", "--mnie"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("mace list: unknown option --mnie; did you mean --mine?"));
  EXPECT_THAT(r.err, HasSubstr("usage: mace list [--state S,...] [--mine] [--limit N]"));
  EXPECT_THAT(mace({"logs", "RUN", "--folow"}).err, HasSubstr("did you mean --follow?"));
}

TEST(CommandHelpTest, ABadOptionValueGetsThatOptionsOwnRule) {
  auto iteration = mace({"logs", "RUN", "--build", "--iteration", "x"});
  EXPECT_EQ(iteration.exit_code, 2);
  EXPECT_THAT(iteration.err, HasSubstr("usage: mace logs RUN"));
  EXPECT_THAT(iteration.err, HasSubstr("  --iteration: an iteration number, at most 1048576\n"));
  EXPECT_THAT(iteration.err, Not(HasSubstr("--tail:")));
  auto file = mace({"logs", "RUN", "--file", "-3"});
  EXPECT_EQ(file.exit_code, 2);
  EXPECT_THAT(file.err, HasSubstr("  --file: a log's id, as `mace logs RUN --list` shows it\n"));
  EXPECT_THAT(file.err, Not(HasSubstr("--tail:")));
  auto tail = mace({"logs", "RUN", "--sim", "hello", "--tail", "1000001"});
  EXPECT_EQ(tail.exit_code, 2);
  EXPECT_THAT(tail.err, HasSubstr("  --tail: a count of lines up to 100000\n"));
  EXPECT_THAT(tail.err, Not(HasSubstr("--iteration:")));
  // A mistake of shape, not of a value: the usage alone.
  auto shape = mace({"logs", "RUN", "--build", "--sim", "hello"});
  EXPECT_EQ(shape.exit_code, 2);
  EXPECT_THAT(shape.err, Not(HasSubstr("--tail:")));
}

}  // namespace
}  // namespace mace::testing
