#include "openpiton/rtl_edits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/child_process.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using mace::testing::ProcessResult;
using mace::testing::run_process;
using mace::testing::TempDir;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_text(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

// Everything on disk under `root` but .git: type, mode, content or link target. Two equal
// snapshots mean nothing in the tree changed, untracked and ignored files included.
struct Entry {
  char type = '?';
  unsigned mode = 0;
  std::string data;
  bool operator==(const Entry&) const = default;
};
using Snapshot = std::map<std::string, Entry>;

Snapshot snapshot(const fs::path& root, const std::vector<std::string>& skip = {}) {
  Snapshot out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    const std::string rel = it->path().lexically_relative(root).generic_string();
    bool skipped = rel == ".git";
    for (const std::string& s : skip) skipped = skipped || rel == s || rel.starts_with(s + "/");
    if (skipped) {
      if (it->is_directory() && !it->is_symlink()) it.disable_recursion_pending();
      continue;
    }
    struct stat st {};
    EXPECT_EQ(::lstat(it->path().c_str(), &st), 0);
    Entry entry;
    entry.mode = st.st_mode & 07777;
    if (S_ISLNK(st.st_mode)) {
      entry.type = 'l';
      entry.data = fs::read_symlink(it->path()).string();
    } else if (S_ISDIR(st.st_mode)) {
      entry.type = 'd';
    } else {
      entry.type = 'f';
      entry.data = read_text(it->path());
    }
    out[rel] = entry;
  }
  return out;
}

ProcessResult git(const fs::path& root, std::vector<std::string> args,
                  const std::string& stdin_text = "") {
  std::vector<std::string> argv = {"git", "-C", root.string(), "-c", "user.name=mace",
                                   "-c", "user.email=mace@example.invalid"};
  argv.insert(argv.end(), args.begin(), args.end());
  mace::testing::ProcessOptions options;
  options.stdin_text = stdin_text;
  options.set_env["GIT_CONFIG_NOSYSTEM"] = "1";
  return run_process(argv, options);
}

std::string tile_v() {
  std::string text = "// tile.v\nmodule tile (\n  input clk,\n  input rst_n\n);\n";
  for (int i = 0; i < 30; ++i) text += "  wire w" + std::to_string(i) + ";\n";
  text += "  assign w3 = clk;\n  assign w27 = rst_n;\nendmodule\n";
  return text;
}

// A small OpenPiton-shaped git checkout: design files, a testbench file outside the design,
// build/ ignored as in OpenPiton, one executable file to check that modes survive.
class EditCheckout {
 public:
  EditCheckout() {
    write_text(root() / "piton/design/chip/tile/rtl/tile.v", tile_v());
    write_text(root() / "piton/design/common/rtl/defines.vh",
               "`define WIDTH 64\n`define DEPTH 16\n`define WIDTH_ALIAS 64\n");
    write_text(root() / "piton/design/chip/tile/rtl/gen.pyv", "# no newline at end");
    ::chmod((root() / "piton/design/chip/tile/rtl/gen.pyv").c_str(), 0755);
    write_text(root() / "piton/verif/env/manycore/x.v", "module tb; endmodule\n");
    write_text(root() / "piton/piton_settings.bash", "export DV_ROOT=$PITON_ROOT/piton\n");
    write_text(root() / ".gitignore", "/build/\n");
    fs::create_directories(root() / "build");
    EXPECT_EQ(git(root(), {"init", "-q"}).exit_code, 0);
    EXPECT_EQ(git(root(), {"add", "-A"}).exit_code, 0);
    EXPECT_EQ(git(root(), {"commit", "-qm", "fixture"}).exit_code, 0);
  }

  fs::path root() const { return dir_.path(); }
  std::string porcelain() const {
    ProcessResult r = git(root(), {"status", "--porcelain", "--untracked-files=all"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }

 private:
  TempDir dir_;
};

constexpr const char* kTile = "piton/design/chip/tile/rtl/tile.v";
constexpr const char* kDefines = "piton/design/common/rtl/defines.vh";
constexpr const char* kGen = "piton/design/chip/tile/rtl/gen.pyv";
constexpr const char* kNew = "piton/design/chip/tile/rtl/added.v";

std::string refusal(const fs::path& root, std::string_view path) {
  try {
    resolve_design_path(root, path);
  } catch (const PathError& e) {
    return e.what();
  }
  return "accepted";
}

// ---- path policy (REQ-EXEC-14) -----------------------------------------------------------

// REQ-EXEC-14
TEST(DesignPathTest, AcceptsFilesInsideTheDesign) {
  EditCheckout checkout;
  DesignPath tile = resolve_design_path(checkout.root(), kTile);
  EXPECT_EQ(tile.relative, kTile);
  EXPECT_TRUE(tile.exists);
  EXPECT_EQ(tile.absolute, fs::canonical(checkout.root() / kTile));

  DesignPath messy = resolve_design_path(checkout.root(), "piton/design/./chip//tile/rtl/tile.v");
  EXPECT_EQ(messy.relative, kTile);

  DesignPath added = resolve_design_path(checkout.root(), kNew);
  EXPECT_EQ(added.relative, kNew);
  EXPECT_FALSE(added.exists);
}

// REQ-EXEC-14
TEST(DesignPathTest, RefusesParentComponentsAbsoluteAndMalformedPaths) {
  EditCheckout checkout;
  const Snapshot before = snapshot(checkout.root());
  EXPECT_THAT(refusal(checkout.root(), "../x"), HasSubstr("'..'"));
  EXPECT_THAT(refusal(checkout.root(), "piton/design/../../etc/passwd"), HasSubstr("'..'"));
  EXPECT_THAT(refusal(checkout.root(), "piton/design/chip/../common/rtl/defines.vh"),
              HasSubstr("'..'"));
  EXPECT_THAT(refusal(checkout.root(), "/etc/passwd"), HasSubstr("absolute"));
  EXPECT_THAT(refusal(checkout.root(), ""), HasSubstr("empty"));
  EXPECT_THAT(refusal(checkout.root(), std::string_view("piton/design/a\0.v", 18)),
              HasSubstr("NUL"));
  EXPECT_THAT(refusal(checkout.root(), "../x"), HasSubstr("'../x'"));  // names the path
  EXPECT_EQ(snapshot(checkout.root()), before);
}

// REQ-EXEC-14
TEST(DesignPathTest, RefusesPathsOutsideTheDesign) {
  EditCheckout checkout;
  EXPECT_THAT(refusal(checkout.root(), "piton/verif/env/manycore/x.v"),
              HasSubstr("outside piton/design/"));
  EXPECT_THAT(refusal(checkout.root(), "piton/designer/x.v"), HasSubstr("outside piton/design/"));
  EXPECT_THAT(refusal(checkout.root(), "piton/piton_settings.bash"), HasSubstr("outside"));
  EXPECT_THAT(refusal(checkout.root(), "piton/design"), HasSubstr("outside"));
  EXPECT_THAT(refusal(checkout.root(), "build/x.v"), HasSubstr("outside"));
}

// REQ-EXEC-14
TEST(DesignPathTest, RefusesDirectories) {
  EditCheckout checkout;
  EXPECT_THAT(refusal(checkout.root(), "piton/design/chip"), HasSubstr("directory"));
  EXPECT_THAT(refusal(checkout.root(), "piton/design/chip/"), HasSubstr("directory"));
  EXPECT_THAT(refusal(checkout.root(), "piton/design/chip/tile/rtl/tile.v/x"),
              HasSubstr("not a directory"));
}

// REQ-EXEC-14
TEST(DesignPathTest, RefusesSymlinkLeadingOutOfTheDesign) {
  EditCheckout checkout;
  TempDir outside;
  outside.write("victim.v", "outside\n");
  fs::create_symlink(outside.file("victim.v"), checkout.root() / "piton/design/evil.v");
  const std::string message = refusal(checkout.root(), "piton/design/evil.v");
  EXPECT_THAT(message, HasSubstr("escapes piton/design/ through symlink piton/design/evil.v -> " +
                                 outside.file("victim.v")));

  // Dangling: a write through it would create the file out there.
  fs::create_symlink(outside.file("not-yet/there.v"), checkout.root() / "piton/design/dangling.v");
  EXPECT_THAT(refusal(checkout.root(), "piton/design/dangling.v"), HasSubstr("escapes"));

  // Straight at /tmp, as a file and as a directory component.
  fs::create_symlink("/tmp", checkout.root() / "piton/design/tmpdir");
  fs::create_symlink("/tmp/mace-evil.v", checkout.root() / "piton/design/tmp.v");
  EXPECT_THAT(refusal(checkout.root(), "piton/design/tmpdir/x.v"),
              HasSubstr("through symlink piton/design/tmpdir -> /tmp"));
  EXPECT_THAT(refusal(checkout.root(), "piton/design/tmp.v"),
              HasSubstr("through symlink piton/design/tmp.v -> /tmp/mace-evil.v"));

  // Relative, into the testbench.
  fs::create_symlink("../verif/env/manycore/x.v", checkout.root() / "piton/design/tb.v");
  EXPECT_THAT(refusal(checkout.root(), "piton/design/tb.v"),
              HasSubstr("through symlink piton/design/tb.v -> ../verif/env/manycore/x.v"));

  // Staging and applying refuse it too, and nothing is written anywhere.
  const Snapshot before = snapshot(checkout.root());
  EXPECT_THROW(stage_replacement(checkout.root(), default_staging_dir(checkout.root()),
                                 {"piton/design/evil.v", "outside", "inside"}),
               PathError);
  EditSet set;
  set.edits.push_back(FullContent{"piton/design/evil.v", "owned\n"});
  EXPECT_THROW(apply_edits(checkout.root(), set), PathError);
  EXPECT_EQ(read_text(outside.file("victim.v")), "outside\n");
  EXPECT_EQ(snapshot(checkout.root()), before);
}

// REQ-EXEC-14
TEST(DesignPathTest, RefusesSymlinkedDirectoryComponentLeadingOut) {
  EditCheckout checkout;
  TempDir outside;
  outside.write("a.v", "module a; endmodule\n");
  fs::create_symlink(outside.path(), checkout.root() / "piton/design/ext");
  EXPECT_THAT(refusal(checkout.root(), "piton/design/ext/a.v"),
              HasSubstr("through symlink piton/design/ext -> " + outside.path()));
  EXPECT_THAT(refusal(checkout.root(), "piton/design/ext/new.v"), HasSubstr("escapes"));
  fs::create_symlink("../verif", checkout.root() / "piton/design/v");
  EXPECT_THAT(refusal(checkout.root(), "piton/design/v/env/manycore/x.v"), HasSubstr("escapes"));
}

// REQ-EXEC-14
TEST(DesignPathTest, FollowsSymlinksThatStayInside) {
  EditCheckout checkout;
  fs::create_symlink("chip/tile/rtl/tile.v", checkout.root() / "piton/design/alias.v");
  fs::create_symlink("../common", checkout.root() / "piton/design/chip/common_link");
  EXPECT_EQ(resolve_design_path(checkout.root(), "piton/design/alias.v").relative, kTile);
  EXPECT_EQ(resolve_design_path(checkout.root(), "piton/design/chip/common_link/rtl/defines.vh")
                .relative,
            kDefines);
  fs::create_symlink("loop_b", checkout.root() / "piton/design/loop_a");
  fs::create_symlink("loop_a", checkout.root() / "piton/design/loop_b");
  EXPECT_THAT(refusal(checkout.root(), "piton/design/loop_a"), HasSubstr("symlinks"));
}

// REQ-EXEC-14
TEST(DesignPathTest, RefusesADesignDirectoryThatIsASymlink) {
  TempDir checkout, elsewhere;
  fs::create_directories(fs::path(elsewhere.path()) / "rtl");
  fs::create_directories(fs::path(checkout.path()) / "piton");
  fs::create_symlink(elsewhere.path(), fs::path(checkout.path()) / "piton/design");
  EXPECT_THAT(refusal(checkout.path(), "piton/design/rtl/a.v"),
              HasSubstr("not a directory of the checkout"));
}

// ---- replacements ------------------------------------------------------------------------

TEST(RtlEditTest, ReplacementMustMatchExactlyOnePlace) {
  const std::string text = "`define WIDTH 64\n`define WIDTH_ALIAS 64\n";
  EXPECT_EQ(apply_replacement(text, {"f.vh", "WIDTH_ALIAS 64", "WIDTH_ALIAS 32"}),
            "`define WIDTH 64\n`define WIDTH_ALIAS 32\n");
  try {
    apply_replacement(text, {"piton/design/f.vh", "DEPTH", "X"});
    ADD_FAILURE();
  } catch (const EditError& e) {
    EXPECT_THAT(e.what(), HasSubstr("matches 0 places"));
    EXPECT_THAT(e.what(), HasSubstr("piton/design/f.vh"));
  }
  try {
    apply_replacement(text, {"piton/design/f.vh", "`define WIDTH", "X"});
    ADD_FAILURE();
  } catch (const EditError& e) {
    EXPECT_THAT(e.what(), HasSubstr("matches 2 places"));
    EXPECT_THAT(e.what(), HasSubstr("piton/design/f.vh"));
  }
  // Overlapping occurrences are ambiguous too.
  EXPECT_THROW(apply_replacement("aaa", {"f", "aa", "b"}), EditError);
  EXPECT_THROW(apply_replacement("abc", {"f", "", "x"}), EditError);
}

TEST(RtlEditTest, ReplacementsApplyInOrderToTheOriginal) {
  EditCheckout checkout;
  EditSet set;
  set.edits.push_back(TextReplacement{kDefines, "`define DEPTH 16", "`define DEPTH 32"});
  set.edits.push_back(TextReplacement{kDefines, "DEPTH 32", "DEPTH 48"});  // sees the first
  set.edits.push_back(TextReplacement{kNew, "", "module added; endmodule\n"});
  set.edits.push_back(TextReplacement{kNew, "added", "added2"});
  auto files = compute_edited_files(checkout.root(), set);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path.relative, kNew);
  EXPECT_FALSE(files[0].original.has_value());
  EXPECT_EQ(files[0].content, "module added2; endmodule\n");
  EXPECT_EQ(files[1].path.relative, kDefines);
  EXPECT_EQ(files[1].content, "`define WIDTH 64\n`define DEPTH 48\n`define WIDTH_ALIAS 64\n");

  EditSet missing;
  missing.edits.push_back(TextReplacement{kNew, "module", "x"});
  EXPECT_THROW(compute_edited_files(checkout.root(), missing), EditError);
}

TEST(RtlEditTest, EditedFilesAreNormalizedSortedAndUnique) {
  EditSet set;
  set.edits.push_back(TextReplacement{kTile, "a", "b"});
  set.edits.push_back(FullContent{kDefines, "x"});
  set.edits.push_back(TextReplacement{"piton/design/./chip/tile/rtl//tile.v", "b", "c"});
  EXPECT_EQ(edited_files(set), (std::vector<std::string>{kTile, kDefines}));
  EXPECT_TRUE(edited_files(EditSet{}).empty());
}

// ---- staging -----------------------------------------------------------------------------

// REQ-EXEC-14
TEST(StagedEditTest, StagingNeverWritesTheCheckout) {
  EditCheckout checkout;
  const fs::path staging = default_staging_dir(checkout.root());
  const Snapshot before = snapshot(checkout.root(), {"build"});

  EXPECT_EQ(stage_replacement(checkout.root(), staging, {kDefines, "DEPTH 16", "DEPTH 32"}),
            "`define WIDTH 64\n`define DEPTH 32\n`define WIDTH_ALIAS 64\n");
  // The second replacement sees the first: staging is cumulative.
  stage_replacement(checkout.root(), staging, {kDefines, "DEPTH 32", "DEPTH 8"});
  stage_replacement(checkout.root(), staging, {kTile, "assign w3 = clk;", "assign w3 = ~clk;"});
  stage_replacement(checkout.root(), staging, {kNew, "", "module added; endmodule\n"});
  EXPECT_THROW(stage_replacement(checkout.root(), staging, {kTile, "wire w", "x"}), EditError);
  EXPECT_THROW(stage_replacement(checkout.root(), staging, {"piton/verif/env/manycore/x.v", "tb", "x"}),
               PathError);

  EXPECT_EQ(snapshot(checkout.root(), {"build"}), before);
  EXPECT_EQ(checkout.porcelain(), "");
  EXPECT_EQ(read_text(staging / kDefines), "`define WIDTH 64\n`define DEPTH 8\n`define WIDTH_ALIAS 64\n");
  EXPECT_EQ(read_staged_or_checkout(checkout.root(), staging, kDefines),
            read_text(staging / kDefines));
  EXPECT_EQ(read_staged_or_checkout(checkout.root(), staging, kGen), "# no newline at end");

  EditSet staged = load_staged_edits(checkout.root(), staging);
  ASSERT_EQ(staged.edits.size(), 3u);
  EXPECT_EQ(std::get<FullContent>(staged.edits[0]).path, kNew);
  EXPECT_EQ(std::get<FullContent>(staged.edits[1]).path, kTile);
  EXPECT_EQ(std::get<FullContent>(staged.edits[2]).path, kDefines);
  EXPECT_EQ(std::get<FullContent>(staged.edits[2]).content, read_text(staging / kDefines));
  EXPECT_EQ(snapshot(checkout.root(), {"build"}), before);

  discard_staged_edits(staging);
  EXPECT_FALSE(fs::exists(staging));
  EXPECT_TRUE(load_staged_edits(checkout.root(), staging).empty());
}

// REQ-EXEC-16: an agent that changed a file back has recorded no edit there.
TEST(StagedEditTest, AFileChangedBackIsNoEdit) {
  EditCheckout checkout;
  const fs::path staging = default_staging_dir(checkout.root());
  stage_replacement(checkout.root(), staging, {kDefines, "DEPTH 16", "DEPTH 32"});
  stage_replacement(checkout.root(), staging, {kDefines, "DEPTH 32", "DEPTH 16"});
  EXPECT_TRUE(load_staged_edits(checkout.root(), staging).empty());
}

// ---- applying and restoring (REQ-EXEC-15, REQ-EXEC-17) -----------------------------------

EditSet sample_edits() {
  EditSet set;
  set.edits.push_back(TextReplacement{kTile, "assign w3 = clk;", "assign w3 = ~clk;"});
  set.edits.push_back(FullContent{kGen, "# regenerated\nprint('x')\n"});
  set.edits.push_back(TextReplacement{kDefines, "DEPTH 16", "DEPTH 32"});
  set.edits.push_back(FullContent{kNew, "module added; endmodule\n"});
  return set;
}

unsigned mode_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0);
  return st.st_mode & 07777;
}

// REQ-EXEC-15
TEST(AppliedEditsTest, ApplyThenRestoreLeavesTheCheckoutByteIdentical) {
  EditCheckout checkout;
  const Snapshot before = snapshot(checkout.root());
  {
    AppliedEdits applied = apply_edits(checkout.root(), sample_edits());
    EXPECT_TRUE(applied.active());
    EXPECT_EQ(applied.files(), (std::vector<std::string>{kNew, kGen, kTile, kDefines}));
    EXPECT_THAT(read_text(checkout.root() / kTile), HasSubstr("assign w3 = ~clk;"));
    EXPECT_EQ(read_text(checkout.root() / kGen), "# regenerated\nprint('x')\n");
    EXPECT_EQ(mode_of(checkout.root() / kGen), 0755u);  // mode kept while edited
    EXPECT_EQ(read_text(checkout.root() / kNew), "module added; endmodule\n");
    EXPECT_TRUE(fs::exists(checkout.root() / kJournalDir / "manifest"));
    EXPECT_EQ(checkout.porcelain(),
              " M piton/design/chip/tile/rtl/gen.pyv\n M piton/design/chip/tile/rtl/tile.v\n"
              " M piton/design/common/rtl/defines.vh\n?? piton/design/chip/tile/rtl/added.v\n");

    RestoreReport report = applied.restore();
    EXPECT_TRUE(report.ok());
    EXPECT_EQ(report.restored, (std::vector<std::string>{kGen, kTile, kDefines}));
    EXPECT_EQ(report.removed, (std::vector<std::string>{kNew}));
    EXPECT_FALSE(applied.active());
    EXPECT_TRUE(applied.restore().restored.empty());  // idempotent
  }
  EXPECT_EQ(checkout.porcelain(), "");
  EXPECT_EQ(snapshot(checkout.root()), before);
  EXPECT_FALSE(fs::exists(checkout.root() / kJournalDir));
}

// REQ-EXEC-15
TEST(AppliedEditsTest, DestructorRestoresWhenTheBuildFails) {
  EditCheckout checkout;
  const Snapshot before = snapshot(checkout.root());
  try {
    AppliedEdits applied = apply_edits(checkout.root(), sample_edits());
    EXPECT_NE(snapshot(checkout.root()), before);
    throw std::runtime_error("build failed");
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "build failed");
  }
  EXPECT_EQ(snapshot(checkout.root()), before);
  EXPECT_EQ(checkout.porcelain(), "");
}

// REQ-EXEC-15
TEST(AppliedEditsTest, CreatesANewFileAndRemovesItAgain) {
  EditCheckout checkout;
  const Snapshot before = snapshot(checkout.root());
  EditSet set;
  set.edits.push_back(FullContent{kNew, "module added; endmodule\n"});
  {
    AppliedEdits applied = apply_edits(checkout.root(), set);
    EXPECT_EQ(mode_of(checkout.root() / kNew), 0644u);
    EXPECT_EQ(checkout.porcelain(), "?? " + std::string(kNew) + "\n");
  }
  EXPECT_EQ(snapshot(checkout.root()), before);
  EXPECT_EQ(checkout.porcelain(), "");
}

// REQ-EXEC-15
TEST(AppliedEditsTest, RefusedEditSetWritesNothing) {
  EditCheckout checkout;
  const Snapshot before = snapshot(checkout.root());
  EditSet set = sample_edits();
  set.edits.push_back(TextReplacement{kTile, "wire w", "reg r"});  // 30 places
  EXPECT_THROW(apply_edits(checkout.root(), set), EditError);
  EditSet no_dir;
  no_dir.edits.push_back(FullContent{"piton/design/nowhere/x.v", "x"});
  EXPECT_THROW(apply_edits(checkout.root(), no_dir), EditError);
  EXPECT_EQ(snapshot(checkout.root()), before);
}

// REQ-EXEC-15
TEST(AppliedEditsTest, EmptyOrNoOpEditSetChangesNothing) {
  EditCheckout checkout;
  const Snapshot before = snapshot(checkout.root());
  EXPECT_FALSE(apply_edits(checkout.root(), EditSet{}).active());
  EditSet same;
  same.edits.push_back(FullContent{kTile, tile_v()});
  AppliedEdits applied = apply_edits(checkout.root(), same);
  EXPECT_FALSE(applied.active());
  EXPECT_EQ(snapshot(checkout.root()), before);
}

// REQ-EXEC-15
TEST(AppliedEditsTest, RefusesASecondApplyWhileEditsAreLive) {
  EditCheckout checkout;
  AppliedEdits applied = apply_edits(checkout.root(), sample_edits());
  EXPECT_THROW(apply_edits(checkout.root(), sample_edits()), EditError);
  RestoreReport leftover = restore_leftover_edits(checkout.root());
  EXPECT_FALSE(leftover.ok());  // not a leftover: its guard is alive
  EXPECT_THAT(read_text(checkout.root() / kTile), HasSubstr("~clk"));
  EXPECT_TRUE(applied.restore().ok());
  EXPECT_EQ(checkout.porcelain(), "");
}

// REQ-EXEC-17
TEST(AppliedEditsTest, LeftoverEditsOfAnAbandonedGuardAreRestored) {
  EditCheckout checkout;
  const Snapshot before = snapshot(checkout.root());
  EXPECT_TRUE(restore_leftover_edits(checkout.root()).restored.empty());  // nothing: no-op
  EXPECT_EQ(snapshot(checkout.root()), before);
  {
    AppliedEdits applied = apply_edits(checkout.root(), sample_edits());
    applied.release_without_restore();
  }
  EXPECT_NE(checkout.porcelain(), "");
  RestoreReport report = restore_leftover_edits(checkout.root());
  EXPECT_TRUE(report.ok());
  EXPECT_FALSE(report.discarded_incomplete_journal);
  EXPECT_EQ(report.restored, (std::vector<std::string>{kGen, kTile, kDefines}));
  EXPECT_EQ(report.removed, (std::vector<std::string>{kNew}));
  EXPECT_EQ(snapshot(checkout.root()), before);
  EXPECT_EQ(checkout.porcelain(), "");
  EXPECT_TRUE(restore_leftover_edits(checkout.root()).restored.empty());
}

// REQ-EXEC-17: a new apply first puts back what an interrupted task left, so the journal
// never records an edited file as an original.
TEST(AppliedEditsTest, ApplyRestoresLeftoverEditsFirst) {
  EditCheckout checkout;
  const Snapshot before = snapshot(checkout.root());
  apply_edits(checkout.root(), sample_edits()).release_without_restore();
  EditSet other;
  other.edits.push_back(TextReplacement{kDefines, "WIDTH 64\n", "WIDTH 128\n"});
  {
    AppliedEdits applied = apply_edits(checkout.root(), other);
    EXPECT_EQ(checkout.porcelain(), " M " + std::string(kDefines) + "\n");
    EXPECT_EQ(read_text(checkout.root() / kDefines),
              "`define WIDTH 128\n`define DEPTH 16\n`define WIDTH_ALIAS 64\n");
  }
  EXPECT_EQ(snapshot(checkout.root()), before);
}

pid_t fork_or_die() {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) std::abort();
  return pid;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// REQ-EXEC-17: maced killed after applying, before restoring.
TEST(AppliedEditsTest, EditsOfAKilledProcessAreRestored) {
  EditCheckout checkout;
  const Snapshot before = snapshot(checkout.root());
  pid_t pid = fork_or_die();
  if (pid == 0) {
    try {
      AppliedEdits applied = apply_edits(checkout.root(), sample_edits());
      ::_exit(0);  // no destructor, no restore: as if killed
    } catch (...) {
      ::_exit(3);
    }
  }
  ASSERT_EQ(wait_exit_code(pid), 0);
  EXPECT_NE(snapshot(checkout.root()), before);
  RestoreReport report = restore_leftover_edits(checkout.root());
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(report.restored.size(), 3u);
  EXPECT_EQ(snapshot(checkout.root()), before);
  EXPECT_EQ(checkout.porcelain(), "");
}

int g_crash_at = 0;
int g_steps = 0;
std::vector<std::string>* g_step_names = nullptr;
void crash_hook(std::string_view step) {
  if (g_step_names != nullptr) g_step_names->emplace_back(step);
  if (++g_steps == g_crash_at) ::_exit(77);
}

// REQ-EXEC-17: killed at every point of apply, then at every point of restore; the next
// restore_leftover_edits() always brings back the original tree.
TEST(AppliedEditsTest, RecoversFromACrashAtEveryStep) {
  EditCheckout checkout;
  const Snapshot before = snapshot(checkout.root());

  // Learn the steps once, in-process.
  std::vector<std::string> apply_steps, restore_steps;
  set_edit_step_hook(crash_hook);
  g_crash_at = 0;
  g_step_names = &apply_steps;
  AppliedEdits probe = apply_edits(checkout.root(), sample_edits());
  g_step_names = &restore_steps;
  EXPECT_TRUE(probe.restore().ok());
  g_step_names = nullptr;
  set_edit_step_hook(nullptr);
  ASSERT_EQ(snapshot(checkout.root()), before);
  ASSERT_GE(apply_steps.size(), 10u);  // journal dir, 3 originals, manifest x2, 4 x (temp, rename)
  ASSERT_GE(restore_steps.size(), 5u);

  for (bool in_restore : {false, true}) {
    const size_t count = in_restore ? restore_steps.size() : apply_steps.size();
    for (size_t n = 1; n <= count; ++n) {
      SCOPED_TRACE((in_restore ? "restore step " : "apply step ") + std::to_string(n) + " of " +
                   std::to_string(count));
      pid_t pid = fork_or_die();
      if (pid == 0) {
        try {
          g_steps = 0;
          g_crash_at = in_restore ? 0 : static_cast<int>(n);
          set_edit_step_hook(crash_hook);
          AppliedEdits applied = apply_edits(checkout.root(), sample_edits());
          g_steps = 0;
          g_crash_at = static_cast<int>(n);
          if (in_restore) (void)applied.restore();
          ::_exit(0);
        } catch (...) {
          ::_exit(3);
        }
      }
      ASSERT_EQ(wait_exit_code(pid), 77);
      RestoreReport report = restore_leftover_edits(checkout.root());
      EXPECT_TRUE(report.ok()) << (report.errors.empty() ? "" : report.errors.front());
      const bool before_manifest =
          !in_restore && std::find(apply_steps.begin(), apply_steps.begin() + static_cast<long>(n),
                                   "manifest") == apply_steps.begin() + static_cast<long>(n);
      if (before_manifest) {
        EXPECT_TRUE(report.restored.empty());
        EXPECT_TRUE(report.removed.empty());
      }
      EXPECT_EQ(snapshot(checkout.root()), before);
      EXPECT_EQ(checkout.porcelain(), "");
      EXPECT_FALSE(fs::exists(checkout.root() / kJournalDir));
    }
  }
}

// REQ-EXEC-17: a journal without a manifest is from an apply that changed nothing yet.
TEST(AppliedEditsTest, HalfWrittenJournalRestoresNothing) {
  EditCheckout checkout;
  const Snapshot before = snapshot(checkout.root(), {"build"});
  const fs::path journal = checkout.root() / kJournalDir;
  write_text(journal / "0.orig", "garbage that must not be written back\n");
  write_text(journal / "manifest.tmp", "mace-edit-journal 1\nbuild-dir-cre");
  RestoreReport report = restore_leftover_edits(checkout.root());
  EXPECT_TRUE(report.ok());
  EXPECT_TRUE(report.discarded_incomplete_journal);
  EXPECT_TRUE(report.restored.empty());
  EXPECT_TRUE(report.removed.empty());
  EXPECT_FALSE(fs::exists(journal));
  EXPECT_EQ(snapshot(checkout.root(), {"build"}), before);
  EXPECT_EQ(checkout.porcelain(), "");
}

// REQ-EXEC-17: a journal we cannot trust is kept, and nothing is written from it.
TEST(AppliedEditsTest, CorruptJournalIsReportedAndKept) {
  EditCheckout checkout;
  apply_edits(checkout.root(), sample_edits()).release_without_restore();
  const fs::path journal = checkout.root() / kJournalDir;
  std::vector<fs::path> copies;
  for (const auto& entry : fs::directory_iterator(journal)) {
    if (entry.path().extension() == ".orig") copies.push_back(entry.path());
  }
  ASSERT_FALSE(copies.empty());
  std::sort(copies.begin(), copies.end());
  write_text(copies.front(), "corrupted\n");
  RestoreReport report = restore_leftover_edits(checkout.root());
  EXPECT_FALSE(report.ok());
  EXPECT_THAT(report.errors.front(), HasSubstr("corrupt"));
  EXPECT_TRUE(fs::exists(journal / "manifest"));
  // Once repaired, the retry succeeds.
  write_text(copies.front(), "# no newline at end");  // gen.pyv sorts first among originals
  EXPECT_TRUE(restore_leftover_edits(checkout.root()).ok());
  EXPECT_EQ(checkout.porcelain(), "");
}

// ---- hash --------------------------------------------------------------------------------

TEST(EditsHashTest, IsStableAndPinned) {
  EditSet set;
  set.edits.push_back(TextReplacement{"piton/design/a.v", "x", "y"});
  // printf 'mace-rtl-edits 1\nfiles 1\n16:piton/design/a.vedits 1\nR1:x1:y' | sha256sum
  EXPECT_EQ(edits_hash(set), "ebe73ae5c6fcbfbb5ebd094899c5984ec66e37a163b859452f62423ad930bdf5");
  EXPECT_EQ(edits_hash(set), edits_hash(set));
  EXPECT_EQ(edits_hash(EditSet{}), "");
}

TEST(EditsHashTest, IsSensitiveToEveryByteAndPath) {
  const EditSet base = sample_edits();
  const std::string base_hash = edits_hash(base);
  EXPECT_EQ(base_hash.size(), 64u);
  std::set<std::string> seen = {base_hash};
  size_t variants = 0;
  for (size_t i = 0; i < base.edits.size(); ++i) {
    auto mutate_each_byte = [&](auto field_of) {
      EditSet copy = base;
      std::string& field = field_of(copy.edits[i]);
      for (size_t b = 0; b < field.size(); ++b) {
        const char saved = field[b];
        field[b] = static_cast<char>(saved ^ 0x01);
        EXPECT_TRUE(seen.insert(edits_hash(copy)).second) << "edit " << i << " byte " << b;
        field[b] = saved;
        ++variants;
      }
      field += ' ';  // and its length
      EXPECT_TRUE(seen.insert(edits_hash(copy)).second);
    };
    mutate_each_byte([](FileEdit& e) -> std::string& {
      return std::visit([](auto& x) -> std::string& { return x.path; }, e);
    });
    if (std::holds_alternative<TextReplacement>(base.edits[i])) {
      mutate_each_byte([](FileEdit& e) -> std::string& { return std::get<TextReplacement>(e).old_text; });
      mutate_each_byte([](FileEdit& e) -> std::string& { return std::get<TextReplacement>(e).new_text; });
    } else {
      mutate_each_byte([](FileEdit& e) -> std::string& { return std::get<FullContent>(e).content; });
    }
  }
  EXPECT_GT(variants, 100u);

  // Moving text between old and new, or between fields, changes it (lengths are prefixed).
  EditSet a, b;
  a.edits.push_back(TextReplacement{"piton/design/a.v", "ab", "c"});
  b.edits.push_back(TextReplacement{"piton/design/a.v", "a", "bc"});
  EXPECT_NE(edits_hash(a), edits_hash(b));

  // Order within a file matters; order across files does not, nor does path spelling.
  EditSet one_file = a;
  one_file.edits.push_back(TextReplacement{"piton/design/a.v", "c", "d"});
  EditSet swapped;
  swapped.edits = {one_file.edits[1], one_file.edits[0]};
  EXPECT_NE(edits_hash(one_file), edits_hash(swapped));
  EditSet two_files = a;
  two_files.edits.push_back(FullContent{"piton/design/b.v", "x"});
  EditSet reordered;
  reordered.edits = {FullContent{"piton/design/./b.v", "x"}, two_files.edits[0]};
  EXPECT_EQ(edits_hash(two_files), edits_hash(reordered));
}

// ---- diff --------------------------------------------------------------------------------

// REQ-EXEC-15: the diff that goes into the task record describes exactly the applied edits.
TEST(UnifiedDiffTest, DiffOfAnEditSetAppliesWithGitAndPatch) {
  EditCheckout checkout;
  EditSet set = sample_edits();
  set.edits.push_back(TextReplacement{kTile, "  wire w20;\n", ""});     // a second hunk
  set.edits.push_back(TextReplacement{kTile, "// tile.v\n", "// tile.v (edited)\n"});
  const std::string diff = unified_diff(set, checkout.root());
  EXPECT_THAT(diff, HasSubstr("--- a/" + std::string(kTile) + "\n+++ b/" + kTile + "\n@@ "));
  EXPECT_THAT(diff, HasSubstr("--- /dev/null\n+++ b/" + std::string(kNew) + "\n"));
  EXPECT_THAT(diff, HasSubstr("\\ No newline at end of file"));
  const Snapshot before = snapshot(checkout.root());

  ProcessResult check = git(checkout.root(), {"apply", "--check", "-"}, diff);
  EXPECT_EQ(check.exit_code, 0) << check.err << diff;
  mace::testing::ProcessOptions patch_options;
  patch_options.stdin_text = diff;
  ProcessResult dry = run_process(
      {"patch", "-p1", "--dry-run", "-d", checkout.root().string()}, patch_options);
  EXPECT_EQ(dry.exit_code, 0) << dry.out << dry.err;
  EXPECT_EQ(snapshot(checkout.root()), before);

  // Applied for real, git's result is exactly what apply_edits writes.
  std::map<std::string, std::string> expected;
  for (const EditedFile& file : compute_edited_files(checkout.root(), set)) {
    expected[file.path.relative] = file.content;
  }
  ASSERT_EQ(git(checkout.root(), {"apply", "-"}, diff).exit_code, 0);
  for (const auto& [path, content] : expected) EXPECT_EQ(read_text(checkout.root() / path), content) << path;
  EXPECT_TRUE(unified_diff(EditSet{}, checkout.root()).empty());
}

}  // namespace
}  // namespace mace::openpiton
