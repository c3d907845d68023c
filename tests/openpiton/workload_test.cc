// Gate workloads: names to sims arguments, pico C preparation, finish masks, checksums.

#include "openpiton/workload.h"
#include "openpiton/workload_checksums.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "os/environment.h"
#include "os/process_group.h"
#include "support/child_process.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

fs::path project_workloads() { return fs::path(mace::testing::source_root()) / "workloads"; }

bool have_riscv_gcc() {
  const auto env = os::inherited_environment();
  const auto path = env.find("PATH");
  std::stringstream dirs(path == env.end() ? "/usr/local/bin:/usr/bin:/bin" : path->second);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && ::access((fs::path(dir) / "riscv64-unknown-elf-gcc").c_str(), X_OK) == 0)
      return true;
  }
  return false;
}

// A small workloads/ folder of our own: start.S from the project, plus test programs.
struct FakeWorkloads {
  mace::testing::TempDir dir;
  fs::path root() const { return fs::path(dir.path()) / "workloads"; }
  fs::path run_dir() const { return fs::path(dir.path()) / "run"; }
  FakeWorkloads() {
    fs::create_directories(root() / "pico");
    fs::copy_file(project_workloads() / "pico" / "start.S", root() / "pico" / "start.S");
    write_text(root() / "sum.c",
               "int main(int slot) {\n"
               "  volatile int s = 0;\n"
               "  for (int i = 0; i < 10; i++) s += i;\n"
               "  return (s == 45 && slot < MACE_TILES) ? 0 : 1;\n"
               "}\n");
    write_text(root() / "broken.c", "int main(int slot) {\n  return slot +\n}\n");
    write_text(root() / "sparc" / "hi.s", "! a sparc program\n");
    fs::create_directories(run_dir());
  }
  WorkloadContext context(Core core, int x, int y) const {
    WorkloadContext ctx;
    ctx.workloads_dir = root();
    ctx.run_dir = run_dir();
    ctx.core = core;
    ctx.x_tiles = x;
    ctx.y_tiles = y;
    ctx.environment = os::inherited_environment();
    return ctx;
  }
};

// ---- finish masks ------------------------------------------------------------------------

// REQ-VER-7
TEST(WorkloadFinishMask, OneBitPerTileAtBitFourN) {
  EXPECT_EQ(default_finish_mask(1, 1), "1");
  EXPECT_EQ(default_finish_mask(2, 1), "11");
  EXPECT_EQ(default_finish_mask(1, 2), "11");
  EXPECT_EQ(default_finish_mask(2, 2), "1111");
  EXPECT_EQ(default_finish_mask(3, 1), "111");
}

// REQ-VER-7
TEST(WorkloadFinishMask, LargeMeshesHaveOneHexDigitPerTile) {
  const std::string mask16 = default_finish_mask(16, 16);
  EXPECT_EQ(mask16.size(), 256u);
  EXPECT_EQ(mask16.find_first_not_of('1'), std::string::npos);
  const std::string mask256 = default_finish_mask(256, 256);
  EXPECT_EQ(mask256.size(), 65536u);
  EXPECT_EQ(mask256.find_first_not_of('1'), std::string::npos);
}

TEST(WorkloadFinishMask, EmptyMeshGivesNoMask) {
  EXPECT_EQ(default_finish_mask(0, 4), "");
  EXPECT_EQ(default_finish_mask(2, -1), "");
}

// ---- pico C programs ---------------------------------------------------------------------

// REQ-VER-7
// REQ-TOOL-5: the PicoRV32 programs build with the riscv64-unknown-elf GCC for rv32ima/ilp32.
TEST(WorkloadPico, CompilesCProgramIntoWrapperAndWakesEveryTileOf2x2) {
  if (!have_riscv_gcc()) GTEST_SKIP() << "riscv64-unknown-elf-gcc is not on PATH";
  FakeWorkloads w;
  const PreparedWorkload p = prepare_workload("sum", w.context(Core::pico, 2, 2));
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.diag_name, "sum.S");
  const std::string run = w.run_dir().string();
  EXPECT_THAT(p.sims_args, ElementsAre("-asm_diag_path=" + run,
                                       "-pre_process_cmd=cp " + run + "/wake.ev diag.ev"));

  const std::string wrapper = read_text(w.run_dir() / "sum.S");
  EXPECT_THAT(wrapper, HasSubstr("#define MACE_TILES 4\n"));
  EXPECT_THAT(wrapper, HasSubstr("#include \"" + (w.root() / "pico" / "start.S").string() + "\""));
  EXPECT_THAT(wrapper, HasSubstr("#include \"" + run + "/sum.c.s\""));
  const std::string assembly = read_text(w.run_dir() / "sum.c.s");
  EXPECT_THAT(assembly, HasSubstr("main:"));

  EXPECT_EQ(read_text(w.run_dir() / "wake.ev"),
            "trig_pc_d(1,64'h0000000040000000) -> intp(2, 1, 1)\n"
            "trig_pc_d(1,64'h0000000040000000) -> intp(4, 1, 1)\n"
            "trig_pc_d(1,64'h0000000040000000) -> intp(6, 1, 1)\n");
}

// REQ-VER-7
TEST(WorkloadPico, ProjectProgramsCompileAndLinkForEveryMeshSize) {
  if (!have_riscv_gcc()) GTEST_SKIP() << "riscv64-unknown-elf-gcc is not on PATH";
  for (const std::string name : {"hello", "memstress"}) {
    for (const auto& [x, y] : std::vector<std::pair<int, int>>{{1, 1}, {2, 1}, {2, 2}}) {
      mace::testing::TempDir run;
      WorkloadContext ctx;
      ctx.workloads_dir = project_workloads();
      ctx.run_dir = run.path();
      ctx.core = Core::pico;
      ctx.x_tiles = x;
      ctx.y_tiles = y;
      ctx.environment = os::inherited_environment();
      const PreparedWorkload p = prepare_workload(name, ctx);
      EXPECT_EQ(p.error, "") << name << " " << x << "x" << y;
      EXPECT_EQ(p.diag_name, name + ".S");
      EXPECT_EQ(p.sims_args.size(), x * y > 1 ? 2u : 1u);
    }
  }
}

TEST(WorkloadPico, SingleTileNeedsNoWakeEvents) {
  if (!have_riscv_gcc()) GTEST_SKIP() << "riscv64-unknown-elf-gcc is not on PATH";
  FakeWorkloads w;
  const PreparedWorkload p = prepare_workload("sum.c", w.context(Core::pico, 1, 1));
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.diag_name, "sum.S");
  EXPECT_THAT(p.sims_args, ElementsAre("-asm_diag_path=" + w.run_dir().string()));
  EXPECT_FALSE(fs::exists(w.run_dir() / "wake.ev"));
  EXPECT_THAT(read_text(w.run_dir() / "sum.S"), HasSubstr("#define MACE_TILES 1\n"));
}

TEST(WorkloadPico, WakeEventsUseHexThreadNumbers) {
  if (!have_riscv_gcc()) GTEST_SKIP() << "riscv64-unknown-elf-gcc is not on PATH";
  FakeWorkloads w;
  const PreparedWorkload p = prepare_workload("sum", w.context(Core::pico, 3, 3));
  ASSERT_EQ(p.error, "");
  const std::string events = read_text(w.run_dir() / "wake.ev");
  EXPECT_EQ(std::count(events.begin(), events.end(), '\n'), 8);
  EXPECT_THAT(events, HasSubstr("-> intp(a, 1, 1)\n"));   // tile 5
  EXPECT_THAT(events, HasSubstr("-> intp(10, 1, 1)\n"));  // tile 8
}

TEST(WorkloadPico, CompilerErrorIsReportedWithTheCompilersLine) {
  if (!have_riscv_gcc()) GTEST_SKIP() << "riscv64-unknown-elf-gcc is not on PATH";
  FakeWorkloads w;
  const PreparedWorkload p = prepare_workload("broken", w.context(Core::pico, 1, 1));
  EXPECT_EQ(p.diag_name, "");
  EXPECT_THAT(p.sims_args, IsEmpty());
  EXPECT_THAT(p.error, HasSubstr("compiling " + (w.root() / "broken.c").string()));
  EXPECT_THAT(p.error, HasSubstr("broken.c:3:1: error:"));
  EXPECT_EQ(p.problem, Failure::workload_not_built) << "no model would change it";
}

TEST(WorkloadPico, UndefinedSymbolIsCaughtBeforeSims) {
  if (!have_riscv_gcc()) GTEST_SKIP() << "riscv64-unknown-elf-gcc is not on PATH";
  FakeWorkloads w;
  write_text(w.root() / "calls.c",
             "int helper(void);\nint main(int slot) { return helper() + slot; }\n");
  const PreparedWorkload p = prepare_workload("calls", w.context(Core::pico, 1, 1));
  EXPECT_THAT(p.error, AllOf(HasSubstr("linking"), HasSubstr("undefined reference to `helper'")));
}

TEST(WorkloadPico, MissingCompilerIsAnError) {
  FakeWorkloads w;
  WorkloadContext ctx = w.context(Core::pico, 1, 1);
  ctx.environment = {{"PATH", w.dir.path()}};
  const PreparedWorkload p = prepare_workload("sum", ctx);
  EXPECT_THAT(p.error, HasSubstr("riscv64-unknown-elf-gcc"));
  EXPECT_EQ(p.diag_name, "");
  EXPECT_EQ(p.problem, Failure::none) << "the machine's, not the program's";
}

TEST(WorkloadPico, UnsafeRunDirectoryIsRefused) {
  FakeWorkloads w;
  for (const std::string bad : {"/tmp/a b", "/tmp/x;rm -rf y", "/tmp/$(id)", "/tmp/q'uote",
                                "relative/run"}) {
    WorkloadContext ctx = w.context(Core::pico, 2, 1);
    ctx.run_dir = bad;
    const PreparedWorkload p = prepare_workload("sum", ctx);
    EXPECT_THAT(p.error, HasSubstr("run directory")) << bad;
    EXPECT_THAT(p.sims_args, IsEmpty()) << bad;
  }
}

TEST(WorkloadPico, NameThatIsNotAnIdentifierOrIsDiagIsRefused) {
  FakeWorkloads w;
  write_text(w.root() / "diag.c", "int main(int s) { return s; }\n");
  write_text(w.root() / "my-prog.c", "int main(int s) { return s; }\n");
  EXPECT_THAT(prepare_workload("diag", w.context(Core::pico, 1, 1)).error, HasSubstr("identifier"));
  EXPECT_THAT(prepare_workload("my-prog", w.context(Core::pico, 1, 1)).error,
              HasSubstr("identifier"));
}

TEST(WorkloadPico, MeshLargerThanStartupStacksIsRefused) {
  FakeWorkloads w;
  const PreparedWorkload p = prepare_workload("sum", w.context(Core::pico, 32, 16));
  EXPECT_THAT(p.error, AllOf(HasSubstr("512 tiles"), HasSubstr("448")));
  EXPECT_EQ(p.diag_name, "");
}

TEST(WorkloadPico, UnknownNameNamesCoreAndFilesLookedFor) {
  FakeWorkloads w;
  const PreparedWorkload p = prepare_workload("nosuch", w.context(Core::pico, 1, 1));
  EXPECT_THAT(p.error, AllOf(HasSubstr("'nosuch'"), HasSubstr("core pico"),
                             HasSubstr((w.root() / "nosuch.c").string())));
  EXPECT_EQ(p.problem, Failure::workload_not_found);
}

// ---- checked before a run: found where sims will look ---------------------------------

TEST(WorkloadLookup, MacesOwnProgramsAreFoundForTheirCoreAndAMisspeltOneNamesWhereItLooked) {
  FakeWorkloads w;
  EXPECT_TRUE(find_workload("sum", Core::pico, w.root(), {}).found);
  EXPECT_TRUE(find_workload("sum.c", Core::pico, w.root(), {}).found);
  EXPECT_TRUE(find_workload("hi", Core::sparc, w.root(), {}).found);
  EXPECT_TRUE(find_workload("sparc/hi.s", Core::sparc, w.root(), {}).found);
  const WorkloadLookup helo = find_workload("helo", Core::pico, w.root(), {});
  EXPECT_FALSE(helo.found);
  EXPECT_THAT(helo.problem, AllOf(HasSubstr("'helo'"), HasSubstr("no such program"),
                                  HasSubstr((w.root() / "helo.c").string())));
  EXPECT_FALSE(find_workload("sum", Core::sparc, w.root(), {}).found) << "a pico program is not sparc's";
  EXPECT_FALSE(find_workload("bad name", Core::pico, w.root(), {}).found);
}

TEST(WorkloadLookup, ACheckoutDiagIsLookedForAsSimsDoesUnderEachCheckout) {
  FakeWorkloads w;
  const fs::path diags = fs::path(w.dir.path()) / "checkout" / "piton" / "verif" / "diag";
  write_text(diags / "assembly" / "riscv" / "pico" / "add.S", "add\n");
  write_text(diags / "assembly" / "a" / "twice.s", "1\n");
  write_text(diags / "assembly" / "b" / "twice.s", "2\n");
  write_text(w.root() / "extra" / "mine.S", "mine\n");  // sims also looks in the workloads folder
  EXPECT_TRUE(find_workload("add.S", Core::pico, w.root(), {diags}).found);
  EXPECT_TRUE(find_workload("mine.S", Core::pico, w.root(), {diags}).found);
  const WorkloadLookup missing = find_workload("addd.S", Core::pico, w.root(), {diags});
  EXPECT_FALSE(missing.found);
  EXPECT_THAT(missing.problem, AllOf(HasSubstr("'addd.S'"), HasSubstr(diags.string()),
                                     HasSubstr(w.root().string())));
  const WorkloadLookup twice = find_workload("twice.s", Core::pico, w.root(), {diags});
  EXPECT_FALSE(twice.found);
  EXPECT_THAT(twice.problem, HasSubstr("more than one diag of that name"));
  // A checkout maced cannot read here (a Slurm node's) is not judged.
  EXPECT_TRUE(find_workload("addd.S", Core::pico, w.root(), {"/nonexistent/piton/verif/diag"}).found);
}

// ---- sparc and stock diags ---------------------------------------------------------------

TEST(WorkloadSparc, ResolvesProgramsUnderSparcFolder) {
  FakeWorkloads w;
  const std::string expected_path = "-asm_diag_path=" + (w.root() / "sparc").string();
  for (const std::string name : {"hi", "hi.s", "sparc/hi.s"}) {
    const PreparedWorkload p = prepare_workload(name, w.context(Core::sparc, 2, 1));
    EXPECT_EQ(p.error, "") << name;
    EXPECT_EQ(p.diag_name, "hi.s") << name;
    EXPECT_THAT(p.sims_args, ElementsAre(expected_path)) << name;
  }
  EXPECT_FALSE(fs::exists(w.run_dir() / "wake.ev"));  // sparc diags wake their own threads
}

TEST(WorkloadSparc, CProgramIsNotASparcWorkload) {
  FakeWorkloads w;
  const PreparedWorkload missing = prepare_workload("sum", w.context(Core::sparc, 1, 1));
  EXPECT_THAT(missing.error, AllOf(HasSubstr("'sum'"), HasSubstr("core sparc"),
                                   HasSubstr((w.root() / "sparc" / "sum.s").string())));
  const PreparedWorkload c = prepare_workload("sum.c", w.context(Core::sparc, 1, 1));
  EXPECT_THAT(c.error, HasSubstr("not a program for sparc"));
}

TEST(WorkloadStock, NameWithExtensionIsACheckoutDiagFoundBesideOurs) {
  FakeWorkloads w;
  const std::string root_arg = "-asm_diag_root=" + w.root().string();
  const PreparedWorkload pico = prepare_workload("add.S", w.context(Core::pico, 2, 1));
  EXPECT_EQ(pico.error, "");
  EXPECT_EQ(pico.diag_name, "add.S");
  EXPECT_THAT(pico.sims_args, ElementsAre(root_arg));
  const PreparedWorkload sparc =
      prepare_workload("princeton-test-test.s", w.context(Core::sparc, 1, 1));
  EXPECT_EQ(sparc.error, "");
  EXPECT_EQ(sparc.diag_name, "princeton-test-test.s");
  EXPECT_THAT(sparc.sims_args, ElementsAre(root_arg));
  const PreparedWorkload ariane = prepare_workload("hello_world.c", w.context(Core::ariane, 1, 1));
  EXPECT_EQ(ariane.diag_name, "hello_world.c");
  EXPECT_THAT(ariane.sims_args, ElementsAre(root_arg));
}

TEST(WorkloadAriane, OurCProgramGoesToSimsAsIs) {
  FakeWorkloads w;
  const PreparedWorkload p = prepare_workload("sum", w.context(Core::ariane, 1, 1));
  EXPECT_EQ(p.error, "");
  EXPECT_EQ(p.diag_name, "sum.c");
  EXPECT_THAT(p.sims_args, ElementsAre("-asm_diag_path=" + w.root().string()));
}

TEST(WorkloadNames, OptionLikeOrTraversingNamesAreRefused) {
  FakeWorkloads w;
  for (const std::string bad : {"", "-x_tiles=4", "../etc/passwd", "a b.s", "a;b.s",
                                "pico/start.S", "sparc/../x.s"}) {
    const PreparedWorkload p = prepare_workload(bad, w.context(Core::pico, 1, 1));
    EXPECT_NE(p.error, "") << bad;
    EXPECT_EQ(p.diag_name, "") << bad;
  }
  // start.S is ours but not a program.
  EXPECT_THAT(prepare_workload("start.S", w.context(Core::pico, 1, 1)).error,
              HasSubstr("not a program"));
}

// ---- checksums ---------------------------------------------------------------------------

struct WorkloadsCopy {
  mace::testing::TempDir dir;
  fs::path root() const { return fs::path(dir.path()) / "workloads"; }
  WorkloadsCopy() { fs::copy(project_workloads(), root(), fs::copy_options::recursive); }
};

// REQ-BUD-7
TEST(WorkloadChecksums, ProjectWorkloadsVerifyClean) {
  ASSERT_TRUE(fs::exists(project_workloads() / "CHECKSUMS"));
  EXPECT_THAT(verify_workload_checksums(project_workloads()), IsEmpty());
}

// REQ-BUD-7
TEST(WorkloadChecksums, ProjectChecksumsCoverEveryProgram) {
  const std::string list = read_text(project_workloads() / "CHECKSUMS");
  for (const std::string path : {"hello.c", "memstress.c", "pico/start.S", "sparc/hello.s"}) {
    EXPECT_THAT(list, HasSubstr("  " + path + "\n")) << path;
  }
}

// REQ-BUD-8
TEST(WorkloadChecksums, ChangedFileIsReported) {
  WorkloadsCopy w;
  std::ofstream(w.root() / "hello.c", std::ios::app) << "/* edited */\n";
  const auto problems = verify_workload_checksums(w.root());
  ASSERT_THAT(problems, SizeIs(1));
  EXPECT_THAT(problems[0], AllOf(HasSubstr("hello.c"), HasSubstr("changed")));
}

// REQ-BUD-8
TEST(WorkloadChecksums, ExtraProgramIsReported) {
  WorkloadsCopy w;
  write_text(w.root() / "sparc" / "extra.s", "nop\n");
  write_text(w.root() / "notes.txt", "not a program\n");  // not covered
  const auto problems = verify_workload_checksums(w.root());
  ASSERT_THAT(problems, SizeIs(1));
  EXPECT_THAT(problems[0], AllOf(HasSubstr("sparc/extra.s"), HasSubstr("not listed")));
}

// REQ-BUD-8
TEST(WorkloadChecksums, MissingListedFileIsReported) {
  WorkloadsCopy w;
  fs::remove(w.root() / "memstress.c");
  const auto problems = verify_workload_checksums(w.root());
  ASSERT_THAT(problems, SizeIs(1));
  EXPECT_THAT(problems[0], AllOf(HasSubstr("memstress.c"), HasSubstr("missing")));
}

// REQ-BUD-8
TEST(WorkloadChecksums, MalformedLineIsReported) {
  WorkloadsCopy w;
  std::ofstream(w.root() / "CHECKSUMS", std::ios::app) << "not-a-digest  hello.c\n";
  const auto problems = verify_workload_checksums(w.root());
  ASSERT_THAT(problems, SizeIs(1));
  EXPECT_THAT(problems[0], AllOf(HasSubstr("CHECKSUMS line"), HasSubstr("malformed"),
                                 HasSubstr("hello.c")));
}

// REQ-BUD-8
TEST(WorkloadChecksums, MissingChecksumsFileIsReported) {
  WorkloadsCopy w;
  fs::remove(w.root() / "CHECKSUMS");
  const auto problems = verify_workload_checksums(w.root());
  ASSERT_THAT(problems, SizeIs(1));
  EXPECT_THAT(problems[0], HasSubstr("CHECKSUMS"));
}

// REQ-BUD-8
TEST(WorkloadChecksums, DuplicateAndEscapingEntriesAreReported) {
  WorkloadsCopy w;
  const std::string list = read_text(w.root() / "CHECKSUMS");
  const std::string first_line = list.substr(0, list.find('\n') + 1);
  std::ofstream(w.root() / "CHECKSUMS", std::ios::app)
      << first_line << std::string(64, '0') << "  ../outside.c\n";
  const auto problems = verify_workload_checksums(w.root());
  EXPECT_THAT(problems, SizeIs(2));
  EXPECT_THAT(problems, Contains(HasSubstr("a second time")));
  EXPECT_THAT(problems, Contains(HasSubstr("../outside.c")));
}

// REQ-BUD-7
TEST(WorkloadChecksums, MatchesSha256sumOutput) {
  // An independent digest: coreutils' sha256sum over the same file.
  WorkloadsCopy w;
  write_text(w.root() / "tiny.c", "int main(int s) { return s; }\n");
  const auto abs = mace::testing::run_process({"sha256sum", (w.root() / "tiny.c").string()});
  ASSERT_EQ(abs.exit_code, 0);
  const std::string digest = abs.out.substr(0, 64);
  std::ofstream(w.root() / "CHECKSUMS", std::ios::app) << digest << "  tiny.c\n";
  EXPECT_THAT(verify_workload_checksums(w.root()), IsEmpty());
}

}  // namespace
}  // namespace mace::openpiton
