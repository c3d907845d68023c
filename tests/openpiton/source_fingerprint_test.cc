// The checkout's source fingerprint (REQ-VER-12), on small git repositories made here.

#include "openpiton/source_fingerprint.h"

#include "openpiton/checkout_pin.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/child_process.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr const char* kVerilator = "Verilator 5.006 2023-01-22 rev (Debian 5.006-3)";

// Runs git in `dir` with a fixed identity; fails the test on error.
std::string git(const std::string& dir, std::vector<std::string> arguments) {
  std::vector<std::string> argv = {"git",
                                   "-C",
                                   dir,
                                   "-c",
                                   "user.name=MACE test",
                                   "-c",
                                   "user.email=test@mace.invalid",
                                   "-c",
                                   "protocol.file.allow=always",
                                   "-c",
                                   "commit.gpgsign=false"};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  const auto result = mace::testing::run_process(argv);
  EXPECT_EQ(result.exit_code, 0) << "git " << arguments[0] << ": " << result.err;
  return result.out;
}

class SourceFingerprintTest : public ::testing::Test {
 protected:
  void SetUp() override {
    git(root(), {"init", "-q", "-b", "main"});
    write(".gitignore", "build/*\n*.tmp.v\n");
    write("piton/design/l15.v", "module l15; endmodule\n");
    write("piton/tools/bin/sims", "#!/bin/sh\n");
    git(root(), {"add", "-A"});
    git(root(), {"commit", "-q", "-m", "initial"});
  }

  std::string root() const { return dir_.path(); }
  void write(const std::string& relative, const std::string& text) const {
    const fs::path path = fs::path(root()) / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::trunc) << text;
  }
  SourceFingerprint fingerprint(const char* verilator = kVerilator) const {
    return source_fingerprint(fs::path(root()), verilator);
  }

  mace::testing::TempDir dir_;
};

// REQ-VER-12
TEST_F(SourceFingerprintTest, StableAcrossCalls) {
  const auto first = fingerprint();
  EXPECT_THAT(first.digest, SizeIs(64));
  EXPECT_EQ(fingerprint(), first);
  EXPECT_EQ(first.head, git(root(), {"rev-parse", "HEAD"}).substr(0, 40));
  EXPECT_THAT(first.changes, IsEmpty());
  EXPECT_EQ(first.ariane_submodule, "absent");
  EXPECT_EQ(first.verilator_version, kVerilator);
  EXPECT_THAT(first.text(), HasSubstr("head=" + first.head + "\n"));
}

// REQ-VER-12
TEST_F(SourceFingerprintTest, ChangesWithATrackedEditByContent) {
  const auto clean = fingerprint();
  write("piton/design/l15.v", "module l15; wire a; endmodule\n");
  const auto edited = fingerprint();
  EXPECT_NE(edited.digest, clean.digest);
  ASSERT_THAT(edited.changes, SizeIs(1));
  EXPECT_THAT(edited.changes[0], HasSubstr("piton/design/l15.v"));

  write("piton/design/l15.v", "module l15; wire b; endmodule\n");
  EXPECT_NE(fingerprint().digest, edited.digest) << "a different edit of the same file";

  write("piton/design/l15.v", "module l15; endmodule\n");
  EXPECT_EQ(fingerprint().digest, clean.digest) << "restored content";
}

// Staging is not building: only the working tree reaches sims.
TEST_F(SourceFingerprintTest, StagingAnEditDoesNotChangeIt) {
  write("piton/design/l15.v", "module l15; wire a; endmodule\n");
  const auto edited = fingerprint();
  git(root(), {"add", "piton/design/l15.v"});
  EXPECT_EQ(fingerprint().digest, edited.digest);
}

TEST_F(SourceFingerprintTest, ChangesWhenATrackedFileIsDeletedOrMadeExecutable) {
  const auto clean = fingerprint();
  fs::permissions(fs::path(root()) / "piton/design/l15.v", fs::perms::owner_exec,
                  fs::perm_options::add);
  const auto executable = fingerprint();
  EXPECT_NE(executable.digest, clean.digest);
  fs::remove(fs::path(root()) / "piton/design/l15.v");
  const auto deleted = fingerprint();
  EXPECT_NE(deleted.digest, clean.digest);
  EXPECT_NE(deleted.digest, executable.digest);
  EXPECT_THAT(deleted.changes[0], HasSubstr("deleted"));
}

// REQ-VER-12
TEST_F(SourceFingerprintTest, ChangesWithAnUntrackedFileByNameAndContent) {
  const auto clean = fingerprint();
  write("piton/design/new/extra.v", "module extra; endmodule\n");
  const auto untracked = fingerprint();
  EXPECT_NE(untracked.digest, clean.digest);
  ASSERT_THAT(untracked.changes, SizeIs(1));
  EXPECT_THAT(untracked.changes[0], HasSubstr("untracked\tpiton/design/new/extra.v"));

  write("piton/design/new/extra.v", "module extra2; endmodule\n");
  EXPECT_NE(fingerprint().digest, untracked.digest);
  fs::rename(fs::path(root()) / "piton/design/new/extra.v",
             fs::path(root()) / "piton/design/new/other.v");
  EXPECT_NE(fingerprint().digest, untracked.digest);
}

TEST_F(SourceFingerprintTest, HandlesNamesWithSpacesAndNewlines) {
  const auto clean = fingerprint();
  write("piton/design/with space.v", "a\n");
  write("piton/design/with\nnewline.v", "b\n");
  const auto odd = fingerprint();
  EXPECT_NE(odd.digest, clean.digest);
  EXPECT_THAT(odd.changes, SizeIs(2));
  EXPECT_THAT(odd.changes, Contains(HasSubstr("with space.v\tfile:")));
}

// REQ-VER-12: a build writes ignored files; they must not change the fingerprint.
TEST_F(SourceFingerprintTest, UnchangedByIgnoredFiles) {
  const auto clean = fingerprint();
  write("piton/design/l15.tmp.v", "generated\n");
  write("build/manycore/mace_x/obj_dir/Vcmp_top", "binary\n");
  EXPECT_EQ(fingerprint().digest, clean.digest);
}

// REQ-VER-12
TEST_F(SourceFingerprintTest, ChangesWithANewCommit) {
  const auto first = fingerprint();
  write("piton/design/l15.v", "module l15; wire a; endmodule\n");
  git(root(), {"commit", "-q", "-a", "-m", "second"});
  const auto second = fingerprint();
  EXPECT_NE(second.head, first.head);
  EXPECT_NE(second.digest, first.digest);
  EXPECT_THAT(second.changes, IsEmpty());
  git(root(), {"commit", "-q", "--allow-empty", "-m", "empty"});
  EXPECT_NE(fingerprint().digest, second.digest) << "even a commit that changes no file";
}

// REQ-VER-12
TEST_F(SourceFingerprintTest, ChangesWithTheVerilatorVersion) {
  EXPECT_NE(fingerprint("Verilator 5.006 2023-01-22 rev (Debian 5.006-3)").digest,
            fingerprint("Verilator 5.008 2023-03-04 rev v5.008").digest);
}

TEST_F(SourceFingerprintTest, WorksFromASubdirectoryOfTheCheckout) {
  write("piton/design/l15.v", "module l15; wire a; endmodule\n");
  EXPECT_EQ(source_fingerprint(fs::path(root()) / "piton", kVerilator).digest,
            fingerprint().digest);
}

TEST(SourceFingerprint, NotAGitWorkTreeIsAnError) {
  mace::testing::TempDir dir;
  EXPECT_THROW(source_fingerprint(fs::path(dir.path()), kVerilator), std::runtime_error);
}

TEST(SourceFingerprint, RepositoryWithoutCommits) {
  mace::testing::TempDir dir;
  git(dir.path(), {"init", "-q"});
  dir.write("a.v", "x\n");
  const auto fingerprint = source_fingerprint(fs::path(dir.path()), kVerilator);
  EXPECT_EQ(fingerprint.head, "none");
  EXPECT_THAT(fingerprint.changes, SizeIs(1));
}

// REQ-VER-12: the Ariane submodule's commit, and edits inside it.
TEST_F(SourceFingerprintTest, FollowsTheArianeSubmodule) {
  mace::testing::TempDir upstream;
  git(upstream.path(), {"init", "-q", "-b", "main"});
  upstream.write("ariane.sv", "module ariane; endmodule\n");
  git(upstream.path(), {"add", "-A"});
  git(upstream.path(), {"commit", "-q", "-m", "ariane"});
  git(root(), {"submodule", "add", "-q", upstream.path(), std::string(kArianeSubmodulePath)});
  git(root(), {"commit", "-q", "-m", "add ariane"});

  const std::string ariane = root() + "/" + std::string(kArianeSubmodulePath);
  const auto added = fingerprint();
  EXPECT_EQ(added.ariane_submodule, git(ariane, {"rev-parse", "HEAD"}).substr(0, 40));
  EXPECT_THAT(added.changes, IsEmpty());

  git(ariane, {"commit", "-q", "--allow-empty", "-m", "moved"});
  const auto moved = fingerprint();
  EXPECT_NE(moved.ariane_submodule, added.ariane_submodule);
  EXPECT_NE(moved.digest, added.digest);

  write(std::string(kArianeSubmodulePath) + "/ariane.sv", "module ariane; wire x; endmodule\n");
  const auto edited = fingerprint();
  EXPECT_NE(edited.digest, moved.digest);
  EXPECT_THAT(edited.changes,
              Contains(HasSubstr(std::string(kArianeSubmodulePath) + "/ariane.sv\tfile:")));
  write(std::string(kArianeSubmodulePath) + "/ariane.sv", "module ariane; wire y; endmodule\n");
  EXPECT_NE(fingerprint().digest, edited.digest) << "content inside the submodule counts";
}

// REQ-TOOL-8 (this version's commit): a checkout at another commit, and one without the
// Ariane submodule, are named; the submodule once added is not.
TEST_F(SourceFingerprintTest, CheckoutPinNotesNameTheCommitAndTheMissingAriane) {
  const std::string head = git(root(), {"rev-parse", "HEAD"}).substr(0, 12);
  auto notes = checkout_pin_notes(root());
  ASSERT_THAT(notes, SizeIs(2));
  EXPECT_THAT(notes[0].text, HasSubstr("is at commit " + head + ", not 41a14a05"));
  EXPECT_THAT(notes[1].text, HasSubstr("has no Ariane submodule checked out"));

  mace::testing::TempDir upstream;
  git(upstream.path(), {"init", "-q", "-b", "main"});
  upstream.write("ariane.sv", "module ariane; endmodule\n");
  git(upstream.path(), {"add", "-A"});
  git(upstream.path(), {"commit", "-q", "-m", "ariane"});
  git(root(), {"submodule", "add", "-q", upstream.path(), std::string(kArianeSubmodulePath)});
  EXPECT_THAT(checkout_pin_notes(root()), SizeIs(1));

  mace::testing::TempDir not_git;
  notes = checkout_pin_notes(not_git.path());
  ASSERT_THAT(notes, SizeIs(2));
  EXPECT_THAT(notes[0].text, HasSubstr("its commit cannot be read"));
}

}  // namespace
}  // namespace mace::openpiton
