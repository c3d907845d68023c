#include "os/file_io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"

namespace mace::os {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

void write_file(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

std::string numbered_lines(int from, int to) {
  std::string s;
  for (int i = from; i <= to; ++i) s += "line " + std::to_string(i) + "\n";
  return s;
}

mode_t mode_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(ReadFileTest, ReadsWholeFilesAndTheirMode) {
  mace::testing::TempDir dir;
  write_file(dir.file("a"), std::string("x\0y", 3));
  ::chmod(dir.file("a").c_str(), 0640);
  FileMeta meta;
  EXPECT_EQ(read_file(dir.file("a"), kNoSizeLimit, &meta), std::string("x\0y", 3));
  EXPECT_EQ(meta.mode, 0640u);
  EXPECT_EQ(meta.uid, ::getuid());
}

TEST(ReadFileTest, MissingFileIsAnErrorNamingIt) {
  mace::testing::TempDir dir;
  try {
    read_file(dir.file("nope"));
    FAIL() << "no error";
  } catch (const FileError& e) {
    EXPECT_EQ(e.error(), ENOENT);
    EXPECT_EQ(std::string(e.what()), "cannot open " + dir.file("nope") + ": No such file or directory");
  }
  EXPECT_EQ(read_file_if_exists(dir.file("nope")), std::nullopt);
  EXPECT_EQ(try_read_file(dir.file("nope")), std::nullopt);
}

TEST(ReadFileTest, RefusesWhatIsNotARegularFileWithoutBlocking) {
  mace::testing::TempDir dir;
  EXPECT_THROW(read_file(dir.path()), FileError);
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  // Opening a FIFO for reading would wait for a writer forever.
  try {
    read_file_if_exists(dir.file("fifo"));
    FAIL() << "no error";
  } catch (const FileError& e) {
    EXPECT_THAT(e.what(), HasSubstr("is not a regular file"));
  }
  EXPECT_EQ(try_read_file(dir.file("fifo")), std::nullopt);
  EXPECT_EQ(read_file_tail(dir.file("fifo"), 10, 100), "");
}

TEST(ReadFileTest, SizeLimitRefusesLargerFiles) {
  mace::testing::TempDir dir;
  write_file(dir.file("big"), std::string(1001, 'x'));
  EXPECT_EQ(read_file(dir.file("big"), 1001).size(), 1001u);
  try {
    read_file(dir.file("big"), 1000);
    FAIL() << "no error";
  } catch (const FileError& e) {
    EXPECT_EQ(e.error(), EFBIG);
    EXPECT_THAT(e.what(), HasSubstr("is larger than 1000 bytes"));
  }
  EXPECT_EQ(try_read_file(dir.file("big"), 1000), std::nullopt);
}

TEST(FileTailTest, KeepsTheLastLines) {
  mace::testing::TempDir dir;
  write_file(dir.file("log"), numbered_lines(1, 1000));
  EXPECT_EQ(read_file_tail(dir.file("log"), 3, 4096), "line 998\nline 999\nline 1000\n");
  EXPECT_EQ(read_file_tail(dir.file("log"), 200, 1 << 20), numbered_lines(801, 1000));
}

TEST(FileTailTest, ShortFileAndLastLineWithoutNewline) {
  mace::testing::TempDir dir;
  write_file(dir.file("a"), "one\ntwo");
  EXPECT_EQ(read_file_tail(dir.file("a"), 10, 4096), "one\ntwo");
  EXPECT_EQ(read_file_tail(dir.file("a"), 1, 4096), "two");
  write_file(dir.file("empty"), "");
  EXPECT_EQ(read_file_tail(dir.file("empty"), 10, 4096), "");
  EXPECT_EQ(read_file_tail(dir.file("missing"), 10, 4096), "");
  EXPECT_EQ(read_file_tail(dir.path(), 10, 4096), "");  // a directory
}

TEST(FileTailTest, ByteCapDropsTheCutLine) {
  mace::testing::TempDir dir;
  write_file(dir.file("log"), numbered_lines(1, 100000));  // ~1.2 MB, read in 16 KiB blocks
  std::string tail = read_file_tail(dir.file("log"), 1000000, 100);
  EXPECT_LE(tail.size(), 100u);
  EXPECT_EQ(tail.rfind("line 100000\n"), tail.size() - 12);
  EXPECT_EQ(tail.substr(0, 5), "line ");  // the partial first line was dropped
  // One huge line: kept (cut) rather than returning nothing.
  write_file(dir.file("one"), std::string(50000, 'x'));
  EXPECT_EQ(read_file_tail(dir.file("one"), 5, 1000), std::string(1000, 'x'));
}

TEST(FileTailTest, EndIsTheTailWithoutALineLimit) {
  mace::testing::TempDir dir;
  write_file(dir.file("log"), numbered_lines(1, 100));
  EXPECT_EQ(read_file_end(dir.file("log"), 1 << 20), numbered_lines(1, 100));
  EXPECT_EQ(read_file_end(dir.file("log"), 20), "line 99\nline 100\n");
}

TEST(FirstLineTest, StopsAtTheFirstLineEnd) {
  mace::testing::TempDir dir;
  write_file(dir.file("status.log"), "Diag: x  PASS\r\nmore\n");
  EXPECT_EQ(read_first_line(dir.file("status.log")), "Diag: x  PASS");
  write_file(dir.file("long"), std::string(10000, 'y'));
  EXPECT_EQ(read_first_line(dir.file("long"), 100), std::string(100, 'y'));
  EXPECT_EQ(read_first_line(dir.file("missing")), "");
}

TEST(AtomicWriteTest, ReplacesTheFileKeepingTheGivenMode) {
  mace::testing::TempDir dir;
  write_file(dir.file("f"), "old");
  std::vector<std::string> steps;
  write_file_atomically(dir.file("f"), "new",
                        {.meta = FileMeta{0600, ::getuid(), ::getgid()},
                         .on_step = [&](std::string_view s) { steps.emplace_back(s); }});
  EXPECT_EQ(read_file(dir.file("f")), "new");
  EXPECT_EQ(mode_of(dir.file("f")), 0600u);
  EXPECT_THAT(steps, ::testing::ElementsAre("temp", "rename"));
  EXPECT_FALSE(fs::exists(dir.file(".f.tmp")));
  write_file_atomically(dir.file("g"), "fresh");
  EXPECT_EQ(mode_of(dir.file("g")), 0644u);
}

TEST(AtomicWriteTest, ReplacesASymlinkInsteadOfWritingThroughIt) {
  mace::testing::TempDir dir;
  write_file(dir.file("target"), "keep");
  fs::create_symlink(dir.file("target"), dir.file("link"));
  write_file_atomically(dir.file("link"), "mine");
  EXPECT_EQ(read_file(dir.file("target")), "keep");
  EXPECT_FALSE(fs::is_symlink(dir.file("link")));
  EXPECT_EQ(read_file(dir.file("link")), "mine");
}

TEST(AtomicWriteTest, AFailureLeavesTheTargetAndNoTemporary) {
  mace::testing::TempDir dir;
  write_file(dir.file("f"), "old");
  // The named temporary cannot be made: its directory is missing.
  EXPECT_THROW(write_file_atomically(dir.file("f"), "new", {.temp_path = dir.file("no/such/tmp")}),
               FileError);
  EXPECT_EQ(read_file(dir.file("f")), "old");
  // The target's directory is missing.
  EXPECT_THROW(write_file_atomically(dir.file("missing/f"), "new"), FileError);
}

TEST(WriteFileTest, WritesInPlaceKeepingTheInodeAndMode) {
  mace::testing::TempDir dir;
  write_file(dir.file("f"), "a long old content");
  ::chmod(dir.file("f").c_str(), 0755);
  struct stat before {};
  ::stat(dir.file("f").c_str(), &before);
  os::write_file(dir.file("f"), "new");
  struct stat after {};
  ::stat(dir.file("f").c_str(), &after);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(mode_of(dir.file("f")), 0755u);
  EXPECT_EQ(read_file(dir.file("f")), "new");
  os::write_file(dir.file("private"), "p", 0600);
  EXPECT_EQ(mode_of(dir.file("private")), 0600u);
  EXPECT_THROW(os::write_file(dir.file("no/dir/f"), "x"), FileError);
}

TEST(WriteNewFileTest, ReplacesAnyFileWithTheGivenMode) {
  mace::testing::TempDir dir;
  write_file(dir.file("j"), "previous");
  write_new_file(dir.file("j"), "journal", 0600);
  EXPECT_EQ(read_file(dir.file("j")), "journal");
  EXPECT_EQ(mode_of(dir.file("j")), 0600u);
}

}  // namespace
}  // namespace mace::os
